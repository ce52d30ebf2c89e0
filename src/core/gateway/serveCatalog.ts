// The catalog `serve` runs by default: the real ToolCatalog over the manager, with the tool
// settings of the folder's .vscode/settings.json, and an in-memory tool cache (a headless run
// leaves no files behind; servers that start slowly are simply listed once they run).
import path from 'node:path';
import { GLOBAL_DENY_SETTING, DISABLED_SETTING, MAX_EXPOSED_SETTING } from '../catalog/filters';
import { MemoryToolCacheStorage, ToolCatalog, type CatalogSettings } from '../catalog';
import { limits, nodeFileSystem } from '../config';
import { parseJsonc } from '../config/jsonc';
import type { ToolSourceFactory } from './serve';

export const createServeCatalog: ToolSourceFactory = async ({ manager, folder, logger }) =>
  new ToolCatalog({ manager, storage: new MemoryToolCacheStorage(), settings: await readCatalogSettings(folder), logger });

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
  if (parsed.diagnostics.length > 0 || typeof value !== 'object' || value === null || Array.isArray(value)) return {};
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
