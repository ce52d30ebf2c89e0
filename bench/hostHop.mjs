#!/usr/bin/env node
// What the machine host's hop costs a tool call, with nothing else in the way: one Node process holds
// a machine host and two windows' runtimes (built as the extension's bundle is), and one fixture
// process serves each; the first window runs its own copy, the second reaches the host's. The same
// echo call, sequentially, through each window's catalog (`forwardToolCall`), alternating windows
// round by round. bench:host measures the same hop through a window's HTTP gateway among 84 other
// processes, where a difference of 0.1 ms is inside its spread; this one is read by hand
// (bench/RESULTS.md, "A call through the machine host, passed through").
// With --host-process the host is a process of its own (the CLI, as windows launch it), so the hop
// also crosses processes, as in the editor.
//   npm run bench:host:hop          node bench/hostHop.mjs [--rounds 3] [--calls 2000] [--host-process]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleCli, loadBundle, option, repoRoot } from './support.mjs';

const rounds = Number(option('rounds', '3'));
const calls = Number(option('calls', '2000'));
const hostProcess = process.argv.includes('--host-process');
const WARMUP = 1000;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-bench-hop-'));
const core = await loadBundle(
  path.join(work, 'core.cjs'),
  [
    "export { createRuntime } from './src/core/runtime/runtime';",
    "export { MemoryToolCacheStorage } from './src/core/catalog';",
    "export { nullLogger } from './src/core/base/logging';",
    "export { HOST_DIR_ENV, HostLink, hostLauncher, hostPlace, MachineHost } from './src/core/machine';",
    "export { HostedServers, SHARE_ALL, ServerSharing } from './src/core/sharing';",
    "export { PRODUCT_VERSION } from './src/core/base/version';",
  ],
  { shipped: true },
);
const {
  createRuntime,
  MemoryToolCacheStorage,
  nullLogger,
  HOST_DIR_ENV,
  HostLink,
  hostLauncher,
  hostPlace,
  MachineHost,
  HostedServers,
  SHARE_ALL,
  ServerSharing,
  PRODUCT_VERSION: version,
} = core;

const hostDir = path.join(work, 'host');
const place = hostPlace({ [HOST_DIR_ENV]: hostDir });
const host = hostProcess
  ? undefined
  : await MachineHost.start({ place, version, logger: nullLogger, services: (token) => new HostedServers({ token, logger: nullLogger }) });
const launch = hostProcess
  ? hostLauncher(
      place,
      { command: process.execPath, args: [await bundleCli(path.join(work, 'cli.js'))], env: { ...process.env, [HOST_DIR_ENV]: hostDir } },
      nullLogger,
    )
  : () => undefined;
const definition = {
  name: 'fixture',
  source: { kind: 'user' },
  enabled: true,
  timeouts: { connectMs: 10_000, requestMs: 10_000 },
  reconnect: { maxAttempts: 3, initialDelayMs: 20, maxDelayMs: 100 },
  tools: {},
  lifecycle: { start: 'eager', idleStopMs: 0 },
  secrets: [],
  transport: 'stdio',
  command: process.execPath,
  args: [path.join(repoRoot, 'test', 'fixtures', 'stdio-server.mjs'), '--max-lifetime', '900000'],
  env: {},
};

const links = [];
async function window(share) {
  const runtime = createRuntime({ logger: nullLogger, storage: new MemoryToolCacheStorage(), settings: {} });
  let servers = [definition];
  if (share) {
    const link = new HostLink({ place, version, logger: nullLogger, launch });
    links.push(link);
    const sharing = new ServerSharing({ link, policy: () => SHARE_ALL, workspaceFolders: () => [work], logger: nullLogger });
    servers = await sharing.share(servers);
  }
  await runtime.manager.start(servers);
  for (let i = 0; i < 400 && runtime.manager.server('fixture')?.state.kind !== 'running'; i++) await new Promise((r) => setTimeout(r, 25));
  if (runtime.manager.server('fixture')?.state.kind !== 'running') throw new Error('the fixture did not start');
  return runtime;
}

/** p50 of `calls` echo calls, after a warm-up. */
async function p50(runtime) {
  const times = [];
  for (let i = 0; i < calls + WARMUP; i++) {
    const started = performance.now();
    await runtime.manager.forwardToolCall('fixture', 'echo', { text: 'hello' });
    if (i >= WARMUP) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const own = await window(false);
const shared = await window(true);
console.log(`${calls} echo calls per window and round, p50 (ms); the host ${hostProcess ? 'in a process of its own' : 'in this process'}`);
console.log('| round | its own server | through the host | ratio |');
console.log('|---:|---:|---:|---:|');
for (let round = 1; round <= rounds; round++) {
  const mine = await p50(own);
  const hop = await p50(shared);
  console.log(`| ${round} | ${mine.toFixed(3)} | ${hop.toFixed(3)} | ${(hop / mine).toFixed(2)} |`);
}
await shared.dispose();
await own.dispose();
for (const link of links) link.dispose();
await host?.close();
fs.rmSync(work, { recursive: true, force: true });
