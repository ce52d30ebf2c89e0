// `mcp-switchboard serve` as a child process: the built CLI, started the way a terminal agent's
// wrapper would start it, with its one stdout line parsed and its stderr kept for failure messages.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ServeReady } from '../../../src/core/cli';
import type { Cleanup } from '../connection/helpers';
import { CLI, REPO_ROOT } from '../doctor/helpers';

export interface ServeProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly ready: ServeReady;
  /** Everything written to stdout so far (the one JSON line, and nothing after it if serve behaves). */
  stdout(): string;
  stderr(): string;
  /** Settles when the process has exited, with its code or signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A cache root per test: serve must never write into the developer's ~/.cache while tests run. */
export function tempCacheHome(cleanup: Cleanup): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-cache-'));
  cleanup.add(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Starts `node dist/cli.js serve ARGS --trust-workspace` and resolves once it printed its JSON line. The process is
 * SIGKILLed after the test if it is still running, so a failed assertion cannot leak it.
 */
export async function startServe(
  cleanup: Cleanup,
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs = 20_000,
): Promise<ServeProcess> {
  // Inputs must come only from what a test sets, never from the developer's shell.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MCP_SWITCHBOARD_INPUT_')));
  // The test wrote the folder: its servers run without the question a user would be asked.
  const child = spawn(process.execPath, [CLI, 'serve', ...args, '--trust-workspace'], {
    cwd: REPO_ROOT,
    env: { ...inherited, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  cleanup.add(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await exited;
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = readline.createInterface({ input: child.stdout });
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no line within ${timeoutMs} ms; stderr:\n${stderr}`)), timeoutMs);
    lines.once('line', (text) => {
      clearTimeout(timer);
      resolve(text);
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code ?? signal}) before printing its line; stderr:\n${stderr}`));
    });
  });
  lines.close();
  return { child, ready: JSON.parse(line) as ServeReady, stdout: () => stdout, stderr: () => stderr, exited };
}

/** A plain SDK client with the bearer token, as any MCP client configured with a header would be. */
export async function bareClient(cleanup: Cleanup, url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'serve-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  cleanup.add(() => client.close());
  return client;
}

export { eventually } from '../support/poll';
