#!/usr/bin/env node
// Peer gateways benchmark: the same `echo` tool of the same stdio fixture, called by a 2025 SDK
// client (the editor's era) over streamable HTTP through four gateways side by side, in one run:
// Switchboard (`mcp-switchboard serve`), supergateway (stateful stdio→streamable HTTP), mcp-proxy
// and mcp-hub, each pinned as a dev dependency. Rounds are interleaved, so every gateway sees the
// same machine load, each round starting with the next gateway. Reports per gateway the sequential latency (p50, p95), the throughput of 100
// concurrent calls, and the gateway process's memory (RSS after the run, and its peak), with the
// ratio of Switchboard's p50 to supergateway's and of its RSS to the leanest peer's. Not a test;
// prints a markdown table and replaces the `## bench:peers` section of bench/RESULTS.md.
//   npm run bench:peers                       (= node bench/peers.mjs)
//   node bench/peers.mjs --rounds 3 --no-write
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  bundleCli,
  commitLabel,
  dateLine,
  loadAverage,
  machineLine,
  option,
  percentile,
  ratio,
  repoRoot,
  replaceSection,
  shouldWrite,
  stopChild,
} from './support.mjs';

const STDIO_FIXTURE = path.join(repoRoot, 'test', 'fixtures', 'stdio-server.mjs');
const FIXTURE_ARGS = ['--max-lifetime', '900000'];
const SECTION = '## bench:peers';
const rounds = Number(option('rounds', '10'));
const write = shouldWrite();
const PER_ROUND = 100;
const CONCURRENCY = 100;
const WARMUP_CALLS = 300;
const SETTLE_MS = 200;
const ECHO_ARGS = { text: 'hello from the benchmark' };
const bin = (pkg, file) => path.join(repoRoot, 'node_modules', pkg, file);
const packageVersion = (pkg) => JSON.parse(fs.readFileSync(bin(pkg, 'package.json'), 'utf8')).version;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function start(command, args, env = {}) {
  const child = spawn(command, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr.on('data', (chunk) => (output = (output + chunk.toString()).slice(-4000)));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, exited, output: () => output };
}

/**
 * Connects an SDK client (2025 era, as the editor's) once the gateway answers, and finds its echo
 * tool; over streamable HTTP, or legacy SSE for a gateway that serves only that (mcp-hub).
 */
