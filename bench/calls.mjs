#!/usr/bin/env node
// Call latency benchmark: an `echo` tool called six ways in the same run: a bare SDK client straight
// to the stdio fixture, our core ServerConnection, the gateway (`mcp-switchboard serve` in its own
// process, as a terminal agent would use it) with a 2025 and with a 2026-07-28 client, and, as the
// floor of any HTTP hop, a bare v2 client over streamable HTTP straight to an HTTP server in each
// era. Not a test; prints a markdown table and replaces the `## bench:calls` section of
// bench/RESULTS.md.
//   npm run bench:calls                        (= node bench/calls.mjs)
//   node bench/calls.mjs --rounds 5 --no-write
// The core is TypeScript: it is bundled with esbuild first, as the extension ships it (see
// bench/support.mjs). The gateway runs from a bundle of src/cli.ts, not dist/, so a stale or
// concurrent build cannot skew the numbers.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  bundleCli,
  clockTicksPerSecond,
  dateLine,
  loadAverage,
  loadBundle,
  machineLine,
  option,
  percentile,
  procStat,
  ratio,
  repoRoot,
  replaceSection,
  shouldWrite,
  stopChild,
  ticksToMs,
} from './support.mjs';

const STDIO_FIXTURE = path.join(repoRoot, 'test', 'fixtures', 'stdio-server.mjs');
const HTTP_FIXTURE = path.join(repoRoot, 'test', 'fixtures', 'http-server.mjs');
const MODERN_FIXTURE = path.join(repoRoot, 'test', 'fixtures', 'modern-server.mjs');
/** A v2 client in the 2026-07-28 era: no session, the `_meta` envelope on every request. */
const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } };
const SECTION = '## bench:calls';

const rounds = Number(option('rounds', '10'));
const write = shouldWrite();
/** Per way and round: this many sequential calls, then one batch of this many concurrent calls. */
const PER_ROUND = 100;
const CONCURRENCY = 100;
const WARMUP_CALLS = 300;
/** The issue's goal: the gateway at most this much slower than a bare HTTP client to an HTTP server. */
const GOAL_RATIO = 1.3;
// Long enough that no fixture ends itself mid-run (their default safety net is 2 minutes).
const FIXTURE_ARGS = ['--max-lifetime', '900000'];

async function loadCore(outdir) {
  const core = await loadBundle(path.join(outdir, 'core.cjs'), [
    "export { ServerConnection } from './src/core/connection';",
    "export { DEFAULT_TIMEOUTS } from './src/core/config/types';",
  ]);
  const cli = await bundleCli(path.join(outdir, 'cli.cjs'));
  return { core, cli };
}

const ECHO_ARGS = { text: 'hello from the benchmark' };

/** Each way: a name, a `call()` that makes one echo call, and `close()`. */
// `processes`: the other processes that work on each call, for the CPU accounting.
async function bareSdkStdio() {
  const client = new Client({ name: 'bench-sdk', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [STDIO_FIXTURE, '--name', 'sdk', ...FIXTURE_ARGS],
    stderr: 'ignore',
  });
  await client.connect(transport);
  return {
    processes: { fixture: transport.pid },
    call: () => client.callTool({ name: 'echo', arguments: ECHO_ARGS }),
    close: () => client.close(),
  };
}

async function coreConnection(core) {
  const connection = new core.ServerConnection({
    name: 'core',
    source: { kind: 'user' },
    enabled: true,
    transport: 'stdio',
    command: process.execPath,
    args: [STDIO_FIXTURE, '--name', 'core', ...FIXTURE_ARGS],
    env: {},
    cwd: repoRoot,
    timeouts: core.DEFAULT_TIMEOUTS,
    reconnect: { maxAttempts: 0, initialDelayMs: 0, maxDelayMs: 0 },
    tools: {},
    lifecycle: { start: 'eager', idleStopMs: 0 },
    secrets: [],
  });
  const state = await connection.start();
  if (state.kind !== 'running') throw new Error(`core connection did not start: ${JSON.stringify(state)}`);
  return {
    processes: { fixture: connection.pid },
    call: () => connection.sendToolCall('echo', ECHO_ARGS),
    close: () => connection.dispose(),
  };
}

/** Spawns a process and resolves with its first stdout line, parsed as JSON. */
function firstJsonLine(command, args, env, what) {
  const child = spawn(command, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const line = new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once('line', (text) => resolve(JSON.parse(text)));
    void exited.then(({ code, signal }) => reject(new Error(`${what} exited (${code ?? signal}) before it was ready:\n${stderr}`)));
  });
  return { child, exited, line };
}

