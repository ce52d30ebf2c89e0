// Builds a catalog snapshot from per-server tool lists and the settings. Pure and synchronous: the
// expensive per-list work (copying, schema checks, sorting) happens once per list in
// prepareToolList(); building only filters, names and counts, so it stays cheap at 10k tools.
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/client';
import type { ToolFilterSettings } from '../config/types';
import type { ServerStateKind } from '../state/serverState';
import { applyBudget, budgetWarning, type BudgetCandidate } from './budget';
import {
  compileGlobalFilters,
  evaluateDefaultFilters,
  evaluateFilters,
  FILTER_STEPS,
  filterContext,
  SERVERS_SETTING,
  unmatchedAllowPatterns,
  type CompiledGlobalFilters,
  type FilterStep,
  type GlobalFilterSettings,
} from './filters';
import { deepFreeze } from '../base/freeze';
import { QUALIFIED_NAME_SEPARATOR, qualifyGroups, sanitizeNamePart, type NameGroup, type QualifiedNames } from './naming';
import { isReadOnlyTool, normalizeTool, type NormalizeOptions } from './schema';
import type { CatalogServer, CatalogSnapshot, CatalogTool, CatalogWarning, FilterRule } from './types';

export interface PreparedTool {
  readonly name: string;
  /** The normalized copy, or the raw definition when `problem` is set. Frozen either way. */
  readonly tool: Tool;
  /** Why the schemas are unusable; the tool is then never exposed. */
  readonly problem?: string;
  readonly readOnly: boolean;
}

export interface PreparedToolList {
  /** Sorted by name (code-unit order), names unique. */
  readonly tools: readonly PreparedTool[];
  /** Names the server reported more than once; the first definition is kept. */
  readonly duplicates: readonly string[];
  /** Entries that could not be used at all (not an object, no name). */
  readonly unnamed: number;
  /** Identifies the content: equal lists have equal fingerprints. */
  readonly fingerprint: string;
}

export function fingerprintTools(tools: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(tools)).digest('hex').slice(0, 16);
}

/**
 * Normalizes a raw tools/list result once, so every snapshot built from it shares the work. With
 * `shareFrozen`, tools that are deeply frozen already are used as they are instead of copied (see
 * normalizeTool).
 */
export function prepareToolList(raw: readonly unknown[], fingerprint = fingerprintTools(raw), options: NormalizeOptions = {}): PreparedToolList {
  const byName = new Map<string, PreparedTool>();
  const duplicates: string[] = [];
  let unnamed = 0;
  for (const item of raw) {
    const name = typeof item === 'object' && item !== null ? (item as { name?: unknown }).name : undefined;
    if (typeof name !== 'string') {
      unnamed += 1;
      continue;
    }
    if (byName.has(name)) {
      duplicates.push(name);
      continue;
    }
    const normalized = normalizeTool(item, options);
    const readOnly = isReadOnlyTool(item);
    byName.set(
      name,
      normalized.ok
        ? { name, tool: normalized.tool, readOnly }
        : // The raw definition is shown (not offered) so the UI can explain what is wrong with it.
          { name, tool: deepFreeze(structuredCloneOr(item)) as Tool, problem: normalized.problem, readOnly },
    );
  }
  const tools = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { tools, duplicates: [...new Set(duplicates)], unnamed, fingerprint };
}

function structuredCloneOr(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return { name: (value as { name?: unknown }).name };
  }
}

export interface SnapshotServerInput {
  readonly name: string;
  readonly state: ServerStateKind;
  readonly fromCache: boolean;
  readonly fetchedAt?: number;
  /** Undefined: the server offers no tools right now (not running and nothing cached). */
  readonly tools?: PreparedToolList;
  readonly filters?: ToolFilterSettings;
}

export interface SnapshotSettings extends GlobalFilterSettings {
  readonly maxExposed: number;
}

