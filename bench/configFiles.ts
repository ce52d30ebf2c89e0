// bench:config: loading the servers of a large ~/.claude.json (Claude Code keeps every project's
// history in it; users report 30 MB and more). Side by side in one run, interleaved:
//   - now: loadConfiguration with the open folder's block and the user's (the file read once,
//     only the two blocks parsed);
//   - floor (the commit before): the same file read twice and parsed whole each time, which is
//     what loading it did before, measured through the same JSONC parser.
// Prints a Markdown block for bench/RESULTS.md. Run: npm run bench:config [-- --megabytes 32 --rounds 5]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfiguration } from '../src/core/config';
import { parseJsonc } from '../src/core/config/jsonc';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? Number(args[index + 1]) : fallback;
};
const megabytes = option('megabytes', 32);
const rounds = option('rounds', 5);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-config-'));
const workspace = path.join(home, 'project');
fs.mkdirSync(workspace);
const projects: Record<string, unknown> = {};
const entry = { display: 'x'.repeat(1000), pastedContents: { 1: { type: 'text', content: 'y'.repeat(200) } } };
for (let index = 0; index * 40 * 1300 < megabytes * 1024 * 1024; index++)
  projects[`/home/u/project-${index}`] = { history: Array.from({ length: 40 }, () => entry), mcpServers: {} };
projects[workspace] = { mcpServers: { local: { command: 'node', args: ['local.js'] } } };
const text = JSON.stringify({ numStartups: 7, projects, mcpServers: { global: { command: 'node', args: ['global.js'] } } });
const file = path.join(home, '.claude.json');
fs.writeFileSync(file, text);

async function measure(work: () => Promise<void>): Promise<{ ms: number; heapMb: number }> {
  gc();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  return { ms, heapMb: (peak - before) / 1024 / 1024 };
}

const now = async () => {
  const loaded = await loadConfiguration(
    { entries: [], sources: ['claudeCode'], workspaceFolders: [{ name: 'project', path: workspace }], userHome: home, env: {} },
    { resolve: async () => undefined },
  );
  if (loaded.servers.length !== 2) throw new Error(`expected 2 servers, got ${loaded.servers.map((server) => server.name).join(', ')}`);
};
const floor = async () => {
  for (let read = 0; read < 2; read++) parseJsonc(fs.readFileSync(file, 'utf8'), { kind: 'claudeCode', file });
};

async function main(): Promise<void> {
  const results = { now: [] as { ms: number; heapMb: number }[], floor: [] as { ms: number; heapMb: number }[] };
  for (let round = 0; round < rounds; round++) {
    for (const which of round % 2 === 0 ? (['now', 'floor'] as const) : (['floor', 'now'] as const))
      results[which].push(await measure(which === 'now' ? now : floor));
  }
  fs.rmSync(home, { recursive: true, force: true });
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const row = (name: string, list: { ms: number; heapMb: number }[]) =>
    `| ${name} | ${median(list.map((item) => item.ms)).toFixed(0)} | ${median(list.map((item) => item.heapMb)).toFixed(0)} |`;
  const ratio = median(results.now.map((item) => item.ms)) / median(results.floor.map((item) => item.ms));
  console.log(`Command: \`npm run bench:config -- --megabytes ${megabytes} --rounds ${rounds}\`  
Date: ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}, Node ${process.version}, ${os.cpus().length} cores, load ${os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}

A ~/.claude.json of ${(text.length / 1024 / 1024).toFixed(1)} MiB (history of many projects, the open folder's block and the user's). Medians of ${rounds} interleaved rounds; heap is the peak growth over the run's start.

| Loading its servers | Time (ms) | Peak heap growth (MiB) |
| --- | ---: | ---: |
${row('Now: read once, the two blocks parsed', results.now)}
${row('Floor (the commit before): read twice, parsed whole each time', results.floor)}

Now ÷ floor: ${ratio.toFixed(2)}× the time.`);
}

void main();
