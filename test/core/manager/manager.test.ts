import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { InvalidServer, StdioServerDefinition } from '../../../src/core/config/types';
import type { ServerState, ServerStateChangeEvent } from '../../../src/core/state/serverState';
import { isSwitchboardError } from '../../../src/core/state';
import { ServerManager, type ManagerOptions, type ServerView } from '../../../src/core/manager';
import { Cleanup, isAlive, stdioDefinition, tempDir, textOf } from '../connection/helpers';
import { FakeClock } from '../support/fakeClock';
import { eventually, until } from '../support/poll';
import { waitForServer } from '../support/waitFor';

function server(name: string, args: string[] = [], overrides: Partial<StdioServerDefinition> = {}): StdioServerDefinition {
  return stdioDefinition(args, { name, ...overrides });
}

function invalid(name: string, overrides: Partial<InvalidServer> = {}): InvalidServer {
  return {
    name,
    source: { kind: 'workspace', file: '/ws/.vscode/settings.json' },
    diagnostics: [
      { severity: 'error', server: name, path: `servers.${name}.command`, message: 'must not be empty', source: { kind: 'workspace' } },
    ],
    ...overrides,
  };
}

function stateOf(views: readonly ServerView[], name: string): ServerState {
  const view = views.find((candidate) => candidate.name === name);
  assert.ok(view, `no view for ${name}`);
  return view.state;
}

/** The arguments of the server's definition as the manager holds it now. */
function argsOf(manager: ServerManager, name: string): readonly string[] {
  const definition = manager.server(name)?.definition;
  return definition?.transport === 'stdio' ? definition.args : [];
}

async function pidOf(manager: ServerManager, name: string): Promise<number> {
  const result = await manager.forwardToolCall(name, 'stats');
  return (JSON.parse(textOf(result)) as { pid: number }).pid;
}

