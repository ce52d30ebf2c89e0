// The doctor reports once every server has settled, not at the manager's startup gate: a slow
// server that comes up after a second is healthy, and saying "starting" about it would be wrong.
import { isSettled } from '../../state';
import { DEFAULT_CONCURRENCY, type ConfiguredServer, type ServerManager, type ServerView } from '../../manager';

export type SettleOutcome = 'settled' | 'timeout' | 'aborted';

/** Added to the longest connect timeout, so that a server's own CONNECT_TIMEOUT wins the race. */
export const DEFAULT_TIMEOUT_MARGIN_MS = 2_000;
/** Stands in for servers without a connect timeout (connectMs 0), and for an empty configuration. */
export const FALLBACK_TIMEOUT_MS = 30_000;

/**
 * Long enough for every server to reach its own connect timeout: the longest connectMs, times the
 * number of waves the manager's concurrency limit splits the servers into, plus a margin.
 */
export function defaultTimeoutMs(servers: readonly ConfiguredServer[]): number {
  const connectTimeouts = servers
    .filter((server) => 'transport' in server && server.enabled)
    .map((server) => ('transport' in server && server.timeouts.connectMs > 0 ? server.timeouts.connectMs : FALLBACK_TIMEOUT_MS));
  if (connectTimeouts.length === 0) return FALLBACK_TIMEOUT_MS;
  const waves = Math.ceil(connectTimeouts.length / DEFAULT_CONCURRENCY);
  return Math.max(...connectTimeouts) * waves + DEFAULT_TIMEOUT_MARGIN_MS;
}

export function allSettled(servers: readonly ServerView[]): boolean {
  return servers.every((server) => isSettled(server.state));
}

/** Resolves when no server is starting or reconnecting, when `timeoutMs` passes, or when `signal` aborts. */
export async function waitUntilSettled(manager: ServerManager, timeoutMs: number, signal?: AbortSignal): Promise<SettleOutcome> {
  const outcome = await manager.waitForState(allSettled, { timeoutMs, signal });
  return outcome === 'met' ? 'settled' : outcome;
}
