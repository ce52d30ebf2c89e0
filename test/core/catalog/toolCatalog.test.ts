import assert from 'node:assert/strict';
import type { Tool } from '@modelcontextprotocol/client';
import { MemoryToolCacheStorage, toolCacheKey, TOOL_CACHE_FORMAT, type ToolCacheEntry } from '../../../src/core/catalog/cache';
import { isSwitchboardError } from '../../../src/core/state';
import type { CatalogSettings } from '../../../src/core/catalog/settings';
import { SEARCH_INDEX_DELAY_MS, ToolCatalog, type SettledCall } from '../../../src/core/catalog/toolCatalog';
import type { CatalogSnapshot } from '../../../src/core/catalog/types';
import { hashServerConnection } from '../../../src/core/config/hash';
import type { StdioServerDefinition } from '../../../src/core/config/types';
import { Cleanup, MemoryLogger } from '../connection/helpers';
import { definition, FakeClock, FakeManager, tool, tools } from './helpers';

const DAY = 24 * 60 * 60 * 1000;

/** The catalog announces changes from a microtask; this lets it run. */
const microtasks = () => Promise.resolve();

function names(snapshot: CatalogSnapshot, server: string, onlyExposed = true): string[] {
  const entry = snapshot.servers.find((candidate) => candidate.name === server);
  return (entry?.tools ?? []).filter((item) => !onlyExposed || item.exposed).map((item) => item.name);
}

function storedEntry(def: StdioServerDefinition, list: Tool[], fetchedAt: number): [string, ToolCacheEntry] {
  const connectionHash = hashServerConnection(def);
  return [toolCacheKey(def.name, connectionHash), { format: TOOL_CACHE_FORMAT, server: def.name, connectionHash, fetchedAt, tools: list }];
}

