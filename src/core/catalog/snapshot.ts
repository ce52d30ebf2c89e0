// Builds a catalog snapshot from per-server tool lists and the settings. Pure and synchronous: the
// expensive per-list work (copying, schema checks, sorting) happens once per list in
// prepareToolList(); building only filters, names and counts, so it stays cheap at 10k tools.
import { TOOL_SET_SETTING, TOOL_SETS_SETTING } from './settingNames';
import { deepFreeze } from '../base/freeze';
import type { ToolFilterSettings } from '../config';
import { isConnecting, type ServerStateKind } from '../state';
import { applyBudget, budgetWants, budgetWarning, fairShares, type BudgetCandidate } from './budget';
import { compileGlobalFilters, FILTER_STEPS, type CompiledGlobalFilters, type FilterStep, type GlobalFilterSettings } from './filters';
import type { PreparedToolList } from './preparedList';
import { filterServer, type Row, type ServerRows } from './serverFiltering';
import { qualifiedNamesFor, type NameLookup } from './snapshotNames';
import type { CatalogServer, CatalogSnapshot, CatalogTool, CatalogWarning, FilterRule } from './types';

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
  /** A tool set named in use that `mcpSwitchboard.toolSets` does not define: every tool is offered, with a warning. */
  readonly unknownToolSet?: string | undefined;
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

/** Every server's filter outcome, with what the budget and the names need of them. */
interface Filtered {
  readonly perServer: readonly (ServerRows | undefined)[];
  readonly warnings: CatalogWarning[];
  readonly eligible: number;
  /** Each server's eligible rows come in name order: its first ones, as many as its share, are exposed. */
  readonly inOrder: boolean;
  readonly signature: string[];
  readonly namesKey: string;
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
  // Custom steps are not part of the key, so they get a fresh memo.
  const memo = options.steps === undefined ? (options.memo ?? new SnapshotMemo()) : new SnapshotMemo();
  const filtered = filterServers(servers, settings, options.steps ?? FILTER_STEPS, memo);
  const { warnings, eligible } = filtered;
  const budget = budgetWarning(eligible, settings.maxExposed);
  if (budget) warnings.push(budget);
  if (settings.unknownToolSet !== undefined)
    warnings.push({
      kind: 'filterError',
      setting: TOOL_SET_SETTING,
      message: `the tool set "${settings.unknownToolSet.slice(0, 80)}" (${TOOL_SET_SETTING}) is not defined in ${TOOL_SETS_SETTING}; every tool is offered`,
    });
  const names = qualifiedNamesFor(
    servers,
    filtered.perServer.map((outcome) => outcome !== undefined),
    filtered.namesKey,
    memo,
  );
  const { catalogServers, byQualifiedName } = catalogServersOf(servers, filtered, names, settings.maxExposed);
  const snapshot: CatalogSnapshot = deepFreeze({ servers: catalogServers, warnings, eligible, maxExposed: settings.maxExposed });
  return { snapshot, signature: filtered.signature.join('\n'), byQualifiedName };
}

function filterServers(
  servers: readonly SnapshotServerInput[],
  settings: SnapshotSettings,
  steps: readonly FilterStep[],
  memo: SnapshotMemo,
): Filtered {
  const globalKey = JSON.stringify([settings.globalDeny, settings.disabled, settings.toolSet ?? null]);
  const compiledGlobal = (): CompiledGlobalFilters => {
    if (memo.global?.key !== globalKey) memo.global = { key: globalKey, compiled: compileGlobalFilters(settings) };
    return memo.global.compiled;
  };
  const warnings: CatalogWarning[] = [];
  const perServer: (ServerRows | undefined)[] = [];
  const signature: string[] = [`G\u0000${globalKey}\u0000${settings.maxExposed}`];
  const namesKey: string[] = [];
  let eligible = 0;
  let inOrder = true;
  for (const server of servers) {
    const list = server.tools;
    const key = list ? `${list.fingerprint}\u0000${JSON.stringify(server.filters ?? {})}\u0000${globalKey}` : '-';
    signature.push(`S\u0000${server.name}\u0000${server.state}\u0000${server.fromCache}\u0000${key}`);
    if (!list) {
      perServer.push(undefined);
      continue;
    }
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
      // Lists are sorted by name, so rows are in budget order already; this checks rather than trusts it.
      if (previous !== undefined && !(previous < row.prepared.name)) inOrder = false;
      previous = row.prepared.name;
      eligible += 1;
    }
    namesKey.push(`${server.name}\u0000${list.fingerprint}`);
  }
  const seen = new Set(servers.map((server) => server.name));
  for (const name of [...memo.servers.keys()]) if (!seen.has(name)) memo.servers.delete(name);
  return { perServer, warnings, eligible, inOrder, signature, namesKey: namesKey.join('\n') };
}

