import assert from 'node:assert/strict';
import { isConnectionError, MAX_TOTAL_TIMEOUT_FACTOR } from '../../../src/core/connection';
import { assertState, Cleanup, connect, isAlive, stdioDefinition, stdioStats, textOf } from './helpers';

describe('ServerConnection timeouts', () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('gives up on a server that never answers initialize after connectMs, and ends its process', async () => {
    const { connection, events } = connect(cleanup, stdioDefinition(['--hang-initialize'], { timeouts: { connectMs: 500, requestMs: 10_000 } }));
    const started = Date.now();
    const starting = connection.start();
    const pid = connection.pid;
    assert.ok(pid !== undefined, 'spawned synchronously');
    const state = await starting;
    const elapsed = Date.now() - started;
    assertState(state, 'error');
    assert.equal(state.code, 'CONNECT_TIMEOUT');
    assert.match(state.message, /timed out after 500 ms waiting for initialize/);
    assert.ok(elapsed >= 450 && elapsed < 4000, `took ${elapsed} ms`);
    assert.deepEqual(events.map((event) => event.state.kind), ['starting', 'error']);
    assert.equal(isAlive(pid), false, 'the hanging server was left running');
  });

  it('times out a request after requestMs and tells the server with notifications/cancelled', async () => {
    const { connection } = connect(cleanup, stdioDefinition([], { timeouts: { connectMs: 10_000, requestMs: 300 } }));
    await connection.start();
    const started = Date.now();
    await assert.rejects(connection.callTool('slow', { ms: 5000 }), (error) => {
      assert.ok(isConnectionError(error, 'REQUEST_TIMEOUT'), String(error));
      assert.match(error.message, /no response within 300 ms/);
      return true;
    });
    assert.ok(Date.now() - started < 2000);
    const stats = await stdioStats(connection);
    assert.equal(stats.cancellations, 1);
    assert.match(stats.lastCancelReason ?? '', /timed out/i);
    assertState(connection.state, 'running');
  });

  it("cancels a request when the caller's signal aborts, and tells the server", async () => {
    const { connection } = connect(cleanup, stdioDefinition());
    await connection.start();
    const controller = new AbortController();
    const call = connection.callTool('slow', { ms: 5000 }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user pressed stop')), 100);
    await assert.rejects(call, (error) => isConnectionError(error, 'CANCELLED'));
    const stats = await stdioStats(connection);
    assert.equal(stats.cancellations, 1);
    assert.match(stats.lastCancelReason ?? '', /user pressed stop/);
  });

  it('lets progress notifications extend a call beyond requestMs', async () => {
    const { connection } = connect(cleanup, stdioDefinition([], { timeouts: { connectMs: 10_000, requestMs: 200 } }));
    await connection.start();
    const progress: number[] = [];
    const result = await connection.callTool('slow', { ms: 700, progressEveryMs: 50 }, { onProgress: (p) => progress.push(p.progress) });
    assert.equal(textOf(result), 'slept 700');
    assert.ok(progress.length >= 5, `only ${progress.length} progress notifications`);
    assert.deepEqual(progress, [...progress].sort((a, b) => a - b));
    assert.equal((await stdioStats(connection)).cancellations, 0);
  });

  it(`stops a call with progress after ${MAX_TOTAL_TIMEOUT_FACTOR} x requestMs, and tells the server`, async () => {
    const { connection } = connect(cleanup, stdioDefinition([], { timeouts: { connectMs: 10_000, requestMs: 150 } }));
    await connection.start();
    const started = Date.now();
    await assert.rejects(connection.callTool('slow', { ms: 5000, progressEveryMs: 30 }), (error) => {
      assert.ok(isConnectionError(error, 'REQUEST_TIMEOUT'), String(error));
      assert.match(error.message, /within 1500 ms \(the maximum even while the server reports progress\)/);
      return true;
    });
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 1450 && elapsed < 4000, `took ${elapsed} ms`);
    assert.equal((await stdioStats(connection)).cancellations, 1);
  });
});
