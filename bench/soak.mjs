#!/usr/bin/env node
// Soak: `mcp-switchboard serve` with 12 fixture servers (8 stdio, 4 streamable HTTP), 10,000
// `echo` calls through the gateway's aggregated endpoint at concurrency 32, while a random server
// is killed every 2 s (an HTTP one is restarted on the same port 300 ms later, as a redeployed
// remote would be). Bounded: it stops calling after --limit-s seconds whatever happened. Reports
// failed calls by reason (and whether a kill of their server explains them), hung calls, latency,
// how long servers took to heal, whether every server came back, serve's memory at start and end,
// and processes left after shutdown. Not a test; replaces `## bench:soak` in bench/RESULTS.md.
//   npm run soak                       (= node bench/soak.mjs)
//   node bench/soak.mjs --calls 2000 --no-write
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { bundleCli, dateLine, loadAverage, machineLine, option, percentile, replaceSection, repoRoot, shouldWrite } from './support.mjs';

const STDIO_FIXTURE = path.join(repoRoot, 'test', 'fixtures', 'stdio-server.mjs');
const HTTP_FIXTURE = path.join(repoRoot, 'test', 'fixtures', 'http-server.mjs');
const STDIO_SERVERS = 8;
const HTTP_SERVERS = 4;
const CALLS = Number(option('calls', '10000'));
const CONCURRENCY = Number(option('concurrency', '32'));
const KILL_EVERY_MS = Number(option('kill-every-ms', '2000'));
const LIMIT_MS = Number(option('limit-s', '240')) * 1000;
/** A call still unsettled this long after it started counts as hung. */
const HUNG_MS = 30_000;
const HTTP_RESTART_MS = 300;
const LIFETIME = ['--max-lifetime', '900000'];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// This bench's own SDK client sends 10,000 requests over one transport, and undici removes a
// request's abort listener from the transport's signal only once the request is garbage
// collected: Node then warns about "abort listeners" on every request. It is the load generator's
// noise, not serve's (serve's own log is checked below), so it is counted instead of printed.
let clientListenerWarnings = 0;
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name === 'MaxListenersExceededWarning') clientListenerWarnings += 1;
  else console.warn(warning);
});

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function rssMiB(pid) {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}

function firstJsonLine(command, args, env) {
  const child = spawn(command, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk.toString();
    if (stderr.length > 1_000_000) stderr = stderr.slice(-500_000);
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const line = new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once('line', (text) => resolve(JSON.parse(text)));
    void exited.then(({ code, signal }) =>
      reject(new Error(`${args[0]} exited (${code ?? signal}) before it was ready:\n${stderr.slice(-4000)}`)),
    );
  });
  return { child, exited, line, stderr: () => stderr };
}

/** An HTTP fixture on a fixed port; `restart()` kills it and starts a new one on the same port. */
async function httpFixture(name, port, tempRoot) {
  const marker = path.join(tempRoot, `${name}.json`);
  const start = async () => {
    const started = firstJsonLine(
      process.execPath,
      [HTTP_FIXTURE, '--name', name, '--port', String(port), '--marker', marker, ...LIFETIME],
      {},
    );
    await started.line;
    return started;
  };
  let current = await start();
  return {
    name,
    kind: 'http',
    entry: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
    pids: () => [current.child.pid],
    async kill() {
      current.child.kill('SIGKILL');
      await current.exited;
      await sleep(HTTP_RESTART_MS);
      current = await start();
    },
    async stop() {
      current.child.kill('SIGKILL');
      await current.exited;
    },
  };
}

function stdioFixture(name, tempRoot, seenPids) {
  const marker = path.join(tempRoot, `${name}.json`);
  const pid = () => {
    try {
      const value = JSON.parse(fs.readFileSync(marker, 'utf8')).pid;
      seenPids.add(value);
      return value;
    } catch {
      return undefined;
    }
  };
  return {
    name,
    kind: 'stdio',
    entry: { command: process.execPath, args: [STDIO_FIXTURE, '--name', name, '--marker', marker, ...LIFETIME] },
    pids: () => [pid()].filter((value) => value !== undefined),
    async kill() {
      const current = pid();
      if (current !== undefined && alive(current)) process.kill(current, 'SIGKILL');
    },
    async stop() {},
  };
}

async function freePorts(count) {
  const net = await import('node:net');
  const ports = [];
  for (let i = 0; i < count; i++) {
    const server = net.createServer();
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    ports.push(server.address().port);
    await new Promise((resolve) => server.close(resolve));
  }
  return ports;
}

/** Fixture processes still alive whose command line names this run's temp folder. */
function leftoverProcesses(tempRoot) {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(tempRoot) && !line.includes('ps -eo')).length;
}