describe('ServerManager', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  function createManager(options: ManagerOptions = {}): { manager: ServerManager; events: ServerStateChangeEvent[] } {
    const manager = new ServerManager({ startupGateMs: 5_000, ...options });
    const events: ServerStateChangeEvent[] = [];
    manager.onDidChangeState((event) => events.push(event));
    cleanup.add(() => manager.dispose());
    return { manager, events };
  }

  it('spawns every server before any has finished connecting (parallel start)', async () => {
    const dir = tempDir(cleanup);
    const markers = ['a', 'b', 'c'].map((name) => path.join(dir, `${name}.json`));
    const { manager } = createManager();
    let markersAtFirstRunning = -1;
    manager.onDidChangeState((event) => {
      if (event.state.kind === 'running' && markersAtFirstRunning < 0)
        markersAtFirstRunning = markers.filter((file) => fs.existsSync(file)).length;
    });
    // No server can finish before the gate file exists, and it is created only once all three
    // have spawned: with a one-at-a-time start this would wait forever (and time out).
    const gate = path.join(dir, 'gate');
    const starting = manager.start(
      ['a', 'b', 'c'].map((name, index) => server(name, ['--wait-for', gate, '--marker', markers[index] ?? ''])),
    );
    await until(() => markers.every((file) => fs.existsSync(file)));
    fs.writeFileSync(gate, '');
    await starting;
    await Promise.all(['a', 'b', 'c'].map((name) => waitForServer(manager, name, 'running')));
    assert.equal(markersAtFirstRunning, 3);
  });

  it('never connects more servers at once than its concurrency limit', async () => {
    const dir = tempDir(cleanup);
    const names = ['a', 'b', 'c', 'd'];
    const markers = names.map((name) => path.join(dir, `${name}.json`));
    const { manager } = createManager({ concurrency: 2 });
    let markersAtFirstRunning = -1;
    manager.onDidChangeState((event) => {
      if (event.state.kind === 'running' && markersAtFirstRunning < 0)
        markersAtFirstRunning = markers.filter((file) => fs.existsSync(file)).length;
    });
    const gate = path.join(dir, 'gate');
    const starting = manager.start(names.map((name, index) => server(name, ['--wait-for', gate, '--marker', markers[index] ?? ''])));
    await until(() => markers.filter((file) => fs.existsSync(file)).length >= 2);
    // c and d wait for a slot, reported as starting, without a process.
    assert.deepEqual(
      ['c', 'd'].map((name) => manager.server(name)?.state.kind),
      ['starting', 'starting'],
    );
    fs.writeFileSync(gate, '');
    await starting;
    await Promise.all(names.map((name) => waitForServer(manager, name, 'running')));
    assert.equal(markersAtFirstRunning, 2);
    assert.equal(manager.health().running, 4);
  });

  it('returns at the startup gate with slow servers reported as starting, then reports them by event', async () => {
    const clock = new FakeClock();
    const gate = path.join(tempDir(cleanup), 'gate');
    const { manager } = createManager({ startupGateMs: 1_500, clock });
    const starting = manager.start([server('slow', ['--wait-for', gate]), server('fast')]);
    await waitForServer(manager, 'fast', 'running');
    clock.advance(1_500);
    const views = await starting;
    assert.equal(stateOf(views, 'slow').kind, 'starting');
    assert.equal(stateOf(views, 'fast').kind, 'running');
    fs.writeFileSync(gate, '');
    await waitForServer(manager, 'slow', 'running');
  });

  it('keeps configuration order whatever order servers finish in', async () => {
    const { manager, events } = createManager({ startupGateMs: 0 });
    const gate = path.join(tempDir(cleanup), 'gate');
    await manager.start([server('last-to-finish', ['--wait-for', gate]), server('first-to-finish')]);
    await waitForServer(manager, 'first-to-finish', 'running');
    fs.writeFileSync(gate, '');
    await waitForServer(manager, 'last-to-finish', 'running');
    const runningOrder = events.filter((event) => event.state.kind === 'running').map((event) => event.server);
    assert.deepEqual(runningOrder, ['first-to-finish', 'last-to-finish']);
    assert.deepEqual(
      manager.servers().map((view) => view.name),
      ['last-to-finish', 'first-to-finish'],
    );
  });

  it('marks an invalid entry invalid with its diagnostics while the others run', async () => {
    const { manager } = createManager();
    const views = await manager.start([server('before'), invalid('broken'), server('after')]);
    const broken = stateOf(views, 'broken');
    assert.equal(broken.kind, 'invalid');
    assert.equal(broken.kind === 'invalid' && broken.diagnostics[0]?.path, 'servers.broken.command');
    assert.equal(stateOf(views, 'before').kind, 'running');
    assert.equal(stateOf(views, 'after').kind, 'running');
    assert.deepEqual(manager.health(), {
      total: 3,
      running: 2,
      idle: 0,
      starting: 0,
      reconnecting: 0,
      error: 0,
      needsSignIn: 0,
      blocked: 0,
      disabled: 0,
      invalid: 1,
      stopped: 0,
    });
  });

  it('does not spawn a disabled server, and blocks one that needs input', async () => {
    const dir = tempDir(cleanup);
    const marker = path.join(dir, 'disabled.json');
    const { manager } = createManager();
    const views = await manager.start([
      server('off', ['--marker', marker], { enabled: false }),
      invalid('asks', { diagnostics: [], needsInput: ['token'] }),
    ]);
    assert.equal(stateOf(views, 'off').kind, 'disabled');
    const asks = stateOf(views, 'asks');
    assert.equal(asks.kind, 'blocked');
    assert.equal(asks.kind === 'blocked' && asks.reason, 'needsInput');
    assert.equal(fs.existsSync(marker), false);
  });

  it('update() leaves unchanged servers alone, restarts changed ones, stops removed ones and starts added ones', async () => {
    const { manager, events } = createManager();
    await manager.start([server('same'), server('changed'), server('removed')]);
    const samePid = await pidOf(manager, 'same');
    const changedPid = await pidOf(manager, 'changed');
    const removedPid = await pidOf(manager, 'removed');
    events.length = 0;

    await manager.update([server('same'), server('changed', ['--name', 'renamed']), server('added')]);
    await waitForServer(manager, 'added', 'running');
    // The changed one runs anew: its successor has taken over, and the old process is gone.
    await eventually(
      async () => ((await pidOf(manager, 'changed')) !== changedPid && !isAlive(changedPid) ? true : undefined),
      'the changed server restarted',
      15_000,
    );

    assert.equal(await pidOf(manager, 'same'), samePid);
    assert.equal(events.filter((event) => event.server === 'same').length, 0, 'no state events for an unchanged server');
    assert.equal(isAlive(changedPid), false);
    assert.equal(isAlive(removedPid), false);
    assert.deepEqual(
      manager.servers().map((view) => view.name),
      ['same', 'changed', 'added'],
    );
  });

  it('a wait on the servers is looked at again when update() removes one, which fires no state event of its own', async () => {
    // A fake clock: the wait can only end by the removal (the machine host waited for a server a
    // window had just dropped until the wait's own timeout, and could not end meanwhile).
    const { manager, events } = createManager({ clock: new FakeClock() });
    await manager.start([server('kept'), server('dropped')]);
    await waitForServer(manager, 'dropped', 'running');
    events.length = 0;
    const gone = manager.waitForState((views) => !views.some((view) => view.name === 'dropped'), { timeoutMs: 60_000 });
    await manager.update([server('kept')]);
    assert.equal(await gone, 'met');
    assert.deepEqual(
      events.filter((event) => event.server === 'dropped'),
      [],
      'the removal itself is no state event (else this test would not need the list change)',
    );
  });

  it('update() stops a server that was disabled and starts it again when enabled', async () => {
    const { manager } = createManager();
    await manager.start([server('toggled')]);
    const pid = await pidOf(manager, 'toggled');
    await manager.update([server('toggled', [], { enabled: false })]);
    assert.equal(manager.server('toggled')?.state.kind, 'disabled');
    assert.equal(isAlive(pid), false);
    await manager.update([server('toggled')]);
    await waitForServer(manager, 'toggled', 'running');
  });

  it('reconnect() brings back a failed server and leaves the others alone; reconnectAll() merges concurrent calls', async () => {
    const dir = tempDir(cleanup);
    const failFlag = path.join(dir, 'fail');
    fs.writeFileSync(failFlag, '');
    const { manager, events } = createManager();
    await manager.start([server('healthy'), server('flaky', ['--fail-if-exists', failFlag, '--exit-message', 'flaky is down'])]);
    const failed = await waitForServer(manager, 'flaky', 'error');
    assert.match(failed.kind === 'error' ? failed.stderrTail.join('\n') : '', /flaky is down/);
    const healthyPid = await pidOf(manager, 'healthy');

    fs.rmSync(failFlag);
    await manager.reconnect('flaky');
    assert.equal(manager.server('flaky')?.state.kind, 'running');
    assert.equal(await pidOf(manager, 'healthy'), healthyPid);

    events.length = 0;
    await Promise.all([manager.reconnectAll(), manager.reconnectAll()]);
    const startsPerServer = (name: string) => events.filter((event) => event.server === name && event.state.kind === 'starting').length;
    assert.equal(startsPerServer('healthy'), 1);
    assert.equal(startsPerServer('flaky'), 1);
    assert.notEqual(await pidOf(manager, 'healthy'), healthyPid);
  });

  it('reports a server it is about to start as starting, never as stopped in between, also when its configuration changed', async () => {
    const { manager, events } = createManager();
    await manager.start([server('one')]);
    await waitForServer(manager, 'one', 'running');
    assert.deepEqual(
      events.filter((event) => event.server === 'one').map((event) => event.state.kind),
      ['starting', 'running'],
    );
    events.length = 0;
    await manager.update([server('one', ['--name', 'renamed'])]);
    await until(() => argsOf(manager, 'one').includes('renamed'), 15_000, 'the new definition took over');
    assert.ok(
      events.filter((event) => event.server === 'one').every((event) => event.state.kind === 'running'),
      JSON.stringify(events.map((event) => event.state.kind)),
    );
  });

  it('keeps a running server serving until the one its changed entry makes is up, then stops it (make before break)', async () => {
    const dir = tempDir(cleanup);
    const gate = path.join(dir, 'go');
    const { manager, events } = createManager();
    await manager.start([server('busy')]);
    const oldPid = await pidOf(manager, 'busy');
    events.length = 0;
    // The new one waits for a file before it serves: the test decides when it is up.
    await manager.update([server('busy', ['--wait-for', gate])]);
    for (let i = 0; i < 3; i++) {
      assert.equal(manager.server('busy')?.state.kind, 'running');
      assert.equal(await pidOf(manager, 'busy'), oldPid, 'the old one answers while the new one starts');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    fs.writeFileSync(gate, '');
    await eventually(async () => ((await pidOf(manager, 'busy')) !== oldPid ? true : undefined), 'the new one takes over', 15_000);
    await until(() => !isAlive(oldPid), 15_000, 'the old process stops');
    assert.ok(!events.some((event) => event.server === 'busy' && event.state.kind !== 'running'), JSON.stringify(events));
    // Changed again before its successor was up: only the newest one takes over.
    const gate2 = path.join(dir, 'go2');
    const before = await pidOf(manager, 'busy');
    await manager.update([server('busy', ['--wait-for', gate2, '--name', 'first'])]);
    await manager.update([server('busy', ['--name', 'second'])]);
    await until(() => argsOf(manager, 'busy').includes('second'), 15_000, 'the newest entry took over');
    assert.notEqual(await pidOf(manager, 'busy'), before);
    assert.ok(!argsOf(manager, 'busy').includes('first'));
  });

  it('stops and starts one server on request, idempotently', async () => {
    const { manager } = createManager();
    await manager.start([server('one')]);
    const pid = await pidOf(manager, 'one');
    await Promise.all([manager.stopServer('one'), manager.stopServer('one')]);
    assert.equal(manager.server('one')?.state.kind, 'stopped');
    assert.equal(isAlive(pid), false);
    await Promise.all([manager.startServer('one'), manager.startServer('one')]);
    assert.equal(manager.server('one')?.state.kind, 'running');
  });

  it('blocks a server on request (stopping it) and starts it when unblocked', async () => {
    const { manager } = createManager();
    await manager.start([server('guarded')]);
    const pid = await pidOf(manager, 'guarded');
    await manager.setBlocked('guarded', { reason: 'untrusted', detail: 'workspace not trusted' });
    const blocked = manager.server('guarded')?.state;
    assert.deepEqual(blocked, { kind: 'blocked', reason: 'untrusted', detail: 'workspace not trusted' });
    assert.equal(isAlive(pid), false);
    await assert.rejects(manager.forwardToolCall('guarded', 'echo', { text: 'x' }), /blocked/);
    await manager.setBlocked('guarded', undefined);
    await waitForServer(manager, 'guarded', 'running');
  });

  it('unblocks the servers of one consent answer together: every one spawns before any has connected', async () => {
    const dir = tempDir(cleanup);
    const names = ['a', 'b', 'c'];
    const markers = names.map((name) => path.join(dir, `${name}.json`));
    const gate = path.join(dir, 'gate');
    const { manager } = createManager({ startupGateMs: 30_000 });
    const pending = { reason: 'consentPending' as const, detail: 'waiting for your consent' };
    await manager.start(
      names.map((name, index) => server(name, ['--wait-for', gate, '--marker', markers[index] ?? ''])),
      new Map(names.map((name) => [name, pending])),
    );
    // No server can connect before the gate file exists, made once all have spawned: unblocked one
    // after another, each waited for (the start gate here is 30 s), this times out.
    const unblocking = manager.setBlocks(new Map(names.map((name) => [name, undefined])));
    await until(() => markers.every((file) => fs.existsSync(file)), 20_000, 'every server spawned before any connected');
    fs.writeFileSync(gate, '');
    await unblocking;
    await Promise.all(names.map((name) => waitForServer(manager, name, 'running')));
  });

  it('returns copies: changing a view changes nothing inside the manager', async () => {
    const { manager } = createManager();
    await manager.start([server('copy')]);
    const view = manager.servers()[0] as unknown as { state: { kind: string }; tools: unknown[] };
    view.state.kind = 'error';
    view.tools.length = 0;
    assert.equal(manager.server('copy')?.state.kind, 'running');
    assert.ok((manager.server('copy')?.tools.length ?? 0) > 0);
  });

  it('calls tools through the right server and names an unknown server', async () => {
    const { manager } = createManager();
    await manager.start([server('calc')]);
    const result = await manager.forwardToolCall('calc', 'add', { a: 2, b: 3 });
    assert.equal(textOf(result), '5');
    await assert.rejects(manager.forwardToolCall('nope', 'add', {}), (error: unknown) => isSwitchboardError(error, 'UNKNOWN_SERVER'));
  });

  it('leaves no process behind after dispose(), even one that ignores SIGTERM and has a grandchild', async () => {
    const dir = tempDir(cleanup);
    const grandchildPidFile = path.join(dir, 'grandchild.pid');
    const manager = new ServerManager();
    await manager.start([server('stubborn', ['--ignore-sigterm', '--spawn-grandchild', grandchildPidFile]), server('plain')]);
    await waitForServer(manager, 'stubborn', 'running');
    const pids = [await pidOf(manager, 'stubborn'), await pidOf(manager, 'plain'), Number(fs.readFileSync(grandchildPidFile, 'utf8'))];
    assert.ok(pids.every(isAlive));
    await manager.dispose();
    assert.deepEqual(pids.filter(isAlive), []);
  });
});

