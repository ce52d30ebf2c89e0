// Issue: messages repeated their prefix across the gateway hop ("MCP error -32603: MCP error
// -32603: ... failed: MCP error -32603: ..."). v2 clients add no prefix; the gateway adds none.
import assert from 'node:assert/strict';
import { CallToolResultSchema } from '@modelcontextprotocol/core';
import { ProtocolError } from '@modelcontextprotocol/client';
import { Cleanup } from '../connection/helpers';
import { connectClient, initializeHeaders, rawRequest, startGateway, toolsServer } from '../gateway/helpers';

describe('error text through the gateway', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('wraps an upstream JSON-RPC error once, keeping its code', async () => {
    const { gateway } = await startGateway(cleanup, [toolsServer('alpha')]);
    const { client } = await connectClient(cleanup, gateway.aggregatedUrl, gateway.token);
    const error = await client.callTool({ name: 'alpha__rpc_error', arguments: {} }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof ProtocolError);
    assert.equal(error.code, -32603);
    assert.equal(error.message, 'tools/call `rpc_error` failed: fixture rpc error');
  });

  it('names the field of a malformed tools/call with -32602, not a schema dump; an unknown tool has no prefix', async () => {
    const { gateway } = await startGateway(cleanup, [toolsServer('alpha')]);
    const { client } = await connectClient(cleanup, gateway.endpointUrl('alpha'), gateway.token);
    const error = await client
      .request({ method: 'tools/call', params: { name: 'echo', arguments: 'not an object' } } as never, CallToolResultSchema)
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    assert.ok(error instanceof ProtocolError, String(error));
    assert.equal(error.code, -32602);
    assert.equal(error.message, 'Invalid params for tools/call: arguments: expected an object, got a string');
    const unknown = await client.callTool({ name: 'nope', arguments: {} }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(unknown instanceof ProtocolError);
    assert.doesNotMatch(unknown.message, /MCP error/);
    assert.match(unknown.message, /nope/);
  });

  it('refuses a body over 4 MiB with 413 and one that is not JSON with -32700, and keeps serving', async () => {
    const { gateway } = await startGateway(cleanup, [toolsServer('alpha')]);
    const headers = initializeHeaders({ Host: `127.0.0.1:${gateway.port}`, Authorization: `Bearer ${gateway.token}` });
    const big = await rawRequest(gateway.port, { path: '/mcp', headers, body: `{"x":"${'a'.repeat(5 * 1024 * 1024)}"}` });
    assert.equal(big.status, 413);
    const garbage = await rawRequest(gateway.port, { path: '/mcp', headers, body: '{not json' });
    assert.equal(garbage.status, 400);
    assert.equal((JSON.parse(garbage.body) as { error: { code: number } }).error.code, -32700);
    const { client } = await connectClient(cleanup, gateway.aggregatedUrl, gateway.token);
    assert.ok((await client.listTools()).tools.length > 0);
  });
});
