// MCP Apps through the gateway: a tool's `_meta.ui`, and its `ui://` view (`text/html;profile=mcp-app`
// with its CSP and permissions), reach a client of the gateway exactly as the server sent them, in
// both eras. The server is built on the SDK's ext-apps; what a client reads directly from it is the
// reference for what it reads through Switchboard.
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { MemoryToolCacheStorage, ToolSearch } from '../../../src/core/catalog';
import { isForModel } from '../../../src/core/catalog/modelVisibility';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime/runtime';
import { Cleanup, FIXTURES, MemoryLogger, stdioDefinition } from '../connection/helpers';
import { waitForRunning } from '../gateway/helpers';
import { until } from '../support/poll';

const APPS = path.join(FIXTURES, 'apps-server.mjs');
const VIEW = 'ui://weather/view.html';
const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };

/** A tool as a client compares it: the gateway keeps everything but `execution`. */
function comparable(tools: readonly Tool[]): unknown {
  return tools.map(({ execution: _execution, ...tool }) => tool).sort((a, b) => a.name.localeCompare(b.name));
}

describe('MCP Apps pass through the gateway unchanged', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  let runtime: SwitchboardRuntime;
  let direct: Client;

  before(async () => {
    runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {} });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start([stdioDefinition([], { name: 'apps', args: [APPS] })]);
    await waitForRunning(runtime.manager, ['apps']);
    await runtime.gateway().start();
    direct = new Client({ name: 'direct', version: '1.0.0' });
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [APPS], stderr: 'ignore' }));
    cleanup.add(() => direct.close());
  });
  after(() => cleanup.run());

  for (const era of ['2025', '2026-07-28'] as const) {
    it(`${era} client: the tools' _meta.ui, the view's listing and its contents (HTML, CSP, permissions)`, async () => {
      const gateway = runtime.gateway();
      const client = new Client({ name: 'host', version: '1.0.0' }, era === '2025' ? {} : MODERN);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(gateway.endpointUrl('apps')), {
          requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } },
        }),
      );
      cleanup.add(() => client.close());

      const tools = (await client.listTools()).tools;
      assert.deepEqual(comparable(tools), comparable((await direct.listTools()).tools));
      const weather = tools.find((tool) => tool.name === 'get-weather');
      assert.deepEqual((weather?._meta as { ui?: unknown } | undefined)?.ui, { resourceUri: VIEW });
      const appOnly = tools.find((tool) => tool.name === 'refresh-weather');
      assert.deepEqual((appOnly?._meta as { ui?: unknown } | undefined)?.ui, { resourceUri: VIEW, visibility: ['app'] });
      // Passed through for the host's view; the tools Switchboard offers a model leave it out.
      assert.deepEqual(
        tools
          .filter(isForModel)
          .map((tool) => tool.name)
          .sort(),
        ['get-weather'],
      );

      const listed = (await client.listResources()).resources.find((resource) => resource.uri === VIEW);
      assert.deepEqual(
        listed,
        (await direct.listResources()).resources.find((resource) => resource.uri === VIEW),
      );
      assert.equal(listed?.mimeType, 'text/html;profile=mcp-app');

      const read = await client.readResource({ uri: VIEW });
      const reference = await direct.readResource({ uri: VIEW });
      assert.deepEqual(read.contents, reference.contents);
      const [content] = read.contents as Array<{
        mimeType?: string;
        text?: string;
        _meta?: { ui?: { csp?: unknown; permissions?: unknown } };
      }>;
      assert.equal(content?.mimeType, 'text/html;profile=mcp-app');
      assert.match(content?.text ?? '', /<h1>Weather<\/h1>/);
      assert.deepEqual(content?._meta?.ui?.csp, {
        connectDomains: ['https://api.weather.example'],
        resourceDomains: ['https://cdn.weather.example'],
      });

      const result = await client.callTool({ name: 'get-weather', arguments: { location: 'Oslo' } });
      assert.deepEqual(result.structuredContent, { location: 'Oslo', celsius: 21 });
    });
  }

  it('keeps a tool that MCP Apps marks for its view from every model: not found by search, not listed by the dispatcher, not called through switchboard__call_tool', async () => {
    // A budget of one: the gateway's search tools take over, as they do for a model with many tools.
    const own = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: { maxExposed: 1 } });
    cleanup.add(() => own.dispose());
    await own.manager.start([stdioDefinition([], { name: 'apps', args: [APPS] })]);
    await waitForRunning(own.manager, ['apps']);
    const hits = own.catalog.searchTools('refresh the weather', { limit: 50 }).map((hit) => hit.qualifiedName);
    assert.ok(!hits.includes('apps__refresh-weather'), hits.join(', '));
    assert.ok(hits.includes('apps__get-weather'), 'the same search finds the tool that is for a model');
    const listed = own.catalog
      .snapshot()
      .servers.flatMap((server) => server.tools.filter(ToolSearch.eligible))
      .map((tool) => tool.qualifiedName);
    assert.ok(!listed.includes('apps__refresh-weather'), 'the dispatcher lists what search may find');
    const gateway = own.gateway();
    await gateway.start();
    for (const options of [{}, MODERN]) {
      const client = new Client({ name: 'agent', version: '1.0.0' }, options);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(gateway.aggregatedUrl), {
          requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } },
        }),
      );
      cleanup.add(() => client.close());
      const found = await client.callTool({ name: 'switchboard__find_tools', arguments: { query: 'refresh the weather' } });
      assert.doesNotMatch(JSON.stringify(found), /refresh-weather/);
      const called = await client
        .callTool({ name: 'switchboard__call_tool', arguments: { tool: 'apps__refresh-weather', arguments: { location: 'Oslo' } } })
        .then(
          (result) => JSON.stringify(result),
          (error: unknown) => String((error as Error).message),
        );
      assert.match(called, /called by its server's view \(MCP Apps\), not by a model|not exposed/);
      assert.doesNotMatch(called, /refreshed Oslo/);
    }
  });
});

describe('MCP Apps: Switchboard declares the apps extension to its servers', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  after(() => cleanup.run());

  it('a server that offers its view only to hosts that declare the extension offers it through Switchboard', async () => {
    const direct = new Client({ name: 'plain', version: '1.0.0' });
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [APPS, '--ui-gated'], stderr: 'ignore' }));
    cleanup.add(() => direct.close());
    assert.deepEqual(
      (await direct.listTools()).tools.map((tool) => tool.name),
      ['plain-weather'],
      'a client that does not declare it gets the text fallback',
    );

    const runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {} });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start([stdioDefinition([], { name: 'gated', args: [APPS, '--ui-gated'] })]);
    await waitForRunning(runtime.manager, ['gated']);
    const names = () =>
      runtime.manager
        .connection('gated')
        ?.tools.map((tool) => tool.name)
        .sort() ?? [];
    await until(() => names().includes('get-weather'), 10_000, 'the app tools');
    assert.deepEqual(names(), ['get-weather', 'plain-weather', 'refresh-weather']);
  });
});
