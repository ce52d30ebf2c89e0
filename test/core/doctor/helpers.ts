// Runs the built CLI as a user would (`node dist/cli.js ...`) against temp workspaces whose servers
// are the fixture MCP servers.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { STDIO_SERVER, type Cleanup } from '../connection/helpers';

export const REPO_ROOT = path.resolve(__dirname, '../../..');
export const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');

let built = process.env.SWITCHBOARD_BUILT === '1';

/**
 * Builds dist/cli.js once per run: `npm test` builds before the unit stage and says so in
 * SWITCHBOARD_BUILT; a mocha run of its own builds on the first suite that needs it.
 */
export function buildCli(): void {
  if (built) return;
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'build.mjs')], { cwd: REPO_ROOT, stdio: 'inherit' });
  built = true;
}

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  readonly pid: number;
}

export interface CliOptions {
  readonly env?: Record<string, string>;
  /** Called once the process exists, e.g. to send it a signal later. */
  readonly onSpawn?: (pid: number) => void;
  /** Safety net: the CLI is SIGKILLed after this long and the run reported as it ended. */
  readonly killAfterMs?: number;
  /**
   * Default true: doctor and serve get --trust-workspace, since the test wrote the folder itself;
   * the consent tests set false to see what a user without the flag sees.
   */
  readonly trustWorkspace?: boolean;
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  // Inputs must come only from what a test sets, never from the developer's shell.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MCP_SWITCHBOARD_INPUT_')));
  const started = Date.now();
  const trust =
    options.trustWorkspace !== false && (args[0] === 'doctor' || args[0] === 'serve') && !args.includes('--help')
      ? ['--trust-workspace']
      : [];
  const child = spawn(process.execPath, [CLI, ...args, ...trust], {
    cwd: REPO_ROOT,
    env: { ...env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  if (child.pid !== undefined) options.onSpawn?.(child.pid);
  const safety = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 45_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(safety);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started, pid: child.pid ?? -1 });
    });
  });
}

/** A fixture server entry: the stdio fixture with `knobs`, run by this very node binary. */
export function fixture(...knobs: string[]): { command: string; args: string[] } {
  // --max-lifetime: a fixture that outlives a broken test ends by itself.
  return { command: process.execPath, args: [STDIO_SERVER, '--max-lifetime', '60000', ...knobs] };
}

export interface TempWorkspace {
  readonly dir: string;
  /** A path inside the workspace, for marker and pid files. */
  file(name: string): string;
}

/**
 * A temp folder with `.vscode/settings.json`: an object is written as JSON under
 * `mcpSwitchboard.servers`, a string is written verbatim, undefined writes no settings file.
 */
export function tempWorkspace(cleanup: Cleanup, settings?: Record<string, unknown> | string): TempWorkspace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-doctor-'));
  cleanup.add(() => fs.rmSync(dir, { recursive: true, force: true }));
  if (settings !== undefined) {
    fs.mkdirSync(path.join(dir, '.vscode'));
    const text = typeof settings === 'string' ? settings : JSON.stringify({ 'mcpSwitchboard.servers': settings }, null, 2);
    fs.writeFileSync(path.join(dir, '.vscode', 'settings.json'), text);
  }
  return { dir, file: (name) => path.join(dir, name) };
}

/** Waits (polling the file system: there is no event for another process writing a file). */
/** The pid a fixture wrote with `--marker`, once it has written it. */
export async function markerPid(file: string): Promise<number> {
  return (JSON.parse(await waitForFile(file)) as { pid: number }).pid;
}

export async function waitForFile(file: string, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (fs.existsSync(file)) {
      const text = fs.readFileSync(file, 'utf8');
      if (text !== '') return text;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${file} did not appear within ${timeoutMs} ms`);
}

/** The row of `name` in the table, split into cells on runs of two or more spaces. */
export function tableRow(stdout: string, name: string): string[] | undefined {
  const line = stdout.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  return line?.trim().split(/\s{2,}/);
}
