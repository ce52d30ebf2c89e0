// Issue: a remote server that restarts, or starts late, never came back. A restarted server no
// longer knows the session and answers 404 (the spec) or 400 (the reference servers); a server
// that is down at start is retried with backoff, and after the breaker opens, slowly.
import assert from 'node:assert/strict';
import { isSwitchboardError } from '../../../src/core/connection';
import { type ServerState } from '../../../src/core/state/serverState';
import { DEFAULT_SLOW_RETRY_MS } from '../../../src/core/connection';
import {
  assertState,
  Cleanup,
  connect,
  httpDefinition,
  startHttpFixture,
  stdioDefinition,
  textOf,
  waitForState,
} from '../connection/helpers';
import { ServerManager } from '../../../src/core/manager';
import { FakeClock } from '../support/fakeClock';
import { eventually } from '../support/poll';
import { freePort } from '../support/ports';

async function kill(child: {
  kill(signal: NodeJS.Signals): boolean;
  once(event: 'exit', listener: () => void): unknown;
  exitCode: number | null;
}): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** Runs the pending retry timer and waits for that attempt to settle into a non-starting state. */
async function runNextAttempt(clock: FakeClock, connection: Parameters<typeof waitForState>[0]): Promise<ServerState> {
  const delay = clock.pendingDelays()[0];
  assert.ok(delay !== undefined, 'a retry is scheduled');
  clock.advance(delay);
  return waitForState(connection, (state) => state.kind !== 'starting');
}

/** A connection on a fake clock to an HTTP URL where nothing listens (yet). */
async function downServer(cleanup: Cleanup, reconnect: { maxAttempts: number; initialDelayMs: number; maxDelayMs: number }) {
  const port = await freePort();
  const clock = new FakeClock();
  const { connection } = connect(cleanup, httpDefinition(`http://127.0.0.1:${port}/mcp`, { reconnect }), { clock, random: () => 0.5 });
  return { port, clock, connection };
}

describe('remote servers heal by themselves', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  for (const status of [400, 404]) {
    it(`re-initializes once when a restarted server answers ${status} to the old session, and the call goes through`, async () => {
      const first = await startHttpFixture(cleanup, ['--unknown-session', String(status)]);
      const { connection } = connect(cleanup, httpDefinition(first.url('/mcp')));
      assertState(await connection.start(), 'running');
      assert.equal(textOf(await connection.sendToolCall('echo', { text: 'before' })), 'before');
      await kill(first.child);
      const restarted = await startHttpFixture(cleanup, ['--port', String(first.port), '--unknown-session', String(status)]);
      const results = await Promise.all([1, 2, 3].map((n) => connection.sendToolCall('echo', { text: `after ${n}` })));
      assert.deepEqual(results.map(textOf), ['after 1', 'after 2', 'after 3']);
      assert.equal(connection.diagnostics.sessionRenewals, 1, 'concurrent callers share one re-initialization');
      assert.equal((await restarted.stats()).initializations, 1);
      assertState(connection.state, 'running');
    });
  }

  it('a legacy SSE server that restarts is reconnected, and a call made meanwhile goes through', async () => {
    const first = await startHttpFixture(cleanup);
    const { connection } = connect(
      cleanup,
      httpDefinition(first.url('/sse'), { transport: 'sse', reconnect: { maxAttempts: 10, initialDelayMs: 50, maxDelayMs: 500 } }),
    );
    assertState(await connection.start(), 'running');
    await kill(first.child);
    await waitForState(connection, (state) => state.kind === 'reconnecting');
    const calling = connection.sendToolCall('echo', { text: 'after restart' });
    const restarted = await startHttpFixture(cleanup, ['--port', String(first.port)]);
    assert.equal(textOf(await calling), 'after restart');
    assert.equal((await restarted.stats()).calls, 1, 'the call reached the restarted server');
    assertState(connection.state, 'running');
  });

  it('leaves running and reconnects when the session cannot be renewed', async () => {
    const server = await startHttpFixture(cleanup, ['--unknown-session', '400']);
    const { connection } = connect(
      cleanup,
      httpDefinition(server.url('/mcp'), {
        timeouts: { connectMs: 10_000, requestMs: 1_000 },
        reconnect: { maxAttempts: 3, initialDelayMs: 60_000, maxDelayMs: 60_000 },
      }),
    );
    await connection.start();
    await kill(server.child);
    // Restarted, it rejects the old session and never answers a new initialize.
    await startHttpFixture(cleanup, ['--port', String(server.port), '--unknown-session', '400', '--hang-initialize']);
    await assert.rejects(
      connection.sendToolCall('echo', { text: 'x' }),
      (error) => isSwitchboardError(error, 'CONNECTION_LOST') && /a new one could not be initialized/.test(error.message),
    );
    assertState(await waitForState(connection, (state) => state.kind !== 'running'), 'reconnecting');
  });

  it('retries a server that is down at start with backoff, and connects once it comes up 20 s later', async () => {
    const { port, clock, connection } = await downServer(cleanup, { maxAttempts: 10, initialDelayMs: 1_000, maxDelayMs: 8_000 });
    void connection.start();
    const first = await waitForState(connection, (state) => state.kind !== 'starting');
    assertState(first, 'reconnecting');
    assert.match(first.lastError, /cannot reach/);
    const began = clock.now();
    while (clock.now() - began < 20_000) assertState(await runNextAttempt(clock, connection), 'reconnecting');
    await startHttpFixture(cleanup, ['--port', String(port)]);
    assertState(await runNextAttempt(clock, connection), 'running');
    assert.equal(textOf(await connection.sendToolCall('echo', { text: 'late' })), 'late');
  });

  it('does not retry what waiting cannot heal: a 404 endpoint stays failed', async () => {
    const server = await startHttpFixture(cleanup);
    const clock = new FakeClock();
    const { connection } = connect(cleanup, httpDefinition(server.url('/nowhere')), { clock });
    const state = await connection.start();
    assertState(state, 'error');
    assert.equal(state.nextTryAt, undefined);
    assert.equal(clock.pendingTimers, 0);
  });

  it('after the breaker opens, retries every 5 minutes and recovers without a click', async () => {
    const { port, clock, connection } = await downServer(cleanup, { maxAttempts: 2, initialDelayMs: 1_000, maxDelayMs: 1_000 });
    void connection.start();
    await waitForState(connection, (state) => state.kind === 'reconnecting');
    await runNextAttempt(clock, connection);
    const broken = await runNextAttempt(clock, connection);
    assertState(broken, 'error');
    assert.match(broken.message, /gave up after 2 reconnect attempts/);
    assert.equal(broken.nextTryAt, clock.now() + DEFAULT_SLOW_RETRY_MS);
    assertState(await runNextAttempt(clock, connection), 'error');
    await startHttpFixture(cleanup, ['--port', String(port)]);
    assertState(await runNextAttempt(clock, connection), 'running');
  });

  it('a remote server that is down does not hold a start slot: the next server starts meanwhile', async () => {
    const port = await freePort();
    const manager = new ServerManager({ concurrency: 1, startupGateMs: 0 });
    cleanup.add(() => manager.dispose());
    const down = httpDefinition(`http://127.0.0.1:${port}/mcp`, {
      name: 'down',
      reconnect: { maxAttempts: 10, initialDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    const up = stdioDefinition([], { name: 'up' });
    await manager.start([down, up]);
    await eventually(() => (manager.server('up')?.state.kind === 'running' ? true : undefined), 'the second server running', 20_000);
    assert.equal(manager.server('down')?.state.kind, 'reconnecting');
  });
});