async function main() {
  const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-soak-'));
  const cli = await bundleCli(path.join(tempRoot, 'cli.cjs'));
  const seenPids = new Set();
  const ports = await freePorts(HTTP_SERVERS);
  const servers = [
    ...Array.from({ length: STDIO_SERVERS }, (_, i) => stdioFixture(`s${i + 1}`, tempRoot, seenPids)),
    ...(await Promise.all(ports.map((port, i) => httpFixture(`h${i + 1}`, port, tempRoot)))),
  ];
  const folder = path.join(tempRoot, 'ws');
  fs.mkdirSync(path.join(folder, '.vscode'), { recursive: true });
  const entries = Object.fromEntries(
    servers.map((server) => [
      server.name,
      {
        ...server.entry,
        timeouts: { connectMs: 15_000, requestMs: 15_000 },
        reconnect: { maxAttempts: 50, initialDelayMs: 100, maxDelayMs: 1000 },
      },
    ]),
  );
  fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), JSON.stringify({ 'mcpSwitchboard.servers': entries }));

  const serve = firstJsonLine(process.execPath, [cli, 'serve', '--folder', folder, '--trust-workspace'], {
    XDG_CACHE_HOME: path.join(tempRoot, 'cache'),
  });
  const ready = await serve.line;
  const servePid = serve.child.pid;
  const client = new Client({ name: 'soak', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(ready.url), { requestInit: { headers: { Authorization: `Bearer ${ready.token}` } } }),
  );
  const memoryStart = rssMiB(servePid);
  const loadStart = loadAverage();

  const kills = new Map(servers.map((server) => [server.name, []]));
  const calls = [];
  const started = Date.now();
  let next = 0;
  let stopKilling = false;
  const killer = (async () => {
    while (!stopKilling) {
      await sleep(KILL_EVERY_MS);
      if (stopKilling) break;
      const victim = servers[Math.floor(Math.random() * servers.length)];
      kills.get(victim.name).push(Date.now());
      await victim.kill();
    }
  })();

  async function worker() {
    while (next < CALLS && Date.now() - started < LIMIT_MS) {
      const index = next++;
      const server = servers[index % servers.length];
      const call = { server: server.name, start: Date.now(), end: undefined, error: undefined };
      calls.push(call);
      try {
        await client.callTool({ name: `${server.name}__echo`, arguments: { text: String(index) } }, undefined, { timeout: HUNG_MS * 2 });
      } catch (error) {
        call.error = error instanceof Error ? error.message : String(error);
      }
      call.end = Date.now();
    }
  }
  const workers = Array.from({ length: CONCURRENCY }, () => worker());
  // Hung calls never settle: wait for the workers only as long as a call may take.
  let giveUp;
  await Promise.race([Promise.all(workers), new Promise((resolve) => (giveUp = setTimeout(resolve, LIMIT_MS + HUNG_MS)))]);
  clearTimeout(giveUp);
  const callingMs = Date.now() - started;
  stopKilling = true;
  await killer;

  // Every server back: each answers a call within 30 s of the last kill.
  const back = {};
  await Promise.all(
    servers.map(async (server) => {
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        try {
          await client.callTool({ name: `${server.name}__echo`, arguments: { text: 'back?' } });
          back[server.name] = true;
          return;
        } catch {
          await sleep(250);
        }
      }
      back[server.name] = false;
    }),
  );
  const memoryEnd = rssMiB(servePid);

  // Heal time: from a kill to the end of the first successful call to that server made after it.
  const heal = { stdio: [], http: [] };
  for (const server of servers) {
    for (const at of kills.get(server.name)) {
      const firstOk = calls
        .filter((call) => call.server === server.name && call.error === undefined && call.end !== undefined && call.start >= at)
        .sort((a, b) => a.end - b.end)[0];
      if (firstOk) heal[server.kind].push(firstOk.end - at);
    }
  }

  await client.close().catch(() => undefined);
  serve.child.kill('SIGTERM');
  const exit = await Promise.race([serve.exited, sleep(15_000).then(() => undefined)]);
  for (const server of servers) await server.stop();
  await sleep(500);
  const left = leftoverProcesses(tempRoot) + [...seenPids].filter(alive).length;

  // Lines serve logged at warn/error level or from Node itself, grouped (numbers replaced).
  const problemCounts = new Map();
  for (const line of serve.stderr().split('\n')) {
    if (!/^\[error\]|Warning|uncaught|unhandled/i.test(line)) continue;
    const key = line.replace(/\d+/g, 'N').slice(0, 120);
    problemCounts.set(key, (problemCounts.get(key) ?? 0) + 1);
  }
  const serveProblems = [...problemCounts].sort((a, b) => b[1] - a[1]).slice(0, 5);
  const settled = calls.filter((call) => call.end !== undefined);
  const hung = calls.length - settled.length + settled.filter((call) => call.end - call.start > HUNG_MS).length;
  const failed = settled.filter((call) => call.error !== undefined);
  const explained = (call) => kills.get(call.server).some((at) => at >= call.start - 50 && at <= call.end);
  const reasons = new Map();
  for (const call of failed) {
    const reason = call.error.replace(/\d+/g, 'N').slice(0, 140);
    const entry = reasons.get(reason) ?? { count: 0, inFlight: 0 };
    entry.count += 1;
    if (explained(call)) entry.inFlight += 1;
    reasons.set(reason, entry);
  }
  const latencies = settled.filter((call) => call.error === undefined).map((call) => call.end - call.start);
  const totalKills = [...kills.values()].reduce((sum, list) => sum + list.length, 0);
  const fmt = (values) =>
    values.length === 0 ? '-' : `p50 ${percentile(values, 50)} ms, max ${Math.max(...values)} ms (${values.length})`;
  const result = {
    calls: calls.length,
    callingMs,
    ok: latencies.length,
    failed: failed.length,
    failedInFlight: failed.filter(explained).length,
    hung,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    kills: totalKills,
    everyServerBack: Object.values(back).every(Boolean),
    notBack: Object.entries(back)
      .filter(([, ok]) => !ok)
      .map(([name]) => name),
    memoryStart,
    memoryEnd,
    serveExit: exit ? (exit.code ?? exit.signal) : 'did not exit within 15 s',
    left,
  };
  const lines = [
    '## bench:soak',
    '',
    `Command: \`npm run soak\` (\`node bench/soak.mjs\`). ${dateLine()}. ${machineLine()}. Load average at start ${loadStart}.`,
    '',
    `\`mcp-switchboard serve\` (bundled from \`src/cli.ts\`) with ${STDIO_SERVERS} stdio and ${HTTP_SERVERS} streamable-HTTP fixture servers; one SDK client calls \`<server>__echo\` on the aggregated endpoint, ${CONCURRENCY} calls in flight, round-robin over the servers. Every ${KILL_EVERY_MS / 1000} s a random server is SIGKILLed (an HTTP one is started again on the same port ${HTTP_RESTART_MS} ms later). A failed call is "in flight at a kill" when its server was killed between the call's start and its end.`,
    '',
    '| measure | value |',
    '|---|---|',
    `| calls made | ${result.calls} in ${(callingMs / 1000).toFixed(1)} s |`,
    `| succeeded | ${result.ok} |`,
    `| failed | ${result.failed} (${result.failedInFlight} in flight at a kill of their server, ${result.failed - result.failedInFlight} not) |`,
    `| hung (no answer within ${HUNG_MS / 1000} s) | ${result.hung} |`,
    `| latency of successful calls | p50 ${result.p50} ms, p95 ${result.p95} ms |`,
    `| servers killed | ${totalKills} |`,
    `| time from a kill to the end of the first successful call started after it | stdio ${fmt(heal.stdio)}; HTTP (restarted after ${HTTP_RESTART_MS} ms) ${fmt(heal.http)} |`,
    `| every server back afterwards | ${result.everyServerBack ? 'yes' : `no: ${result.notBack.join(', ')}`} |`,
    `| serve's memory (RSS) | ${memoryStart.toFixed(0)} MiB at start, ${memoryEnd.toFixed(0)} MiB at the end |`,
    `| serve's exit after SIGTERM | ${result.serveExit} |`,
    `| processes left after shutdown | ${left} |`,
    `| the load generator's own undici "abort listeners" warnings (not serve's) | ${clientListenerWarnings} |`,
    `| warnings and errors in serve's log | ${serveProblems.length === 0 ? 'none' : serveProblems.map(([line, count]) => `${count} × ${line.replace(/\|/g, '\\|')}`).join('; ')} |`,
    '',
  ];
  if (reasons.size > 0) {
    lines.push('Failures by reason (numbers replaced by N):', '', '| count | in flight at a kill | reason |', '|---|---|---|');
    for (const [reason, entry] of [...reasons].sort((a, b) => b[1].count - a[1].count))
      lines.push(`| ${entry.count} | ${entry.inFlight} | ${reason.replace(/\|/g, '\\|')} |`);
    lines.push('');
  }
  const section = lines.join('\n');
  console.log(section);
  if (shouldWrite()) replaceSection('## bench:soak', section);
  fs.rmSync(tempRoot, { recursive: true, force: true });
  const goalMet = result.hung === 0 && result.left === 0 && result.everyServerBack && result.failed === result.failedInFlight;
  process.exit(goalMet ? 0 : 1);
}

await main();
