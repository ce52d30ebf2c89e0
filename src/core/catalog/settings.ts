// `mcpSwitchboard.tools.*`, read one way for every host: the editor hands in its merged
// configuration values, the CLI the values of the folder's .vscode/settings.json. Whatever is
// missing or of the wrong type falls back to the default the package.json declares.
import { DEFAULT_MAX_EXPOSED, normalizeMaxExposed } from './budget';
import { DEFAULT_CACHE_TTL_MS } from './cache';
import { deepFreeze } from '../base/freeze';
import { SETTINGS_SECTION, TOOL_SET, TOOL_SETS, TOOLS_CACHE_TTL_DAYS, TOOLS_DENY, TOOLS_DISABLED, TOOLS_MAX_EXPOSED } from './settingNames';
import type { ToolSetFilter } from './filters';

export { SETTINGS_SECTION, TOOLS_DISABLED } from './settingNames';

export interface CatalogSettings {
  /** `mcpSwitchboard.tools.deny`: globs on `server/tool`. */
  readonly globalDeny: readonly string[];
  /** `mcpSwitchboard.tools.disabled`: exact `server/tool` entries switched off in the UI. */
  readonly disabled: readonly string[];
  /** `mcpSwitchboard.tools.maxExposed`. */
  readonly maxExposed: number;
  readonly cacheTtlMs: number;
  /**
   * The tool set in use, resolved from `mcpSwitchboard.toolSet` and `mcpSwitchboard.toolSets`;
   * `unknown` when the name is not among the sets (then every tool is offered, with a warning).
   */
  readonly toolSet?: ToolSetFilter | undefined;
  readonly unknownToolSet?: string | undefined;
}

/** One named set of `mcpSwitchboard.toolSets`: servers whose tools it holds, and globs on `server/tool`. */
export interface ToolSetDefinition {
  readonly servers: readonly string[];
  readonly tools: readonly string[];
  readonly description?: string;
}

/** Every tool set a settings value defines, the malformed ones left out. */
export function toolSetsFrom(value: unknown): Record<string, ToolSetDefinition> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const sets: Record<string, ToolSetDefinition> = {};
  for (const [name, raw] of Object.entries(value as Record<string, unknown>).slice(0, MAX_TOOL_SETS)) {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) continue;
    const { servers, tools, description } = raw as Record<string, unknown>;
    sets[name] = {
      servers: strings(servers).slice(0, MAX_SET_ENTRIES),
      tools: strings(tools).slice(0, MAX_SET_ENTRIES),
      ...(typeof description === 'string' ? { description: description.slice(0, 200) } : {}),
    };
  }
  return sets;
}

const MAX_TOOL_SETS = 100;
const MAX_SET_ENTRIES = 500;

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
    toolSet: settings.toolSet,
    ...(settings.unknownToolSet ? { unknownToolSet: settings.unknownToolSet } : {}),
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
  const active = lookup(TOOL_SET);
  const name = typeof active === 'string' ? active.trim() : '';
  const definition = name ? toolSetsFrom(lookup(TOOL_SETS))[name] : undefined;
  return {
    // Both keys always, undefined when unused: an update replaces the set in use, never keeps the last.
    toolSet: definition ? { name, servers: definition.servers, tools: definition.tools } : undefined,
    unknownToolSet: definition || !name ? undefined : name,
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
