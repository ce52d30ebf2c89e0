import assert from 'node:assert/strict';
import { isConnectionError, MAX_TOTAL_TIMEOUT_FACTOR } from '../../../src/core/connection';
import { FakeClock } from '../support/fakeClock';
import { assertState, Cleanup, connect, isAlive, stdioDefinition, stdioStats, textOf } from './helpers';

describe('ServerConnection timeouts', () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('gives up on a server that never answers initialize after connectMs, and ends its process', async () => {
    const clock = new FakeClock();
    const { connection, events } = connect(cleanup, stdioDefinition(['--hang-initialize'], { timeouts: { connectMs: 500, requestMs: 10_000 } }), { clock });
    const starting = connection.start();
    const pid = connection.pid;
    assert.ok(pid !== undefined, 'spawned synchronously');
    clock.advance(499);
    assert.equal(connection.state.kind, 'starting');
    clock.advance(1);
    const state = await starting;
    assertState(state, 'error');
    assert.equal(state.code, 'CONNECT_TIMEOUT');
    assert.match(state.message, /timed out after 500 ms waiting for initialize/);
    assert.deepEqual(events.map((event) => event.state.kind), ['starting', 'error']);
    assert.equal(isAlive(pid), false, 'the hanging server was left running');
  });

  it('times out a request after requestMs and tells the server with notifications/cancelled', async () => {
    const { connection } = connect(cleanup, stdioDefinition([], { timeouts: { connectMs: 10_000, requestMs: 300 } }));
    await connection.start();
    const started = Date.now();
    await assert.rejects(connection.sendToolCall('slow', { ms: 5000 }), (error) => {
      assert.ok(isConnectionError(error, 'REQUEST_TIMEOUT'), String(error));
      assert.match(error.message, /no response within 300 ms/);
      return true;
    });
    assert.ok(Date.now() - started < 5000, 'answered before the tool would have finished');
    const stats = await stdioStats(connection);
    assert.equal(stats.cancellations, 1);
    assert.match(stats.lastCancelReason ?? '', /timed out/i);
    assertState(connection.state, 'running');
  });

  it("cancels a request when the caller's signal aborts, and tells the server", async () => {
    const { connection } = connect(cleanup, stdioDefinition());
    await connection.start();
    const controller = new AbortController();
    const call = connection.sendToolCall('slow', { ms: 5000 }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user pressed stop')), 100);
    await assert.rejects(call, (error) => isConnectionError(error, 'CANCELLED'));
    const stats = await stdioStats(connection);
    assert.equal(stats.cancellations, 1);
    assert.match(stats.lastCancelReason ?? '', /user pressed stop/);
  });

  it('lets progress notifications extend a call beyond requestMs', async () => {
    // requestMs leaves a busy machine ten progress intervals of slack; the call lasts 3 x requestMs.
    const { connection } = connect(cleanup, stdioDefinition([], { timeouts: { connectMs: 10_000, requestMs: 1_000 } }));
    await connection.start();
    const progress: number[] = [];
    const result = await connection.sendToolCall('slow', { ms: 3_000, progressEveryMs: 100 }, { onProgress: (p) => progress.push(p.progress) });
    assert.equal(textOf(result), 'slept 3000');
    assert.ok(progress.length >= 5, `only ${progress.length} progress notifications`);
    assert.deepEqual(progress, [...progress].sort((a, b) => a - b));
    assert.equal((await stdioStats(connection)).cancellations, 0);
  });

  it(`stops a call with progress after ${MAX_TOTAL_TIMEOUT_FACTOR} x requestMs, and tells the server`, async () => {
    const clock = new FakeClock();
    const { connection } = connect(cleanup, stdioDefinition([], { timeouts: { connectMs: 10_000, requestMs: 2_000 } }), { clock });
    await connection.start();
    let firstProgress: () => void = () => undefined;
    const progressed = new Promise<void>((resolve) => (firstProgress = resolve));
    const call = connection.sendToolCall('slow', { ms: 60_000, progressEveryMs: 100 }, { onProgress: () => firstProgress() });
    await progressed;
    clock.advance(2_000 * MAX_TOTAL_TIMEOUT_FACTOR);
    await assert.rejects(call, (error) => {
      assert.ok(isConnectionError(error, 'REQUEST_TIMEOUT'), String(error));
      assert.match(error.message, /within 20000 ms \(the maximum even while the server reports progress\)/);
      return true;
    });
    assert.equal((await stdioStats(connection)).cancellations, 1);
  });
});
