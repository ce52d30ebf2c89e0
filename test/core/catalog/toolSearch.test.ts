// Tools found by search instead of cut by a budget: the catalog's search ranks every eligible tool
// (those past the budget included, nothing a filter hides), a tool it found can be called through
// the same gate with `reach: 'eligible'` while a plain call still may not, and a tool set (the
// workspace's named list of servers and globs) is one more filter, named in what it hides.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Tool } from '@modelcontextprotocol/client';
import { prepareToolList } from '../../../src/core/catalog/preparedList';
import { buildSnapshot } from '../../../src/core/catalog/snapshot';
import { ToolSearch } from '../../../src/core/catalog/toolSearch';
import type { CatalogSettings } from '../../../src/core/catalog/settings';
import { catalogSettingsFrom, toolSetsFrom } from '../../../src/core/catalog/settings';
import { ToolCatalog } from '../../../src/core/catalog/toolCatalog';
import { isSwitchboardError } from '../../../src/core/state';
import type { StdioServerDefinition } from '../../../src/core/config/types';
import { Cleanup, MemoryLogger } from '../connection/helpers';
import { definition, FakeClock, FakeManager, tool } from './helpers';
import { MemoryToolCacheStorage } from '../../../src/core/catalog/cache';

const GITHUB = [
  tool('create_pull_request', {
    description: 'Create a new pull request in a GitHub repository',
    inputSchema: { type: 'object', properties: { owner: {}, repo: {}, title: {}, head: {}, base: {} } },
  }),
  tool('list_issues', { description: 'List issues in a GitHub repository with filtering options' }),
  tool('get_file_contents', { description: 'Get the contents of a file or directory from a GitHub repository' }),
  tool('merge_pull_request', { description: 'Merge a pull request' }),
];
const FS = [
  tool('read_text_file', { description: 'Read the complete contents of a file from the file system as text' }),
  tool('write_file', { description: 'Create a new file or completely overwrite an existing file with new content' }),
  tool('delete_everything', { description: 'Delete every file', annotations: { destructiveHint: true } }),
];
const SLACK = [
  tool('slack_post_message', {
    description: 'Post a new message to a Slack channel',
    inputSchema: { type: 'object', properties: { channel_id: { description: 'The ID of the channel to post to' }, text: {} } },
  }),
  tool('slack_list_channels', { description: 'List public or pre-defined channels in the workspace' }),
];

