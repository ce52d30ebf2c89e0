// The catalog `serve` runs by default: the real ToolCatalog over the manager, with the tool
// settings of the folder's .vscode/settings.json, and a tool cache on disk so that a restarted
// `serve` lists every server's tools at once, before the slow ones have connected (the editor gets
// the same from its storage). The cache lives in the user's cache folder, not in the workspace: it
// is machine-local state that must never end up in a commit.
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { GLOBAL_DENY_SETTING, DISABLED_SETTING, MAX_EXPOSED_SETTING } from '../catalog/filters';
import { FolderToolCacheStorage, ToolCatalog, type CatalogSettings } from '../catalog';
import { limits, nodeFileSystem } from '../config';
import { parseJsonc } from '../config/jsonc';
import type { ToolSourceFactory } from './serve';

export const createServeCatalog: ToolSourceFactory = async ({ manager, folder, logger }) => {
  const dir = serveCacheDir(folder);
  logger.debug(`tool cache: ${dir}`);
  return new ToolCatalog({ manager, storage: new FolderToolCacheStorage(dir), settings: await readCatalogSettings(folder), logger });
};

/**
 * `$XDG_CACHE_HOME/mcp-switchboard/tools/<folder hash>` (`%LOCALAPPDATA%` on Windows, else
 * `~/.cache`). One folder per workspace: cache entries are keyed by server name, and a second
 * workspace's "git" server with another configuration would otherwise evict this one's on every run.
 */
export function serveCacheDir(folder: string, env: Readonly<Record<string, string | undefined>> = process.env, home: string = os.homedir()): string {
  const root =
    nonEmpty(env.XDG_CACHE_HOME) ??
    (process.platform === 'win32' ? nonEmpty(env.LOCALAPPDATA) : undefined) ??
    path.join(home, '.cache');
  const id = createHash('sha256').update(path.resolve(folder), 'utf8').digest('hex').slice(0, 16);
  return path.join(root, 'mcp-switchboard', 'tools', id);
}

function nonEmpty(value: string | undefined): string | undefined {
  // A relative XDG_CACHE_HOME is invalid by the spec; ignoring it beats caching into the cwd.
  return value !== undefined && value !== '' && path.isAbsolute(value) ? value : undefined;
}

/**
 * `mcpSwitchboard.tools.*` from DIR/.vscode/settings.json. A file that cannot be read contributes
 * nothing here; serve has already refused to start on it (see runServe).
 */
export async function readCatalogSettings(folder: string): Promise<Partial<CatalogSettings>> {
  const file = path.join(folder, '.vscode', 'settings.json');
  const read = await nodeFileSystem.readText(file, limits.MAX_FILE_BYTES);
  if (read.kind !== 'ok') return {};
  const parsed = parseJsonc(read.text, { kind: 'workspace', file });
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const settings = value as Record<string, unknown>;
  const strings = (raw: unknown): string[] | undefined => (Array.isArray(raw) ? raw.filter((item): item is string => typeof item === 'string') : undefined);
  const globalDeny = strings(settings[GLOBAL_DENY_SETTING]);
  const disabled = strings(settings[DISABLED_SETTING]);
  const maxExposed = settings[MAX_EXPOSED_SETTING];
  return {
    ...(globalDeny ? { globalDeny } : {}),
    ...(disabled ? { disabled } : {}),
    ...(typeof maxExposed === 'number' ? { maxExposed } : {}),
  };
}
