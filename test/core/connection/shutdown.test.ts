import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { assertState, Cleanup, connect, isAlive, stdioDefinition, tempDir } from './helpers';

describe('ServerConnection shutdown', () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('ends a SIGTERM-ignoring server and its SIGTERM-ignoring grandchild', async function () {
    this.timeout(15_000);
    const pidFile = path.join(tempDir(cleanup), 'grandchild.pid');
    const { connection, logger } = connect(cleanup, stdioDefinition(['--ignore-sigterm', '--spawn-grandchild', pidFile]));
    assertState(await connection.start(), 'running');
    const serverPid = connection.pid;
    assert.ok(serverPid !== undefined);
    const grandchildPid = Number(fs.readFileSync(pidFile, 'utf8'));
    assert.ok(isAlive(serverPid) && isAlive(grandchildPid));
    // Safety net should this test fail: never leave these two behind.
    cleanup.add(() => [serverPid, grandchildPid].forEach((pid) => isAlive(pid) && process.kill(pid, 'SIGKILL')));

    const started = Date.now();
    await connection.dispose();
    const elapsed = Date.now() - started;
    assert.equal(isAlive(grandchildPid), false, 'grandchild still running');
    assert.equal(isAlive(serverPid), false, 'server still running');
    assert.ok(elapsed >= 1900, `SIGKILL came after ${elapsed} ms, before the 2 s grace period`);
    assert.match(logger.text(), /did not exit within 2000 ms of SIGTERM; sending SIGKILL/);
    assert.equal(connection.state.kind, 'stopped');
  });

  it('is idempotent', async () => {
    const { connection, events } = connect(cleanup, stdioDefinition());
    await connection.start();
    const pid = connection.pid;
    const first = connection.dispose();
    assert.equal(connection.dispose(), first);
    await first;
    await connection.dispose();
    await connection.stop();
    assert.equal(pid === undefined ? true : isAlive(pid), false);
    assert.deepEqual(
      events.map((event) => event.state.kind),
      ['starting', 'running', 'stopped'],
    );
    assert.equal((await connection.start()).kind, 'stopped', 'a disposed connection does not start again');
  });

  it('stop() then start() runs the server again', async () => {
    const { connection } = connect(cleanup, stdioDefinition());
    await connection.start();
    const firstPid = connection.pid;
    await connection.stop();
    assert.equal(connection.pid, undefined);
    assertState(await connection.start(), 'running');
    assert.notEqual(connection.pid, firstPid);
  });
});
