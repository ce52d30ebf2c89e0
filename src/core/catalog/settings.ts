// `mcpSwitchboard.tools.*`, read one way for every host: the editor hands in its merged
// configuration values, the CLI the values of the folder's .vscode/settings.json. Whatever is
// missing or of the wrong type falls back to the default the package.json declares.
import { DEFAULT_MAX_EXPOSED, normalizeMaxExposed } from './budget';
import { DEFAULT_CACHE_TTL_MS } from './cache';
import { deepFreeze } from '../base/freeze';
import { SETTINGS_SECTION, TOOLS_CACHE_TTL_DAYS, TOOLS_DENY, TOOLS_DISABLED, TOOLS_MAX_EXPOSED } from './settingNames';

export { SETTINGS_SECTION, TOOLS_DISABLED } from './settingNames';

export interface CatalogSettings {
  /** `mcpSwitchboard.tools.deny`: globs on `server/tool`. */
  readonly globalDeny: readonly string[];
  /** `mcpSwitchboard.tools.disabled`: exact `server/tool` entries switched off in the UI. */
  readonly disabled: readonly string[];
  /** `mcpSwitchboard.tools.maxExposed`. */
  readonly maxExposed: number;
  readonly cacheTtlMs: number;
}

export const DEFAULT_CATALOG_SETTINGS: CatalogSettings = Object.freeze({
  globalDeny: Object.freeze([]),
  disabled: Object.freeze([]),
  maxExposed: normalizeMaxExposed(undefined),
  cacheTtlMs: DEFAULT_CACHE_TTL_MS,
});

/** Settings as the catalog applies them: complete, in range, frozen. */
export function normalizeSettings(settings: Partial<CatalogSettings>): CatalogSettings {
  const ttl = settings.cacheTtlMs;
  return deepFreeze({
    globalDeny: Array.isArray(settings.globalDeny) ? [...settings.globalDeny] : [],
    disabled: Array.isArray(settings.disabled) ? [...settings.disabled] : [],
    maxExposed: normalizeMaxExposed(settings.maxExposed),
    cacheTtlMs: typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 0 ? ttl : DEFAULT_CACHE_TTL_MS,
  });
}

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_CACHE_TTL_DAYS = DEFAULT_CACHE_TTL_MS / DAY_MS;

/** Reads one key below `mcpSwitchboard.` (e.g. `tools.deny`); undefined when unset. */
export type SettingLookup = (key: string) => unknown;

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function finiteNumber(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

export function catalogSettingsFrom(lookup: SettingLookup): CatalogSettings {
  return {
    globalDeny: strings(lookup(TOOLS_DENY)),
    disabled: strings(lookup(TOOLS_DISABLED)),
    maxExposed: finiteNumber(lookup(TOOLS_MAX_EXPOSED), DEFAULT_MAX_EXPOSED),
    cacheTtlMs: Math.max(0, finiteNumber(lookup(TOOLS_CACHE_TTL_DAYS), DEFAULT_CACHE_TTL_DAYS)) * DAY_MS,
  };
}

/** A lookup over a settings.json object, whose keys are written out in full (`mcpSwitchboard.tools.deny`). */
export function settingsFileLookup(settings: Readonly<Record<string, unknown>>): SettingLookup {
  return (key) => (Object.hasOwn(settings, `${SETTINGS_SECTION}.${key}`) ? settings[`${SETTINGS_SECTION}.${key}`] : undefined);
}
