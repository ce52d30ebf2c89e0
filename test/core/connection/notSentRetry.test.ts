// Issue: a call to a stdio server that had just died failed with CONNECTION_LOST although it never
// left the process; such a call waits for the reconnect and goes through. (A call written into the
// pipe of a process that is dying but not yet dead is in flight: nobody can know whether it was
// read, so it may fail; the soak bench counts those separately.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Cleanup, connect, stdioDefinition, textOf, waitForState } from '../connection/helpers';
import { until } from '../support/poll';

describe('calls that never reached the server', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('a call to a server that stopped reading its stdin waits for the reconnect and goes through (5 rounds)', async () => {
    const { connection } = connect(
      cleanup,
      stdioDefinition(['--hostile-tools'], { reconnect: { maxAttempts: 5, initialDelayMs: 20, maxDelayMs: 100 } }),
    );
    await connection.start();
    for (let round = 0; round < 5; round++) {
      const pid = connection.pid;
      assert.ok(pid !== undefined);
      await connection.sendToolCall('close_stdin');
      await until(() => !fs.existsSync(`/proc/${pid}/fd/0`), 5_000, 'the server closing its stdin');
      // The server is alive but reads nothing: this call cannot reach it, and must not fail.
      assert.equal(textOf(await connection.sendToolCall('echo', { text: `round ${round}` })), `round ${round}`);
      assert.notEqual(connection.pid, pid, 'served by a new process');
    }
  });

  it('a call made right after the server was seen to exit waits for the reconnect and goes through (5 rounds)', async () => {
    const { connection, logger } = connect(
      cleanup,
      stdioDefinition([], { reconnect: { maxAttempts: 5, initialDelayMs: 20, maxDelayMs: 100 } }),
    );
    await connection.start();
    for (let round = 0; round < 5; round++) {
      const pid = connection.pid;
      assert.ok(pid !== undefined);
      process.kill(pid, 'SIGKILL');
      await until(() => logger.entries.some((entry) => entry.message.includes(`process ${pid} exited`)), 5_000, 'the exit to be seen');
      assert.equal(textOf(await connection.sendToolCall('echo', { text: `round ${round}` })), `round ${round}`);
      await waitForState(connection, (state) => state.kind === 'running');
    }
  });
});
