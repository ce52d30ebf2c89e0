// Shared test plumbing: definitions pointing at the fixture servers, a memory logger, a cleanup
// list that every test drains in afterEach, and waits driven by state events.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { DEFAULT_OAUTH, type HttpServerDefinition, type StdioServerDefinition } from '../../../src/core/config/types';
import { ServerConnection, type ConnectionOptions } from '../../../src/core/connection';
import { type ServerState } from '../../../src/core/state/serverState';
import type { Logger, LogLevel } from '../../../src/core/base/logging';
import { Cleanup } from '../support/cleanup';
import { waitForServerState } from '../support/waitFor';

export { Cleanup, tempDir } from '../support/cleanup';

export const FIXTURES = path.resolve(__dirname, '../../fixtures');
export const STDIO_SERVER = path.join(FIXTURES, 'stdio-server.mjs');
export const HTTP_SERVER = path.join(FIXTURES, 'http-server.mjs');

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** What every test definition shares: user scope, enabled, generous timeouts, fast reconnects. */
function commonFields(name: string) {
  return {
    name,
    source: { kind: 'user' as const },
    enabled: true,
    timeouts: { connectMs: 10_000, requestMs: 10_000 },
    reconnect: { maxAttempts: 3, initialDelayMs: 20, maxDelayMs: 100 },
    tools: {},
    lifecycle: { start: 'eager' as const, idleStopMs: 0 },
    secrets: [],
  };
}

export function stdioDefinition(args: string[] = [], overrides: Partial<Mutable<StdioServerDefinition>> = {}): StdioServerDefinition {
  return {
    ...commonFields('fixture'),
    transport: 'stdio',
    command: process.execPath,
    args: [STDIO_SERVER, ...args],
    env: {},
    ...overrides,
  };
}

export function httpDefinition(url: string, overrides: Partial<Mutable<HttpServerDefinition>> = {}): HttpServerDefinition {
  return {
    ...commonFields('fixture-http'),
    transport: 'http',
    url,
    headers: {},
    sseFallback: false,
    oauth: DEFAULT_OAUTH,
    ...overrides,
  };
}

export class MemoryLogger implements Logger {
  readonly entries: { level: LogLevel; message: string }[] = [];
  private log(level: LogLevel, message: string): void {
    this.entries.push({ level, message });
    if (process.env.SWITCHBOARD_TEST_LOG) process.stderr.write(`[${level}] ${message}\n`);
  }
  trace(message: string): void {
    this.log('trace', message);
  }
  debug(message: string): void {
    this.log('debug', message);
  }
  info(message: string): void {
    this.log('info', message);
  }
  warn(message: string): void {
    this.log('warn', message);
  }
  error(message: string): void {
    this.log('error', message);
  }
  text(): string {
    return this.entries.map((entry) => `[${entry.level}] ${entry.message}`).join('\n');
  }
}

/** Creates a connection that is disposed after the test; records every state event. */
export function connect(
  cleanup: Cleanup,
  definition: StdioServerDefinition | HttpServerDefinition,
  options: ConnectionOptions = {},
): { connection: ServerConnection; logger: MemoryLogger; events: { state: ServerState; previous: ServerState; at: number }[] } {
  const logger = new MemoryLogger();
  const connection = new ServerConnection(definition, { logger, ...options });
  const events: { state: ServerState; previous: ServerState; at: number }[] = [];
  connection.onDidChangeState((event) => events.push(event));
  cleanup.add(() => connection.dispose());
  return { connection, logger, events };
}

/** Resolves with the first state (current or future) matching `predicate`. */
export function waitForState(
  connection: ServerConnection,
  predicate: (state: ServerState) => boolean,
  timeoutMs = 10_000,
): Promise<ServerState> {
  return waitForServerState(connection, predicate, timeoutMs);
}

export function assertState<K extends ServerState['kind']>(
  state: ServerState,
  kind: K,
): asserts state is Extract<ServerState, { kind: K }> {
  assert.equal(state.kind, kind, `expected ${kind}, got ${JSON.stringify(state)}`);
}

export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  assert.ok(first && first.type === 'text', `expected text content, got ${JSON.stringify(result)}`);
  return first.text;
}

export interface FixtureStats {
  pid: number;
  initializations: number;
  calls: number;
  cancellations: number;
  lastCancelReason?: string;
  sessionsExpired: number;
  sessionsTerminated: number;
  lastHeader?: string;
  sessions?: number;
}

/** Reads the fixture's counters through its `stats` tool (not counted as a call). */
export async function stdioStats(connection: ServerConnection): Promise<FixtureStats> {
  return JSON.parse(textOf(await connection.sendToolCall('stats'))) as FixtureStats;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    assert.equal((error as NodeJS.ErrnoException).code, 'ESRCH');
    return false;
  }
}

export interface HttpFixture {
  readonly port: number;
  readonly child: ChildProcess;
  url(pathname: string): string;
  stats(): Promise<FixtureStats>;
  control(action: 'expire' | 'add-tool'): Promise<unknown>;
}

/** Starts http-server.mjs on a free port; it is killed after the test. */
export async function startHttpFixture(cleanup: Cleanup, args: string[] = []): Promise<HttpFixture> {
  const child = spawn(process.execPath, [HTTP_SERVER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  cleanup.add(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`http fixture exited (${code}): ${stderr}`)));
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    port,
    child,
    url: (pathname) => `${base}${pathname}`,
    stats: async () => (await (await fetch(`${base}/stats`)).json()) as FixtureStats,
    control: async (action) => (await fetch(`${base}/control/${action}`, { method: 'POST' })).json(),
  };
}