describe('ServerManager blocks from the editor', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('update() with a block map holds those servers back and releases them when the map changes', async () => {
    const dir = tempDir(cleanup);
    const marker = path.join(dir, 'workspace.json');
    const manager = new ServerManager({ startupGateMs: 5_000 });
    cleanup.add(() => manager.dispose());
    const servers = [server('user-server'), server('workspace-server', ['--marker', marker])];
    const untrusted = new Map([['workspace-server', { reason: 'untrusted' as const, detail: 'workspace not trusted' }]]);

    await manager.start(servers, untrusted);
    assert.equal(manager.server('user-server')?.state.kind, 'running');
    assert.deepEqual(manager.server('workspace-server')?.state, { kind: 'blocked', reason: 'untrusted', detail: 'workspace not trusted' });
    assert.equal(fs.existsSync(marker), false, 'a blocked server is never spawned');

    // Nothing a user or a request does starts it while it is blocked.
    await manager.reconnect('workspace-server');
    await manager.startServer('workspace-server');
    await manager.reconnectAll();
    manager.wake('workspace-server');
    manager.learn('workspace-server');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(manager.server('workspace-server')?.state, { kind: 'blocked', reason: 'untrusted', detail: 'workspace not trusted' });
    assert.equal(fs.existsSync(marker), false, 'reconnect, start, wake or learn spawned a blocked server');
    assert.equal(manager.connection('workspace-server')?.diagnostics.connectAttempts, 0);

    const userPid = await pidOf(manager, 'user-server');
    await manager.update(servers, new Map());
    await waitForServer(manager, 'workspace-server', 'running');
    assert.equal(fs.existsSync(marker), true);
    assert.equal(await pidOf(manager, 'user-server'), userPid, 'granting trust does not restart other servers');
  });
});