async function httpClient(url, headers = {}, options = {}) {
  const client = new Client({ name: 'bench-http', version: '1.0.0' }, options);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

async function gateway(cli, tempRoot, clientOptions = {}) {
  const folder = fs.mkdtempSync(path.join(tempRoot, 'ws-'));
  fs.mkdirSync(path.join(folder, '.vscode'));
  const marker = path.join(folder, 'fixture.json');
  const servers = {
    fixture: { command: process.execPath, args: [STDIO_FIXTURE, '--name', 'gateway', '--marker', marker, ...FIXTURE_ARGS] },
  };
  fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), JSON.stringify({ 'mcpSwitchboard.servers': servers }));
  const serve = firstJsonLine(
    process.execPath,
    [cli, 'serve', '--folder', folder, '--trust-workspace'],
    { XDG_CACHE_HOME: path.join(tempRoot, 'cache') },
    'serve',
  );
  const ready = await serve.line;
  const client = await httpClient(ready.url, { Authorization: `Bearer ${ready.token}` }, clientOptions);
  // The JSON line comes after the start-up gate; the fixture may still be connecting.
  const deadline = Date.now() + 30_000;
  while (!(await client.listTools()).tools.some((tool) => tool.name === 'fixture__echo')) {
    if (Date.now() > deadline) throw new Error('the gateway never listed fixture__echo');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    processes: { gateway: serve.child.pid, fixture: JSON.parse(fs.readFileSync(marker, 'utf8')).pid },
    call: () => client.callTool({ name: 'fixture__echo', arguments: ECHO_ARGS }),
    close: async () => {
      await client.close();
      await stopChild(serve.child, serve.exited);
    },
  };
}

async function bareSdkHttp() {
  const fixture = firstJsonLine(process.execPath, [HTTP_FIXTURE, '--name', 'sdk-http', ...FIXTURE_ARGS], {}, 'the HTTP fixture');
  const { port } = await fixture.line;
  return httpWay(fixture, await httpClient(`http://127.0.0.1:${port}/mcp`));
}

/** A bare client calling `echo` on an HTTP fixture process, which close() stops. */
function httpWay(fixture, client) {
  return {
    processes: { fixture: fixture.child.pid },
    call: () => client.callTool({ name: 'echo', arguments: ECHO_ARGS }),
    close: async () => {
      await client.close();
      await stopChild(fixture.child, fixture.exited);
    },
  };
}

/** The modern fixture prints `listening <port>`, not JSON. */
async function bareSdkModernHttp() {
  const child = spawn(process.execPath, [MODERN_FIXTURE, '--http', '--name', 'sdk-modern'], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const port = await new Promise((resolve) =>
    readline.createInterface({ input: child.stdout }).once('line', (line) => resolve(Number(line.split(' ')[1]))),
  );
  return httpWay({ child, exited }, await httpClient(`http://127.0.0.1:${port}/mcp`, {}, MODERN));
}

async function check(result, way) {
  const value = await result;
  const text = value?.content?.[0]?.text;
  if (text !== ECHO_ARGS.text) throw new Error(`${way}: unexpected result ${JSON.stringify(value)}`);
}

/** User+system CPU ms of a running process (Linux /proc); NaN where that is not available. */
function processCpuMs(pid) {
  const fields = procStat(pid);
  return fields ? ticksToMs(Number(fields[11]) + Number(fields[12])) : Number.NaN;
}

function cpuNow(way) {
  const own = process.cpuUsage();
  return {
    client: (own.user + own.system) / 1000,
    gateway: way.processes.gateway === undefined ? 0 : processCpuMs(way.processes.gateway),
    fixture: processCpuMs(way.processes.fixture),
  };
}

/** Sequential calls; adds the CPU time they cost each process to `way.cpu`. */
async function sequential(way, count, into) {
  const before = cpuNow(way);
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await check(way.call(), way.key);
    into.push(performance.now() - started);
  }
  if (into === way.seq) {
    const after = cpuNow(way);
    for (const key of ['client', 'gateway', 'fixture']) way.cpu[key] += after[key] - before[key];
  }
}

/** `count` calls started together (count ≤ CONCURRENCY); each call's own latency, and the batch's wall time. */
async function concurrent(way, count, into) {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: count }, async () => {
      const own = performance.now();
      await check(way.call(), way.key);
      into.push(performance.now() - own);
    }),
  );
  return performance.now() - started;
}

const fmt = (value) => (value >= 10 ? value.toFixed(1) : value.toFixed(2));

