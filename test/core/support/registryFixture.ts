// The local MCP Registry (test/fixtures/registry-server.mjs) with its fault knobs, stopped after the test.
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import type { Cleanup } from './cleanup';

const REGISTRY = path.resolve(__dirname, '../../fixtures/registry-server.mjs');

/** Starts the registry with `args` and resolves with its base URL once it listens. */
export async function startRegistry(cleanup: Cleanup, args: readonly string[] = []): Promise<string> {
  const child = spawn(process.execPath, [REGISTRY, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  cleanup.add(async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  });
  const port = await new Promise<number>((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`registry fixture exited (${code})`)));
  });
  return `http://127.0.0.1:${port}`;
}
