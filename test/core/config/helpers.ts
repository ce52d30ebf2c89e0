// Shared fixtures for the configuration tests: a fixed, fake machine (home, env, one workspace
// folder) so that no test depends on the real environment, plus temp-dir plumbing.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  isInvalidServer,
  loadConfiguration,
  type ConfigDiagnostic,
  type ConfigurationInput,
  type InputResolver,
  type InvalidServer,
  type LoadedConfiguration,
  type ServerDefinition,
  type ServerSource,
} from '../../../src/core/config';

export const HOME = '/home/tester';
export const FOLDER = '/work/project';
export const USER: ServerSource = { kind: 'user' };

export const noInputs: InputResolver = { resolve: async () => undefined };

export function baseInput(overrides: Partial<ConfigurationInput> = {}): ConfigurationInput {
  return {
    entries: [],
    workspaceFolders: [{ name: 'project', path: FOLDER }],
    userHome: HOME,
    env: { HOME, TOKEN: 'env-token', EMPTY: '' },
    platform: 'linux',
    ...overrides,
  };
}

/** Loads `mcpSwitchboard.servers` = `servers` from user settings. */
export function loadServers(
  servers: Record<string, unknown>,
  overrides: Partial<ConfigurationInput> = {},
  resolver: InputResolver = noInputs,
): Promise<LoadedConfiguration> {
  const entries = Object.entries(servers).map(([name, raw]) => ({ name, raw, source: USER }));
  return loadConfiguration(baseInput({ entries, ...overrides }), resolver);
}

export async function loadOne(
  raw: unknown,
  overrides: Partial<ConfigurationInput> = {},
  resolver: InputResolver = noInputs,
): Promise<{ server: ServerDefinition | InvalidServer; diagnostics: readonly ConfigDiagnostic[] }> {
  const loaded = await loadServers({ srv: raw }, overrides, resolver);
  assert.equal(loaded.servers.length, 1);
  return { server: loaded.servers[0] as ServerDefinition | InvalidServer, diagnostics: loaded.diagnostics };
}

export function expectValid(server: ServerDefinition | InvalidServer): ServerDefinition {
  if (isInvalidServer(server)) assert.fail(`expected a valid server, got: ${JSON.stringify(server.diagnostics, null, 2)}`);
  return server;
}

export function expectInvalid(server: ServerDefinition | InvalidServer): InvalidServer {
  if (!isInvalidServer(server)) assert.fail(`expected an invalid server, got: ${JSON.stringify(server, null, 2)}`);
  return server;
}

export interface ExpectedDiagnostic {
  readonly severity: 'error' | 'warning';
  readonly server?: string;
  readonly path: string;
  readonly messageIncludes: string;
  readonly line?: number;
  readonly column?: number;
}

function matches(actual: ConfigDiagnostic, expected: ExpectedDiagnostic): boolean {
  return (
    actual.severity === expected.severity &&
    actual.path === expected.path &&
    (expected.server === undefined || actual.server === expected.server) &&
    actual.message.includes(expected.messageIncludes) &&
    (expected.line === undefined || actual.line === expected.line) &&
    (expected.column === undefined || actual.column === expected.column)
  );
}

/** Exact match as a multiset: every expected diagnostic is present and nothing else is. */
export function diagnosticMismatch(actual: readonly ConfigDiagnostic[], expected: readonly ExpectedDiagnostic[]): string | undefined {
  const remaining = [...actual];
  const missing: ExpectedDiagnostic[] = [];
  for (const want of expected) {
    const index = remaining.findIndex((have) => matches(have, want));
    if (index < 0) missing.push(want);
    else remaining.splice(index, 1);
  }
  if (missing.length === 0 && remaining.length === 0) return undefined;
  const show = (items: readonly object[]) => JSON.stringify(items, null, 2);
  return `missing: ${show(missing)}\nunexpected: ${show(remaining)}`;
}

export function assertDiagnostics(actual: readonly ConfigDiagnostic[], expected: readonly ExpectedDiagnostic[]): void {
  const mismatch = diagnosticMismatch(actual, expected);
  if (mismatch) assert.fail(mismatch);
}

/** A fresh temp dir per test; call the returned cleanup in afterEach. */
export class TempDirs {
  private readonly created: string[] = [];

  make(prefix = 'mcp-config-'): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    this.created.push(dir);
    return dir;
  }

  write(dir: string, relative: string, text: string): string {
    const file = path.join(dir, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    return file;
  }

  cleanup(): void {
    for (const dir of this.created.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  }
}
