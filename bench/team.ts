// What a team gateway's parts cost per call, side by side in one run against the floor (one
// replica, the static token): checking a user's JWT (oidc-provider's token, its keys cached), a
// second replica's hop when a 2025 session is held by the other one, and a user's own token for an
// upstream that acts for each user (exchanged once, then remembered) against the gateway's own.
// Plus what Redis costs where it is used (a task that ends: one write; a tasks/get whose replica is
// gone: one read).
//   node --import tsx bench/team.ts [--rounds N] [--calls N] [--no-write]
import http from 'node:http';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { McpGateway, oauthIdentity } from '../src/core/gateway';
import { createJwtVerifier, TokenExchange } from '../src/core/identity';
import { OAuthRegistry, MemorySecretStore } from '../src/core/auth';
import { systemClock } from '../src/core/base/clock';
import { nullLogger } from '../src/core/base/logging';
import { DEFAULT_OAUTH } from '../src/core/config/types';
import { httpDefinition } from '../test/core/connection/helpers';
import { RedisTaskStore, Replicas } from '../src/core/cluster';
import { ServerManager } from '../src/core/manager';
import { FixtureToolSource, toolsServer } from '../test/core/gateway/helpers';
import { openSession } from '../test/core/support/wire';
import type { TeamIdp } from '../test/fixtures/team-idp.mjs' with { 'resolution-mode': 'import' };

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const index = args.indexOf(name);
  return index >= 0 ? Number(args[index + 1]) : fallback;
};
const ROUNDS = option('--rounds', 6);
const CALLS = option('--calls', 400);
const MODERN = '2026-07-28';
const TOKEN = 'bench-token-shared-by-every-gateway-of-this-run';
const KEY = Buffer.from('the-key-both-replicas-of-this-bench-share-000000');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

interface Target {
  readonly port: number;
  readonly headers: Record<string, string>;
  readonly body: (id: number) => string;
}

function post(target: Target, id: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: target.port, method: 'POST', path: '/mcp', agent, headers: target.headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          res.statusCode === 200 && text.includes('"bench"')
            ? resolve()
            : reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(target.body(id));
  });
}

const modernCallOf =
  (tool: string) =>
  (id: number): string =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: tool,
        arguments: { text: 'bench' },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
const modernCall = modernCallOf('alpha__echo');
const legacyCall = (id: number): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'alpha__echo', arguments: { text: 'bench' } } });
const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const modernHeaders = (token: string, tool = 'alpha__echo') => ({
  ...JSON_HEADERS,
  Authorization: `Bearer ${token}`,
  'MCP-Protocol-Version': MODERN,
  'Mcp-Method': 'tools/call',
  'Mcp-Name': tool,
});

/** The HTTP fixture that takes only JWTs of `issuer` for itself; its /mcp URL. */
async function startJwtUpstream(issuer: string): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, ['test/fixtures/http-server.mjs', '--require-jwt', issuer, '--name', 'tickets'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.once('exit', () => child.kill('SIGKILL'));
  const line = await new Promise<string>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString())));
  const { port } = JSON.parse(line.split('\n')[0] ?? '{}') as { port: number };
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill('SIGTERM') };
}

/** A 2025 session opened on `port` and initialized; its id. */
async function openInitializedSession(port: number): Promise<string> {
  const session = await openSession(`http://127.0.0.1:${port}/mcp`, TOKEN, 'bench');
  const headers = { ...JSON_HEADERS, Authorization: `Bearer ${TOKEN}`, 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-11-25' };
  await (
    await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })
  ).text();
  return session;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

