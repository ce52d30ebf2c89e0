import assert from 'node:assert/strict';
import path from 'node:path';
import { Cleanup, connect, FIXTURES, MemoryLogger, stdioDefinition, textOf } from './helpers';

const MODERN_SERVER = path.join(FIXTURES, 'modern-server.mjs');

describe('JSON-RPC traffic at trace level', function () {
  this.timeout(20_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('logs the handshake and every request and response, both ways, with secrets redacted', async () => {
    const secret = 'sk-trace-secret-42';
    const logger = new MemoryLogger();
    const { connection } = connect(cleanup, stdioDefinition([], { secrets: [secret] }), { logger });
    await connection.start();
    assert.equal(textOf(await connection.sendToolCall('echo', { text: `say ${secret}` })), `say ${secret}`);
    const trace = logger.entries.filter((entry) => entry.level === 'trace').map((entry) => entry.message);
    assert.ok(
      trace.some((line) => line.includes('→ {') && line.includes('"method":"initialize"')),
      'initialize request',
    );
    assert.ok(
      trace.some((line) => line.includes('← {') && line.includes('"protocolVersion"')),
      'initialize result',
    );
    assert.ok(
      trace.some((line) => line.includes('→ {') && line.includes('"method":"tools/call"') && line.includes('say ***')),
      'the call, redacted',
    );
    assert.ok(
      trace.some((line) => line.includes('← {') && line.includes('say ***')),
      'the result, redacted',
    );
    assert.ok(!logger.text().includes(secret));
  });
});

describe('a 2026-07-28 server that leaves resultType out of its results', function () {
  this.timeout(20_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('is read as complete, said once in the log, and its calls work (the SDK alone refuses them)', async () => {
    const logger = new MemoryLogger();
    const { connection } = connect(cleanup, stdioDefinition([], { name: 'lax', args: [MODERN_SERVER, '--omit-result-type'] }), {
      logger,
    });
    const state = await connection.start();
    assert.equal(state.kind === 'running' ? state.era : state.kind, 'modern');
    assert.equal(textOf(await connection.sendToolCall('echo', { text: 'one' })), 'one');
    assert.equal(textOf(await connection.sendToolCall('echo', { text: 'two' })), 'two');
    const warnings = logger.entries.filter((entry) => /leaves resultType out/.test(entry.message));
    assert.equal(warnings.length, 1, logger.text());
  });
});
