import type { ReconnectSettings } from '../config/types';

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
