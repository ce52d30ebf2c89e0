import { isReady, STATE_KINDS, type ServerState, type ServerStateKind } from '../state';

/** What the status bar needs: a count per state, over all configured servers. */
export interface HealthSummary extends Readonly<Record<ServerStateKind, number>> {
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
  // A Record over every kind: a new state does not compile until it is counted.
  const counts: Record<ServerStateKind, number> = {
    running: 0,
    idle: 0,
    starting: 0,
    reconnecting: 0,
    error: 0,
    needsSignIn: 0,
    blocked: 0,
    disabled: 0,
    invalid: 0,
    stopped: 0,
  };
  for (const state of states) counts[state.kind] += 1;
  return { total: states.length, ...counts };
}

/** How many servers are in a state of the group `inGroup` (one of the predicates of serverState.ts). */
export function countWhere(health: HealthSummary, inGroup: (kind: ServerStateKind) => boolean): number {
  return STATE_KINDS.filter(inGroup).reduce((sum, kind) => sum + health[kind], 0);
}

/** Servers running, or idle until used (serverState.ts: isReady): what the status bar calls ready. */
export function readyCount(health: HealthSummary): number {
  return countWhere(health, isReady);
}
