// Servers that cost nothing until used: `lifecycle: "lazy"` starts a server on the first request
// that needs it (its cached lists stand in until then), and `idleStopMinutes` stops one nobody has
// used for that long. Real fixture servers, the real runtime; the idle countdown runs on a fake
// clock, so nothing here waits for minutes or depends on timing.
import assert from 'node:assert/strict';
import type { LifecycleSettings, StdioServerDefinition } from '../../../src/core/config/types';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import type { ServerState } from '../../../src/core/state/serverState';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime/runtime';
import { describeState } from '../../../src/core/presentation/stateText';
import { Cleanup, isAlive, MemoryLogger, stdioDefinition, textOf } from '../connection/helpers';
import { FakeClock } from '../support/fakeClock';

const MINUTE = 60_000;

function server(name: string, lifecycle: Partial<LifecycleSettings>, args: string[] = []): StdioServerDefinition {
  return stdioDefinition(args, { name, lifecycle: { start: 'eager', idleStopMs: 0, ...lifecycle } });
}

function stateOf(runtime: SwitchboardRuntime, name: string): ServerState {
  const state = runtime.manager.server(name)?.state;
  assert.ok(state, `no server ${name}`);
  return state;
}

/** Resolves when `name` reaches `kind` (now or by a later event); fails after `timeoutMs` of real time. */
function reaches(runtime: SwitchboardRuntime, name: string, kind: ServerState['kind'], timeoutMs = 15_000): Promise<void> {
  if (runtime.manager.server(name)?.state.kind === kind) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      subscription.dispose();
      reject(new Error(`${name} did not become ${kind}; it is ${JSON.stringify(runtime.manager.server(name)?.state)}`));
    }, timeoutMs);
    const subscription = runtime.manager.onDidChangeState((event) => {
      if (event.server !== name || event.state.kind !== kind) return;
      clearTimeout(timer);
      subscription.dispose();
      resolve();
    });
  });
}

function toolNames(runtime: SwitchboardRuntime, name: string): string[] {
  return (runtime.catalog.snapshot().servers.find((entry) => entry.name === name)?.tools ?? []).map((tool) => tool.name);
}

function connectAttempts(runtime: SwitchboardRuntime, name: string): number {
  return runtime.manager.connection(name)?.diagnostics.connectAttempts ?? 0;
}