async function connect(url, headers, process_, sse = false) {
  const deadline = Date.now() + 60_000;
  let lastError;
  for (;;) {
    const client = new Client({ name: 'bench-peers', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    try {
      const transport = sse
        ? new SSEClientTransport(new URL(url), { requestInit: { headers } })
        : new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
      await client.connect(transport);
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      const echo = tools.find((name) => name === 'echo' || name.endsWith('echo'));
      if (echo) return { client, echo };
      await client.close();
    } catch (error) {
      lastError = error;
      await client.close().catch(() => undefined);
    }
    if (process_.child.exitCode !== null) throw new Error(`${url}: the gateway exited:\n${process_.output()}`);
    if (Date.now() > deadline) throw new Error(`${url}: no echo tool within 60 s (${lastError}):\n${process_.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const fixtureCommand = [process.execPath, STDIO_FIXTURE, '--name', 'peer', ...FIXTURE_ARGS];

async function switchboard(cli, tempRoot) {
  const folder = fs.mkdtempSync(path.join(tempRoot, 'ws-'));
  fs.mkdirSync(path.join(folder, '.vscode'));
  const servers = { fixture: { command: fixtureCommand[0], args: fixtureCommand.slice(1) } };
  fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), JSON.stringify({ 'mcpSwitchboard.servers': servers }));
  // As its users run it: the command itself, with the Node options of its shebang.
  const serve = start(cli, ['serve', '--folder', folder, '--trust-workspace'], {
    XDG_CACHE_HOME: path.join(tempRoot, 'cache'),
  });
  const ready = await new Promise((resolve, reject) => {
    readline.createInterface({ input: serve.child.stdout }).once('line', (line) => resolve(JSON.parse(line)));
    void serve.exited.then(() => reject(new Error(`serve exited:\n${serve.output()}`)));
  });
  return { process: serve, ...(await connect(ready.servers.fixture, { Authorization: `Bearer ${ready.token}` }, serve)) };
}

async function supergateway() {
  const port = await freePort();
  const gateway = start(process.execPath, [
    bin('supergateway', 'dist/index.js'),
    '--stdio',
    fixtureCommand.map((part) => JSON.stringify(part)).join(' '),
    '--outputTransport',
    'streamableHttp',
    '--stateful',
    '--port',
    String(port),
    '--logLevel',
    'none',
  ]);
  return { process: gateway, ...(await connect(`http://127.0.0.1:${port}/mcp`, {}, gateway)) };
}

async function mcpProxy() {
  const port = await freePort();
  const gateway = start(process.execPath, [
    bin('mcp-proxy', 'dist/bin/mcp-proxy.mjs'),
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--server',
    'stream',
    '--',
    ...fixtureCommand,
  ]);
  return { process: gateway, ...(await connect(`http://127.0.0.1:${port}/mcp`, {}, gateway)) };
}

async function mcpHub(tempRoot) {
  const port = await freePort();
  const config = path.join(tempRoot, 'mcp-hub.json');
  fs.writeFileSync(config, JSON.stringify({ mcpServers: { fixture: { command: fixtureCommand[0], args: fixtureCommand.slice(1) } } }));
  const gateway = start(process.execPath, [bin('mcp-hub', 'dist/cli.js'), '--port', String(port), '--config', config], {
    XDG_STATE_HOME: path.join(tempRoot, 'state'),
    XDG_CONFIG_HOME: path.join(tempRoot, 'config'),
  });
  // mcp-hub 4 serves its unified endpoint over legacy SSE only (GET /mcp, then POST /messages).
  return { process: gateway, ...(await connect(`http://127.0.0.1:${port}/mcp`, {}, gateway, true)) };
}

/** CPU time a process has used (user and system), in ms: the gateway's own work, whatever the machine's load. */
function cpuMs(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
// USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK).
const CLOCK_TICKS = 100;

/** VmRSS and VmHWM (peak) of a process, in MiB. */
function memoryMiB(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) / 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

async function call(way) {
  const result = await way.client.callTool({ name: way.echo, arguments: ECHO_ARGS });
  if (result?.content?.[0]?.text !== ECHO_ARGS.text) throw new Error(`${way.key}: unexpected result ${JSON.stringify(result)}`);
}

async function sequential(way, count, into) {
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await call(way);
    into?.push(performance.now() - started);
  }
}

async function concurrent(way, count) {
  const started = performance.now();
  await Promise.all(Array.from({ length: count }, () => call(way)));
  return performance.now() - started;
}

const fmt = (value) => (value >= 10 ? value.toFixed(1) : value.toFixed(2));

async function main() {
  const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-peers-'));
  const ways = [];
  try {
    const cli = await bundleCli(path.join(tempRoot, 'cli.cjs'));
    console.log(
      `[bench] ${rounds} rounds × (${PER_ROUND} sequential + ${CONCURRENCY} concurrent) per gateway; load average ${loadAverage()}`,
    );
    const definitions = [
      { key: 'switchboard', label: `Switchboard \`serve\` (${commitLabel()})`, open: () => switchboard(cli, tempRoot) },
      { key: 'supergateway', label: `supergateway ${packageVersion('supergateway')} (--stateful)`, open: () => supergateway() },
      { key: 'mcpProxy', label: `mcp-proxy ${packageVersion('mcp-proxy')}`, open: () => mcpProxy() },
      {
        key: 'mcpHub',
        label: `mcp-hub ${packageVersion('mcp-hub')} (legacy SSE: it serves no streamable HTTP)`,
        open: () => mcpHub(tempRoot),
      },
    ];
    for (const definition of definitions) {
      const way = { ...definition, ...(await definition.open()), seq: [], batches: [], cpu: 0 };
      ways.push(way);
      await sequential(way, WARMUP_CALLS);
      console.log(`[bench] ${way.key} ready`);
    }
    for (let round = 0; round < rounds; round++) {
      // Each round starts with the next gateway, so that each follows every other equally often:
      // a gateway still busy after its burst of concurrent calls (collecting garbage, closing
      // streams) slows whoever is measured next. And that burst gets a moment to settle first.
      for (const way of [...ways.slice(round % ways.length), ...ways.slice(0, round % ways.length)]) {
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        const before = cpuMs(way.process.child.pid);
        await sequential(way, PER_ROUND, way.seq);
        way.cpu += cpuMs(way.process.child.pid) - before;
        way.batches.push(await concurrent(way, CONCURRENCY));
      }
    }
    for (const way of ways) way.memory = memoryMiB(way.process.child.pid);
    const by = Object.fromEntries(ways.map((way) => [way.key, way]));
    const p50 = (way) => percentile(way.seq, 50);
    const throughput = (way) => (CONCURRENCY * way.batches.length * 1000) / way.batches.reduce((sum, ms) => sum + ms, 0);
    const peers = ways.filter((way) => way.key !== 'switchboard');
    const leanest = peers.reduce((best, way) => (way.memory.rss < best.memory.rss ? way : best));
    const cpuPerCall = (way) => way.cpu / way.seq.length;
    const rows = ways.map(
      (way) =>
        `| ${way.label} | ${fmt(p50(way))} | ${fmt(percentile(way.seq, 95))} | ${cpuPerCall(way).toFixed(2)} | ${Math.round(throughput(way))} | ${way.memory.rss.toFixed(0)} | ${way.memory.peak.toFixed(0)} |`,
    );
    const latencyRatio = p50(by.switchboard) / p50(by.supergateway);
    const memoryRatio = by.switchboard.memory.rss / leanest.memory.rss;
    const section = [
      SECTION,
      '',
      `Command: \`npm run bench:peers\` (\`node bench/peers.mjs\`, ${rounds} rounds, interleaved, each starting with the next gateway)  `,
      `${dateLine()}  `,
      `${machineLine()}; load average at start ${loadAverage()}`,
      '',
      `The same \`echo\` call of the same stdio fixture, by a 2025-11-25 SDK client over streamable HTTP, through each gateway (mcp-hub: legacy SSE, all it serves; ${PER_ROUND} sequential calls and ${CONCURRENCY} concurrent ones per round). Memory is the gateway process's own (not the fixture's).`,
      '',
      '| Gateway | p50 (ms) | p95 (ms) | gateway CPU per sequential call (ms) | calls/s (100 concurrent) | RSS after (MiB) | RSS peak (MiB) |',
      '|---|---|---|---|---|---|---|',
      ...rows,
      '',
      `Switchboard's p50 is **${ratio(latencyRatio)}** supergateway's (goal ≤ 0.85×); its RSS is **${ratio(memoryRatio)}** the leanest peer's (${leanest.label}; goal ≤ 1.00×); its throughput is ${ratio(throughput(by.switchboard) / throughput(by.supergateway))} supergateway's; its CPU per call ${ratio(cpuPerCall(by.switchboard) / cpuPerCall(by.supergateway))} supergateway's.`,
    ].join('\n');
    console.log(`\n${section}\n`);
    if (write) replaceSection(SECTION, section);
  } finally {
    for (const way of ways) {
      await way.client.close().catch(() => undefined);
      await stopChild(way.process.child, way.process.exited);
    }
    fs.rmSync(tempRoot, { recursive: true, force: true });
  }
}

await main();
