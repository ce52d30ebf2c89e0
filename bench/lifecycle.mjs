#!/usr/bin/env node
// Lifecycle benchmark: 20 stdio servers with a warm tool cache (a file cache, read from disk as the
// editor reads its own), configured `eager` and then `lazy`. For each: the time from creating the
// runtime (what activate() does) until every server's tools are offered to chat, and the memory of
// the server processes, before and after two of the servers are used. The floor, side by side in
// the same run: 20 bare SDK clients, each starting its server and listing its tools. Not a test;
// prints a markdown table and updates the generated block of bench/RESULTS.md.
//   npm run bench:lifecycle                    (= node bench/lifecycle.mjs)
//   node bench/lifecycle.mjs --rounds 3 --no-write
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  dateLine,
  fixtureServers,
  loadAverage,
  loadBundle,
  machineLine,
  median,
  replaceSection,
  repoRoot,
  roundsOption,
  shouldWrite,
} from './support.mjs';

const fixture = path.join(repoRoot, 'test', 'fixtures', 'stdio-server.mjs');
const HEADING = '## bench:lifecycle';
const SERVERS = 20;
const USED = 2;
const OFFERED_GOAL_MS = 250;
const RUN_LIMIT_MS = 60_000;

const rounds = roundsOption(5);
const write = shouldWrite();

async function loadCore() {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-'));
  const core = await loadBundle(path.join(outdir, 'core.cjs'), [
    "export { createRuntime } from './src/core/runtime/runtime';",
    "export { FolderToolCacheStorage } from './src/core/catalog';",
    "export { DEFAULT_RECONNECT, DEFAULT_TIMEOUTS } from './src/core/config/types';",
  ]);
  fs.rmSync(outdir, { recursive: true, force: true });
  return core;
}

/** Resident memory of processes, in MB (Linux: VmRSS from /proc; NaN elsewhere). */
function rssMb(pids) {
  let kb = 0;
  for (const pid of pids) {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      kb += Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN);
    } catch {
      return Number.NaN;
    }
  }
  return kb / 1024;
}

function serverPids(runtime) {
  return runtime.manager
    .servers()
    .map((view) => runtime.manager.connection(view.name)?.pid)
    .filter((pid) => pid !== undefined);
}

function whenEvery(runtime, predicate) {
  return new Promise((resolve, reject) => {
    const limit = setTimeout(() => reject(new Error(`not reached within ${RUN_LIMIT_MS} ms`)), RUN_LIMIT_MS);
    const check = () => {
      if (!predicate()) return;
      clearTimeout(limit);
      subscriptions.forEach((subscription) => subscription.dispose());
      resolve(performance.now());
    };
    const subscriptions = [runtime.catalog.onDidChange(check), runtime.manager.onDidChangeState(check)];
    check();
  });
}

const allOffered = (runtime) => () => {
  const servers = runtime.catalog.snapshot().servers;
  return servers.length === SERVERS && servers.every((server) => server.tools.length > 0);
};
const allRunning = (runtime) => () => runtime.manager.servers().every((view) => view.state.kind === 'running');

/** One activation over the warm cache: offered time, memory at rest, memory after using USED servers. */
async function measure(core, cacheDir, start) {
  const began = performance.now();
  const runtime = core.createRuntime({ storage: new core.FolderToolCacheStorage(cacheDir), settings: {} });
  try {
    const offered = whenEvery(runtime, allOffered(runtime));
    await runtime.manager.start(fixtureServers(core, SERVERS, { lifecycle: start }));
    const offeredMs = (await offered) - began;
    if (start === 'eager') await whenEvery(runtime, allRunning(runtime));
    const restMb = rssMb(serverPids(runtime));
    const restProcesses = serverPids(runtime).length;
    for (let index = 1; index <= USED; index++) await runtime.catalog.callExposedTool(`bench-${index}`, 'echo', { text: 'hi' });
    const usedMb = rssMb(serverPids(runtime));
    return { offeredMs, restMb, restProcesses, usedMb };
  } finally {
    await runtime.dispose();
  }
}

