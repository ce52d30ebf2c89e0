#!/usr/bin/env node
// OAuth benchmark, against the fixture MCP server behind oidc-provider (test/fixtures/oauth-server.mjs):
//  - per call: an `whoami` call through our ServerConnection with the OAuth provider (the bearer
//    token read, the expiry check) against the floor, a bare SDK client over streamable HTTP that
//    sends the same access token as a fixed bearer token;
//  - the sign-in itself, end to end (discovery, registration, the authorization request, the
//    provider's login and consent pages driven by a script, the code exchange, the reconnect),
//    and a refresh after the server refused the access token.
// Not a test; prints a markdown table and replaces the `## bench:oauth` section of bench/RESULTS.md.
//   npm run bench:oauth            (= node bench/oauth.mjs)
//   node bench/oauth.mjs --rounds 5 --no-write
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startOAuthFixture } from '../test/fixtures/oauth-server.mjs';
import {
  dateLine,
  loadAverage,
  loadBundle,
  machineLine,
  median,
  percentile,
  ratio,
  replaceSection,
  roundsOption,
  shouldWrite,
} from './support.mjs';

const SECTION = '## bench:oauth';
const rounds = roundsOption(10);
const write = shouldWrite();
const PER_ROUND = 200;
const WARMUP = 200;
const REDIRECT = 'http://127.0.0.1:1/oauth/callback';

const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-oauth-'));
const core = await loadBundle(path.join(outdir, 'core.cjs'), [
  "export { ServerConnection, systemClock } from './src/core/connection';",
  "export { CallbackRouter, MemorySecretStore, OAuthRegistry, ServerSignIn } from './src/core/auth';",
  "export { DEFAULT_OAUTH, DEFAULT_TIMEOUTS } from './src/core/config/types';",
  "export { loginAtProvider } from './test/core/support/providerLogin';",
]);
const fixture = await startOAuthFixture();
const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** A signed-in connection, and how long the sign-in took. */
async function signedInConnection() {
  const definition = {
    name: 'notes',
    source: { kind: 'user' },
    enabled: true,
    transport: 'http',
    url: fixture.mcpUrl,
    headers: {},
    sseFallback: false,
    oauth: core.DEFAULT_OAUTH,
    timeouts: core.DEFAULT_TIMEOUTS,
    reconnect: { maxAttempts: 0, initialDelayMs: 0, maxDelayMs: 0 },
    tools: {},
    lifecycle: { start: 'eager', idleStopMs: 0 },
    secrets: [],
  };
  const store = new core.MemorySecretStore();
  const oauth = new core.OAuthRegistry({ store, clock: core.systemClock, logger: () => silent });
  const connection = new core.ServerConnection(definition, { oauth, logger: silent });
  const router = new core.CallbackRouter(core.systemClock);
  const browser = {
    redirectUrl: REDIRECT,
    open: async (url) => void router.deliver(await core.loginAtProvider(url, REDIRECT)),
    waitForCallback: (state) => router.waitFor(state),
  };
  const signIns = new core.ServerSignIn(
    { server: () => ({ state: connection.state, definition }), reconnect: () => connection.reconnect() },
    oauth,
  );
  const started = performance.now();
  const first = await connection.start();
  if (first.kind !== 'needsSignIn') throw new Error(`expected needsSignIn, got ${JSON.stringify(first)}`);
  const { state } = await signIns.signIn('notes', browser);
  const signInMs = performance.now() - started;
  if (state.kind !== 'running') throw new Error(`not running after the sign-in: ${JSON.stringify(state)}`);
  const record = JSON.parse(await store.get(`oauth:${fixture.mcpUrl}`));
  const token = record.tokens[fixture.issuer].tokens.access_token;
  return { connection, token, signInMs };
}

async function timeCalls(call, count) {
  const times = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  return times;
}

const results = { core: [], floor: [], signIn: [], refresh: [] };
for (let round = 1; round <= rounds; round += 1) {
  const { connection, token, signInMs } = await signedInConnection();
  results.signIn.push(signInMs);
  const floor = new Client({ name: 'bench-floor', version: '1.0.0' });
  await floor.connect(new StreamableHTTPClientTransport(new URL(fixture.mcpUrl), { authProvider: { token: async () => token } }));
  const ways = [
    ['core', () => connection.sendToolCall('whoami', {})],
    ['floor', () => floor.callTool({ name: 'whoami', arguments: {} })],
  ];
  for (const [, call] of ways) await timeCalls(call, WARMUP);
  // Alternating order, so that neither way always runs on a warmer machine.
  for (const [name, call] of round % 2 ? ways : [...ways].reverse()) results[name].push(...(await timeCalls(call, PER_ROUND)));
  // The server refuses the token: the next call gets a 401, refreshes once, and is sent again.
  await fetch(new URL('/control/revoke-access', fixture.mcpUrl), { method: 'POST' });
  const [refreshMs] = await timeCalls(() => connection.sendToolCall('whoami', {}), 1);
  results.refresh.push(refreshMs);
  await floor.close();
  await connection.dispose();
  process.stderr.write(
    `round ${round}/${rounds}: core ${median(results.core).toFixed(3)} ms, floor ${median(results.floor).toFixed(3)} ms\n`,
  );
}
await fixture.close();
fs.rmSync(outdir, { recursive: true, force: true });

const coreMedian = median(results.core);
const floorMedian = median(results.floor);
const lines = [
  SECTION,
  '',
  `\`npm run bench:oauth\` (${rounds} rounds; ${dateLine()}; ${machineLine()}; load ${loadAverage()})`,
  '',
  '| | median | p95 |',
  '|---|---|---|',
  `| call through ServerConnection with the OAuth provider | ${coreMedian.toFixed(3)} ms | ${percentile(results.core, 95).toFixed(3)} ms |`,
  `| floor: bare SDK client, the same token as a fixed bearer | ${floorMedian.toFixed(3)} ms | ${percentile(results.floor, 95).toFixed(3)} ms |`,
  `| **ratio** | **${ratio(coreMedian / floorMedian)}** | |`,
  `| sign-in end to end (scripted login and consent at the provider) | ${median(results.signIn).toFixed(1)} ms | ${percentile(results.signIn, 95).toFixed(1)} ms |`,
  `| a call whose token the server refused: 401, one refresh, sent again | ${median(results.refresh).toFixed(1)} ms | ${percentile(results.refresh, 95).toFixed(1)} ms |`,
  '',
  `${rounds * PER_ROUND} calls per way. The fixture checks every token with oidc-provider; both ways pay that.`,
];
const section = lines.join('\n');
process.stdout.write(`${section}\n`);
if (write) replaceSection(SECTION, section);
process.exit(0);
