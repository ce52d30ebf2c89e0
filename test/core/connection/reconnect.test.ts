import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { isSwitchboardError } from '../../../src/core/connection';
import { type ServerState } from '../../../src/core/state/serverState';
import { FakeClock } from '../support/fakeClock';
import { TrackingClock } from '../support/trackingClock';
import { assertState, Cleanup, connect, isAlive, stdioDefinition, tempDir, textOf, waitForState } from './helpers';

/** A clock whose timers only run when the test says so; time itself is real. */

const kinds = (events: { state: ServerState }[]) => events.map((event) => event.state.kind);

describe('ServerConnection reconnecting', () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('reconnects after the server crashes, with backoff, announcing each step', async () => {
    const { connection, events } = connect(
      cleanup,
      stdioDefinition(['--crash-after', '2'], { reconnect: { maxAttempts: 3, initialDelayMs: 40, maxDelayMs: 1000 } }),
      { random: () => 1 },
    );
    await connection.start();
    const firstPid = connection.pid;
    assert.equal(textOf(await connection.sendToolCall('count')), '1');
    const before = events.length;
    // The crash takes the call with it: it had been delivered, so it is not retried.
    await assert.rejects(connection.sendToolCall('echo', { text: 'boom' }), (error) => isSwitchboardError(error, 'CONNECTION_LOST'));
    await waitForState(connection, (state) => state.kind === 'running');

    const after = events.slice(before);
    assert.deepEqual(kinds(after), ['reconnecting', 'starting', 'running']);
    const reconnecting = after[0];
    assert.ok(reconnecting);
    assertState(reconnecting.state, 'reconnecting');
    assert.equal(reconnecting.state.attempt, 1);
    assert.equal(reconnecting.state.maxAttempts, 3);
    assert.equal(reconnecting.state.nextTryAt - reconnecting.at, 40);
    assert.match(reconnecting.state.lastError, /exited with code 1.*crashing on call 2/);
    const starting = after[1]?.state;
    assert.ok(starting?.kind === 'starting' && starting.attempt === 1);
    // Timers may fire a millisecond early by Date.now().
    assert.ok((after[1]?.at ?? 0) >= reconnecting.state.nextTryAt - 2, 'the attempt waited for the backoff');
    assert.notEqual(connection.pid, firstPid);
    assert.equal(firstPid === undefined ? true : isAlive(firstPid), false);
    assert.equal(textOf(await connection.sendToolCall('count')), '1', 'a fresh process');
  });

  it('opens the circuit breaker after maxAttempts failures, and a manual reconnect resets it', async () => {
    const clock = new TrackingClock();
    const gate = path.join(tempDir(cleanup), 'fail-now');
    const { connection, events } = connect(
      cleanup,
      stdioDefinition(['--crash-after', '1', '--fail-if-exists', gate, '--exit-message', 'gate closed'], {
        reconnect: { maxAttempts: 3, initialDelayMs: 20, maxDelayMs: 50 },
      }),
      { random: () => 1, clock },
    );
    await connection.start();
    fs.writeFileSync(gate, '');
    const before = events.length;
    await assert.rejects(connection.sendToolCall('echo', { text: 'crash' }));
    const state = await waitForState(connection, (s) => s.kind === 'error');
    assertState(state, 'error');
    assert.equal(state.code, 'PROCESS_EXITED');
    assert.match(
      state.message,
      /^gave up after 3 reconnect attempts: server process exited with code 1 during initialize\. Last stderr line: gate closed$/,
    );
    assert.equal(state.stderrTail.at(-1), 'gate closed');

    const after = events.slice(before);
    assert.deepEqual(kinds(after), ['reconnecting', 'starting', 'reconnecting', 'starting', 'reconnecting', 'starting', 'error']);
    const delays = after.flatMap(({ state: s, at }) => (s.kind === 'reconnecting' ? [[s.attempt, s.nextTryAt - at]] : []));
    assert.deepEqual(
      delays,
      [
        [1, 20],
        [2, 40],
        [3, 50],
      ],
      'doubling, capped at maxDelayMs',
    );
    assert.equal(connection.diagnostics.connectAttempts, 4);

    // No timer is left that could start a fourth attempt.
    assert.equal(clock.pending, 0, 'no further attempt is scheduled');
    assert.equal(connection.diagnostics.connectAttempts, 4);
    assert.equal(connection.state.kind, 'error');
    await assert.rejects(
      connection.sendToolCall('echo', { text: 'x' }),
      (error) => isSwitchboardError(error, 'NOT_RUNNING') && /gave up/.test(error.message),
    );

    fs.rmSync(gate);
    assertState(await connection.reconnect(), 'running');
    const resetAt = events.length;
    await assert.rejects(connection.sendToolCall('echo', { text: 'crash again' }));
    await waitForState(connection, (s) => s.kind === 'running');
    const again = events.slice(resetAt).find((event) => event.state.kind === 'reconnecting')?.state;
    assert.ok(again?.kind === 'reconnecting');
    assert.equal(again.attempt, 1, 'the manual reconnect reset the failure count');
  });

  it('counts failures again from 1 after an automatic reconnect succeeded, without a manual reconnect', async () => {
    const gate = path.join(tempDir(cleanup), 'fail-now');
    const { connection, events } = connect(
      cleanup,
      stdioDefinition(['--crash-after', '1', '--fail-if-exists', gate, '--exit-message', 'gate closed'], {
        reconnect: { maxAttempts: 4, initialDelayMs: 100, maxDelayMs: 400 },
      }),
      { random: () => 1 },
    );
    // Two automatic attempts fail; the gate opens before the third, which connects.
    connection.onDidChangeState(({ state }) => {
      if (state.kind === 'reconnecting' && state.attempt === 3) fs.rmSync(gate, { force: true });
    });
    await connection.start();
    fs.writeFileSync(gate, '');
    await assert.rejects(connection.sendToolCall('echo', { text: 'crash' }));
    await waitForState(connection, (s) => s.kind === 'running');
    const recovered = events.length;
    // It crashes again: a fresh run of reconnects, not the fourth and last attempt of the old one.
    await assert.rejects(connection.sendToolCall('echo', { text: 'crash again' }));
    await waitForState(connection, (s) => s.kind === 'running');
    const again = events.slice(recovered).flatMap(({ state: s, at }) => (s.kind === 'reconnecting' ? [[s.attempt, s.nextTryAt - at]] : []));
    assert.deepEqual(again, [[1, 100]], 'attempt 1 after the initial delay');
    assert.equal(connection.diagnostics.connectAttempts, 5);
  });

  it('merges concurrent reconnect() calls into one', async () => {
    const { connection, events } = connect(cleanup, stdioDefinition());
    await connection.start();
    const oldPid = connection.pid;
    const first = connection.reconnect();
    const second = connection.reconnect();
    const third = connection.reconnect();
    assert.equal(first, second);
    assert.equal(second, third);
    assertState(await first, 'running');
    assert.equal(connection.diagnostics.connectAttempts, 2);
    assert.deepEqual(kinds(events), ['starting', 'running', 'starting', 'running']);
    assert.notEqual(connection.pid, oldPid);
    assert.equal(oldPid === undefined ? true : isAlive(oldPid), false);
    // Settled: the next call starts a new reconnect (left to dispose() to cut short).
    assert.notEqual(connection.reconnect(), first);
  });

  it('lets stop() win over a connect attempt still in progress', async () => {
    const { connection, events } = connect(cleanup, stdioDefinition(['--startup-delay', '300']));
    const starting = connection.start();
    await waitForState(connection, (state) => state.kind === 'starting');
    const pid = connection.pid;
    assert.ok(pid !== undefined);
    await connection.stop();
    assert.equal(isAlive(pid), false, 'the pending process was ended');
    assertState(await starting, 'stopped');
    assert.deepEqual(kinds(events), ['starting', 'stopped']);
    assert.deepEqual(connection.tools, []);
  });

  it('drops the result of an attempt superseded by reconnect()', async () => {
    const { connection, events } = connect(cleanup, stdioDefinition(['--startup-delay', '300']));
    const starting = connection.start();
    const stalePid = connection.pid;
    const reconnecting = connection.reconnect();
    assertState(await reconnecting, 'running');
    assertState(await starting, 'running');
    assert.deepEqual(kinds(events), ['starting', 'starting', 'running'], 'exactly one running');
    assert.ok(stalePid !== undefined);
    assert.equal(isAlive(stalePid), false, 'the superseded attempt was ended');
    assert.notEqual(connection.pid, stalePid);
  });

  it('ignores a backoff timer that fires after stop()', async () => {
    const clock = new FakeClock();
    const { connection, events } = connect(
      cleanup,
      stdioDefinition(['--crash-after', '1'], { reconnect: { maxAttempts: 3, initialDelayMs: 60_000, maxDelayMs: 60_000 } }),
      {
        clock,
        random: () => 0.5,
      },
    );
    await connection.start();
    await assert.rejects(connection.sendToolCall('echo', { text: 'crash' }));
    const reconnecting = await waitForState(connection, (state) => state.kind === 'reconnecting');
    assertState(reconnecting, 'reconnecting');
    const timer = clock.pending().find((entry) => entry.delay === 45_000);
    assert.ok(timer, `a 45 s backoff timer: ${JSON.stringify(clock.pendingDelays())}`);
    await connection.stop();
    assert.equal(clock.pendingTimers, 0, 'stop() cancelled the timer');
    timer.fire();
    assert.equal(connection.state.kind, 'stopped');
    assert.equal(connection.diagnostics.connectAttempts, 1);
    assert.deepEqual(kinds(events).slice(-2), ['reconnecting', 'stopped']);
  });

  it('makes a call wait while the server reconnects', async () => {
    const { connection } = connect(
      cleanup,
      stdioDefinition(['--crash-after', '2'], { reconnect: { maxAttempts: 3, initialDelayMs: 150, maxDelayMs: 150 } }),
    );
    await connection.start();
    await connection.sendToolCall('count');
    await assert.rejects(connection.sendToolCall('count'));
    assert.equal(connection.state.kind, 'reconnecting');
    assert.equal(textOf(await connection.sendToolCall('echo', { text: 'waited' })), 'waited');
  });

  it('gives up waiting for a reconnecting server after requestMs', async () => {
    const clock = new FakeClock();
    const { connection } = connect(cleanup, stdioDefinition(['--crash-after', '1'], { timeouts: { connectMs: 0, requestMs: 200 } }), {
      clock,
    });
    await connection.start();
    await assert.rejects(connection.sendToolCall('echo', { text: 'crash' }));
    assert.equal(connection.state.kind, 'reconnecting');
    const waiting = connection.sendToolCall('echo', { text: 'waits' });
    const wait = clock.pending().find((entry) => entry.delay === 200);
    assert.ok(wait, JSON.stringify(clock.pendingDelays()));
    wait.fire();
    await assert.rejects(waiting, (error) => isSwitchboardError(error, 'NOT_READY') && /was not ready within 200 ms/.test(error.message));
  });
});
