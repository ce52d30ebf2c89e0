import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import { ProtocolError, ProtocolErrorCode, type CallToolResult, type Progress } from '@modelcontextprotocol/client';
import {
  Cleanup,
  connectClient,
  connectDirect,
  contentServer,
  eventually,
  startGateway,
  stats,
  textOf,
  toolsServer,
  type Setup,
} from './helpers';

const CONTENT_CALLS: { name: string; args: Record<string, unknown>; type: string }[] = [
  { name: 'text', args: { message: 'hi', repeat: 2 }, type: 'text' },
  { name: 'image', args: {}, type: 'image' },
  { name: 'audio', args: {}, type: 'audio' },
  { name: 'embedded_resource', args: {}, type: 'resource' },
  { name: 'resource_link', args: {}, type: 'resource_link' },
  { name: 'structured', args: { a: 2, b: 3 }, type: 'text' },
  { name: 'mixed', args: {}, type: 'resource_link' },
  { name: 'tool_error', args: { reason: 'on purpose' }, type: 'text' },
];

async function rejection(promise: Promise<unknown>): Promise<ProtocolError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ProtocolError, `expected an ProtocolError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the call to be rejected');
}

describe('gateway: tool calls', function () {
  const cleanup = new Cleanup();
  let setup: Setup;

  beforeEach(async () => {
    setup = await startGateway(cleanup, [toolsServer('alpha'), contentServer('content')]);
  });
  afterEach(() => cleanup.run());

  it('returns every content type exactly as the bare upstream does, per server and aggregated', async () => {
    const direct = await connectDirect(cleanup, contentServer('content'));
    await direct.listTools(); // So the direct client validates structured output like the others.
    const perServer = (await connectClient(cleanup, setup.gateway.endpointUrl('content'), setup.gateway.token)).client;
    const aggregated = (await connectClient(cleanup, setup.gateway.aggregatedUrl, setup.gateway.token)).client;
    await perServer.listTools();
    await aggregated.listTools();
    for (const { name, args, type } of CONTENT_CALLS) {
      const expected = (await direct.callTool({ name, arguments: args })) as CallToolResult;
      assert.ok(
        expected.content.some((item) => item.type === type),
        `${name} returns ${type} content: ${JSON.stringify(expected)}`,
      );
      assert.deepEqual(await perServer.callTool({ name, arguments: args }), expected, `${name} via /mcp/content`);
      assert.deepEqual(await aggregated.callTool({ name: `content__${name}`, arguments: args }), expected, `${name} via /mcp`);
    }
    const structured = await direct.callTool({ name: 'structured', arguments: { a: 2, b: 3 } });
    assert.deepEqual(structured.structuredContent, { sum: 5, operands: [2, 3], note: null });
    const failed = await perServer.callTool({ name: 'tool_error', arguments: {} });
    assert.equal(failed.isError, true);
    const mixed = await perServer.callTool({ name: 'mixed', arguments: {} });
    assert.deepEqual(mixed._meta, { 'fixture.example/trace': 'abc123' });
  });

  it('passes isError results through as results, not errors', async () => {
    const { client } = await connectClient(cleanup, setup.gateway.endpointUrl('alpha'), setup.gateway.token);
    const result = await client.callTool({ name: 'fail', arguments: { message: 'broken on purpose' } });
    assert.deepEqual(result, { content: [{ type: 'text', text: 'broken on purpose' }], isError: true });
  });

  it('answers an unknown tool with an InvalidParams error naming the tool and server', async () => {
    const { client } = await connectClient(cleanup, setup.gateway.endpointUrl('alpha'), setup.gateway.token);
    const error = await rejection(client.callTool({ name: 'nonexistent', arguments: {} }));
    assert.equal(error.code, ProtocolErrorCode.InvalidParams);
    assert.match(error.message, /Unknown tool "nonexistent": server "alpha" has no tool "nonexistent"/);

    const aggregated = (await connectClient(cleanup, setup.gateway.aggregatedUrl, setup.gateway.token)).client;
    const byQualifiedName = await rejection(aggregated.callTool({ name: 'echo', arguments: { text: 'x' } }));
    assert.equal(byQualifiedName.code, ProtocolErrorCode.InvalidParams);
    assert.match(byQualifiedName.message, /Unknown tool "echo": no server offers a tool with this qualified name/);
    assert.deepEqual(setup.source.calls, []);
  });

  it('refuses a filtered or disabled tool with an error naming the rule, before it reaches the server', async () => {
    const { client } = await connectClient(cleanup, setup.gateway.endpointUrl('alpha'), setup.gateway.token);
    const aggregated = (await connectClient(cleanup, setup.gateway.aggregatedUrl, setup.gateway.token)).client;
    setup.source.filter('alpha', 'add', { kind: 'serverDeny', pattern: 'ad*' });
    setup.source.filter('alpha', 'echo', { kind: 'disabledSetting' });

    const denied = await rejection(client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }));
    assert.equal(denied.code, ProtocolErrorCode.InvalidParams);
    assert.match(denied.message, /Tool "add" of server "alpha" is not exposed: denied by the tools\.deny pattern "ad\*" of server "alpha"/);

    const disabled = await rejection(aggregated.callTool({ name: 'alpha__echo', arguments: { text: 'x' } }));
    assert.equal(disabled.code, ProtocolErrorCode.InvalidParams);
    assert.match(disabled.message, /Tool "alpha__echo" of server "alpha" is not exposed: disabled in mcpSwitchboard\.tools\.disabled/);
    assert.deepEqual(setup.source.calls, [], 'the gate refused before anything reached the server');

    setup.source.filter('alpha', 'add', undefined);
    assert.equal(textOf((await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })) as CallToolResult), '3');
  });

  it('refuses a call to a server that lost its endpoint (blocked), even through a session opened before', async () => {
    const perServer = (await connectClient(cleanup, setup.gateway.endpointUrl('alpha'), setup.gateway.token)).client;
    const aggregated = (await connectClient(cleanup, setup.gateway.aggregatedUrl, setup.gateway.token)).client;
    await setup.manager.setBlocked('alpha', { reason: 'untrusted', detail: 'workspace not trusted' });
    assert.ok(setup.source.snapshot().servers.find((server) => server.name === 'alpha')?.tools.length, 'the source still lists its tools');

    for (const [client, name] of [
      [perServer, 'echo'],
      [aggregated, 'alpha__echo'],
    ] as const) {
      const error = await rejection(client.callTool({ name, arguments: { text: 'x' } }));
      assert.equal(error.code, ProtocolErrorCode.InvalidParams);
      assert.match(error.message, new RegExp(`Tool "${name}" is unavailable: server "alpha" is blocked`));
    }
    assert.deepEqual((await perServer.listTools()).tools, []);
    assert.ok(!(await aggregated.listTools()).tools.some((tool) => tool.name.startsWith('alpha__')));
    assert.deepEqual(setup.source.calls, []);
  });

  it('passes the upstream JSON-RPC error through with its code, and reports a stopped server as unavailable', async () => {
    const { client } = await connectClient(cleanup, setup.gateway.endpointUrl('alpha'), setup.gateway.token);
    const upstream = await rejection(client.callTool({ name: 'rpc_error', arguments: {} }));
    assert.equal(upstream.code, ProtocolErrorCode.InternalError);
    assert.match(upstream.message, /fixture rpc error/);

    await setup.manager.stopServer('alpha');
    const stopped = await rejection(client.callTool({ name: 'echo', arguments: { text: 'x' } }));
    assert.equal(stopped.code, ProtocolErrorCode.InternalError);
    assert.match(stopped.message, /Server "alpha" is unavailable: .*server `alpha` is stopped/);
  });

  it('forwards progress notifications to the client under its own token', async () => {
    const { client } = await connectClient(cleanup, setup.gateway.endpointUrl('alpha'), setup.gateway.token);
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: 'slow', arguments: { ms: 600, progressEveryMs: 100, progressSteps: 5 } },
      {
        onprogress: (update) => progress.push(update),
      },
    );
    assert.equal(textOf(result as CallToolResult), 'slept 600');
    assert.ok(progress.length >= 3, `expected several progress updates, got ${JSON.stringify(progress)}`);
    assert.deepEqual(
      progress.map((update) => update.progress),
      progress.map((_, index) => index + 1),
    );
  });

  it('cancels the upstream call when the client cancels', async () => {
    const { client } = await connectClient(cleanup, setup.gateway.endpointUrl('alpha'), setup.gateway.token);
    await cancelSlowCall(client, 'slow');
    const after = await eventually(async () => {
      const current = await stats(setup.source, 'alpha');
      return current.cancellations === 1 ? current : undefined;
    }, 'the upstream to record the cancellation');
    assert.equal(after.cancellations, 1);
    assert.match(after.lastCancelReason ?? '', /cancel/i);
  });

  it('cancels through the aggregated endpoint too', async () => {
    const { client } = await connectClient(cleanup, setup.gateway.aggregatedUrl, setup.gateway.token);
    await cancelSlowCall(client, 'alpha__slow');
    await eventually(
      async () => ((await stats(setup.source, 'alpha')).cancellations === 1 ? true : undefined),
      'the upstream cancellation',
    );
  });
});

/** Starts a long `slow` call, cancels it once the upstream reports progress, and checks the rejection. */
async function cancelSlowCall(client: Client, name: string): Promise<void> {
  const controller = new AbortController();
  const call = client.callTool(
    { name, arguments: { ms: 20_000, progressEveryMs: 50 } },
    {
      signal: controller.signal,
      onprogress: () => controller.abort('test cancels'),
    },
  );
  await assert.rejects(call, (error: unknown) => String(error).includes('test cancels'));
}
