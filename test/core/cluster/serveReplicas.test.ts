// The team gateway as it is deployed: two `mcp-switchboard serve` processes (the built CLI), each
// with its own servers, behind a real HAProxy (round robin, no affinity), with a real Redis and a
// real OpenID provider, all on loopback. Users sign in with the provider's JWTs; both protocol eras
// work whatever replica a request reaches; a rolling restart loses no call of either era; a replica
// killed mid-run costs 2026-07-28 clients only the calls it had in flight, and 2025 sessions go on.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import type { TeamIdp } from '../../fixtures/team-idp.mjs' with { 'resolution-mode': 'import' };
import path from 'node:path';
import { Cleanup, FIXTURES, textOf } from '../connection/helpers';
import { buildCli, fixture, tempWorkspace } from '../doctor/helpers';
import { startServe, tempCacheHome, type ServeProcess } from '../cli/helpers';
import { freePort } from '../support/ports';
import { startHaproxy, startRedis, whenAllServing, type Service } from '../support/services';

const MODERN = '2026-07-28';
const CLUSTER_KEY = 'the-key-both-replicas-of-this-gateway-share-0123';

describe('cluster: two serve processes behind HAProxy, with Redis and an OpenID provider', function () {
  this.timeout(120_000);
  const cleanup = new Cleanup();
  let idp: TeamIdp;
  let redis: Service;
  let proxy: Service;
  let resource: string;
  const ports: number[] = [];
  const replicas: ServeProcess[] = [];
  let startReplica: (index: number) => Promise<ServeProcess>;
  let key: string;

  before(async function () {
    this.timeout(180_000);
    buildCli();
    idp = await (await import('../../fixtures/team-idp.mjs')).startTeamIdp();
    cleanup.add(() => idp.close());
    redis = await startRedis(cleanup);
    const ws = tempWorkspace(cleanup);
    const config = ws.file('settings.json');
    fs.writeFileSync(
      config,
      JSON.stringify({
        'mcpSwitchboard.servers': {
          tools: fixture('--max-lifetime', '600000'),
          // An upstream that tries to read what the gateway keeps secret.
          probe: { command: process.execPath, args: [path.join(FIXTURES, 'secret-probe-server.mjs')] },
        },
      }),
    );
    key = ws.file('cluster-key');
    fs.writeFileSync(key, CLUSTER_KEY, { mode: 0o600 });
    ports.push(await freePort(), await freePort());
    proxy = await startHaproxy(cleanup, ports);
    resource = `http://127.0.0.1:${proxy.port}/mcp`;
    idp.allowResource(resource);
    const cacheHome = tempCacheHome(cleanup);
    startReplica = async (index) => {
      const port = ports[index] ?? 0;
      const serve = await startServe(
        cleanup,
        [
          '--folder',
          ws.dir,
          '--config',
          config,
          '--port',
          String(port),
          '--allowed-host',
          '127.0.0.1',
          '--replica-url',
          `http://127.0.0.1:${port}`,
          '--cluster-key-secret',
          key,
          '--oauth-issuer',
          idp.issuer,
          '--oauth-resource',
          resource,
          '--drain-seconds',
          '20',
          // The proxy probes /readyz every 100 ms: half a second is time enough for it to stop sending.
          '--unready-seconds',
          '1',
        ],
        // Redis named the way a Kubernetes Secret gives it: an MCP_SWITCHBOARD_ variable.
        { XDG_CACHE_HOME: cacheHome, MCP_SWITCHBOARD_REDIS: `redis://127.0.0.1:${redis.port}` },
        60_000,
      );
      replicas[index] = serve;
      await whenAllServing(proxy, ports.length);
      return serve;
    };
    await Promise.all([startReplica(0), startReplica(1)]);
  });
  after(() => cleanup.run());

  async function connect(user: string, era: 'legacy' | 'modern'): Promise<Client> {
    const token = await idp.token(user, resource, 'mcp');
    const agent = new Client(
      { name: `${user}-${era}`, version: '1.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
    );
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    );
    cleanup.add(() => agent.close());
    return agent;
  }

  /** `workers` loops of calls through the proxy until `stop`; how many were answered and how many failed. */
  function keepCalling(agent: Client, workers: number, ms: number): { stop(): Promise<{ ok: number; failed: string[] }> } {
    let running = true;
    // A test that fails before it stops the loops: they end with it, not spin on against the next test.
    cleanup.add(() => {
      running = false;
    });
    let ok = 0;
    const failed: string[] = [];
    const loops = Array.from({ length: workers }, async () => {
      while (running) {
        try {
          const result = (await agent.callTool({ name: 'tools__slow', arguments: { ms } })) as CallToolResult;
          assert.equal(textOf(result), `slept ${ms}`);
          ok += 1;
        } catch (error) {
          failed.push(String((error as Error).message).slice(0, 200));
        }
      }
    });
    return {
      stop: async () => {
        running = false;
        await Promise.all(loops);
        return { ok, failed };
      },
    };
  }

  it('serves signed-in users of both eras on either replica', async () => {
    for (const era of ['legacy', 'modern'] as const) {
      const agent = await connect('alice', era);
      for (let i = 0; i < 8; i++) {
        assert.equal(
          textOf((await agent.callTool({ name: 'tools__echo', arguments: { text: `${era} ${i}` } })) as CallToolResult),
          `${era} ${i}`,
        );
      }
    }
    const refused = await fetch(resource, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    assert.equal(refused.status, 401);
    assert.match(
      refused.headers.get('www-authenticate') ?? '',
      /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
  });

  it('keeps every stdio upstream from the gateway’s secrets: its variables, its command line, its cluster key', async () => {
    const agent = await connect('alice', 'legacy');
    if (!(await agent.listTools()).tools.some((tool) => tool.name === 'probe__probe'))
      assert.fail(`the probe did not start: ${replicas.map((replica) => replica.stderr().slice(-1500)).join('\n---\n')}`);
    for (let i = 0; i < 2; i++) {
      // Round robin: both replicas' probes answer.
      const result = (await agent.callTool({
        name: 'probe__probe',
        arguments: { paths: [key], markers: ['MCP_SWITCHBOARD_REDIS', '--cluster-key-secret', CLUSTER_KEY] },
      })) as CallToolResult;
      const seen = JSON.parse(textOf(result)) as { ownEnvironment: string[]; files: Record<string, string>; processes: unknown[] };
      assert.deepEqual(seen.ownEnvironment, ['MCP_SWITCHBOARD_LAUNCHED_BY'], JSON.stringify(seen));
      assert.ok(!String(seen.files[key]).startsWith('read:') || seen.files[key] === 'empty', JSON.stringify(seen));
      assert.ok(!String(seen.files[key]).includes(CLUSTER_KEY.slice(0, 20)), JSON.stringify(seen));
      assert.deepEqual(seen.processes, [], `no process of the gateway is visible to it: ${JSON.stringify(seen)}`);
    }
    // The gateway itself read the key and Redis: it serves.
    assert.equal(
      textOf((await agent.callTool({ name: 'tools__echo', arguments: { text: 'still here' } })) as CallToolResult),
      'still here',
    );
  });

  it('loses no call of a client of either era while each replica in turn is stopped and started again', async () => {
    const agent = await connect('carol', 'modern');
    const calls = keepCalling(agent, 4, 250);
    // A 2025 session, whichever replica holds it: forwarded to it, or taken over when it is gone.
    const legacy = await connect('bob', 'legacy');
    const legacyCalls = keepCalling(legacy, 2, 250);
    for (const index of [0, 1]) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const old = replicas[index];
      old?.child.kill('SIGTERM');
      const exit = await old?.exited;
      assert.equal(exit?.code, 0, `replica ${index} drained and exited: ${old?.stderr().slice(-400) ?? ''}`);
      await startReplica(index);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const { ok, failed } = await calls.stop();
    assert.deepEqual(failed, [], `${ok} calls answered`);
    assert.ok(ok >= 8, `${ok} calls answered`);
    const legacyOutcome = await legacyCalls.stop();
    assert.deepEqual(legacyOutcome.failed, [], `2025: ${legacyOutcome.ok} calls answered`);
    assert.ok(legacyOutcome.ok >= 4, `2025: ${legacyOutcome.ok} calls answered`);
  });

  it('costs 2026-07-28 clients only the calls in flight when a replica is killed; a 2025 session goes on', async () => {
    const legacy = await connect('bob', 'legacy');
    const sessionBefore = (legacy.transport as StreamableHTTPClientTransport | undefined)?.sessionId;
    const agent = await connect('carol', 'modern');
    const workers = 4;
    const calls = keepCalling(agent, workers, 400);
    await new Promise((resolve) => setTimeout(resolve, 600));
    replicas[1]?.child.kill('SIGKILL');
    await replicas[1]?.exited;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const { ok, failed } = await calls.stop();
    assert.ok(failed.length <= workers, `at most the ${workers} calls in flight fail: ${failed.length} failed (${failed.join(' | ')})`);
    assert.ok(ok >= 4, `calls went on on the other replica: ${ok} answered`);

    // The 2025 session goes on, wherever it was: on the replica still up, or taken over by it.
    assert.equal(textOf((await legacy.callTool({ name: 'tools__echo', arguments: { text: 'back' } })) as CallToolResult), 'back');
    assert.equal((legacy.transport as StreamableHTTPClientTransport | undefined)?.sessionId, sessionBefore);
    await startReplica(1);
  });
});
