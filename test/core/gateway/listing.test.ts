import assert from 'node:assert/strict';
import type { Tool } from '@modelcontextprotocol/client';
import { Cleanup, connectClient, connectDirect, contentServer, rawRequest, startGateway, toolsServer, type Setup } from './helpers';

/** What the gateway is expected to list for an upstream tool: everything but `execution`. */
function withoutExecution(tool: Tool): Tool {
  const { execution: _execution, ...rest } = tool;
  return rest;
}

describe('gateway: tool listing', function () {
  const cleanup = new Cleanup();
  let setup: Setup;

  beforeEach(async () => {
    setup = await startGateway(cleanup, [toolsServer('alpha'), contentServer('content'), { ...toolsServer('off'), enabled: false }]);
  });
  afterEach(() => cleanup.run());

  it('serves each server at /mcp/<server> with its tools exactly as the upstream lists them', async () => {
    const direct = await connectDirect(cleanup, contentServer('content'));
    const upstream = (await direct.listTools()).tools;
    for (const field of ['title', 'outputSchema', 'annotations', '_meta'] as const) {
      assert.ok(
        upstream.some((tool) => tool[field] !== undefined),
        `the fixture lists a tool with ${field}`,
      );
    }

    const { client } = await connectClient(cleanup, setup.gateway.endpointUrl('content'), setup.gateway.token);
    const listed = (await client.listTools()).tools;
    assert.deepEqual(listed, upstream.map(withoutExecution));

    const alpha = await connectClient(cleanup, setup.gateway.endpointUrl('alpha'), setup.gateway.token);
    const alphaTools = (await alpha.client.listTools()).tools;
    assert.deepEqual(alphaTools, setup.manager.server('alpha')?.tools.map(withoutExecution));
    assert.ok(alphaTools.some((tool) => tool.name === 'echo') && !alphaTools.some((tool) => tool.name === 'mixed'));
  });

  it('leaves out the tools the catalog does not expose', async () => {
    setup.source.filter('alpha', 'add', { kind: 'serverDeny', pattern: 'ad*' });
    const { client } = await connectClient(cleanup, setup.gateway.endpointUrl('alpha'), setup.gateway.token);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes('echo'));
    assert.ok(!names.includes('add'), `add is filtered: ${names.join(', ')}`);
  });

  it('serves every exposed tool at /mcp under its qualified name', async () => {
    setup.source.filter('content', 'audio', { kind: 'disabledSetting' });
    const { client } = await connectClient(cleanup, setup.gateway.aggregatedUrl, setup.gateway.token);
    const listed = (await client.listTools()).tools;
    const expected = setup.source
      .snapshot()
      .servers.filter((server) => server.state !== 'disabled')
      .flatMap((server) =>
        server.tools.filter((tool) => tool.exposed).map((tool) => ({ ...withoutExecution(tool.tool), name: tool.qualifiedName })),
      );
    assert.deepEqual(listed, expected);
    const names = listed.map((tool) => tool.name);
    assert.ok(names.includes('alpha__echo') && names.includes('content__structured'));
    assert.ok(!names.includes('content__audio') && !names.some((name) => name.startsWith('off__')));
  });

  it('gives a disabled server no endpoint, and unknown paths a 404 only after authentication', async () => {
    const port = setup.gateway.port;
    const auth = {
      Authorization: `Bearer ${setup.gateway.token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    };
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    assert.equal((await rawRequest(port, { path: '/mcp/off', headers: auth, body })).status, 404);
    assert.equal((await rawRequest(port, { path: '/mcp/nope', headers: auth, body })).status, 404);
    assert.equal((await rawRequest(port, { path: '/elsewhere', headers: auth, body })).status, 404);
    assert.equal((await rawRequest(port, { path: '/mcp/alpha/extra', headers: auth, body })).status, 404);
    assert.equal((await rawRequest(port, { path: '/mcp/nope', body })).status, 401, 'no token: 401, not 404');
    assert.equal((await rawRequest(port, { path: '/mcp/alpha', headers: auth, body })).status, 200);
  });

  it('says when a session on a server endpoint closes, with the version its URL was tagged with', async () => {
    const closed: Array<[string, string | undefined]> = [];
    let announced: () => void = () => undefined;
    const closing = new Promise<void>((resolve) => (announced = resolve));
    const subscription = setup.gateway.onDidCloseServerSession((server, tag) => {
      closed.push([server, tag]);
      announced();
    });
    cleanup.add(() => subscription.dispose());
    const tagged = await connectClient(cleanup, `${setup.gateway.endpointUrl('alpha')}?v=abc123`, setup.gateway.token);
    await connectClient(cleanup, setup.gateway.aggregatedUrl, setup.gateway.token);
    assert.ok((await tagged.client.listTools()).tools.length > 0, 'the tag does not change what the endpoint serves');
    // What the editor does when it stops a server: DELETE the session, then close.
    await tagged.transport.terminateSession();
    await tagged.client.close();
    await closing;
    assert.deepEqual(closed, [['alpha', 'abc123']], 'the aggregated session is not a server endpoint');
  });

  it('URL-encodes server names in endpoint paths', async () => {
    const cleanupOdd = new Cleanup();
    try {
      const odd = await startGateway(cleanupOdd, [toolsServer('odd name/ü')]);
      const url = odd.gateway.endpointUrl('odd name/ü');
      assert.ok(url.endsWith('/mcp/odd%20name%2F%C3%BC'), url);
      const { client } = await connectClient(cleanupOdd, url, odd.gateway.token);
      assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'echo'));
    } finally {
      await cleanupOdd.run();
    }
  });
});
