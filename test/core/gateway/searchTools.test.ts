// Tools found by search instead of cut by the budget, for every client of the gateway (`serve`, a
// team gateway): when the budget leaves tools out of the aggregated endpoint's list, the list ends
// with switchboard__find_tools and switchboard__call_tool, which find and call every tool the
// filters (and, on a team gateway, the user's grant) let through, in both protocol eras; a filtered
// tool or one the policy keeps from the user is neither found nor called.
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { CALL_TOOL, FIND_TOOLS } from '../../../src/core/gateway/exposure/exposure';
import { oauthIdentity } from '../../../src/core/gateway';
import type { RequestIdentity } from '../../../src/core/gateway/http/resourceServer';
import { AccessPolicy, createJwtVerifier } from '../../../src/core/identity';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime/runtime';
import type { TeamIdp } from '../../fixtures/team-idp.mjs' with { 'resolution-mode': 'import' };
import { MODERN_VERSION } from '../support/eraClient';
import { Cleanup, eventually, MemoryLogger, textOf, toolsServer, waitForRunning } from './helpers';

const startTeamIdp = async (): Promise<TeamIdp> => (await import('../../fixtures/team-idp.mjs')).startTeamIdp();

describe('gateway: tools past the budget found by search (switchboard__find_tools, switchboard__call_tool)', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  let runtime: SwitchboardRuntime;
  let url: string;
  let token: string;

  before(async () => {
    runtime = createRuntime({
      logger: new MemoryLogger(),
      storage: new MemoryToolCacheStorage(),
      settings: { maxExposed: 3, globalDeny: ['beta/cwd'] },
    });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start([toolsServer('alpha'), toolsServer('beta')]);
    await waitForRunning(runtime.manager, ['alpha', 'beta']);
    const gateway = runtime.gateway();
    await gateway.start();
    url = `${gateway.url}/mcp`;
    token = gateway.token;
  });
  after(() => cleanup.run());

  async function connect(era: 'legacy' | 'modern', path = '', bearer = token): Promise<Client> {
    const client = new Client(
      { name: 'agent', version: '1.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_VERSION } } } : {},
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}${path}`), { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } }),
    );
    cleanup.add(() => client.close());
    return client;
  }

  const found = async (client: Client, query: string) =>
    (
      JSON.parse(textOf((await client.callTool({ name: FIND_TOOLS, arguments: { query } })) as CallToolResult)) as {
        tools: { qualifiedName: string }[];
      }
    ).tools.map((tool) => tool.qualifiedName);

  for (const era of ['legacy', 'modern'] as const) {
    it(`lists the search tools after the budget's three, finds and calls a tool past it, never a filtered one (${era})`, async () => {
      const client = await connect(era);
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      assert.deepEqual(names.slice(-2), [FIND_TOOLS, CALL_TOOL]);
      assert.equal(names.length, 5, 'the budget of 3, and the two');
      assert.ok(!names.includes('beta__env'), 'beta__env is past the budget');
      const envs = await found(client, 'read an environment variable');
      assert.ok(envs.includes('beta__env'), `found: ${envs.join(', ')}`);
      const called = (await client.callTool({
        name: CALL_TOOL,
        arguments: { tool: 'beta__env', arguments: { name: 'PATH' } },
      })) as CallToolResult;
      assert.match(textOf(called), /\//, 'the found tool answered');
      // beta/cwd is denied by mcpSwitchboard.tools.deny: not found, and refused when named.
      assert.ok(!(await found(client, 'working directory')).includes('beta__cwd'));
      await assert.rejects(
        client.callTool({ name: CALL_TOOL, arguments: { tool: 'beta__cwd', arguments: {} } }),
        /denied by the mcpSwitchboard\.tools\.deny pattern "beta\/cwd"/,
      );
      // The plain name of a tool past the budget is still refused: only search reaches it.
      await assert.rejects(
        client.callTool({ name: 'beta__env', arguments: { name: 'PATH' } }),
        /more tools are eligible than mcpSwitchboard\.tools\.maxExposed/,
      );
      // A server's own endpoint lists its tools as they are: no search tools there.
      const alpha = await connect(era, '/alpha');
      assert.ok(!(await alpha.listTools()).tools.some((tool) => tool.name === FIND_TOOLS));
    });
  }

  it('on a team gateway, searches only what the user is granted', async () => {
    const idp = await startTeamIdp();
    cleanup.add(() => idp.close());
    // A runtime of its own: a runtime has one gateway.
    const team = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: { maxExposed: 3 } });
    cleanup.add(() => team.dispose());
    await team.manager.start([toolsServer('alpha'), toolsServer('beta')]);
    await waitForRunning(team.manager, ['alpha', 'beta']);
    const gateway = team.gateway({
      identity: oauthIdentity({
        verifier: await createJwtVerifier({ issuer: idp.issuer }),
        requiredScopes: ['mcp'],
        policy: AccessPolicy.parse({
          rules: [
            { name: 'engineers', match: { groups: ['eng'] }, allow: { servers: ['*'] } },
            { name: 'support reads', match: { groups: ['support'] }, allow: { servers: ['alpha', 'beta'], tools: ['echo', 'count'] } },
          ],
        }),
      }),
    });
    await gateway.start();
    const resource = `${gateway.url}/mcp`;
    idp.allowResource(resource);
    const as = async (user: string) => {
      const client = new Client({ name: `${user}-agent`, version: '1.0.0' });
      const bearer = await idp.token(user, resource, 'mcp');
      await client.connect(
        new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } }),
      );
      cleanup.add(() => client.close());
      return client;
    };
    const carol = await as('carol');
    assert.ok((await found(carol, 'environment variable')).some((name) => name.endsWith('__env')));
    const bob = await as('bob');
    const bobFinds = await found(bob, 'environment variable count echo');
    assert.ok(bobFinds.length > 0);
    assert.ok(
      bobFinds.every((name) => /__(echo|count)$/.test(name)),
      `bob finds only what he is granted: ${bobFinds.join(', ')}`,
    );
    await assert.rejects(
      bob.callTool({ name: CALL_TOOL, arguments: { tool: 'beta__env', arguments: { name: 'PATH' } } }),
      // The words of a tool that does not exist: nothing tells bob that it does.
      /Unknown tool "beta__env": no server offers a tool with this qualified name/,
    );
    // Each user view's index follows the catalog when it changes, not on that user's next search.
    const identity = (gateway as unknown as { resourceServer: RequestIdentity }).resourceServer;
    const view = identity.catalogFor(undefined);
    view.source.searchTools?.('warm up');
    const before = view.searchIndexSize;
    await team.manager.update([toolsServer('alpha')]);
    // No search meanwhile: only the catalog's change can bring the index down to alpha's tools.
    await eventually(
      () => (view.searchIndexSize < before ? true : undefined),
      `the index (${before} tools) to drop beta's without a search`,
    );
    assert.ok(view.searchIndexSize > 0);
  });
});