describe('tool search and tool sets (catalog)', () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  async function setup(settings: Partial<CatalogSettings> = {}, definitions: StdioServerDefinition[] = []) {
    const manager = new FakeManager();
    manager.configure(
      definitions.length > 0
        ? definitions
        : [definition('github'), definition('fs', { tools: { deny: ['delete_*'] } }), definition('slack')],
    );
    const catalog = new ToolCatalog({
      manager,
      storage: new MemoryToolCacheStorage(),
      clock: new FakeClock(),
      logger: new MemoryLogger(),
      settings,
    });
    cleanup.add(() => catalog.dispose());
    await catalog.ready;
    for (const [name, list] of [
      ['github', GITHUB],
      ['fs', FS],
      ['slack', SLACK],
    ] as const) {
      manager.setTools(name, [...list], false);
      manager.setState(name, 'running');
    }
    return { manager, catalog };
  }

  it('ranks every eligible tool, past the budget too, by name, description and argument names, and never a filtered one', async () => {
    // A budget of 2, shared: github's first tool and fs's are in chat; everything else is past the budget.
    const { catalog } = await setup({ maxExposed: 2 });
    assert.deepEqual(
      catalog.snapshot().servers.flatMap((server) => server.tools.filter((item) => item.exposed).map((item) => item.qualifiedName)),
      ['github__create_pull_request', 'fs__read_text_file'],
    );
    const first = (query: string) => catalog.searchTools(query, { limit: 3 }).map((hit) => hit.qualifiedName);
    assert.equal(first('send a message to a slack channel')[0], 'slack__slack_post_message');
    assert.equal(first('create a pull request')[0], 'github__create_pull_request');
    assert.equal(first('merge the pull request')[0], 'github__merge_pull_request');
    assert.equal(first('read a file')[0], 'fs__read_text_file');
    assert.equal(first('which issues are open')[0], 'github__list_issues');
    // An argument's name counts: "channel_id" is only in the schema.
    assert.equal(first('channel id')[0], 'slack__slack_post_message');
    const hit = catalog.searchTools('post message')[0];
    assert.deepEqual([hit?.qualifiedName, hit?.inChat], ['slack__slack_post_message', false]);
    // Filtered out by tools.deny: not found whatever the query.
    assert.ok(!catalog.searchTools('delete every file').some((found) => found.name === 'delete_everything'));
    assert.deepEqual(
      catalog.searchTools('file', { server: 'github' }).map((found) => found.server),
      ['github'],
    );
  });

  it('reads a query as it reads the tools: the same stems, stop words left out, "news" not "new"', async () => {
    const { catalog, manager } = await setup();
    manager.configure([definition('github'), definition('fs', { tools: { deny: ['delete_*'] } }), definition('slack'), definition('news')]);
    manager.setTools(
      'news',
      [
        tool('get_trending', { description: 'The trending topics of the day' }),
        tool('get_headlines', { description: 'Latest news headlines' }),
        tool('new_game', { description: 'Start a new game of chess' }),
        tool('give_feedback', {
          description: `Tell us what you think of this tool: what you liked, what you would change, and anything you want us to know. ${'We read every answer and what you say helps us. '.repeat(12)}`,
        }),
      ],
      false,
    );
    manager.setState('news', 'running');
    const first = (query: string) => catalog.searchTools(query, { limit: 3 })[0]?.name;
    // "trendings" and "trending" meet at one stem, in the query as in the index.
    assert.equal(first('trendings'), 'get_trending');
    // "news" is not the plural of "new".
    assert.equal(first('news'), 'get_headlines');
    // Conversational words are not matched: the long feedback description does not win.
    assert.notEqual(first('what would you show me about the trending things'), 'give_feedback');
    assert.equal(first('what would you show me about the trending things'), 'get_trending');
  });

  it('says in one line why each hit was found: the words of the query it matched, and where', async () => {
    const { catalog } = await setup();
    const [hit] = catalog.searchTools('merging pull requests');
    assert.equal(hit?.name, 'merge_pull_request');
    assert.match(hit.why, /^matched /);
    assert.match(hit.why, /“merging” \(name, description\)/);
    assert.match(hit.why, /“pull” \(name, description\)/);
  });

  it('calls a tool search found that the budget alone left out, through the same gate; a plain call still may not; a filtered one never', async () => {
    const { manager, catalog } = await setup({ maxExposed: 2 });
    await assert.rejects(
      catalog.callExposedTool('slack', 'slack_post_message', {}),
      (error) => isSwitchboardError(error) && error.rule?.kind === 'budget',
    );
    await catalog.callExposedTool('slack', 'slack_post_message', { channel_id: 'C1', text: 'hi' }, {}, 'eligible');
    assert.deepEqual(manager.calls, [{ server: 'slack', tool: 'slack_post_message', args: { channel_id: 'C1', text: 'hi' } }]);
    await assert.rejects(
      catalog.callExposedTool('fs', 'delete_everything', {}, {}, 'eligible'),
      (error) => isSwitchboardError(error) && error.code === 'TOOL_FILTERED' && error.rule?.kind === 'serverDeny',
    );
    assert.throws(() => catalog.assertCallable('fs', 'delete_everything', 'eligible'), /tools\.deny pattern "delete_\*"/);
    assert.doesNotThrow(() => catalog.assertCallable('slack', 'slack_list_channels', 'eligible'));
    assert.throws(
      () => catalog.assertCallable('slack', 'slack_list_channels'),
      /more tools are eligible than mcpSwitchboard\.tools\.maxExposed/,
    );
  });

  it('a tool set lets through its servers and its globs, names itself in what it hides, and switching it re-filters', async () => {
    const sets = {
      review: { servers: ['github'], tools: ['fs/read_*'], description: 'Reviewing code' },
      chat: { servers: [], tools: ['slack/**'] },
    };
    const lookup = (active: string) => (key: string) => ({ toolSets: sets, toolSet: active })[key];
    const { catalog } = await setup(catalogSettingsFrom(lookup('review')));
    const exposed = () =>
      catalog.snapshot().servers.flatMap((server) => server.tools.filter((item) => item.exposed).map((item) => item.qualifiedName));
    assert.deepEqual(exposed(), [
      'github__create_pull_request',
      'github__get_file_contents',
      'github__list_issues',
      'github__merge_pull_request',
      'fs__read_text_file',
    ]);
    const outside = catalog.snapshot().servers[2]?.tools[0];
    assert.deepEqual(outside?.filteredBy, { kind: 'toolSet', name: 'review' });
    await assert.rejects(
      catalog.callExposedTool('slack', 'slack_post_message', {}, {}, 'eligible'),
      /not in the tool set "review" \(mcpSwitchboard\.toolSet\)/,
    );
    assert.equal(catalog.searchTools('slack message').length, 0, 'search finds nothing outside the set');

    catalog.updateSettings(catalogSettingsFrom(lookup('chat')));
    assert.deepEqual(exposed(), ['slack__slack_list_channels', 'slack__slack_post_message']);
    catalog.updateSettings(catalogSettingsFrom(lookup('')));
    assert.equal(exposed().length, 8, 'no set: every tool the other filters let through');

    catalog.updateSettings(catalogSettingsFrom(lookup('gone')));
    assert.equal(exposed().length, 8, 'an unknown set filters nothing');
    assert.match(
      catalog
        .snapshot()
        .warnings.map((warning) => warning.message)
        .join('\n'),
      /the tool set "gone" \(mcpSwitchboard\.toolSet\) is not defined in mcpSwitchboard\.toolSets; every tool is offered/,
    );
  });

  it('reads only well-formed tool sets, bounded', () => {
    assert.deepEqual(toolSetsFrom({ ok: { servers: ['a', 3], tools: ['x/*'] }, bad: 'nope', list: [] }), {
      ok: { servers: ['a'], tools: ['x/*'] },
    });
    assert.deepEqual(toolSetsFrom('x'), {});
    assert.equal(
      Object.keys(toolSetsFrom(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`s${i}`, { servers: [] }])))).length,
      100,
    );
  });
});