async function main(): Promise<void> {
  const support = (await import('./support.mjs')) as {
    dateLine(): string;
    machineLine(): string;
    replaceSection(heading: string, section: string): void;
    shouldWrite(): boolean;
  };
  const idp: TeamIdp = await (await import('../test/fixtures/team-idp.mjs')).startTeamIdp({ accessTtlSeconds: 3600 });
  const redisPort = await freePort();
  const redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  // Whatever happens to the run, the Redis it started ends with it.
  process.once('exit', () => redis.kill('SIGTERM'));
  const manager = new ServerManager();
  const source = new FixtureToolSource(manager);
  await manager.start([toolsServer('alpha')]);
  await new Promise((resolve) => setTimeout(resolve, 1500));

  const single = new McpGateway({ source, token: TOKEN });
  await single.start();
  const verifier = await createJwtVerifier({ issuer: idp.issuer });
  const withJwt = new McpGateway({ source, identity: oauthIdentity({ verifier, requiredScopes: ['mcp'] }) });
  await withJwt.start();
  idp.allowResource(`${withJwt.url}/mcp`);
  const jwt = await idp.token('alice', `${withJwt.url}/mcp`, 'mcp');
  const [portA, portB] = [await freePort(), await freePort()];
  const routers = [portA, portB].map((port) => new Replicas({ selfUrl: `http://127.0.0.1:${port}`, key: KEY }));
  const replicaA = new McpGateway({ source, token: TOKEN, port: portA, replicas: routers[0] });
  const replicaB = new McpGateway({ source, token: TOKEN, port: portB, replicas: routers[1] });
  await Promise.all([replicaA.start(), replicaB.start()]);
  const session = await openInitializedSession(portA);
  const sessionHeaders = {
    ...JSON_HEADERS,
    Authorization: `Bearer ${TOKEN}`,
    'Mcp-Session-Id': session,
    'Mcp-Protocol-Version': '2025-11-25',
  };

  // An upstream that takes only its own JWTs: through a gateway that calls it with its own
  // client-credentials token, and through one that calls it with each user's exchanged token.
  const upstream = await startJwtUpstream(idp.issuer);
  idp.allowExchange(upstream.url);
  const ownOAuth = {
    ...DEFAULT_OAUTH,
    grant: 'client_credentials' as const,
    clientId: 'gateway',
    clientSecret: 'gateway-secret',
    scopes: ['mcp'],
  };
  const perUserManager = new ServerManager({
    connection: { oauth: new OAuthRegistry({ store: new MemorySecretStore(), clock: systemClock, logger: () => nullLogger }) },
  });
  const perUserSource = new FixtureToolSource(perUserManager);
  await perUserManager.start([
    httpDefinition(upstream.url, { name: 'own', oauth: ownOAuth }),
    httpDefinition(upstream.url, { name: 'mine', oauth: { ...ownOAuth, perUser: 'tokenExchange' } }),
  ]);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const perUser = new McpGateway({
    source: perUserSource,
    identity: oauthIdentity({ verifier, requiredScopes: ['mcp'] }),
    upstreamTokens: new TokenExchange({ clock: systemClock, logger: nullLogger }),
  });
  await perUser.start();
  idp.allowResource(`${perUser.url}/mcp`);
  const userJwt = await idp.token('alice', `${perUser.url}/mcp`, 'mcp');

  /** Each row's floor: the row that differs from it in the one thing measured. */
  const scenarios: Array<{ name: string; target: Target; floor: string }> = [
    {
      name: 'one replica, static token (2026-07-28 call)',
      target: { port: single.port, headers: modernHeaders(TOKEN), body: modernCall },
      floor: 'one replica, static token (2026-07-28 call)',
    },
    {
      name: 'one replica, a user’s JWT (2026-07-28 call)',
      target: { port: withJwt.port, headers: modernHeaders(jwt), body: modernCall },
      floor: 'one replica, static token (2026-07-28 call)',
    },
    {
      name: 'a user’s call, the gateway’s own token upstream',
      target: { port: perUser.port, headers: modernHeaders(userJwt, 'own__echo'), body: modernCallOf('own__echo') },
      floor: 'a user’s call, the gateway’s own token upstream',
    },
    {
      name: 'a user’s call, their own exchanged token upstream (remembered)',
      target: { port: perUser.port, headers: modernHeaders(userJwt, 'mine__echo'), body: modernCallOf('mine__echo') },
      floor: 'a user’s call, the gateway’s own token upstream',
    },
    {
      name: 'two replicas, 2025 session on the replica reached',
      target: { port: portA, headers: sessionHeaders, body: legacyCall },
      floor: 'two replicas, 2025 session on the replica reached',
    },
    {
      name: 'two replicas, 2025 session on the other one (forwarded)',
      target: { port: portB, headers: sessionHeaders, body: legacyCall },
      floor: 'two replicas, 2025 session on the replica reached',
    },
  ];
  const samples = new Map<string, number[]>(scenarios.map((scenario) => [scenario.name, []]));
  const roundMedians = new Map<string, number[]>(scenarios.map((scenario) => [scenario.name, []]));
  // Warm-up: the JIT, the keys cached, the connections open.
  for (let i = 0; i < 300; i++) for (const scenario of scenarios) await post(scenario.target, i);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < scenarios.length; k++) {
      const scenario = scenarios[(round + k) % scenarios.length];
      if (!scenario) continue;
      const times: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        const started = performance.now();
        await post(scenario.target, i);
        times.push(performance.now() - started);
      }
      samples.get(scenario.name)?.push(...times);
      roundMedians.get(scenario.name)?.push(median(times));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  // Redis where the team gateway uses it: a finished task written once, read when its replica is gone.
  const store = await RedisTaskStore.connect(`redis://127.0.0.1:${redisPort}`, () => undefined);
  const task = {
    owner: 'https://idp alice\u0000agent@1',
    result: { resultType: 'complete', taskId: 'x', status: 'completed', result: { content: [{ type: 'text', text: 'r'.repeat(1000) }] } },
  };
  const puts: number[] = [];
  const gets: number[] = [];
  for (let i = 0; i < 2000; i++) {
    let started = performance.now();
    await store.put(`bench-${i}`, task, 60_000);
    puts.push(performance.now() - started);
    started = performance.now();
    await store.get(`bench-${i}`);
    gets.push(performance.now() - started);
  }

  const rows = scenarios.map(({ name, floor }) => {
    const all = samples.get(name) ?? [];
    const p50 = median(all);
    const floorP50 = median(samples.get(floor) ?? []);
    return `| ${name} | ${p50.toFixed(3)} | ${percentile(all, 0.99).toFixed(3)} | ${(p50 / floorP50).toFixed(2)}× | ${p50 >= floorP50 ? '+' : '−'}${Math.abs(p50 - floorP50).toFixed(3)} | ${(roundMedians.get(name) ?? []).map((value) => value.toFixed(3)).join(', ')} |`;
  });
  const section = [
    '## bench:team',
    '',
    `Command: \`npm run bench:team\` (\`node --import tsx bench/team.ts --rounds ${ROUNDS} --calls ${CALLS}\`). ${support.dateLine()}. ${support.machineLine()}.`,
    '',
    `One client, sequential calls of the stdio fixture's \`echo\` over keep-alive HTTP, ${ROUNDS} rounds of ${CALLS} calls per row, the rows' order rotated each round; every gateway in this process over the same servers. Each row is compared with the row that differs from it in one thing: the JWT with the static token (both 2026-07-28 calls), a user's own exchanged token upstream with the gateway's own token (both to an HTTP upstream that checks JWTs), the forwarded session call with the same call on the replica that holds the session (both 2025 sessions). JWT: an access token of oidc-provider (RS256), its issuer's keys cached after the first call. Forwarded: the session was opened on replica A; the calls go to replica B, which sends each on to A (the hop a round robin balancer causes for half a session's requests).`,
    '',
    '| path | p50 ms | p99 ms | p50 ÷ its floor | p50 − its floor, ms | p50 per round, ms |',
    '|---|---:|---:|---:|---:|---|',
    ...rows,
    '',
    `Redis (7.0 on loopback, \`@redis/client\`), where a team gateway uses it: a plain call, a round or a session never touches it; a 2026-07-28 task that ends is written once (p50 ${median(puts).toFixed(3)} ms for a 1 KB result, off the call's path), and read once by a \`tasks/get\` whose replica is gone (p50 ${median(gets).toFixed(3)} ms); 2,000 of each.`,
    '',
  ].join('\n');
  console.log(section);
  if (support.shouldWrite()) support.replaceSection('## bench:team', section);
  await store.close();
  for (const gateway of [single, withJwt, replicaA, replicaB, perUser]) await gateway.dispose();
  perUserSource.dispose();
  await perUserManager.dispose();
  upstream.stop();
  routers.forEach((router) => router.dispose());
  source.dispose();
  await manager.dispose();
  await idp.close();
  redis.kill('SIGTERM');
  agent.destroy();
  process.exit(0);
}

void main();