function catalogServersOf(
  servers: readonly SnapshotServerInput[],
  filtered: Filtered,
  names: NameLookup,
  maxExposed: number,
): { catalogServers: CatalogServer[]; byQualifiedName: Map<string, CatalogTool> } {
  // When everything fits there is nothing to cut. Lists in name order are cut by counts alone
  // (each server's first `share` eligible rows); others by the rows the budget picks. Servers
  // still coming up with nothing listed hold a share (budget.ts, PENDING_WANTS).
  const pending = servers.flatMap((server, index) => (server.tools === undefined && isConnecting(server.state) ? [index] : []));
  const over = filtered.eligible > maxExposed || (pending.length > 0 && filtered.eligible > 0);
  const shares = over && filtered.inOrder ? budgetShares(filtered.perServer, maxExposed, pending) : undefined;
  const withinBudget = over && !filtered.inOrder ? exposedRows(filtered.perServer, maxExposed, pending) : undefined;
  const budgetRule: FilterRule = deepFreeze({ kind: 'budget', maxExposed });
  const byQualifiedName = new Map<string, CatalogTool>();
  const catalogServers = servers.map((server, index) => {
    const rows = filtered.perServer[index]?.rows ?? [];
    const serverNames = names.forServer(server.name);
    const share = shares?.get(index) ?? 0;
    let exposedOfServer = 0;
    const tools = rows.map((row, i) => {
      let rule = row.rule;
      if (!rule && (withinBudget ? !withinBudget.has(row) : shares ? exposedOfServer++ >= share : false)) rule = budgetRule;
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
      return tool;
    });
    return Object.freeze({
      name: server.name,
      state: server.state,
      fromCache: server.fromCache,
      fetchedAt: server.fetchedAt,
      tools: Object.freeze(tools),
    });
  });
  return { catalogServers, byQualifiedName };
}

/** Each server's share of the budget (by its position), from how many eligible rows it has. */
function budgetShares(
  perServer: readonly (ServerRows | undefined)[],
  maxExposed: number,
  pending: readonly number[],
): ReadonlyMap<number, number> {
  const wants = perServer.map((outcome, serverIndex) => ({ serverIndex, wants: outcome?.rows.filter((row) => !row.rule).length ?? 0 }));
  return fairShares(
    budgetWants(
      wants.filter((server) => server.wants > 0),
      pending,
    ),
    maxExposed,
  );
}

/** The eligible rows the budget keeps, for lists that are not sorted by name. */
function exposedRows(perServer: readonly (ServerRows | undefined)[], maxExposed: number, pending: readonly number[]): Set<Row> {
  const candidates: (BudgetCandidate & { readonly row: Row })[] = [];
  perServer.forEach((outcome, serverIndex) => {
    for (const row of outcome?.rows ?? []) if (!row.rule) candidates.push({ serverIndex, name: row.prepared.name, row });
  });
  return new Set(applyBudget(candidates, maxExposed, pending).exposed.map((candidate) => candidate.row));
}

/**
 * Whether a server of the snapshot is still starting or reconnecting: its counts (the budget's
 * warning among them) are not final yet, and are said once they are.
 */
export function isSettling(snapshot: CatalogSnapshot): boolean {
  return snapshot.servers.some((server) => isConnecting(server.state));
}