export interface BuiltSnapshot {
  readonly snapshot: CatalogSnapshot;
  /**
   * Equal signatures mean equal snapshots (fetch times aside). The snapshot is a function of the
   * inputs, so the signature describes the inputs instead of hashing 10k tools.
   */
  readonly signature: string;
  readonly byQualifiedName: ReadonlyMap<string, CatalogTool>;
}

interface Row {
  readonly prepared: PreparedTool;
  readonly rule: FilterRule | undefined;
}

/** The filter outcome of one server's list under one set of filters. */
interface ServerRows {
  readonly key: string;
  readonly rows: readonly Row[];
  readonly warnings: readonly CatalogWarning[];
}

/**
 * Results carried from one build to the next. Most rebuilds follow a state change with the same
 * lists and filters; those reuse every server's filter outcome and all qualified names.
 */
export class SnapshotMemo {
  readonly servers = new Map<string, ServerRows>();
  names: { readonly key: string; readonly names: NameLookup } | undefined;
  /** The global globs, compiled once per value of the global settings. */
  global: { readonly key: string; readonly compiled: CompiledGlobalFilters } | undefined;
}

interface ListNames {
  readonly tools: readonly string[];
  readonly safeTools: readonly string[];
  /** Per server the list belongs to (normally one). */
  readonly byServer: Map<string, ServerListNames>;
}

interface ServerListNames {
  /** `server/tool`, as the global filters see it. */
  readonly qualified: readonly string[];
  /** `sanitize(server)__sanitize(tool)`, the names naming starts from. */
  readonly plains: readonly string[];
}

/**
 * Strings derived from a prepared list's names, computed on its first build and kept with it (lists
 * are immutable, and a new list is a new object), so later builds neither sanitize nor concatenate.
 */
const listNames = new WeakMap<PreparedToolList, ListNames>();

function namesOf(list: PreparedToolList): ListNames {
  let names = listNames.get(list);
  if (!names) {
    const tools = list.tools.map((tool) => tool.name);
    names = { tools, safeTools: tools.map(sanitizeNamePart), byServer: new Map() };
    listNames.set(list, names);
  }
  return names;
}

function serverNamesOf(list: PreparedToolList, server: string): ServerListNames {
  const names = namesOf(list);
  let forServer = names.byServer.get(server);
  if (!forServer) {
    const safeServer = sanitizeNamePart(server);
    forServer = {
      qualified: names.tools.map((tool) => `${server}/${tool}`),
      plains: names.safeTools.map((safeTool) => `${safeServer}${QUALIFIED_NAME_SEPARATOR}${safeTool}`),
    };
    names.byServer.set(server, forServer);
  }
  return forServer;
}

function filterServer(server: SnapshotServerInput, list: PreparedToolList, global: CompiledGlobalFilters, steps: readonly FilterStep[], key: string): ServerRows {
  const context = filterContext(server.name, server.filters, global);
  const warnings: CatalogWarning[] = [];
  const filterErrors = new Map<string, number>();
  const qualified = steps === FILTER_STEPS ? serverNamesOf(list, server.name).qualified : undefined;
  const rows = list.tools.map((prepared, index): Row => {
    let rule = qualified
      ? evaluateDefaultFilters(server.name, prepared.name, prepared.readOnly, context, qualified[index])
      : evaluateFilters({ server: server.name, name: prepared.name, readOnly: prepared.readOnly }, context, steps);
    if (!rule && prepared.problem !== undefined) rule = { kind: 'malformedSchema', reason: prepared.problem };
    if (rule?.kind === 'filterError') filterErrors.set(rule.reason, (filterErrors.get(rule.reason) ?? 0) + 1);
    else if (rule?.kind === 'malformedSchema') {
      warnings.push({
        kind: 'malformedSchema',
        server: server.name,
        tool: prepared.name,
        message: `Tool "${prepared.name}" of server "${server.name}" is hidden: ${rule.reason}.`,
      });
    }
    return { prepared, rule: rule && deepFreeze(rule) };
  });
  for (const name of list.duplicates) {
    warnings.push({ kind: 'duplicateTool', server: server.name, tool: name, message: `Server "${server.name}" lists the tool "${name}" more than once; the first definition is used.` });
  }
  if (list.unnamed > 0) {
    warnings.push({ kind: 'malformedSchema', server: server.name, message: `Server "${server.name}" listed ${list.unnamed} tool(s) without a name; they are ignored.` });
  }
  for (const [reason, count] of filterErrors) {
    const setting = reason.startsWith('mcpSwitchboard.') ? reason.slice(0, reason.indexOf(':')) : SERVERS_SETTING;
    warnings.push({ kind: 'filterError', server: server.name, setting, message: `${count} tool(s) of server "${server.name}" are hidden because a filter failed: ${reason}` });
  }
  for (const pattern of unmatchedAllowPatterns(context, list.tools.map((tool) => tool.name))) {
    warnings.push({
      kind: 'allowUnmatched',
      server: server.name,
      setting: SERVERS_SETTING,
      message: `The tools.allow pattern "${pattern}" of server "${server.name}" matches none of its tools.`,
    });
  }
  return { key, rows, warnings: deepFreeze(warnings) };
}