describe('tool search on a public corpus (LiveMCPBench, 527 real tools)', () => {
  const corpus = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../bench/search/public/livemcpbench/tools.json'), 'utf8')) as {
    servers: Array<{ name: string; tools: Tool[] }>;
  };
  const snapshot = buildSnapshot(
    corpus.servers.map((server) => ({
      name: server.name,
      state: 'running' as const,
      fromCache: false,
      tools: prepareToolList(server.tools),
    })),
    { globalDeny: [], disabled: [], maxExposed: 1_000_000 },
  ).snapshot;
  const search = new ToolSearch(() => snapshot);
  const names = (query: string) => search.search(query, { limit: 5 }).map((hit) => hit.name);

  it('a rare word decides over a common one that tools repeat in every field', () => {
    // "document" is in the name, title or description of 25 tools; "merge" in one description.
    assert.equal(names('merge them into a single document')[0], 'pdf_merger');
    // "get" is on a hundred tools; "wikipedia" on a few.
    assert.equal(names('get the wikipedia about NIO')[0], 'search_wikipedia');
  });
});

describe('the search index follows the snapshot incrementally', () => {
  function snapshotOf(lists: Record<string, Tool[]>, maxExposed = 1_000_000) {
    return buildSnapshot(
      Object.entries(lists).map(([name, tools]) => ({ name, state: 'running' as const, fromCache: false, tools: prepareToolList(tools) })),
      { globalDeny: [], disabled: [], maxExposed },
    ).snapshot;
  }
  const many = (server: string, count: number): Tool[] =>
    Array.from({ length: count }, (_, index) => tool(`${server}_tool_${index}`, { description: `Tool ${index} of ${server}` }));

  it('indexes only what changed: one server’s new list costs its own tools; a removed tool is not found', () => {
    const lists: Record<string, Tool[]> = { alpha: many('alpha', 50), beta: many('beta', 50), gamma: many('gamma', 50) };
    let current = snapshotOf(lists);
    const search = new ToolSearch(() => current);
    search.update();
    assert.deepEqual([search.size, search.counters.added], [150, 150]);
    // beta drops one tool and gains one: two documents change, not 150.
    const beta = [...many('beta', 49), tool('beta_zebra_probe', { description: 'A zebra-crossing counter' })];
    current = snapshotOf({ ...lists, beta });
    assert.equal(search.search('zebra crossing')[0]?.name, 'beta_zebra_probe');
    assert.deepEqual([search.size, search.counters.added, search.counters.discarded], [150, 151, 1]);
    assert.ok(!search.search('Tool 49 of beta', { limit: 50 }).some((hit) => hit.name === 'beta_tool_49'));
    // A snapshot that only moves tools past the budget changes no document, but what a hit says.
    current = snapshotOf({ ...lists, beta }, 10);
    const probe = search.search('zebra crossing')[0];
    assert.deepEqual([probe?.name, probe?.inChat, search.counters.added], ['beta_zebra_probe', false, 151]);
    // A server gone: its tools are gone from the index.
    current = snapshotOf({ alpha: lists.alpha ?? [] });
    assert.equal(search.search('zebra crossing').length, 0);
    assert.equal(search.size, 50);
  });

  it('ranks equal scores in the order of the servers, not the order their lists arrived in', () => {
    const env = () => [tool('env', { description: 'Reads an environment variable' }), tool('echo', { description: 'Echoes' })];
    // The second server lists its tools first: its documents are added first.
    let current = snapshotOf({ second: env() });
    const search = new ToolSearch(() => current);
    search.update();
    current = snapshotOf({ first: env(), second: env() });
    const hits = search.search('read an environment variable', { limit: 1 });
    assert.deepEqual(
      hits.map((hit) => hit.qualifiedName),
      ['first__env'],
    );
    assert.deepEqual(
      search.search('read an environment variable', { limit: 2 }).map((hit) => hit.qualifiedName),
      ['first__env', 'second__env'],
    );
  });
});
