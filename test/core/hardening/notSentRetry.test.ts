// Issue: a call to a stdio server that had just died failed with CONNECTION_LOST although it never
// left the process; such a call waits for the reconnect and goes through.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Cleanup, connect, stdioDefinition, textOf, waitForState } from '../connection/helpers';

describe('calls that never reached the server', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  /**
   * Blocks until the kernel has closed every file of the process (all its threads are gone), before
   * Node has noticed the exit. A zombie leader alone is not enough: its other threads may still
   * hold the pipe, and a message written then is in flight, not unsent.
   */
  function waitUntilDead(pid: number): void {
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      try {
        if (fs.readdirSync(`/proc/${pid}/task`).length <= 1 && fs.readdirSync(`/proc/${pid}/fd`).length === 0) return;
      } catch {
        return;
      }
    }
    throw new Error(`process ${pid} did not die`);
  }

  it('wait for the reconnect and go through, when the server died just before the call (10 rounds)', async () => {
    const { connection } = connect(cleanup, stdioDefinition([], { reconnect: { maxAttempts: 5, initialDelayMs: 20, maxDelayMs: 100 } }));
    await connection.start();
    for (let round = 0; round < 10; round++) {
      const pid = connection.pid;
      assert.ok(pid !== undefined);
      process.kill(pid, 'SIGKILL');
      waitUntilDead(pid);
      // Even rounds: sent before Node has seen the exit (the write fails); odd rounds: after it
      // saw the exit but before the connection was declared lost.
      if (round % 2 === 1) await new Promise((resolve) => setImmediate(resolve));
      const result = await connection.callTool('echo', { text: `round ${round}` });
      assert.equal(textOf(result), `round ${round}`);
      await waitForState(connection, (state) => state.kind === 'running');
    }
    assert.ok(connection.diagnostics.connectAttempts >= 11);
  });
});
