// What the CLI reads of a folder besides its servers: the tool settings of its
// .vscode/settings.json, and where `serve` keeps its tool cache. The cache lives in the user's cache
// folder, not in the workspace: it is machine-local state that must never end up in a commit.
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { type CatalogSettings, catalogSettingsFrom, settingsFileLookup } from '../../catalog';
import { limits, nodeFileSystem, parseJsonc } from '../../config';

/**
 * `$XDG_CACHE_HOME/mcp-switchboard/tools/<folder hash>` (`%LOCALAPPDATA%` on Windows, else
 * `~/.cache`). One folder per workspace: cache entries are keyed by server name, and a second
 * workspace's "git" server with another configuration would otherwise evict this one's on every run.
 */
export function serveCacheDir(
  folder: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  home: string = os.homedir(),
): string {
  const root =
    nonEmpty(env.XDG_CACHE_HOME) ?? (process.platform === 'win32' ? nonEmpty(env.LOCALAPPDATA) : undefined) ?? path.join(home, '.cache');
  const id = createHash('sha256').update(path.resolve(folder), 'utf8').digest('hex').slice(0, 16);
  return path.join(root, 'mcp-switchboard', 'tools', id);
}

function nonEmpty(value: string | undefined): string | undefined {
  // A relative XDG_CACHE_HOME is invalid by the spec; ignoring it beats caching into the cwd.
  return value !== undefined && value !== '' && path.isAbsolute(value) ? value : undefined;
}

/**
 * `mcpSwitchboard.tools.*` from DIR/.vscode/settings.json, read as the editor reads them (the same
 * defaults, `cacheTtlDays` included), over those of the user settings file when there is one (`serve
 * --config`, $MCP_SWITCHBOARD_USER_SETTINGS): a setting the folder gives wins, as a workspace setting
 * does in the editor. A file that cannot be read contributes nothing here; serve and doctor have
 * already refused to run on it.
 */
export async function readCatalogSettings(folder: string, userSettingsFile?: string): Promise<CatalogSettings> {
  const workspace = await readSettingsObject(path.join(folder, '.vscode', 'settings.json'), 'workspace');
  const user = userSettingsFile === undefined ? {} : await readSettingsObject(userSettingsFile, 'user');
  return catalogSettingsFrom(settingsFileLookup({ ...user, ...workspace }));
}

/** `mcpSwitchboard.<key>` as the user's settings file has it (the editor's, which the Share launcher names); undefined without one. */
export async function readUserSetting(userSettingsFile: string | undefined, key: string): Promise<unknown> {
  if (userSettingsFile === undefined) return undefined;
  return (await readSettingsObject(userSettingsFile, 'user'))[`mcpSwitchboard.${key}`];
}

async function readSettingsObject(file: string, kind: 'workspace' | 'user'): Promise<Record<string, unknown>> {
  const read = await nodeFileSystem.readText(file, limits.MAX_FILE_BYTES);
  const value = read.kind === 'ok' ? parseJsonc(read.text, { kind, file }).value : undefined;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
