import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { backoffDelay, checkToolArguments, LineRingBuffer, isProcessAlive, killProcessTree } from '../../../src/core/connection';
import { translateRequestError } from '../../../src/core/connection/link/requestErrors';
import { Emitter } from '../../../src/core/base/events';
import { redactingLogger, redactSecrets } from '../../../src/core/base/logging';
import { MemoryLogger } from './helpers';

describe('connection building blocks', () => {
  describe('backoffDelay', () => {
    const settings = { maxAttempts: 10, initialDelayMs: 100, maxDelayMs: 1000 };
    it('doubles from initialDelayMs up to maxDelayMs', () => {
      assert.deepEqual(
        [1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(attempt, settings, () => 1)),
        [100, 200, 400, 800, 1000, 1000],
      );
    });
    it('jitters within the upper half', () => {
      assert.deepEqual(
        [1, 2, 5].map((attempt) => backoffDelay(attempt, settings, () => 0)),
        [50, 100, 500],
      );
      for (let i = 0; i < 100; i++) {
        const delay = backoffDelay(3, settings);
        assert.ok(delay >= 200 && delay <= 400, String(delay));
      }
    });
    it('stays finite for absurd attempt numbers', () =>
      assert.equal(
        backoffDelay(10_000, settings, () => 1),
        1000,
      ));
  });

  describe('LineRingBuffer', () => {
    it('keeps the last capacity lines in order', () => {
      const buffer = new LineRingBuffer(3);
      ['a', 'b'].forEach((line) => buffer.push(line));
      assert.deepEqual(buffer.tail(), ['a', 'b']);
      ['c', 'd', 'e'].forEach((line) => buffer.push(line));
      assert.deepEqual(buffer.tail(), ['c', 'd', 'e']);
      assert.deepEqual(buffer.tail(2), ['d', 'e']);
      assert.deepEqual(buffer.tail(0), []);
      assert.equal(buffer.size, 3);
      buffer.clear();
      assert.deepEqual(buffer.tail(), []);
    });
    it('rejects a useless capacity', () => assert.throws(() => new LineRingBuffer(0), RangeError));
  });

  describe('redaction', () => {
    it('replaces every secret, longest first', () => {
      assert.equal(redactSecrets('key=abc123 and abc', ['abc', 'abc123']), 'key=*** and ***');
      assert.equal(redactSecrets('nothing', ['']), 'nothing');
    });
    it('wraps a logger', () => {
      const memory = new MemoryLogger();
      redactingLogger(memory, ['hunter2'], '[s] ').warn('password hunter2');
      assert.deepEqual(memory.entries, [{ level: 'warn', message: '[s] password ***' }]);
    });
  });

  describe('Emitter', () => {
    it('delivers to listeners until disposed, and survives a throwing listener', () => {
      const errors: unknown[] = [];
      const emitter = new Emitter<number>((error) => errors.push(error));
      const seen: number[] = [];
      emitter.event(() => {
        throw new Error('bad listener');
      });
      const subscription = emitter.event((value) => seen.push(value));
      emitter.fire(1);
      subscription.dispose();
      emitter.fire(2);
      assert.deepEqual(seen, [1]);
      assert.equal(errors.length, 2);
      emitter.dispose();
      assert.equal(emitter.listenerCount, 0);
    });
  });

  describe('checkToolArguments', () => {
    const tool = { inputSchema: { type: 'object' as const, properties: { a: {}, b: {} }, required: ['a', 'b'] } };
    it('accepts complete arguments', () => assert.deepEqual(checkToolArguments(tool, { a: 1, b: null }), []));
    it('names missing required arguments', () => {
      assert.deepEqual(checkToolArguments(tool, { a: 1 }), ['missing required argument `b`']);
      assert.deepEqual(checkToolArguments(tool, { a: undefined }), ['missing required arguments `a`, `b`']);
    });
    it('requires an object', () => {
      assert.deepEqual(checkToolArguments(tool, null), ['arguments must be an object, got null']);
      assert.deepEqual(checkToolArguments(tool, []), ['arguments must be an object, got an array']);
    });
    it('accepts anything when nothing is required', () =>
      assert.deepEqual(checkToolArguments({ inputSchema: { type: 'object' } }, {}), []));
  });

  describe('translateRequestError', () => {
    const context = { what: 'x', timeoutMs: 5, maxTotalMs: 50, closing: false };
    it('marks only undelivered requests as retryable', () => {
      assert.equal(translateRequestError(new SdkError(SdkErrorCode.NotConnected, 'Not connected'), context).notSent, true);
      const refused = Object.assign(new TypeError('fetch failed'), {
        cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      });
      assert.equal(translateRequestError(refused, context).notSent, true);
      assert.equal(translateRequestError(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'), context).notSent, false);
      assert.equal(
        translateRequestError(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'), context).code,
        'CONNECTION_LOST',
      );
      assert.equal(translateRequestError(new SdkError(SdkErrorCode.RequestTimeout, 'timeout'), context).code, 'REQUEST_TIMEOUT');
      assert.equal(translateRequestError(new ProtocolError(-32602, 'bad'), context).code, 'SERVER_ERROR');
      assert.equal(
        translateRequestError(new SdkError(SdkErrorCode.RequestTimeout, 'timeout'), { ...context, ended: 'caller' }).code,
        'CANCELLED',
      );
    });
  });

  describe('killProcessTree', () => {
    it('ends a process that ignores SIGTERM, and its children, after the grace period', async () => {
      const script = `process.on('SIGTERM', () => {}); const { spawn } = require('child_process');
        const c = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: 'ignore' });
        console.log(c.pid); setInterval(() => {}, 1000);`;
      const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
      const childPid = await new Promise<number>((resolve) =>
        parent.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))),
      );
      assert.ok(parent.pid !== undefined && isProcessAlive(parent.pid) && isProcessAlive(childPid));
      const started = Date.now();
      await killProcessTree(parent.pid, { graceMs: 300 });
      assert.ok(Date.now() - started >= 300);
      assert.equal(isProcessAlive(parent.pid), false);
      assert.equal(isProcessAlive(childPid), false);
    });
  });
});