async function main() {
  const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-calls-'));
  const ways = [];
  try {
    const { core, cli } = await loadCore(tempRoot);
    const load = loadAverage();
    console.log(
      `[bench] ${rounds} rounds × (${PER_ROUND} sequential + ${PER_ROUND} concurrent, ${CONCURRENCY} at a time) per way; load average ${load}`,
    );
    const definitions = [
      { key: 'sdk', label: 'Bare SDK client → fixture (stdio)', open: () => bareSdkStdio() },
      { key: 'core', label: 'Core ServerConnection → fixture (stdio)', open: () => coreConnection(core) },
      {
        key: 'gateway',
        label: 'SDK client (2025) → gateway `/mcp` (HTTP, `serve` process) → fixture (stdio)',
        open: () => gateway(cli, tempRoot),
      },
      { key: 'http', label: 'Floor (2025): bare SDK client → HTTP server (streamable HTTP, sessions)', open: () => bareSdkHttp() },
      {
        key: 'gatewayModern',
        label: 'SDK client (2026-07-28) → gateway `/mcp` (HTTP, `serve` process) → fixture (stdio)',
        open: () => gateway(cli, tempRoot, MODERN),
      },
      {
        key: 'httpModern',
        label: 'Floor (2026-07-28): bare SDK client → HTTP server (streamable HTTP, sessionless)',
        open: () => bareSdkModernHttp(),
      },
    ];
    for (const definition of definitions)
      ways.push({
        ...definition,
        ...(await definition.open()),
        seq: [],
        conc: [],
        batches: [],
        cpu: { client: 0, gateway: 0, fixture: 0 },
      });

    // JIT, connection pools and the fixtures' own warm-up, outside the measurement.
    for (const way of ways) {
      await sequential(way, WARMUP_CALLS, []);
      for (let i = 0; i < 3; i++) await concurrent(way, CONCURRENCY, []);
    }

    for (let round = 0; round < rounds; round++) {
      // Rotate which way goes first so that drift (other load on the machine, GC) spreads evenly.
      const order = ways.map((_, index) => ways[(index + round) % ways.length]);
      for (const way of order) {
        await sequential(way, PER_ROUND, way.seq);
        for (let done = 0; done < PER_ROUND; done += CONCURRENCY)
          way.batches.push(await concurrent(way, Math.min(CONCURRENCY, PER_ROUND - done), way.conc));
      }
      console.log(
        `[bench] round ${round + 1}/${rounds}  sequential p50 ms  ${ways.map((way) => `${way.key} ${fmt(percentile(way.seq.slice(-PER_ROUND), 50))}`).join('  ')}`,
      );
    }

    const sdk = ways[0];
    const stats = (way) => ({
      seq50: percentile(way.seq, 50),
      seq95: percentile(way.seq, 95),
      conc50: percentile(way.conc, 50),
      conc95: percentile(way.conc, 95),
      throughput: (way.conc.length / way.batches.reduce((sum, value) => sum + value, 0)) * 1000,
    });
    const base = stats(sdk);
    const rows = ways.map((way) => ({ way, ...stats(way) }));
    const table = [
      '| Way | Sequential p50 (ms) | Sequential p95 (ms) | p50 ÷ SDK | p95 ÷ SDK | Concurrent p50 (ms) | Concurrent p95 (ms) | p50 ÷ SDK | p95 ÷ SDK | Concurrent throughput (calls/s) |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rows.map(
        (row) =>
          `| ${row.way.label} | ${fmt(row.seq50)} | ${fmt(row.seq95)} | ${ratio(row.seq50 / base.seq50)} | ${ratio(row.seq95 / base.seq95)} | ${fmt(row.conc50)} | ${fmt(row.conc95)} | ${ratio(row.conc50 / base.conc50)} | ${ratio(row.conc95 / base.conc95)} | ${Math.round(row.throughput)} |`,
      ),
    ].join('\n');
    const perCall = (way, key) => way.cpu[key] / way.seq.length;
    const cpuTable = [
      '| Way | This process (client side) | Gateway process | Fixture process | Total CPU per call |',
      '| --- | ---: | ---: | ---: | ---: |',
      ...rows.map(({ way }) => {
        const parts = ['client', 'gateway', 'fixture'].map((key) => perCall(way, key));
        const cells = parts.map((value, index) => (index === 1 && way.processes.gateway === undefined ? '–' : fmt(value)));
        return `| ${way.label} | ${cells.join(' | ')} | ${fmt(parts.reduce((sum, value) => sum + value, 0))} |`;
      }),
    ].join('\n');
    const byKey = Object.fromEntries(rows.map((row) => [row.way.key, row]));
    // The goal of the issue: the gateway against the floor of any HTTP hop, in each era.
    const floors = [
      { era: '2025', gateway: byKey.gateway, floor: byKey.http },
      { era: '2026-07-28', gateway: byKey.gatewayModern, floor: byKey.httpModern },
    ].map((pair) => ({ ...pair, seq: pair.gateway.seq50 / pair.floor.seq50, conc: pair.gateway.conc50 / pair.floor.conc50 }));
    const met = floors.every((pair) => pair.seq <= GOAL_RATIO && pair.conc <= GOAL_RATIO);
    const hop = byKey.gateway.seq50 - byKey.core.seq50;
    const goalLines = floors.map(
      (pair) =>
        `- ${pair.era} client: sequential p50 ${fmt(pair.gateway.seq50)} ms vs ${fmt(pair.floor.seq50)} ms = ${ratio(pair.seq)} (${pair.seq <= GOAL_RATIO ? 'met' : 'missed'}); concurrent p50 ${fmt(pair.gateway.conc50)} ms vs ${fmt(pair.floor.conc50)} ms = ${ratio(pair.conc)} (${pair.conc <= GOAL_RATIO ? 'met' : 'missed'})`,
    );
    const section = [
      SECTION,
      '',
      `Command: \`npm run bench:calls\` (\`node bench/calls.mjs\`, ${rounds} rounds)  `,
      `${dateLine()}  `,
      `${machineLine()}  `,
      `Load average (1/5/15 min) at start: ${load}; at end: ${loadAverage()}; run at nice ${os.getPriority()}. The machine may be shared by other work.`,
      '',
      `The fixture's \`echo\` tool (\`test/fixtures/stdio-server.mjs\`), ${rounds * PER_ROUND} sequential and ${rounds * PER_ROUND} concurrent calls (${CONCURRENCY} in flight at a time) per way, after ${WARMUP_CALLS} + ${3 * CONCURRENCY} warm-up calls. The ways are interleaved: each round makes ${PER_ROUND} sequential calls and one batch of ${CONCURRENCY} concurrent calls per way, and the order rotates every round. Every way has its own fixture process. Latency is per call, from the client's call to its result; a concurrent call's latency includes waiting behind the other ${CONCURRENCY - 1}. The gateway is \`mcp-switchboard serve\` (bundled from \`src/cli.ts\`) in its own process, so the client and the gateway do not share an event loop; the SDK client calls \`fixture__echo\` on \`/mcp\` with the bearer token.`,
      '',
      table,
      '',
      `CPU time per sequential call in ms (user+system, from process.cpuUsage and /proc/<pid>/stat; clock ticks are ${1000 / clockTicksPerSecond} ms, so small values are approximate):`,
      '',
      cpuTable,
      '',
      `**Goal (gateway p50 at most ${GOAL_RATIO}× the floor of its era, a bare v2 client to an HTTP server, sequential and concurrent): ${met ? 'met' : 'missed'}**`,
      '',
      ...goalLines,
      '',
      `Where the time goes (sequential p50): the core connection costs ${fmt(byKey.core.seq50 - base.seq50)} ms over the bare SDK client (${ratio(byKey.core.seq50 / base.seq50)}). The gateway adds ${fmt(hop)} ms over the core connection: one more process and one HTTP request per call (the client's POST with an SSE response, the gateway's SDK server, the catalog, then the same stdio call). A bare client over streamable HTTP to an HTTP server, with no stdio hop behind it, takes ${fmt(byKey.http.seq50)} ms (2025, sessions) and ${fmt(byKey.httpModern.seq50)} ms (2026-07-28, a server built per request, as the SDK's handler does). The gateway's extra is the stdio hop behind it and one more process: three processes wake for every call on a ${os.cpus().length}-core machine. In CPU per call, the gateway process costs ${fmt(perCall(byKey.gateway.way, 'gateway'))} ms (2025) and ${fmt(perCall(byKey.gatewayModern.way, 'gateway'))} ms (2026-07-28), against ${fmt(perCall(byKey.http.way, 'fixture'))} ms and ${fmt(perCall(byKey.httpModern.way, 'fixture'))} ms for the HTTP servers of the floors. For 2026-07-28 clients the gateway answers plain JSON unless something streams (the SDK's per-request transport); for 2025 sessions the SDK's transport answers every POST with an SSE stream, and its JSON mode would drop the progress notifications that the editor relies on (measured with it on, a call was slower, not faster: 5.1 against 4.5 ms in a profile run).`,
    ].join('\n');

    console.log(`\n${table}\n\n${cpuTable}\n`);
    for (const line of goalLines) console.log(line);
    console.log(`Goal ≤ ${GOAL_RATIO}× the floor → ${met ? 'met' : 'MISSED'}`);
    if (write) {
      replaceSection(SECTION, section);
      console.log('[bench] updated bench/RESULTS.md (## bench:calls)');
    }
  } finally {
    for (const way of ways) await way.close().catch((error) => console.error(`[bench] closing ${way.key}: ${error}`));
    fs.rmSync(tempRoot, { recursive: true, force: true });
  }
}

await main();
