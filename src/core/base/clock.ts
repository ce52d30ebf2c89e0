// Time as a dependency, so that backoff schedules and timestamps can be driven by tests.

/** Whatever the clock's setTimeout returned; only ever handed back to its clearTimeout. */
export type TimerHandle = unknown;

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
