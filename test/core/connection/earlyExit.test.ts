// A stdio process that exits before reading its stdin makes the initialize write fail (EPIPE,
// ECONNRESET), often before Node has seen the exit. Either way the connection must report the exit
// (code and stderr tail), never the write error. Each case runs many times: the race is timing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { StdioProcessTransport } from '../../../src/core/connection/link/stdioTransport';
import { assertState, Cleanup, connect, stdioDefinition } from './helpers';
import { until } from '../support/poll';

const ITERATIONS = 20;

function shDefinition(script: string) {
  return stdioDefinition([], {
    name: 'early-exit',
    command: 'sh',
    args: ['-c', script],
    reconnect: { maxAttempts: 0, initialDelayMs: 20, maxDelayMs: 100 },
  });
}

describe('stdio server that exits before reading stdin', function () {
  if (process.platform === 'win32') return;
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it(`reports PROCESS_EXITED with the stderr tail for \`echo 'fatal: no token' >&2; exit 5\` (${ITERATIONS}×)`, async () => {
    for (let i = 0; i < ITERATIONS; i += 1) {
      const { connection } = connect(cleanup, shDefinition("echo 'fatal: no token' >&2; exit 5"));
      const state = await connection.start();
      assertState(state, 'error');
      assert.equal(state.code, 'PROCESS_EXITED', `iteration ${i}: ${state.message}`);
      assert.match(state.message, /exited with code 5 during initialize/, `iteration ${i}`);
      assert.match(state.message, /fatal: no token/, `iteration ${i}`);
      assert.doesNotMatch(state.message, /EPIPE|ECONNRESET/, `iteration ${i}`);
      assert.deepEqual(state.stderrTail, ['fatal: no token'], `iteration ${i}`);
      await cleanup.run();
    }
  });

  it(`reports PROCESS_EXITED for \`exit 5\` (${ITERATIONS}×)`, async () => {
    for (let i = 0; i < ITERATIONS; i += 1) {
      const { connection } = connect(cleanup, shDefinition('exit 5'));
      const state = await connection.start();
      assertState(state, 'error');
      assert.equal(state.code, 'PROCESS_EXITED', `iteration ${i}: ${state.message}`);
      assert.match(state.message, /exited with code 5 during initialize/, `iteration ${i}`);
      assert.doesNotMatch(state.message, /EPIPE|ECONNRESET/, `iteration ${i}`);
      assert.deepEqual(state.stderrTail, [], `iteration ${i}`);
      await cleanup.run();
    }
  });

  it(`reports PROCESS_EXITED with code 0 for \`true\` (${ITERATIONS}×)`, async () => {
    for (let i = 0; i < ITERATIONS; i += 1) {
      const { connection } = connect(
        cleanup,
        stdioDefinition([], {
          name: 'true',
          command: 'true',
          args: [],
          reconnect: { maxAttempts: 0, initialDelayMs: 20, maxDelayMs: 100 },
        }),
      );
      const state = await connection.start();
      assertState(state, 'error');
      assert.equal(state.code, 'PROCESS_EXITED', `iteration ${i}: ${state.message}`);
      assert.match(state.message, /exited with code 0 during initialize/, `iteration ${i}`);
      await cleanup.run();
    }
  });

  it('a failed stdin write waits for the exit, then rejects as CONNECTION_LOST', async () => {
    const lines: string[] = [];
    const transport = new StdioProcessTransport({
      command: 'sh',
      args: ['-c', "echo 'fatal: no token' >&2; exec 0<&-; sleep 0.3; exit 7"],
      env: process.env,
      cwd: process.cwd(),
      onStderrLine: (line) => lines.push(line),
    });
    cleanup.add(() => transport.close());
    let closed = false;
    transport.onclose = () => (closed = true);
    await transport.start();
    // Wait until sh has closed its stdin, so that the write fails while the process still runs.
    const pid = transport.pid;
    assert.ok(pid !== undefined);
    await until(() => !fs.existsSync(`/proc/${pid}/fd/0`), 5_000, 'sh closing its stdin');
    const big = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { data: 'x'.repeat(1 << 20) } };
    await assert.rejects(transport.send(big), (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.equal((error as { code?: string }).code, 'CONNECTION_LOST');
      assert.match(error.message, /exited with code 7/);
      return true;
    });
    assert.deepEqual(transport.exitStatus, { code: 7, signal: null });
    assert.ok(closed, 'onclose fired before send rejected');
    assert.deepEqual(lines, ['fatal: no token']);
  });
});
