// The whole chain of one call, on the real parts: gateway → ToolCatalog (the one gate) → manager →
// connection → fixture process. The other gateway tests stand a fake source in for the catalog.
import assert from 'node:assert/strict';
import { ProtocolError, ProtocolErrorCode, type CallToolResult } from '@modelcontextprotocol/client';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { createRuntime } from '../../../src/core/runtime/runtime';
import { Cleanup, stdioDefinition, textOf } from '../connection/helpers';
import { connectClient, waitForRunning } from './helpers';

describe('gateway over the real catalog', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('calls an exposed tool, and refuses a denied or switched-off one at the catalog with the rule named', async () => {
    const runtime = createRuntime({ storage: new MemoryToolCacheStorage(), settings: { disabled: ['alpha/echo'] } });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start([stdioDefinition([], { name: 'alpha', tools: { deny: ['ad*'] } })]);
    await waitForRunning(runtime.manager, ['alpha']);
    const gateway = runtime.gateway();
    await gateway.start();
    const { client } = await connectClient(cleanup, gateway.endpointUrl('alpha'), gateway.token);

    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes('slow') && !names.includes('add') && !names.includes('echo'), names.join(', '));
    assert.equal(textOf((await client.callTool({ name: 'count', arguments: {} })) as CallToolResult), '1');

    const refused = async (name: string): Promise<ProtocolError> =>
      client.callTool({ name, arguments: { a: 1, b: 2, text: 'x' } }).then(
        () => assert.fail(`${name} was called`),
        (error: unknown) => {
          assert.ok(error instanceof ProtocolError, String(error));
          return error;
        },
      );
    const denied = await refused('add');
    assert.equal(denied.code, ProtocolErrorCode.InvalidParams);
    assert.match(denied.message, /Tool "add" of server "alpha" is not exposed: denied by the tools\.deny pattern "ad\*" of server "alpha"/);
    const off = await refused('echo');
    assert.match(off.message, /Tool "echo" of server "alpha" is not exposed: disabled in mcpSwitchboard\.tools\.disabled/);
    assert.equal(
      textOf((await client.callTool({ name: 'count', arguments: {} })) as CallToolResult),
      '2',
      'the refused calls never reached the server',
    );
  });
});
