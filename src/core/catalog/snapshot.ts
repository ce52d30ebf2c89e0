// Builds a catalog snapshot from per-server tool lists and the settings. Pure and synchronous: the
// expensive per-list work (copying, schema checks, sorting) happens once per list in
// prepareToolList(); building only filters, names and counts, so it stays cheap at 10k tools.
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolFilterSettings } from '../config/types';
import type { ServerStateKind } from '../connection/state';
import { applyBudget, budgetWarning, type BudgetCandidate } from './budget';
import {
  compileGlobalFilters,
  evaluateFilters,
  FILTER_STEPS,
  filterContext,
  SERVERS_SETTING,
  unmatchedAllowPatterns,
  type CompiledGlobalFilters,
  type FilterStep,
  type GlobalFilterSettings,
} from './filters';
import { deepFreeze } from './freeze';
import { qualifyToolNames, type QualifiedNames, type ToolRef } from './naming';
import { isReadOnlyTool, normalizeTool } from './schema';
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

/** Normalizes a raw tools/list result once, so every snapshot built from it shares the work. */
export function prepareToolList(raw: readonly unknown[], fingerprint = fingerprintTools(raw)): PreparedToolList {
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
    const normalized = normalizeTool(item);
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
  names: { readonly key: string; readonly names: QualifiedNames } | undefined;
}

function filterServer(server: SnapshotServerInput, list: PreparedToolList, global: CompiledGlobalFilters, steps: readonly FilterStep[], key: string): ServerRows {
  const context = filterContext(server.name, server.filters, global);
  const warnings: CatalogWarning[] = [];
  const filterErrors = new Map<string, number>();
  const rows = list.tools.map((prepared): Row => {
    let rule = evaluateFilters({ server: server.name, name: prepared.name, readOnly: prepared.readOnly }, context, steps);
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
  let global: CompiledGlobalFilters | undefined;
  const warnings: CatalogWarning[] = [];
  const perServer: (ServerRows | undefined)[] = [];
  const eligible: (BudgetCandidate & { readonly row: Row })[] = [];
  const signature: string[] = [`G\u0000${globalKey}\u0000${settings.maxExposed}`];
  const namesKey: string[] = [];
  const seen = new Set<string>();

  servers.forEach((server, serverIndex) => {
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
      global ??= compileGlobalFilters(settings);
      outcome = filterServer(server, list, global, steps, key);
      memo.servers.set(server.name, outcome);
    }
    perServer.push(outcome);
    warnings.push(...outcome.warnings);
    for (const row of outcome.rows) if (!row.rule) eligible.push({ serverIndex, name: row.prepared.name, row });
    signature.push(`S\u0000${server.name}\u0000${server.state}\u0000${server.fromCache}\u0000${key}`);
    namesKey.push(`${server.name}\u0000${list.fingerprint}`);
  });
  for (const name of [...memo.servers.keys()]) if (!seen.has(name)) memo.servers.delete(name);

  const { hidden } = applyBudget(eligible, settings.maxExposed);
  const overBudget = new Set(hidden.map((candidate) => candidate.row));
  const budgetRule: FilterRule = deepFreeze({ kind: 'budget', maxExposed: settings.maxExposed });
  const budget = budgetWarning(eligible.length, settings.maxExposed);
  if (budget) warnings.push(budget);

  const names = qualifiedNamesFor(servers, perServer, namesKey.join('\n'), memo);
  const byQualifiedName = new Map<string, CatalogTool>();
  const catalogServers: CatalogServer[] = servers.map((server, index) => {
    const rows = perServer[index]?.rows ?? [];
    const tools = rows.map((row): CatalogTool => {
      const rule = row.rule ?? (overBudget.has(row) ? budgetRule : undefined);
      const qualifiedName = names.get(server.name, row.prepared.name) ?? '';
      const { name, tool: definition, readOnly } = row.prepared;
      const tool: CatalogTool = Object.freeze(
        rule
          ? { server: server.name, name, qualifiedName, tool: definition, readOnly, exposed: false, filteredBy: rule }
          : { server: server.name, name, qualifiedName, tool: definition, readOnly, exposed: true },
      );
      byQualifiedName.set(qualifiedName, tool);
      return tool;
    });
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
    eligible: eligible.length,
    maxExposed: settings.maxExposed,
  });
  return { snapshot, signature: signature.join('\n'), byQualifiedName };
}

function qualifiedNamesFor(servers: readonly SnapshotServerInput[], perServer: readonly (ServerRows | undefined)[], key: string, memo: SnapshotMemo): QualifiedNames {
  if (memo.names?.key === key) return memo.names.names;
  const refs: ToolRef[] = [];
  servers.forEach((server, index) => {
    for (const row of perServer[index]?.rows ?? []) refs.push({ server: server.name, tool: row.prepared.name });
  });
  const names = qualifyToolNames(refs);
  memo.names = { key, names };
  return names;
}
