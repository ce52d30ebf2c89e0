// When to try again after a connection failed or dropped: a pure function of the failures so far,
// the entry's reconnect settings and the kind of failure, so that it is tested as data.
import type { ReconnectSettings } from '../config';

/** After the circuit breaker opened on a transient remote failure, the time between slow retries. */
export const DEFAULT_SLOW_RETRY_MS = 5 * 60_000;

/**
 * Delay before reconnect attempt `attempt` (1-based): `initialDelayMs` doubling per attempt, capped
 * at `maxDelayMs`, with "equal jitter" — a uniformly random point in the upper half of that value.
 * The upper-half choice keeps the doubling visible (attempt n+1 never waits less than half of the
 * cap of attempt n) while still spreading out many servers that lost the same backend at once.
 */
export function backoffDelay(attempt: number, settings: ReconnectSettings, random: () => number = Math.random): number {
  const exponent = Math.max(0, attempt - 1);
  // Capping the exponent keeps 2 ** n finite for absurd attempt counts.
  const base = Math.min(settings.maxDelayMs, settings.initialDelayMs * 2 ** Math.min(exponent, 52));
  return Math.round(base / 2 + random() * (base / 2));
}

export interface RetryInput {
  /** Consecutive failed automatic attempts. */
  readonly failures: number;
  readonly settings: ReconnectSettings;
  readonly lastError: string;
  /** A remote server whose failure waiting may heal (unreachable, 5xx, timeouts). */
  readonly transientRemote: boolean;
  readonly slowRetryMs?: number;
  readonly random?: () => number;
}

export type RetryDecision =
  /** Reconnecting: attempt `attempt` runs after `delayMs`. */
  | { readonly kind: 'retry'; readonly attempt: number; readonly maxAttempts: number; readonly delayMs: number }
  /** The breaker is open: an error, and for a transient remote failure a slow retry after `slowRetryMs`. */
  | { readonly kind: 'giveUp'; readonly message: string; readonly slowRetry?: { readonly attempt: number; readonly delayMs: number } };

/**
 * The next automatic attempt with backoff, or giving up once the breaker opens. A remote server
 * whose failure waiting may heal keeps a slow retry after that, so a long-running host recovers
 * without a click.
 */
export function decideRetry(input: RetryInput): RetryDecision {
  const { failures, settings } = input;
  const { maxAttempts } = settings;
  if (failures < maxAttempts) {
    const attempt = failures + 1;
    return { kind: 'retry', attempt, maxAttempts, delayMs: backoffDelay(attempt, settings, input.random) };
  }
  const message =
    maxAttempts === 0 || failures === 0
      ? input.lastError
      : `gave up after ${failures} reconnect attempt${failures > 1 ? 's' : ''}: ${input.lastError}`;
  if (!input.transientRemote) return { kind: 'giveUp', message };
  return { kind: 'giveUp', message, slowRetry: { attempt: failures + 1, delayMs: input.slowRetryMs ?? DEFAULT_SLOW_RETRY_MS } };
}