/**
 * Builds the snapshot: per server, the filter steps in order, then the schema check; then the
 * budget over all eligible tools; then qualified names over every listed tool.
 */
export function buildSnapshot(
  servers: readonly SnapshotServerInput[],
  settings: SnapshotSettings,
  options: { readonly steps?: readonly FilterStep[]; readonly memo?: SnapshotMemo } = {},
): BuiltSnapshot {
  const steps = options.steps ?? FILTER_STEPS;
  // Custom steps are not part of the key, so they get a fresh memo.
  const memo = options.steps === undefined ? (options.memo ?? new SnapshotMemo()) : new SnapshotMemo();
  const globalKey = JSON.stringify([settings.globalDeny, settings.disabled]);
  const compiledGlobal = (): CompiledGlobalFilters => {
    if (memo.global?.key !== globalKey) memo.global = { key: globalKey, compiled: compileGlobalFilters(settings) };
    return memo.global.compiled;
  };
  const warnings: CatalogWarning[] = [];
  const perServer: (ServerRows | undefined)[] = [];
  // Eligible rows come in configuration order, then list order. Lists are sorted by name, so that
  // is the budget order already and the first maxExposed of them are exposed; `inOrder` checks it
  // rather than trusting it.
  let eligible = 0;
  let inOrder = true;
  const signature: string[] = [`G\u0000${globalKey}\u0000${settings.maxExposed}`];
  const namesKey: string[] = [];
  const seen = new Set<string>();

  servers.forEach((server) => {
    seen.add(server.name);
    const list = server.tools;
    if (!list) {
      perServer.push(undefined);
      signature.push(`S\u0000${server.name}\u0000${server.state}\u0000${server.fromCache}\u0000-`);
      return;
    }
    const key = `${list.fingerprint}\u0000${JSON.stringify(server.filters ?? {})}\u0000${globalKey}`;
    let outcome = memo.servers.get(server.name);
    if (outcome?.key !== key) {
      outcome = filterServer(server, list, compiledGlobal(), steps, key);
      memo.servers.set(server.name, outcome);
    }
    perServer.push(outcome);
    warnings.push(...outcome.warnings);
    let previous: string | undefined;
    for (const row of outcome.rows) {
      if (row.rule) continue;
      if (previous !== undefined && !(previous < row.prepared.name)) inOrder = false;
      previous = row.prepared.name;
      eligible += 1;
    }
    signature.push(`S\u0000${server.name}\u0000${server.state}\u0000${server.fromCache}\u0000${key}`);
    namesKey.push(`${server.name}\u0000${list.fingerprint}`);
  });
  for (const name of [...memo.servers.keys()]) if (!seen.has(name)) memo.servers.delete(name);

  // Only the first maxExposed are exposed: remembering those is cheaper than the (many) others,
  // and when everything fits there is nothing to remember.
  const maxExposed = settings.maxExposed;
  const withinBudget = eligible <= maxExposed || inOrder ? undefined : exposedRows(perServer, maxExposed);
  let exposedSoFar = 0;
  const budgetRule: FilterRule = deepFreeze({ kind: 'budget', maxExposed });
  const budget = budgetWarning(eligible, maxExposed);
  if (budget) warnings.push(budget);

  const names = qualifiedNamesFor(servers, perServer, namesKey.join('\n'), memo);
  const byQualifiedName = new Map<string, CatalogTool>();
  const catalogServers: CatalogServer[] = servers.map((server, index) => {
    const rows = perServer[index]?.rows ?? [];
    const serverNames = names.forServer(server.name);
    const tools = new Array<CatalogTool>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as Row;
      let rule = row.rule;
      if (!rule && (withinBudget ? !withinBudget.has(row) : exposedSoFar++ >= maxExposed)) rule = budgetRule;
      const { name, tool: definition, readOnly } = row.prepared;
      // Rows follow the list's order, as the names do.
      const qualifiedName = serverNames?.[i] ?? names.get(server.name, name) ?? '';
      // Shallow freezes suffice: the definition, the rule and the strings are frozen or immutable already.
      const tool: CatalogTool = Object.freeze(
        rule
          ? { server: server.name, name, qualifiedName, tool: definition, readOnly, exposed: false, filteredBy: rule }
          : { server: server.name, name, qualifiedName, tool: definition, readOnly, exposed: true },
      );
      byQualifiedName.set(qualifiedName, tool);
      tools[i] = tool;
    }
    return Object.freeze({
      name: server.name,
      state: server.state,
      fromCache: server.fromCache,
      ...(server.fetchedAt === undefined ? {} : { fetchedAt: server.fetchedAt }),
      tools: Object.freeze(tools),
    });
  });

  const snapshot: CatalogSnapshot = deepFreeze({
    servers: catalogServers,
    warnings,
    eligible,
    maxExposed: settings.maxExposed,
  });
  return { snapshot, signature: signature.join('\n'), byQualifiedName };
}