/** The floor: bare SDK clients start all servers and list their tools; memory once all are up. */
async function measureBareSdk() {
  const clients = [];
  const began = performance.now();
  const env = Object.fromEntries(Object.entries(process.env).filter((entry) => entry[1] !== undefined));
  const transports = [];
  await Promise.all(
    Array.from({ length: SERVERS }, async (_, index) => {
      const client = new Client({ name: 'bench-floor', version: '1.0.0' });
      clients.push(client);
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [fixture, '--name', `floor-${index + 1}`],
        cwd: repoRoot,
        env,
        stderr: 'ignore',
      });
      transports.push(transport);
      await client.connect(transport);
      await client.listTools();
    }),
  );
  const listedMs = performance.now() - began;
  const mb = rssMb(transports.map((transport) => transport.pid));
  await Promise.all(clients.map((client) => client.close()));
  return { listedMs, mb };
}

const ms = (value) => `${Math.round(value)}`;
const mb = (value) => `${Math.round(value)}`;

async function main() {
  const core = await loadCore();
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-cache-'));
  console.log(`[bench] ${rounds} rounds × ${SERVERS} servers, eager / lazy / bare SDK; load average ${loadAverage()}`);
  // Warms the tool cache (and the file cache of node, the SDK and the fixture).
  await measure(core, cacheDir, 'eager');
  const samples = { eager: [], lazy: [], floor: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['eager', 'lazy', 'floor'] : ['floor', 'lazy', 'eager'];
    for (const mode of order) samples[mode].push(mode === 'floor' ? await measureBareSdk() : await measure(core, cacheDir, mode));
  }
  fs.rmSync(cacheDir, { recursive: true, force: true });

  const pick = (mode, key) => median(samples[mode].map((sample) => sample[key]));
  const floorMs = pick('floor', 'listedMs');
  const floorMb = pick('floor', 'mb');
  const rows = [
    ['eager', pick('eager', 'offeredMs'), pick('eager', 'restProcesses'), pick('eager', 'restMb'), pick('eager', 'usedMb')],
    ['lazy', pick('lazy', 'offeredMs'), pick('lazy', 'restProcesses'), pick('lazy', 'restMb'), pick('lazy', 'usedMb')],
  ];
  const table = [
    `| ${SERVERS} servers, warm cache | tools offered to chat after (ms) | vs. floor | server processes at rest | their memory (MB) | memory after using ${USED} (MB) | vs. floor memory |`,
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      ([mode, offered, processes, rest, used]) =>
        `| ${mode} | ${ms(offered)} | ${(offered / floorMs).toFixed(3)}× | ${processes} | ${mb(rest)} | ${mb(used)} | ${(used / floorMb).toFixed(2)}× |`,
    ),
    `| floor: bare SDK clients | ${ms(floorMs)} (all listed) | 1.00× | ${SERVERS} | ${mb(floorMb)} | ${mb(floorMb)} | 1.00× |`,
  ].join('\n');
  const lazyOffered = pick('lazy', 'offeredMs');
  const verdict = [
    `- Tools offered within ${OFFERED_GOAL_MS} ms of activation with a warm cache (lazy): ${ms(lazyOffered)} ms, ${lazyOffered <= OFFERED_GOAL_MS ? 'met' : 'NOT met'}.`,
    `- Lazy costs only the servers used: ${pick('lazy', 'restProcesses')} processes at rest, ${mb(pick('lazy', 'usedMb'))} MB after using ${USED} of ${SERVERS} (eager: ${mb(pick('eager', 'usedMb'))} MB).`,
  ].join('\n');
  const block = [
    `${dateLine()} · ${machineLine()} · load average at start ${loadAverage()} · ${rounds} rounds, medians`,
    '',
    table,
    '',
    verdict,
  ].join('\n');
  console.log(`\n${block}\n`);
  if (write) {
    replaceSection(
      HEADING,
      `${HEADING}\n\nGenerated by \`npm run bench:lifecycle\` (bench/lifecycle.mjs); the whole section is rewritten.\n\n${block}`,
    );
    console.log('[bench] bench/RESULTS.md updated');
  }
}

await main();