describe('ToolCatalog', () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  function setup(
    options: {
      settings?: Partial<CatalogSettings>;
      storage?: MemoryToolCacheStorage;
      definitions?: StdioServerDefinition[];
      searchIndex?: 'background' | 'onSearch';
    } = {},
  ) {
    const manager = new FakeManager();
    manager.configure(options.definitions ?? [definition('git'), definition('fs')]);
    const clock = new FakeClock();
    const storage = options.storage ?? new MemoryToolCacheStorage();
    const logger = new MemoryLogger();
    const catalog = new ToolCatalog({ manager, storage, clock, logger, settings: options.settings, searchIndex: options.searchIndex });
    const changes: CatalogSnapshot[] = [];
    catalog.onDidChange((snapshot) => changes.push(snapshot));
    cleanup.add(() => catalog.dispose());
    return { manager, clock, storage, logger, catalog, changes };
  }

  /** Puts a server in `running` with the given tools, as a connection would. */
  function run(manager: FakeManager, name: string, list: Tool[]): void {
    manager.setTools(name, list, false);
    manager.setState(name, 'running');
  }

  it("exposes a running server's tools in configuration order with qualified names", async () => {
    const { manager, catalog } = setup();
    await catalog.ready;
    run(manager, 'fs', tools('read.file', 'write'));
    run(manager, 'git', tools('status'));
    const snapshot = catalog.snapshot();
    assert.deepEqual(
      snapshot.servers.map((server) => [server.name, server.state, server.fromCache]),
      [
        ['git', 'running', false],
        ['fs', 'running', false],
      ],
    );
    assert.deepEqual(
      snapshot.servers[1]?.tools.map((item) => item.qualifiedName),
      ['fs__read_file', 'fs__write'],
    );
    assert.equal(catalog.toolByQualifiedName('fs__read_file')?.name, 'read.file');
    assert.equal(catalog.toolByQualifiedName('nope'), undefined);
  });

  it("finds the tool a qualified name names, and a server's tool by its own name, and decides nothing else there", async () => {
    const { manager, catalog } = setup();
    await catalog.ready;
    run(manager, 'fs', tools('read.file'));
    run(manager, 'git', tools('status'));
    const found = async (address: Parameters<typeof catalog.readyTool>[0]) => {
      const { server, tool } = await catalog.readyTool(address);
      return { server, tool };
    };
    assert.deepEqual(await found({ qualifiedName: 'fs__read_file' }), { server: 'fs', tool: 'read.file' });
    assert.deepEqual(await found({ server: 'git', tool: 'status' }), { server: 'git', tool: 'status' });
    await assert.rejects(catalog.readyTool({ qualifiedName: 'nope__x' }), (error) => isSwitchboardError(error, 'UNKNOWN_TOOL'));
    await assert.rejects(catalog.readyTool({ server: 'gone', tool: 'status' }), (error) => isSwitchboardError(error, 'UNKNOWN_SERVER'));
    // Narrowed to some servers (a team user's view): another server's tool is not found.
    await assert.rejects(catalog.readyTool({ qualifiedName: 'fs__read_file' }, { within: (server) => server === 'git' }), (error) =>
      isSwitchboardError(error, 'UNKNOWN_TOOL'),
    );
  });

  it('stores each fresh non-empty list with its fetch time, and never an empty one', async () => {
    const { manager, catalog, storage, clock } = setup();
    await catalog.ready;
    run(manager, 'git', tools('log'));
    run(manager, 'fs', []);
    await catalog.settled();
    const [key] = storedEntry(definition('git'), [], 0);
    assert.deepEqual(await storage.keys(), [key]);
    const stored = (await storage.get(key)) as ToolCacheEntry;
    assert.equal(stored.fetchedAt, clock.now());
    assert.deepEqual(stored.tools, tools('log'));
    assert.equal(catalog.snapshot().servers[0]?.fetchedAt, clock.now());
  });

  it('serves the cached list while a server starts, marked fromCache, then switches to the live list', async () => {
    const storage = new MemoryToolCacheStorage();
    const clock = new FakeClock();
    const [key, value] = storedEntry(definition('git'), tools('cached_a', 'cached_b'), clock.now() - DAY);
    await storage.set(key, value);
    const { manager, catalog, changes } = setup({ storage });
    await catalog.ready;
    manager.setState('git', 'starting');
    const starting = catalog.snapshot().servers[0];
    assert.equal(starting?.fromCache, true);
    assert.equal(starting?.fetchedAt, clock.now() - DAY);
    assert.deepEqual(names(catalog.snapshot(), 'git'), ['cached_a', 'cached_b']);
    run(manager, 'git', tools('live'));
    assert.equal(catalog.snapshot().servers[0]?.fromCache, false);
    assert.deepEqual(names(catalog.snapshot(), 'git'), ['live']);
    await microtasks();
    assert.ok(changes.length >= 1);
  });

  it('shows cached tools for a server that is about to start (the manager reports it starting), not for one stopped on purpose', async () => {
    const storage = new MemoryToolCacheStorage();
    const [key, value] = storedEntry(definition('git'), tools('a'), new FakeClock().now());
    await storage.set(key, value);
    const { manager, catalog } = setup({ storage });
    await catalog.ready;
    assert.deepEqual(names(catalog.snapshot(), 'git'), ['a'], 'queued for its first start');
    run(manager, 'git', tools('a'));
    manager.setState('git', 'reconnecting');
    assert.deepEqual(names(catalog.snapshot(), 'git'), ['a'], 'reconnecting keeps the last list');
    assert.equal(catalog.snapshot().servers[0]?.fromCache, true);
    manager.setState('git', 'stopped');
    assert.deepEqual(names(catalog.snapshot(), 'git'), []);
    manager.setState('git', 'error');
    assert.deepEqual(names(catalog.snapshot(), 'git'), []);
  });

  it('ignores an expired entry (the TTL is configurable)', async () => {
    const storage = new MemoryToolCacheStorage();
    const clock = new FakeClock();
    const [key, value] = storedEntry(definition('git'), tools('a'), clock.now() - 2 * DAY);
    await storage.set(key, value);
    const { manager, catalog } = setup({ storage, settings: { cacheTtlMs: DAY } });
    await catalog.ready;
    manager.setState('git', 'starting');
    assert.deepEqual(names(catalog.snapshot(), 'git'), []);
    await catalog.settled();
    assert.deepEqual(await storage.keys(), []);
  });

  it('treats a changed connection config as a miss and drops the old entry', async () => {
    const storage = new MemoryToolCacheStorage();
    const [key, value] = storedEntry(definition('git'), tools('a'), new FakeClock().now());
    await storage.set(key, value);
    const { manager, catalog } = setup({ storage });
    await catalog.ready;
    manager.setState('git', 'starting');
    assert.deepEqual(names(catalog.snapshot(), 'git'), ['a']);
    manager.configure([definition('git', { args: ['--other'] }), definition('fs')]);
    manager.setState('git', 'stopped');
    manager.setState('git', 'starting');
    assert.deepEqual(names(catalog.snapshot(), 'git'), [], 'the old list does not describe the new server');
    await catalog.settled();
    assert.deepEqual(await storage.keys(), []);
  });

  it('never mutates the cached value: filters, settings and readers work on copies', async () => {
    const storage = new MemoryToolCacheStorage();
    const list = [tool('a', { annotations: { readOnlyHint: true } }), tool('b'), tool('c.d')];
    const [key, value] = storedEntry(definition('git', { tools: { deny: ['b'], readOnly: true } }), list, new FakeClock().now());
    await storage.set(key, value);
    const before = JSON.stringify(await storage.get(key));
    const { manager, catalog } = setup({
      storage,
      definitions: [definition('git', { tools: { deny: ['b'], readOnly: true } })],
      settings: { disabled: ['git/a'] },
    });
    await catalog.ready;
    manager.setState('git', 'starting');
    const snapshot = catalog.snapshot();
    catalog.updateSettings({ disabled: [], maxExposed: 1 });
    catalog.snapshot();
    const served = snapshot.servers[0]?.tools[0];
    assert.ok(served && Object.isFrozen(served) && Object.isFrozen(served.tool) && Object.isFrozen(served.tool.inputSchema));
    assert.equal(Reflect.set(served.tool, 'name', 'changed'), false, 'a reader cannot change a served definition');
    assert.equal(served.tool.name, 'a');
    const copy = structuredClone(served.tool);
    copy.description = 'a reader may change its own copy';
    await catalog.settled();
    assert.equal(JSON.stringify(await storage.get(key)), before);
    assert.equal(catalog.snapshot().servers[0]?.tools[0]?.tool.description, 'The a tool.');
  });

  it('fires onDidChange once per actual change, and not for a no-op', async () => {
    const { manager, catalog, changes } = setup();
    await catalog.ready;
    await microtasks();
    const start = changes.length;
    run(manager, 'git', tools('a', 'b'));
    await microtasks();
    assert.equal(changes.length, start + 1, 'state and list arrive together, announced once');
    catalog.updateSettings({ globalDeny: [] });
    manager.setTools('git', tools('a', 'b'));
    await microtasks();
    assert.equal(changes.length, start + 1, 'same settings, same list: nothing to announce');
    catalog.updateSettings({ disabled: ['git/a'] });
    assert.equal(changes.length, start + 2, 'updateSettings announces synchronously');
    assert.deepEqual(names(changes.at(-1) as CatalogSnapshot, 'git'), ['b']);
  });

  it('re-filters on updateSettings: global deny, disabled switches and the budget', async () => {
    const { manager, catalog } = setup();
    await catalog.ready;
    run(manager, 'git', tools('push', 'status', 'log'));
    run(manager, 'fs', tools('read'));
    catalog.updateSettings({ globalDeny: ['git/p*'] });
    assert.deepEqual(names(catalog.snapshot(), 'git'), ['log', 'status']);
    catalog.updateSettings({ disabled: ['git/log'] });
    assert.deepEqual(names(catalog.snapshot(), 'git'), ['status']);
    catalog.updateSettings({ globalDeny: [], disabled: [], maxExposed: 2 });
    // Shared: one each.
    assert.deepEqual(names(catalog.snapshot(), 'git'), ['log']);
    assert.deepEqual(names(catalog.snapshot(), 'fs'), ['read']);
    const warning = catalog.snapshot().warnings.find((item) => item.kind === 'budgetExceeded');
    assert.equal(warning?.setting, 'mcpSwitchboard.tools.maxExposed');
  });

  it('logs a filter that throws, once, and hides the tools it applies to', async () => {
    const { manager, catalog, logger } = setup({ settings: { globalDeny: [''] } });
    await catalog.ready;
    run(manager, 'git', tools('a', 'b'));
    await microtasks();
    assert.deepEqual(names(catalog.snapshot(), 'git'), []);
    const logged = logger.entries.filter(
      (entry) => entry.level === 'warn' && /filter failed: mcpSwitchboard\.tools\.deny: pattern "" is not usable/.test(entry.message),
    );
    assert.equal(logged.length, 1);
  });

  it('rejects calls it cannot make with a code naming the reason', async () => {
    const { manager, catalog } = setup({
      definitions: [definition('git', { tools: { deny: ['push'] } }), definition('fs')],
      settings: { disabled: ['git/log'] },
    });
    await catalog.ready;
    run(manager, 'git', tools('push', 'log', 'status'));
    manager.setState('fs', 'error');
    const expectations: [string, string, string, RegExp][] = [
      ['nope', 'x', 'UNKNOWN_SERVER', /no server named "nope"/],
      ['git', 'missing', 'UNKNOWN_TOOL', /has no tool "missing"/],
      ['git', 'push', 'TOOL_FILTERED', /tools\.deny pattern "push"/],
      ['git', 'log', 'TOOL_DISABLED', /mcpSwitchboard\.tools\.disabled/],
      ['fs', 'read', 'SERVER_UNAVAILABLE', /"fs" is error/],
    ];
    for (const [server, name, code, message] of expectations) {
      await assert.rejects(catalog.callExposedTool(server, name, {}), (error) => {
        assert.ok(isSwitchboardError(error), String(error));
        assert.equal(error.code, code);
        assert.match(error.message, message);
        return true;
      });
    }
    await assert.rejects(
      catalog.callExposedTool('git', 'push', {}),
      (error) => isSwitchboardError(error) && error.rule?.kind === 'serverDeny',
    );
    assert.deepEqual(manager.calls, []);
    await catalog.callExposedTool('git', 'status', { x: 1 });
    assert.deepEqual(manager.calls, [{ server: 'git', tool: 'status', args: { x: 1 } }]);
  });

  it('tells of each call when it ends: its outcome, and its time from arrival (waits included) on the clock', async () => {
    const storage = new MemoryToolCacheStorage();
    const [key, value] = storedEntry(definition('git'), tools('status'), new FakeClock().now());
    await storage.set(key, value);
    const { manager, catalog, clock } = setup({ storage });
    await catalog.ready;
    const settled: SettledCall[] = [];
    catalog.onDidSettleCall((call) => settled.push(call));
    manager.setState('git', 'starting');
    const held = catalog.callExposedTool('git', 'status', {});
    await microtasks();
    clock.advance(250);
    run(manager, 'git', tools('status'));
    await held;
    await assert.rejects(catalog.callExposedTool('git', 'missing', {}));
    await microtasks();
    assert.deepEqual(settled, [
      { server: 'git', tool: 'status', outcome: 'ok', ms: 250 },
      { server: 'git', tool: 'missing', outcome: 'UNKNOWN_TOOL', ms: 0 },
    ]);
  });

  it('holds a call to a cached tool until the server runs, then forwards it', async () => {
    const storage = new MemoryToolCacheStorage();
    const [key, value] = storedEntry(definition('git'), tools('status'), new FakeClock().now());
    await storage.set(key, value);
    const { manager, catalog } = setup({ storage });
    await catalog.ready;
    manager.setState('git', 'starting');
    const call = catalog.callExposedTool('git', 'status', {});
    await microtasks();
    assert.equal(catalog.diagnostics().waitingCalls, 1);
    assert.deepEqual(manager.calls, []);
    run(manager, 'git', tools('status'));
    const result = await call;
    assert.deepEqual(result.content, [{ type: 'text', text: 'git/status' }]);
    assert.equal(catalog.diagnostics().waitingCalls, 0);
  });

  it("a call's deadline is its servers' requestMs from now, and at most 60 s for a server without one", async () => {
    const limited = definition('git', { timeouts: { connectMs: 0, requestMs: 5_000 } });
    const unlimited = definition('fs', { timeouts: { connectMs: 0, requestMs: 0 } });
    // A qualified name no server lists yet waits for the servers that are starting with nothing known.
    const deadline = async (starting: readonly string[]) => {
      const { manager, catalog, clock } = setup({ definitions: [limited, unlimited] });
      await catalog.ready;
      for (const name of ['git', 'fs']) {
        if (starting.includes(name)) manager.setState(name, 'starting');
        else run(manager, name, tools('other'));
      }
      await microtasks();
      const started = clock.now();
      let settled: number | undefined;
      const ready = catalog.readyTool({ qualifiedName: 'nobody__lists' });
      ready.then(
        () => (settled = clock.now()),
        (error: unknown) => (settled = isSwitchboardError(error, 'NOT_READY') ? clock.now() : -1),
      );
      for (let step = 0; step < 70 && settled === undefined; step++) {
        clock.advance(1_000);
        // Every promise the deadline settles runs before time moves on.
        await new Promise((resolve) => setImmediate(resolve));
      }
      return settled === undefined ? undefined : settled - started;
    };
    assert.equal(await deadline(['git']), 5_000);
    assert.equal(await deadline(['fs']), 60_000, 'a name nobody lists is not waited for forever');
    assert.equal(await deadline(['git', 'fs']), 60_000, 'the latest of several');
  });

  it('gives up on a waiting call after requestMs, when the server fails, or when cancelled', async () => {
    const storage = new MemoryToolCacheStorage();
    const def = definition('git', { timeouts: { connectMs: 0, requestMs: 5_000 } });
    const [key, value] = storedEntry(def, tools('status', 'gone'), new FakeClock().now());
    await storage.set(key, value);
    const { manager, catalog, clock } = setup({ storage, definitions: [def] });
    await catalog.ready;
    manager.setState('git', 'starting');

    const timedOut = catalog.callExposedTool('git', 'status', {});
    clock.advance(4_999);
    assert.equal(catalog.diagnostics().waitingCalls, 1);
    clock.advance(1);
    await assert.rejects(timedOut, (error) => isSwitchboardError(error, 'NOT_READY') && /within 5000 ms/.test(error.message));

    const controller = new AbortController();
    const cancelled = catalog.callExposedTool('git', 'status', {}, { signal: controller.signal });
    controller.abort();
    await assert.rejects(cancelled, (error) => isSwitchboardError(error, 'CANCELLED'));

    const failed = catalog.callExposedTool('git', 'status', {});
    manager.setState('git', 'error');
    await assert.rejects(failed, (error) => isSwitchboardError(error, 'SERVER_UNAVAILABLE') && /is error/.test(error.message));

    manager.setState('git', 'starting');
    const vanished = catalog.callExposedTool('git', 'gone', {});
    run(manager, 'git', tools('status'));
    await assert.rejects(vanished, (error) => isSwitchboardError(error, 'UNKNOWN_TOOL'), 'the live list no longer has it');

    assert.equal(catalog.diagnostics().waitingCalls, 0);
    // The search index's update is the one timer due (the waits' deadlines are 5 s away).
    clock.advance(SEARCH_INDEX_DELAY_MS);
    assert.equal(clock.pendingTimers, 0);
    assert.deepEqual(manager.calls, []);
  });

  it('is the one gate: refuses a held-back server, and waits for the first list of a server starting with nothing cached', async () => {
    const { manager, catalog } = setup();
    await catalog.ready;
    run(manager, 'git', tools('status'));
    await microtasks();
    manager.setState('git', 'blocked');
    await microtasks();
    assert.throws(
      () => catalog.assertCallable('git', 'status'),
      (error) => isSwitchboardError(error, 'SERVER_HELD_BACK') && /is blocked/.test(error.message),
    );
    await assert.rejects(catalog.callExposedTool('git', 'status', {}), (error) => isSwitchboardError(error, 'SERVER_HELD_BACK'));

    const fresh = setup();
    await fresh.catalog.ready;
    fresh.manager.setState('git', 'starting');
    await microtasks();
    const git = fresh.catalog.snapshot().servers.find((server) => server.name === 'git');
    assert.deepEqual([git?.state, git?.tools.length], ['starting', 0], 'nothing cached, nothing live');
    const call = fresh.catalog.callExposedTool('git', 'status', { y: 2 });
    await microtasks();
    assert.deepEqual(fresh.manager.calls, [], 'waiting for the list');
    run(fresh.manager, 'git', tools('status'));
    await call;
    assert.deepEqual(fresh.manager.calls, [{ server: 'git', tool: 'status', args: { y: 2 } }]);
  });

  it("debounces list changes: a burst means one take of the connection's latest list and one announcement, and no request of its own", async () => {
    const { manager, catalog, clock, changes } = setup();
    await catalog.ready;
    run(manager, 'git', tools('a'));
    await microtasks();
    const start = changes.length;
    for (let i = 1; i <= 5; i++) {
      manager.setTools('git', tools('a', ...Array.from({ length: i }, (_, n) => `added_${n}`)));
      clock.advance(50);
    }
    await microtasks();
    assert.deepEqual(manager.fetches, []);
    assert.deepEqual(names(catalog.snapshot(), 'git'), ['a'], 'nothing recomputed during the burst');
    clock.advance(249);
    assert.deepEqual(names(catalog.snapshot(), 'git'), ['a'], 'still nothing recomputed just before the debounce ends');
    clock.advance(1);
    await catalog.settled();
    assert.deepEqual(manager.fetches, [], 'the catalog asked the server nothing: the connection announced its list');
    assert.equal(changes.length, start + 1);
    assert.equal(names(catalog.snapshot(), 'git').length, 6);
    assert.equal(catalog.diagnostics().refresh.debounced, 1);
  });

  it("drops an invalidation's refetch that answers after a newer one", async () => {
    const { manager, catalog } = setup();
    await catalog.ready;
    run(manager, 'git', tools('v1'));
    const slow = manager.holdNextFetch('git');
    manager.setTools('git', tools('v2'), false);
    const first = catalog.invalidate('git');
    await microtasks();
    assert.deepEqual(manager.fetches, ['git'], 'the first refetch is under way, and slow');
    manager.setTools('git', tools('v3'), false);
    await catalog.invalidate('git');
    assert.deepEqual(names(catalog.snapshot(), 'git'), ['v3']);
    slow.resolve(tools('v2'));
    await first;
    await catalog.settled();
    assert.deepEqual(names(catalog.snapshot(), 'git'), ['v3'], 'the older answer was dropped');
    assert.equal(catalog.diagnostics().refresh.stale, 1);
  });

  it("drops an invalidation's refetch overtaken by a reconnect", async () => {
    const { manager, catalog } = setup();
    await catalog.ready;
    run(manager, 'git', tools('v1'));
    const slow = manager.holdNextFetch('git');
    const pending = catalog.invalidate('git');
    await microtasks();
    assert.deepEqual(manager.fetches, ['git']);
    manager.setState('git', 'reconnecting');
    run(manager, 'git', tools('v3'));
    slow.resolve(tools('v2'));
    await pending;
    await catalog.settled();
    assert.deepEqual(names(catalog.snapshot(), 'git'), ['v3']);
    assert.equal(catalog.diagnostics().refresh.stale, 1);
  });

  it('invalidate(server) drops memory and disk and refetches; invalidate() does it for all', async () => {
    const storage = new MemoryToolCacheStorage();
    const clock0 = new FakeClock();
    const [fsKey, fsValue] = storedEntry(definition('fs'), tools('cached'), clock0.now());
    await storage.set(fsKey, fsValue);
    storage.setRaw('orphan-key', 'left by an older version');
    const { manager, catalog, clock } = setup({ storage });
    await catalog.ready;
    run(manager, 'git', tools('a'));
    await catalog.settled();
    const [gitKey] = storedEntry(definition('git'), [], 0);
    clock.advance(1000);
    manager.setTools('git', tools('a', 'b'), false);
    await catalog.invalidate('git');
    assert.deepEqual(manager.fetches, ['git']);
    assert.deepEqual(names(catalog.snapshot(), 'git'), ['a', 'b']);
    assert.equal(((await storage.get(gitKey)) as ToolCacheEntry).fetchedAt, clock.now(), 'rewritten by the refetch');
    assert.deepEqual(names(catalog.snapshot(), 'fs'), ['cached'], 'other servers untouched');

    await catalog.invalidate();
    assert.deepEqual(manager.fetches, ['git', 'git']);
    assert.deepEqual(names(catalog.snapshot(), 'fs'), [], 'a server that is not running loses its cached tools');
    assert.deepEqual((await storage.keys()).sort(), [gitKey], 'only the refetched list is stored again');
  });

  it('catalogVersion changes exactly when what chat sees of the server changes', async () => {
    const { manager, catalog } = setup();
    await catalog.ready;
    assert.equal(catalog.catalogVersion('nope'), undefined);
    run(manager, 'git', tools('a', 'b'));
    const first = catalog.catalogVersion('git');
    assert.match(first ?? '', /^[0-9a-f]{12}$/);
    manager.setState('git', 'reconnecting');
    assert.equal(catalog.catalogVersion('git'), first, 'a state change alone keeps the version');
    catalog.updateSettings({ disabled: ['git/a'] });
    const second = catalog.catalogVersion('git');
    assert.notEqual(second, first);
    catalog.updateSettings({ disabled: [] });
    assert.equal(catalog.catalogVersion('git'), first);
  });

  it("follows the manager's list of servers by itself: removed servers and changed tool filters", async () => {
    const { manager, catalog } = setup();
    await catalog.ready;
    run(manager, 'git', tools('a', 'b'));
    run(manager, 'fs', tools('c'));
    assert.deepEqual(
      catalog.snapshot().servers.map((server) => server.name),
      ['git', 'fs'],
    );
    manager.configure([definition('git', { tools: { allow: ['a'] } })]);
    assert.deepEqual(
      catalog.snapshot().servers.map((server) => server.name),
      ['git'],
      'no state changed, and nobody told the catalog by hand',
    );
    assert.deepEqual(names(catalog.snapshot(), 'git'), ['a']);
  });

  it('rejects waiting calls on dispose and stops following the manager', async () => {
    const storage = new MemoryToolCacheStorage();
    const [key, value] = storedEntry(definition('git'), tools('status'), new FakeClock().now());
    await storage.set(key, value);
    const { manager, catalog, changes } = setup({ storage });
    await catalog.ready;
    manager.setState('git', 'starting');
    const waiting = catalog.callExposedTool('git', 'status', {});
    await catalog.dispose();
    await assert.rejects(waiting, (error) => isSwitchboardError(error, 'SERVER_UNAVAILABLE') && /disposed/.test(error.message));
    const count = changes.length;
    run(manager, 'git', tools('x'));
    await microtasks();
    assert.equal(changes.length, count);
  });

  it('indexes for search a while after servers list their tools, not between their lists; a search before then finds them all the same', async () => {
    const { manager, catalog, clock } = setup({ definitions: [definition('git'), definition('fs'), definition('db')] });
    await catalog.ready;
    run(manager, 'git', tools('status'));
    await microtasks();
    run(manager, 'fs', tools('read_file'));
    await microtasks();
    // Servers starting together are not slowed by an index update between one's list and the next's.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(catalog.searchIndexCurrent, false);
    clock.advance(SEARCH_INDEX_DELAY_MS);
    assert.equal(catalog.searchIndexCurrent, true);
    run(manager, 'db', tools('query'));
    await microtasks();
    assert.equal(catalog.searchIndexCurrent, false);
    assert.deepEqual(
      catalog.searchTools('query').map((hit) => hit.qualifiedName),
      ['db__query'],
    );
    assert.equal(catalog.searchIndexCurrent, true);
  });

  it("with searchIndex 'onSearch' (the machine host's), builds no index until something searches", async () => {
    const { manager, catalog, clock } = setup({ searchIndex: 'onSearch' });
    await catalog.ready;
    run(manager, 'git', tools('status'));
    await microtasks();
    clock.advance(SEARCH_INDEX_DELAY_MS * 10);
    assert.equal(catalog.searchIndexCurrent, false);
    assert.deepEqual(
      catalog.searchTools('status').map((hit) => hit.qualifiedName),
      ['git__status'],
    );
    assert.equal(catalog.searchIndexCurrent, true);
  });
});
