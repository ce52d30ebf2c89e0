// Issue: messages repeated their prefix across the gateway hop ("MCP error -32603: MCP error
// -32603: ... failed: MCP error -32603: ...").
import assert from 'node:assert/strict';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { Cleanup } from '../connection/helpers';
import { connectClient, startGateway, toolsServer } from '../gateway/helpers';

describe('error text through the gateway', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('wraps an upstream JSON-RPC error once, keeping its code', async () => {
    const { gateway } = await startGateway(cleanup, [toolsServer('alpha')]);
    const { client } = await connectClient(cleanup, gateway.aggregatedUrl, gateway.token);
    const error = await client.callTool({ name: 'alpha__rpc_error', arguments: {} }).then(() => undefined, (caught: unknown) => caught);
    assert.ok(error instanceof McpError);
    assert.equal(error.code, -32603);
    assert.equal(error.message, 'MCP error -32603: tools/call `rpc_error` failed: fixture rpc error');
  });

  it('an unknown tool is reported once, with one prefix', async () => {
    const { gateway } = await startGateway(cleanup, [toolsServer('alpha')]);
    const { client } = await connectClient(cleanup, gateway.endpointUrl('alpha'), gateway.token);
    const unknown = await client.callTool({ name: 'nope', arguments: {} }).then(() => undefined, (caught: unknown) => caught);
    assert.ok(unknown instanceof McpError);
    assert.equal((unknown.message.match(/MCP error/g) ?? []).length, 1, unknown.message);
  });
});
