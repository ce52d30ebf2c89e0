import assert from 'node:assert/strict';
import { isSwitchboardError, MAX_TOTAL_TIMEOUT_FACTOR } from '../../../src/core/connection';
import { FakeClock } from '../support/fakeClock';
import { assertState, Cleanup, connect, isAlive, stdioDefinition, stdioStats, textOf } from './helpers';

describe('ServerConnection timeouts', () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('gives up on a server that never answers initialize after connectMs, and ends its process', async () => {
    const clock = new FakeClock();
    const { connection, events } = connect(
      cleanup,
      stdioDefinition(['--hang-initialize'], { timeouts: { connectMs: 500, requestMs: 10_000 } }),
      { clock },
    );
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
    assert.deepEqual(
      events.map((event) => event.state.kind),
      ['starting', 'error'],
    );
    assert.equal(isAlive(pid), false, 'the hanging server was left running');
  });

  it('times out a request after requestMs and tells the server with notifications/cancelled', async () => {
    const clock = new FakeClock();
    const { connection } = connect(cleanup, stdioDefinition([], { timeouts: { connectMs: 10_000, requestMs: 300 } }), { clock });
    await connection.start();
    const started = Date.now();
    // Time passes once the server is at work on the call (its first progress notification); the
    // quiet time then starts again, and runs out with no further answer.
    let atWork: () => void = () => undefined;
    const working = new Promise<void>((resolve) => (atWork = resolve));
    const call = connection.sendToolCall('slow', { ms: 5000, progressEveryMs: 50 }, { onProgress: () => atWork() });
    await working;
    clock.advance(300);
    await assert.rejects(call, (error) => {
      assert.ok(isSwitchboardError(error, 'REQUEST_TIMEOUT'), String(error));
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
    // Cancelled once the server is at work on it (its first progress), as a user would.
    const call = connection.sendToolCall(
      'slow',
      { ms: 5000, progressEveryMs: 50 },
      { signal: controller.signal, onProgress: () => controller.abort(new Error('user pressed stop')) },
    );
    await assert.rejects(call, (error) => isSwitchboardError(error, 'CANCELLED'));
    const stats = await stdioStats(connection);
    assert.equal(stats.cancellations, 1);
    assert.match(stats.lastCancelReason ?? '', /user pressed stop/);
  });

  it('lets progress notifications extend a call beyond requestMs', async () => {
    // Each progress notification comes 900 ms (of the injected clock) after the last: six of them
    // make the call last more than 5 x requestMs, and none of the gaps reaches requestMs.
    const clock = new FakeClock();
    const { connection } = connect(cleanup, stdioDefinition([], { timeouts: { connectMs: 10_000, requestMs: 1_000 } }), { clock });
    await connection.start();
    const progress: number[] = [];
    const onProgress = (p: { progress: number }) => {
      progress.push(p.progress);
      clock.advance(900);
    };
    const result = await connection.sendToolCall('slow', { ms: 3_000, progressEveryMs: 20, progressSteps: 6 }, { onProgress });
    assert.equal(textOf(result), 'slept 3000');
    assert.ok(progress.length >= 5, `only ${progress.length} progress notifications`);
    assert.deepEqual(
      progress,
      [...progress].sort((a, b) => a - b),
    );
    assert.equal((await stdioStats(connection)).cancellations, 0);
  });

  it(`stops a call with progress after ${MAX_TOTAL_TIMEOUT_FACTOR} x requestMs, and tells the server`, async () => {
    const clock = new FakeClock();
    const { connection } = connect(cleanup, stdioDefinition([], { timeouts: { connectMs: 10_000, requestMs: 2_000 } }), { clock });
    await connection.start();
    // Progress every 1,900 ms of the injected clock keeps the call from timing out for lack of
    // an answer; the maximum total time still ends it.
    const call = connection.sendToolCall('slow', { ms: 60_000, progressEveryMs: 20 }, { onProgress: () => clock.advance(1_900) });
    await assert.rejects(call, (error) => {
      assert.ok(isSwitchboardError(error, 'REQUEST_TIMEOUT'), String(error));
      assert.match(error.message, /within 20000 ms \(the maximum even while the server reports progress\)/);
      return true;
    });
    assert.equal((await stdioStats(connection)).cancellations, 1);
  });
});
