// The catalog against the real ServerManager and the stdio fixture server.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Tool } from '@modelcontextprotocol/client';
import {
  MemoryToolCacheStorage,
  toolCacheKey,
  TOOL_CACHE_FORMAT,
  type ToolCacheEntry,
  type ToolCacheStorage,
} from '../../../src/core/catalog/cache';
import { isSwitchboardError } from '../../../src/core/connection';
import { FolderToolCacheStorage } from '../../../src/core/catalog/folderStorage';
import { ToolCatalog } from '../../../src/core/catalog/toolCatalog';
import type { CatalogSnapshot } from '../../../src/core/catalog/types';
import { hashServerConnection } from '../../../src/core/config/hash';
import { eventually } from '../support/poll';
import type { StdioServerDefinition } from '../../../src/core/config/types';
import { systemClock, type Clock } from '../../../src/core/base/clock';
import { ServerManager } from '../../../src/core/manager';
import { Cleanup, MemoryLogger, stdioDefinition, tempDir, textOf } from '../connection/helpers';
import { FakeClock } from '../support/fakeClock';
import { until } from '../support/poll';
import { waitFor, waitForServer } from '../support/waitFor';

const FIXTURE_TOOLS = ['add', 'add_tool', 'count', 'cwd', 'echo', 'env', 'fail', 'rpc_error', 'slow', 'stats', 'stderr'];

/** What the fixture reports for echo, as a warm cache would hold it. */
const ECHO: Tool = {
  name: 'echo',
  description: 'Returns its input.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  annotations: { readOnlyHint: true },
};

function server(name: string, args: string[] = [], overrides: Partial<StdioServerDefinition> = {}): StdioServerDefinition {
  return stdioDefinition(args, { name, ...overrides });
}

function entryFor(def: StdioServerDefinition, list: Tool[]): [string, ToolCacheEntry] {
  const connectionHash = hashServerConnection(def);
  return [
    toolCacheKey(def.name, connectionHash),
    { format: TOOL_CACHE_FORMAT, server: def.name, connectionHash, fetchedAt: Date.now() - 60_000, tools: list },
  ];
}

/** Resolves with the first announced (or current) snapshot matching `predicate`. */
function waitForSnapshot(
  catalog: ToolCatalog,
  predicate: (snapshot: CatalogSnapshot) => boolean,
  timeoutMs = 20_000,
): Promise<CatalogSnapshot> {
  const now = () => (predicate(catalog.snapshot()) ? catalog.snapshot() : undefined);
  return waitFor({
    now,
    event: catalog.onDidChange,
    describe: () =>
      `snapshot; last ${JSON.stringify(catalog.snapshot().servers.map((item) => [item.name, item.state, item.tools.length]))}`,
    timeoutMs,
  });
}

const toolNames = (snapshot: CatalogSnapshot, name: string) =>
  snapshot.servers.find((item) => item.name === name)?.tools.map((item) => item.name) ?? [];

