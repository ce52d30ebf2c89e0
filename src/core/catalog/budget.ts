// The editor sends at most a fixed number of tools per chat request, so the catalog exposes at most
// `maxExposed` and says which ones it left out.
import { MAX_EXPOSED_SETTING } from './filters';
import type { CatalogWarning } from './types';

/** The editor's per-request tool limit. */
export const DEFAULT_MAX_EXPOSED = 128;

/** A usable budget: a non-negative integer, else the default. */
export function normalizeMaxExposed(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : DEFAULT_MAX_EXPOSED;
}

export interface BudgetCandidate {
  /** Position of the tool's server in the configuration. */
  readonly serverIndex: number;
  /** Upstream tool name. */
  readonly name: string;
}

/** Configuration order, then tool name in code-unit order (locale-independent). */
export function compareBudgetOrder(a: BudgetCandidate, b: BudgetCandidate): number {
  if (a.serverIndex !== b.serverIndex) return a.serverIndex - b.serverIndex;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Splits eligible tools into the first `maxExposed` in budget order and the rest. The input order
 * does not matter, so the cut is the same however the tools arrived.
 */
export function applyBudget<T extends BudgetCandidate>(eligible: readonly T[], maxExposed: number): { exposed: T[]; hidden: T[] } {
  const ordered = [...eligible].sort(compareBudgetOrder);
  return { exposed: ordered.slice(0, maxExposed), hidden: ordered.slice(maxExposed) };
}

export function budgetWarning(eligible: number, maxExposed: number): CatalogWarning | undefined {
  if (eligible <= maxExposed) return undefined;
  const hidden = eligible - maxExposed;
  return {
    kind: 'budgetExceeded',
    setting: MAX_EXPOSED_SETTING,
    message:
      `${eligible} tools passed the filters but only ${maxExposed} can be offered to chat (${MAX_EXPOSED_SETTING}); ` +
      `${hidden} ${hidden === 1 ? 'tool is' : 'tools are'} hidden from its list, and found by search (#mcpTools with a query; #mcpCall calls them). ` +
      'Disable tools, add tools.allow/tools.deny filters, or use a tool set (mcpSwitchboard.toolSets) to choose which ones chat lists.',
  };
}
