#!/usr/bin/env node
// Two builds of the gateway side by side: `serve` from bundle A and from bundle B (two commits, or
// one build run with two environments), each in front of its own copy of the stdio fixture, called
// by a 2025 SDK client in interleaved rounds so that both see the same machine. Prints, per build,
// the sequential latency (p25, p50, p95) and the gateway process's CPU per call. For changes whose
// effect is smaller than the machine's noise from one run to the next (bench:peers moves by ±10 %).
// Not a test; writes nothing.
//   node bench/gatewayAB.mjs --a <cli.js> --b <cli.js> [--b-env '{"NAME":"value"}'] [--rounds 20]
// A bundle of the working tree: node -e "import('./bench/support.mjs').then((s) => s.bundleCli('/tmp/cli-a.js'))"
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { option, percentile, procStat, repoRoot, roundsOption, stopChild, ticksToMs } from './support.mjs';

const PER_ROUND = 200;
const WARMUP_CALLS = 300;
const FIXTURE = path.join(repoRoot, 'test', 'fixtures', 'stdio-server.mjs');

async function gateway(label, cli, env, tempRoot) {
  const folder = fs.mkdtempSync(path.join(tempRoot, `${label}-`));
  fs.mkdirSync(path.join(folder, '.vscode'));
  const servers = { fixture: { command: process.execPath, args: [FIXTURE, '--name', 'ab', '--max-lifetime', '900000'] } };
  fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), JSON.stringify({ 'mcpSwitchboard.servers': servers }));
  const child = spawn(process.execPath, [cli, 'serve', '--folder', folder, '--trust-workspace'], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, ...env, XDG_CACHE_HOME: path.join(folder, 'cache') },
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const ready = await new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line)));
    void exited.then(() => reject(new Error(`serve from ${cli} exited before it was ready`)));
  });
  const client = new Client({ name: `ab-${label}`, version: '1.0.0' });
  const headers = { Authorization: `Bearer ${ready.token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(ready.servers.fixture), { requestInit: { headers } }));
  const cpuMs = () => {
    const stat = procStat(child.pid) ?? [];
    return ticksToMs(Number(stat[11] ?? 0) + Number(stat[12] ?? 0));
  };
  return { label, cli, child, exited, client, cpuMs, times: [], spentMs: 0 };
}

async function main() {
  const a = option('a', undefined);
  const b = option('b', undefined);
  if (!a || !b) {
    console.error("usage: node bench/gatewayAB.mjs --a <cli.js> --b <cli.js> [--b-env '{...}'] [--rounds N]");
    process.exit(2);
  }
  const rounds = roundsOption(20);
  const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-ab-'));
  const sides = [await gateway('A', a, {}, tempRoot), await gateway('B', b, JSON.parse(option('b-env', '{}')), tempRoot)];
  try {
    const call = (side) => side.client.callTool({ name: 'echo', arguments: { text: 'hello from the benchmark' } });
    for (const side of sides) for (let i = 0; i < WARMUP_CALLS; i++) await call(side);
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const before = side.cpuMs();
        for (let i = 0; i < PER_ROUND; i++) {
          const started = process.hrtime.bigint();
          await call(side);
          side.times.push(Number(process.hrtime.bigint() - started) / 1e6);
        }
        side.spentMs += side.cpuMs() - before;
      }
    }
    console.log('| Build | p25 (ms) | p50 (ms) | p95 (ms) | gateway CPU per call (µs) |');
    console.log('| --- | ---: | ---: | ---: | ---: |');
    for (const side of sides) {
      const cells = [25, 50, 95].map((p) => percentile(side.times, p).toFixed(3));
      console.log(`| ${side.label}: ${side.cli} | ${cells.join(' | ')} | ${((side.spentMs * 1000) / side.times.length).toFixed(0)} |`);
    }
  } finally {
    for (const side of sides) {
      await side.client.close().catch(() => undefined);
      await stopChild(side.child, side.exited);
    }
    fs.rmSync(tempRoot, { recursive: true, force: true });
  }
}

await main();
