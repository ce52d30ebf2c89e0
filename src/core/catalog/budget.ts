// The editor sends at most a fixed number of tools per chat request, so the catalog exposes at most
// `maxExposed`, shared fairly between servers, and says which ones it left out (search finds them).
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
 * What a server still coming up, with nothing listed yet, is taken to want: more than any budget.
 * It holds an equal share until it lists, so that the servers already listed keep the shares they
 * will have once all have come (when every server wants more than its share, as past the budget
 * most do), and chat is not told of a smaller list for each of them at each arrival.
 */
const PENDING_WANTS = Number.MAX_SAFE_INTEGER;

/** Each server's wants for fairShares(): its eligible tools, and PENDING_WANTS for each server in `pending`. */
export function budgetWants(
  listed: readonly { readonly serverIndex: number; readonly wants: number }[],
  pending: readonly number[],
): { readonly serverIndex: number; readonly wants: number }[] {
  return [...listed, ...pending.map((serverIndex) => ({ serverIndex, wants: PENDING_WANTS }))];
}

/**
 * Splits eligible tools into at most `maxExposed` offered and the rest, fairly between servers:
 * each gets an equal share, a server that needs less than its share leaves the rest to the others
 * (max-min fairness), and what cannot be split evenly goes to servers in configuration order.
 * Within a server, tools are taken in name order. So no server is cut to nothing while another
 * keeps all of its tools, however many servers come first. The input order does not matter: the
 * cut is the same however the tools arrived. `pending`: servers (by position) still coming up with
 * nothing listed, which hold a share (PENDING_WANTS).
 */
export function applyBudget<T extends BudgetCandidate>(
  eligible: readonly T[],
  maxExposed: number,
  pending: readonly number[] = [],
): { exposed: T[]; hidden: T[] } {
  const ordered = [...eligible].sort(compareBudgetOrder);
  if (ordered.length <= maxExposed && pending.length === 0) return { exposed: ordered, hidden: [] };
  const perServer = new Map<number, T[]>();
  for (const candidate of ordered) {
    const list = perServer.get(candidate.serverIndex);
    if (list) list.push(candidate);
    else perServer.set(candidate.serverIndex, [candidate]);
  }
  const shares = fairShares(
    budgetWants(
      [...perServer].map(([serverIndex, list]) => ({ serverIndex, wants: list.length })),
      pending,
    ),
    maxExposed,
  );
  const exposed = new Set<T>();
  for (const [serverIndex, list] of perServer) for (const candidate of list.slice(0, shares.get(serverIndex) ?? 0)) exposed.add(candidate);
  return { exposed: ordered.filter((candidate) => exposed.has(candidate)), hidden: ordered.filter((candidate) => !exposed.has(candidate)) };
}

/** Max-min fair shares of `budget` (servers in configuration order): the smallest needs are met first. */
export function fairShares(
  servers: readonly { readonly serverIndex: number; readonly wants: number }[],
  budget: number,
): Map<number, number> {
  const shares = new Map<number, number>();
  let left = budget;
  let open = [...servers].sort((a, b) => a.wants - b.wants || a.serverIndex - b.serverIndex);
  // Every server whose need is within an equal share of what is left gets all it needs.
  while (open.length > 0 && open[0] !== undefined && open[0].wants <= Math.floor(left / open.length)) {
    const [first, ...rest] = open;
    shares.set(first.serverIndex, first.wants);
    left -= first.wants;
    open = rest;
  }
  // The others split what is left evenly; the remainder goes one each in configuration order.
  const byConfiguration = [...open].sort((a, b) => a.serverIndex - b.serverIndex);
  const even = open.length > 0 ? Math.floor(left / open.length) : 0;
  let remainder = left - even * open.length;
  for (const server of byConfiguration) {
    const extra = remainder > 0 ? 1 : 0;
    remainder -= extra;
    shares.set(server.serverIndex, even + extra);
  }
  return shares;
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