describe('ToolCatalog with the ServerManager', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  function setup(storage: ToolCacheStorage = new MemoryToolCacheStorage(), clock: Clock = systemClock) {
    const logger = new MemoryLogger();
    const manager = new ServerManager({ logger });
    const catalog = new ToolCatalog({ manager, storage, logger, clock });
    cleanup.add(() => manager.dispose());
    cleanup.add(() => catalog.dispose());
    return { manager, catalog, storage, logger };
  }

  it('follows manager.update() by itself: a removed server goes, an edited filter applies, the order is the new one', async () => {
    const { manager, catalog } = setup();
    await manager.start([server('one'), server('two')]);
    await waitForServer(manager, 'one', 'running');
    await waitForServer(manager, 'two', 'running');
    await waitForSnapshot(catalog, (snapshot) => toolNames(snapshot, 'two').length > 0);
    const twoPid = manager.connection('two')?.pid;
    await manager.update([{ ...server('two'), tools: { allow: ['echo'] } }]);
    // Nobody calls anything on the catalog: it follows the manager's onDidChangeServers.
    assert.deepEqual(
      catalog.snapshot().servers.map((entry) => entry.name),
      ['two'],
    );
    assert.deepEqual(
      catalog
        .snapshot()
        .servers[0]?.tools.filter((tool) => tool.exposed)
        .map((tool) => tool.name),
      ['echo'],
    );
    assert.equal(manager.connection('two')?.pid, twoPid, 'a filter edit keeps the connection');
  });

  it('exposes a warm-cached server within the startup gate, and a call waits for it and succeeds', async () => {
    const gate = path.join(tempDir(cleanup), 'gate');
    const slow = server('slow', ['--wait-for', gate]);
    const storage = new MemoryToolCacheStorage();
    const [key, value] = entryFor(slow, [ECHO]);
    await storage.set(key, value);
    const { manager, catalog } = setup(storage);
    await catalog.ready;

    // The server cannot finish starting before the gate file exists: start() returned at the gate.
    await manager.start([slow]);
    const snapshot = catalog.snapshot();
    const entry = snapshot.servers[0];
    assert.equal(entry?.state, 'starting');
    assert.equal(entry?.fromCache, true);
    assert.deepEqual(
      entry?.tools.map((item) => [item.qualifiedName, item.exposed]),
      [['slow__echo', true]],
    );

    const calling = catalog.callExposedTool('slow', 'echo', { text: 'hello' });
    await until(() => catalog.diagnostics().waitingCalls === 1, 10_000, 'the call waiting for its server');
    fs.writeFileSync(gate, '');
    assert.equal(textOf(await calling), 'hello');
    const live = catalog.snapshot().servers[0];
    assert.equal(live?.state, 'running');
    assert.equal(live?.fromCache, false);
    assert.deepEqual(
      live?.tools.map((item) => item.name),
      FIXTURE_TOOLS,
    );
  });

  it('fails a waiting call cleanly when the server does not come up within requestMs', async () => {
    // Starts now: the cache entry was written with today's date, and must not look expired.
    const clock = new FakeClock(Date.now());
    const hung = server('hung', ['--hang-initialize'], { timeouts: { connectMs: 0, requestMs: 600 } });
    const storage = new MemoryToolCacheStorage();
    const [key, value] = entryFor(hung, [ECHO]);
    await storage.set(key, value);
    const { manager, catalog } = setup(storage, clock);
    await catalog.ready;
    await manager.start([hung]);
    const calling = catalog.callExposedTool('hung', 'echo', { text: 'x' });
    await until(() => catalog.diagnostics().waitingCalls === 1, 10_000, 'the call waiting for its server');
    clock.advance(599);
    assert.equal(catalog.diagnostics().waitingCalls, 1, 'still waiting just before requestMs');
    clock.advance(1);
    await assert.rejects(calling, (error) => {
      assert.ok(isSwitchboardError(error, 'NOT_READY'), String(error));
      assert.match(error.message, /`hung` was not ready within 600 ms \(timeouts\.requestMs\); nothing was sent/);
      return true;
    });
    assert.equal(catalog.diagnostics().waitingCalls, 0);
    assert.equal(manager.server('hung')?.state.kind, 'starting', 'the server itself is left to its own timeouts');
  });

  it('says the budget is exceeded once, with the final counts, however the servers come up', async () => {
    const logger = new MemoryLogger();
    const manager = new ServerManager({ logger });
    const catalog = new ToolCatalog({ manager, storage: new MemoryToolCacheStorage(), logger, settings: { maxExposed: 1 } });
    cleanup.add(() => manager.dispose());
    cleanup.add(() => catalog.dispose());
    // Three servers, ready one after another: each would change the counts.
    await manager.start([server('a'), server('b', ['--startup-delay', '300']), server('c', ['--startup-delay', '600'])]);
    for (const name of ['a', 'b', 'c']) await waitForServer(manager, name, 'running');
    await catalog.settled();
    const said = logger.entries.filter((entry) => /passed the filters/.test(entry.message)).map((entry) => entry.message);
    const total = FIXTURE_TOOLS.length * 3;
    assert.deepEqual(
      said.map((message) => /^(\d+) tools passed the filters/.exec(message)?.[1]),
      [String(total)],
    );
  });

  it('caches every page of tools/list under the server and its connection hash', async () => {
    const paged = server('paged', ['--page-size', '3']);
    const { manager, catalog, storage } = setup();
    await manager.start([paged]);
    await waitForServer(manager, 'paged', 'running');
    await catalog.settled();
    const [key] = entryFor(paged, []);
    const stored = (await storage.get(key)) as ToolCacheEntry;
    assert.deepEqual(stored.tools.map((item) => item.name).sort(), FIXTURE_TOOLS);
    assert.deepEqual(toolNames(catalog.snapshot(), 'paged'), FIXTURE_TOOLS);
  });

  it('takes a burst of tools/list_changed as one announcement, and lists nothing twice: the connection asks, the catalog reads', async () => {
    const { manager, catalog } = setup();
    await manager.start([server('live')]);
    await waitForServer(manager, 'live', 'running');
    await catalog.settled();
    const connection = manager.connection('live');
    assert.ok(connection);
    let catalogLists = 0;
    const listTools = connection.listTools.bind(connection);
    connection.listTools = (options) => {
      catalogLists += 1;
      return listTools(options);
    };
    const toolLists = async (): Promise<number> => JSON.parse(textOf(await manager.forwardToolCall('live', 'stats', {}))).toolLists;
    const before = await toolLists();
    const announced: CatalogSnapshot[] = [];
    catalog.onDidChange((snapshot) => announced.push(snapshot));

    const added = ['t1', 't2', 't3', 't4', 't5'];
    await Promise.all(added.map((name) => manager.forwardToolCall('live', 'add_tool', { name })));
    await waitForSnapshot(catalog, (snapshot) => added.every((name) => toolNames(snapshot, 'live').includes(name)));
    await catalog.settled();

    assert.equal(catalogLists, 0, 'the catalog asked the server nothing');
    const asked = (await toolLists()) - before;
    // One request per change at most (fewer when changes come while one is in flight); before,
    // the catalog listed once more on top of the connection.
    assert.ok(asked >= 1 && asked <= added.length, `${asked} tools/list requests for ${added.length} changes`);
    assert.equal(catalog.diagnostics().refresh.debounced, 1);
    assert.equal(announced.length, 1, 'one announcement for the whole burst');
    assert.deepEqual(toolNames(announced[0] as CatalogSnapshot, 'live'), [...FIXTURE_TOOLS, ...added].sort());
  });

  it('invalidate() refetches from the running server and rewrites the entry', async () => {
    const dir = tempDir(cleanup);
    let offset = 0;
    const clock: Clock = { ...systemClock, now: () => Date.now() + offset };
    const { manager, catalog, storage } = setup(new FolderToolCacheStorage(dir), clock);
    const def = server('git');
    await manager.start([def]);
    await waitForServer(manager, 'git', 'running');
    await catalog.settled();
    const [key] = entryFor(def, []);
    const first = (await storage.get(key)) as ToolCacheEntry;
    const before = catalog.diagnostics().refresh.fetches;
    offset = 60_000;
    await catalog.invalidate('git');
    assert.equal(catalog.diagnostics().refresh.fetches, before + 1);
    const second = (await storage.get(key)) as ToolCacheEntry;
    assert.ok(second.fetchedAt >= first.fetchedAt + 60_000, 'fetched again, now');
    assert.deepEqual(toolNames(catalog.snapshot(), 'git'), FIXTURE_TOOLS);
  });

  it('a changed connection config is a miss: the old entry is dropped and the new one stored', async () => {
    const { manager, catalog, storage } = setup();
    const before = server('git');
    await manager.start([before]);
    await waitForServer(manager, 'git', 'running');
    await catalog.settled();
    const [oldKey] = entryFor(before, []);
    assert.deepEqual(await storage.keys(), [oldKey]);

    const after = server('git', ['--name', 'renamed']);
    // Make before break: the new config's server starts aside while the old one serves, so chat
    // never sees the server without tools, whatever is cached for the new config (nothing).
    const seen: string[][] = [];
    const subscription = catalog.onDidChange((snapshot) => seen.push(toolNames(snapshot, 'git')));
    await manager.update([after]);
    await waitForServer(manager, 'git', 'running');
    const definition = () => manager.server('git')?.definition;
    await eventually(() => {
      const current = definition();
      return current?.transport === 'stdio' && current.args.includes('renamed') ? true : undefined;
    }, 'the new config running');
    subscription.dispose();
    assert.ok(
      seen.every((names) => names.length > 0),
      JSON.stringify(seen),
    );
    assert.ok(toolNames(catalog.snapshot(), 'git').length > 0);
    await waitForServer(manager, 'git', 'running');
    await catalog.settled();
    const [newKey] = entryFor(after, []);
    assert.deepEqual(await storage.keys(), [newKey]);
  });
});
