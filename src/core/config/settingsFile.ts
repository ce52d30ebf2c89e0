// Reading our settings without the editor: the doctor CLI looks at DIR/.vscode/settings.json, and
// settingsEntries() turns any `mcpSwitchboard.servers` value into loadConfiguration entries.

import path from 'node:path';
import type { SettingsEntry } from './configurationInput';
import { describeValue } from './entrySchema';
import { nodeFileSystem, type ConfigFileSystem } from './fileSystem';
import { parseJsonc } from './jsonc';
import { MAX_FILE_BYTES } from './limits';
import { isPlainObject } from './objects';
import type { ConfigDiagnostic, ServerSource } from './types';

export const SERVERS_SETTING = 'mcpSwitchboard.servers';
export const SOURCES_SETTING = 'mcpSwitchboard.sources';
export const DEFAULT_LIFECYCLE_SETTING = 'mcpSwitchboard.defaultLifecycle';
export const DEFAULT_IDLE_STOP_SETTING = 'mcpSwitchboard.defaultIdleStopMinutes';
export const SANDBOX_ENABLED_SETTING = 'mcpSwitchboard.sandbox.enabled';
export const SANDBOX_RULES_SETTING = 'mcpSwitchboard.sandbox.rules';

export interface WorkspaceSettings {
  readonly file: string;
  readonly source: ServerSource;
  /** Raw values; undefined when absent, when the file is missing, or when it failed to parse. */
  readonly servers: unknown;
  readonly sources: unknown;
  /** Raw `mcpSwitchboard.defaultLifecycle` and `mcpSwitchboard.defaultIdleStopMinutes`. */
  readonly lifecycleDefaults?: { readonly lifecycle: unknown; readonly idleStopMinutes: unknown };
  /** Raw `mcpSwitchboard.sandbox.enabled` and `mcpSwitchboard.sandbox.rules`. */
  readonly sandboxDefaults?: { readonly enabled: unknown; readonly rules: unknown };
  readonly diagnostics: readonly ConfigDiagnostic[];
  /** The file exists but could not be used at all (unreadable, not JSON, not an object). */
  readonly unreadable: boolean;
}

export async function readWorkspaceSettingsFile(dir: string, fs: ConfigFileSystem = nodeFileSystem): Promise<WorkspaceSettings> {
  const file = path.join(dir, '.vscode', 'settings.json');
  return readSettingsFile(file, { kind: 'workspace', file }, fs);
}

/** The editor's user settings file (`<User>/settings.json`), read as the user scope. */
export function readUserSettingsFile(file: string, fs: ConfigFileSystem = nodeFileSystem): Promise<WorkspaceSettings> {
  return readSettingsFile(file, { kind: 'user', file }, fs);
}

async function readSettingsFile(file: string, source: ServerSource, fs: ConfigFileSystem): Promise<WorkspaceSettings> {
  const empty = { file, source, servers: undefined, sources: undefined };
  const read = await fs.readText(file, MAX_FILE_BYTES);
  if (read.kind === 'missing') return { ...empty, diagnostics: [], unreadable: false };
  if (read.kind === 'error')
    return { ...empty, diagnostics: [{ severity: 'error', path: '', message: read.message, source }], unreadable: true };
  const parsed = parseJsonc(read.text, source);
  if (parsed.value === undefined) return { ...empty, diagnostics: parsed.diagnostics, unreadable: parsed.diagnostics.length > 0 };
  if (!isPlainObject(parsed.value)) {
    const message = `expected a JSON object at the top level, got ${describeValue(parsed.value)}`;
    return { ...empty, diagnostics: [{ severity: 'error', path: '', message, source }], unreadable: true };
  }
  // Diagnostics of a file that parsed (a value cut for depth, a duplicate key) concern only the
  // entries they name; the rest of the file is used.
  const lifecycleDefaults = {
    lifecycle: parsed.value[DEFAULT_LIFECYCLE_SETTING],
    idleStopMinutes: parsed.value[DEFAULT_IDLE_STOP_SETTING],
  };
  const sandboxDefaults = { enabled: parsed.value[SANDBOX_ENABLED_SETTING], rules: parsed.value[SANDBOX_RULES_SETTING] };
  return {
    file,
    source,
    servers: parsed.value[SERVERS_SETTING],
    sources: parsed.value[SOURCES_SETTING],
    lifecycleDefaults,
    sandboxDefaults,
    diagnostics: parsed.diagnostics,
    unreadable: false,
  };
}

export interface SettingsEntries {
  readonly entries: SettingsEntry[];
  readonly diagnostics: ConfigDiagnostic[];
}

/** One entry per key, in key order. A value that is not an object is one error and no entries. */
export function settingsEntries(value: unknown, source: ServerSource): SettingsEntries {
  if (value === undefined || value === null) return { entries: [], diagnostics: [] };
  if (!isPlainObject(value)) {
    return {
      entries: [],
      diagnostics: [
        {
          severity: 'error',
          path: SERVERS_SETTING,
          message: `expected an object keyed by server name, got ${describeValue(value)}`,
          source,
        },
      ],
    };
  }
  return { entries: Object.entries(value).map(([name, raw]) => ({ name, raw, source })), diagnostics: [] };
}
