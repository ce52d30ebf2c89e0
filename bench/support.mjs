// What the benchmarks share: arguments, statistics, the machine description, bundling the
// TypeScript core with esbuild (as the extension ships it), and updating bench/RESULTS.md. Each
// bench/*.mjs file is one benchmark; this module is not run on its own.
import * as esbuild from 'esbuild';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI_BUILD_OPTIONS } from '../scripts/cliBuild.mjs';
import { TRIM_PLUGINS } from '../scripts/bundleTrim.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const resultsFile = path.join(repoRoot, 'bench', 'RESULTS.md');

// ── Arguments ──

/** The value after `--name`, or `fallback`. */
export function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] !== undefined ? process.argv[index + 1] : fallback;
}

/** `--no-write` keeps RESULTS.md as it is. */
export const shouldWrite = () => !process.argv.includes('--no-write');

/** `--rounds N` (a whole number ≥ 1, else exit 2), or `fallback`. */
export function roundsOption(fallback) {
  const rounds = Number(option('rounds', String(fallback)));
  if (!Number.isInteger(rounds) || rounds < 1) {
    console.error('[bench] --rounds must be a whole number ≥ 1');
    process.exit(2);
  }
  return rounds;
}

/**
 * `count` stdio servers running test/fixtures/stdio-server.mjs as `bench-1`, `bench-2`, ...: the
 * definitions the manager takes, with `extraArgs` before the name and no reconnects.
 */
export function fixtureServers(core, count, { extraArgs = [], lifecycle = 'eager' } = {}) {
  const fixture = path.join(repoRoot, 'test', 'fixtures', 'stdio-server.mjs');
  return Array.from({ length: count }, (_, index) => ({
    name: `bench-${index + 1}`,
    source: { kind: 'user' },
    enabled: true,
    transport: 'stdio',
    command: process.execPath,
    args: [fixture, ...extraArgs, '--name', `bench-${index + 1}`],
    env: {},
    cwd: repoRoot,
    timeouts: core.DEFAULT_TIMEOUTS,
    reconnect: { ...core.DEFAULT_RECONNECT, maxAttempts: 0 },
    tools: {},
    lifecycle: { start: lifecycle, idleStopMs: 0 },
    secrets: [],
  }));
}

// ── Statistics ──

/** Nearest-rank percentile. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** The middle value, or the mean of the two middle ones. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export const ratio = (value) => `${value.toFixed(2)}×`;

// ── The machine ──

/** `1 5 15`-minute load averages, two decimals each. */
export function loadAverage() {
  return os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}

export function machine() {
  const cpus = os.cpus();
  let distro = '';
  try {
    distro = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(fs.readFileSync('/etc/os-release', 'utf8'))?.[1] ?? '';
  } catch {
    // Not Linux, or no os-release: the kernel line is enough.
  }
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGiB: (os.totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    os: `${distro ? `${distro}, ` : ''}${os.type()} ${os.release()} ${os.arch()}`,
  };
}

/** `Machine: …` as every RESULTS.md section states it (without the trailing line break). */
export function machineLine() {
  const info = machine();
  return `Machine: ${info.cpu}, ${info.cores} cores, ${info.memoryGiB} GiB, ${info.os}, Node ${info.node}`;
}

/** `Date: …, commit …` for a RESULTS.md section. */
export function dateLine() {
  return `Date: ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}, commit ${commitLabel()}`;
}

/** The short HEAD commit, marked when src/core has uncommitted changes. */
export function commitLabel() {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src/core'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    return dirty ? `${head} (src/core modified)` : head;
  } catch {
    return 'unknown';
  }
}

export const clockTicksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * The fields of /proc/<pid>/stat after the parenthesised command name (so index 0 is field 3:
 * utime and stime are [11] and [12], cutime and cstime [13] and [14]). Linux only; undefined elsewhere.
 */
export function procStat(pid = 'self') {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Clock ticks (as /proc reports CPU time) to milliseconds. */
export const ticksToMs = (ticks) => (ticks * 1000) / clockTicksPerSecond;

// ── Bundling ──

/** Bundles with the options the extension's build uses; returns the output file. */
/** The CLI, bundled as the build makes dist/cli.js, executable: run it as a command to run it as its users do. */
export async function bundleCli(outfile) {
  await bundle(outfile, CLI_BUILD_OPTIONS);
  fs.chmodSync(outfile, 0o755);
  return outfile;
}

export async function bundle(outfile, options) {
  await esbuild.build({
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile,
    logLevel: 'warning',
    absWorkingDir: repoRoot,
    // jsonc-parser's `main` is a UMD file esbuild cannot follow (see scripts/build.mjs).
    mainFields: ['module', 'main'],
    ...options,
  });
  return outfile;
}

/** Bundles the given export lines (paths relative to the repository) to `outfile` and loads them. */
export async function loadBundle(outfile, exportLines, { shipped = false } = {}) {
  await bundle(outfile, {
    stdin: { contents: exportLines.join('\n'), resolveDir: repoRoot, loader: 'ts' },
    ...(shipped ? { plugins: TRIM_PLUGINS } : {}),
  });
  return createRequire(import.meta.url)(outfile);
}

// ── RESULTS.md ──

/**
 * Replaces the section that starts with the line `heading` and runs to the next `#`/`##` heading
 * (or the end), or appends it. The file is read right before writing: other benchmarks update
 * their own parts of it, and their edits must survive.
 */
export function replaceSection(heading, section, file = resultsFile) {
  const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const lines = previous.split('\n');
  const start = lines.indexOf(heading);
  let next;
  if (start < 0) {
    next = `${previous.replace(/\n*$/, '')}\n\n${section}\n`;
  } else {
    let end = lines.findIndex((line, index) => index > start && /^#{1,2} /.test(line));
    if (end < 0) end = lines.length;
    const after = lines.slice(end).join('\n');
    const before = start > 0 ? `${lines.slice(0, start).join('\n')}\n` : '';
    next = `${before}${section}\n${after ? `\n${after}` : ''}`;
  }
  fs.writeFileSync(file, next);
}

/**
 * Replaces the block from the line `begin` to the line `end` (both included in `block`), or, when
 * the file has no such block, writes `fallback` (a whole new file). Read right before writing too.
 */
export function replaceBlock(begin, end, block, fallback, file = resultsFile) {
  const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const from = previous.indexOf(begin);
  const to = previous.indexOf(end);
  fs.writeFileSync(file, from >= 0 && to > from ? `${previous.slice(0, from)}${block}${previous.slice(to + end.length)}` : fallback);
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the child has exited. */
export async function stopChild(child, exited) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const outcome = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve(undefined), 10_000))]);
  if (outcome === undefined) {
    child.kill('SIGKILL');
    await exited;
  }
}

/** Runs a command of the repository to its end; throws with the tail of its output when it fails. */
export function runChecked(command, args) {
  const result = spawnSync(command, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`.slice(-4000));
}