describe('lazy start and idle stop', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  /** The logger of each runtime made here, to read what it said. */
  const loggers = new WeakMap<SwitchboardRuntime, MemoryLogger>();
  function runtimeWith(storage: MemoryToolCacheStorage, clock: FakeClock = new FakeClock()): SwitchboardRuntime {
    const logger = new MemoryLogger();
    const runtime = createRuntime({ logger, storage, settings: {}, connection: { clock } });
    loggers.set(runtime, logger);
    cleanup.add(() => runtime.dispose());
    return runtime;
  }

  /** Runs the server once (eager) so that the storage holds its lists, as a previous window would. */
  async function warmCache(storage: MemoryToolCacheStorage, definition: StdioServerDefinition): Promise<void> {
    const runtime = runtimeWith(storage);
    await runtime.catalog.ready;
    await runtime.manager.start([{ ...definition, lifecycle: { start: 'eager', idleStopMs: 0 } }]);
    await reaches(runtime, definition.name, 'running');
    await runtime.catalog.settled();
    await runtime.dispose();
  }

  /** A new window over a warm cache of `definition`: the runtime has read it and starts `definition` and `others`. */
  async function startedOnWarmCache(
    definition: StdioServerDefinition,
    clock?: FakeClock,
    others: StdioServerDefinition[] = [],
  ): Promise<SwitchboardRuntime> {
    const storage = new MemoryToolCacheStorage();
    await warmCache(storage, definition);
    const runtime = runtimeWith(storage, clock);
    await runtime.catalog.ready;
    await runtime.manager.start([definition, ...others]);
    return runtime;
  }

  it('a lazy server with a warm cache is idle, spawns nothing, offers its cached tools, and starts on the first call', async () => {
    const definition = server('later', { start: 'lazy' });
    const runtime = await startedOnWarmCache(definition);
    assert.equal(stateOf(runtime, 'later').kind, 'idle');
    assert.equal((stateOf(runtime, 'later') as { reason: string }).reason, 'lazy');
    assert.equal(runtime.manager.connection('later')?.pid, undefined, 'no process');
    assert.equal(connectAttempts(runtime, 'later'), 0);
    assert.ok(toolNames(runtime, 'later').includes('echo'), 'the cached tools are offered');
    assert.equal(
      describeState(stateOf(runtime, 'later'), Date.now(), { tools: toolNames(runtime, 'later').length }),
      `ready · ${toolNames(runtime, 'later').length} tools cached · starts when used`,
    );

    const result = await runtime.catalog.callExposedTool('later', 'echo', { text: 'wake up' });
    assert.equal(textOf(result), 'wake up');
    assert.equal(stateOf(runtime, 'later').kind, 'running');
    assert.equal(connectAttempts(runtime, 'later'), 1);
    // The log says what started it.
    assert.match(loggers.get(runtime)?.text() ?? '', /\[later\] starting: a call of `echo` needs it/);
  });

  it('a log level set for an idle lazy server wakes nothing (the editor sets one on every server it connects to)', async () => {
    const definition = server('later', { start: 'lazy' }, ['--features']);
    const runtime = await startedOnWarmCache(definition);
    assert.equal(stateOf(runtime, 'later').kind, 'idle');
    assert.deepEqual(await runtime.offers.forwardRequest('later', 'logging/setLevel', { level: 'debug' }), {});
    assert.equal(stateOf(runtime, 'later').kind, 'idle');
    assert.equal(connectAttempts(runtime, 'later'), 0, 'no start');
    assert.doesNotMatch(loggers.get(runtime)?.text() ?? '', /\[later\] starting/);
  });

  it('a lazy server with nothing cached starts once to learn its lists, stores them, and stops', async () => {
    const storage = new MemoryToolCacheStorage();
    const runtime = runtimeWith(storage);
    const kinds: string[] = [];
    let pid: number | undefined;
    runtime.manager.onDidChangeState((event) => {
      if (event.server !== 'fresh') return;
      kinds.push(event.state.kind);
      if (event.state.kind === 'running') pid = runtime.manager.connection('fresh')?.pid;
    });
    await runtime.catalog.ready;
    await runtime.manager.start([server('fresh', { start: 'lazy' }, ['--features'])]);
    await reaches(runtime, 'fresh', 'running');
    await reaches(runtime, 'fresh', 'idle');
    assert.deepEqual(kinds, ['idle', 'starting', 'running', 'idle']);
    assert.equal(connectAttempts(runtime, 'fresh'), 1);
    assert.ok(pid !== undefined);
    await runtime.manager.connection('fresh')?.goIdle('lazy');
    assert.equal(isAlive(pid), false, 'the learning process ended');
    assert.ok(toolNames(runtime, 'fresh').includes('echo'), 'its tools stay offered');
    assert.ok((runtime.offers.offer('fresh')?.resources.length ?? 0) > 0, 'and its resources');
    await runtime.catalog.settled();
    assert.ok(runtime.catalog.cachedOffer('fresh'), 'stored for the next window');
  });

  it('Invalidate Tool Cache on a lazy server resolves once it has listed its tools again', async () => {
    const runtime = runtimeWith(new MemoryToolCacheStorage());
    await runtime.catalog.ready;
    await runtime.manager.start([server('fresh', { start: 'lazy' })]);
    await reaches(runtime, 'fresh', 'idle');
    await runtime.catalog.settled();
    await reaches(runtime, 'fresh', 'idle');
    const since = Date.now();
    await runtime.catalog.invalidate('fresh');
    const listed = runtime.catalog.snapshot().servers.find((candidate) => candidate.name === 'fresh');
    assert.ok(listed && listed.tools.length > 0, 'its tools are back when invalidate() resolves');
    assert.ok((listed.fetchedAt ?? 0) >= since, `fetched again (${listed.fetchedAt} >= ${since})`);
  });

  it('stops a server unused for idleStopMinutes, and the next call starts it again', async () => {
    const clock = new FakeClock();
    const runtime = runtimeWith(new MemoryToolCacheStorage(), clock);
    await runtime.catalog.ready;
    await runtime.manager.start([server('idler', { idleStopMs: 5 * MINUTE })]);
    await reaches(runtime, 'idler', 'running');
    assert.equal(textOf(await runtime.catalog.callExposedTool('idler', 'echo', { text: 'one' })), 'one');
    const pid = runtime.manager.connection('idler')?.pid;
    assert.ok(pid !== undefined);

    clock.advance(5 * MINUTE - 1);
    assert.equal(stateOf(runtime, 'idler').kind, 'running', 'not before the time is up');
    clock.advance(1);
    assert.equal(stateOf(runtime, 'idler').kind, 'idle');
    assert.equal((stateOf(runtime, 'idler') as { reason: string }).reason, 'unused');
    await runtime.manager.connection('idler')?.goIdle('unused');
    assert.equal(isAlive(pid), false, 'its process ended');
    assert.ok(toolNames(runtime, 'idler').includes('echo'), 'its tools stay offered while idle');

    assert.equal(textOf(await runtime.catalog.callExposedTool('idler', 'echo', { text: 'two' })), 'two');
    assert.equal(stateOf(runtime, 'idler').kind, 'running');
    assert.equal(connectAttempts(runtime, 'idler'), 2);
  });

  it('counts from the end of the last use, and never stops a server with a call in flight', async () => {
    const clock = new FakeClock();
    const runtime = runtimeWith(new MemoryToolCacheStorage(), clock);
    await runtime.catalog.ready;
    await runtime.manager.start([server('busy', { idleStopMs: MINUTE }, ['--slow-ms', '60000'])]);
    await reaches(runtime, 'busy', 'running');

    clock.advance(MINUTE - 1000);
    const abort = new AbortController();
    const slow = runtime.catalog.callExposedTool('busy', 'slow', {}, { signal: abort.signal }).catch((error: unknown) => error);
    clock.advance(10 * MINUTE);
    assert.equal(stateOf(runtime, 'busy').kind, 'running', 'a call in flight holds it');
    assert.equal(runtime.manager.connection('busy')?.requestsInFlight, 1);
    abort.abort();
    await slow;
    assert.equal(runtime.manager.connection('busy')?.requestsInFlight, 0);
    clock.advance(MINUTE - 1);
    assert.equal(stateOf(runtime, 'busy').kind, 'running', 'the countdown started again when the call ended');
    clock.advance(1);
    assert.equal(stateOf(runtime, 'busy').kind, 'idle');
  });

  it('never stops a server holding a resource subscription, and a subscription starts an idle one', async () => {
    const clock = new FakeClock();
    const definition = server('watched', { start: 'lazy', idleStopMs: MINUTE }, ['--features']);
    const runtime = await startedOnWarmCache(definition, clock);
    assert.equal(stateOf(runtime, 'watched').kind, 'idle');

    await runtime.offers.subscribeResource('watched', 'fixture://counter');
    await reaches(runtime, 'watched', 'running');
    clock.advance(10 * MINUTE);
    assert.equal(stateOf(runtime, 'watched').kind, 'running', 'held by the subscription');

    await runtime.offers.unsubscribeResource('watched', 'fixture://counter');
    clock.advance(MINUTE);
    assert.equal(stateOf(runtime, 'watched').kind, 'idle');
  });

  it('a resource read or prompt of an idle server starts it and is answered', async () => {
    const definition = server('reader', { start: 'lazy' }, ['--features']);
    const runtime = await startedOnWarmCache(definition);
    assert.equal(stateOf(runtime, 'reader').kind, 'idle');
    assert.ok(
      runtime.offers.offer('reader')?.resources.some((resource) => resource.uri === 'fixture://readme'),
      'cached resources offered while idle',
    );

    const read = await runtime.offers.forwardRequest('reader', 'resources/read', { uri: 'fixture://readme' });
    assert.match((read.contents[0] as { text: string }).text, /^# Fixture/);
    assert.equal(stateOf(runtime, 'reader').kind, 'running');
  });

  it('a lazy server that cannot start shows why, and a call to it fails with that reason', async () => {
    const definition = server('broken', { start: 'lazy' }, ['--fail-if-exists', __filename, '--exit-message', 'cannot open the database']);
    const runtime = runtimeWith(new MemoryToolCacheStorage());
    await runtime.catalog.ready;
    // Nothing cached: the catalog has it start to learn its lists, and that start fails.
    await runtime.manager.start([definition]);
    await reaches(runtime, 'broken', 'error');
    const state = stateOf(runtime, 'broken');
    assert.match((state as { message: string }).message, /cannot open the database/);
    await assert.rejects(runtime.catalog.callExposedTool('broken', 'echo', { text: 'x' }), /broken/);
  });

  it('applies a changed lifecycle in place: turning eager starts an idle server, and a new idle time counts at once', async () => {
    const clock = new FakeClock();
    const lazy = server('switch', { start: 'lazy' });
    const runtime = await startedOnWarmCache(lazy, clock);
    assert.equal(stateOf(runtime, 'switch').kind, 'idle');

    await runtime.manager.update([{ ...lazy, lifecycle: { start: 'eager', idleStopMs: 0 } }]);
    await reaches(runtime, 'switch', 'running');
    assert.equal(connectAttempts(runtime, 'switch'), 1);

    await runtime.manager.update([{ ...lazy, lifecycle: { start: 'eager', idleStopMs: 2 * MINUTE } }]);
    assert.equal(connectAttempts(runtime, 'switch'), 1, 'not restarted: the lifecycle is not part of the connection');
    clock.advance(2 * MINUTE);
    assert.equal(stateOf(runtime, 'switch').kind, 'idle');
  });

  it('Reconnect All Servers leaves idle servers idle', async () => {
    const runtime = await startedOnWarmCache(server('resting', { start: 'lazy' }), undefined, [server('awake', {})]);
    await reaches(runtime, 'awake', 'running');
    await runtime.manager.reconnectAll();
    assert.equal(stateOf(runtime, 'resting').kind, 'idle');
    assert.equal(connectAttempts(runtime, 'resting'), 0);
    assert.equal(connectAttempts(runtime, 'awake'), 2, 'the running one was reconnected');
  });

  it('Stop Server stops an idle server for good: a call then fails instead of starting it', async () => {
    const definition = server('halted', { start: 'lazy' });
    const runtime = await startedOnWarmCache(definition);
    await runtime.manager.stopServer('halted');
    assert.equal(stateOf(runtime, 'halted').kind, 'stopped');
    await assert.rejects(runtime.catalog.callExposedTool('halted', 'echo', { text: 'x' }), /stopped/);
    assert.equal(connectAttempts(runtime, 'halted'), 0);
  });
});