/** The first `maxExposed` eligible rows in budget order, for lists that are not sorted by name. */
function exposedRows(perServer: readonly (ServerRows | undefined)[], maxExposed: number): Set<Row> {
  const candidates: (BudgetCandidate & { readonly row: Row })[] = [];
  perServer.forEach((outcome, serverIndex) => {
    for (const row of outcome?.rows ?? []) if (!row.rule) candidates.push({ serverIndex, name: row.prepared.name, row });
  });
  return new Set(applyBudget(candidates, maxExposed).exposed.map((candidate) => candidate.row));
}

function qualifiedNamesFor(servers: readonly SnapshotServerInput[], perServer: readonly (ServerRows | undefined)[], key: string, memo: SnapshotMemo): NameLookup {
  if (memo.names?.key === key) return memo.names.names;
  // One group per server with a list; the rows are the list's tools, in its (sorted, unique) order.
  const groups = new Map<string, NameGroup>();
  let merged = false;
  servers.forEach((server, index) => {
    if (!perServer[index] || !server.tools) return;
    const { tools, safeTools } = namesOf(server.tools);
    const known = groups.get(server.name);
    if (!known) {
      groups.set(server.name, { server: server.name, tools, safeTools, plains: serverNamesOf(server.tools, server.name).plains });
      return;
    }
    // The same server twice (not something the catalog produces): merge, as pairs would be.
    merged = true;
    const union = [...new Set([...known.tools, ...tools])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    groups.set(server.name, { server: server.name, tools: union });
  });
  const names = qualifyGroups([...groups.values()]);
  // With merged groups the rows no longer line up with the names: look them up by name instead.
  const result = merged ? new ByNameOnly(names) : names;
  memo.names = { key, names: result };
  return result;
}

type NameLookup = Pick<QualifiedNames, 'get' | 'forServer'>;

/** Hides forServer() so every lookup goes by name. */
class ByNameOnly implements NameLookup {
  constructor(private readonly inner: QualifiedNames) {}
  get(server: string, tool: string): string | undefined {
    return this.inner.get(server, tool);
  }
  forServer(): undefined {
    return undefined;
  }
}
