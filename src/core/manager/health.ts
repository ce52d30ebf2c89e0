import type { ServerState } from '../state/serverState';

/** What the status bar needs: a count per state, over all configured servers. */
export interface HealthSummary {
  readonly total: number;
  readonly running: number;
  /** Not running, and started by the next request (lazy, or stopped for lack of use): healthy. */
  readonly idle: number;
  readonly starting: number;
  readonly reconnecting: number;
  readonly error: number;
  /** Waiting for somebody to sign in (OAuth). */
  readonly needsSignIn: number;
  readonly blocked: number;
  readonly disabled: number;
  readonly invalid: number;
  readonly stopped: number;
}

export function summarizeHealth(states: readonly ServerState[]): HealthSummary {
  const counts = { running: 0, idle: 0, starting: 0, reconnecting: 0, error: 0, needsSignIn: 0, blocked: 0, disabled: 0, invalid: 0, stopped: 0 };
  for (const state of states) counts[state.kind] += 1;
  return { total: states.length, ...counts };
}
