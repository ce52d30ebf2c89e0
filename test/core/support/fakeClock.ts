// The one fake clock of the test suite: time moves only when a test says so, and every timer that
// falls due runs in order. Every decision by time in src/core (backoff, retries, idle stops, ttl
// refreshes, caches, deadlines, waits for a server) takes a Clock; only the waits that bound real
// I/O while something closes (a process draining, a session's DELETE, a lost session's requests
// settling) run in real time, since no test can advance a real process.
import type { Clock } from '../../../src/core/base/clock';

export class FakeClock implements Clock {
  private time: number;
  private nextId = 0;
  private readonly timers = new Map<number, { due: number; callback: () => void }>();
  private readonly waiting: Array<{ readonly delay: number; readonly resolve: () => void }> = [];

  constructor(start = 1_700_000_000_000) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): number {
    this.nextId += 1;
    this.timers.set(this.nextId, { due: this.time + ms, callback });
    for (const waiter of this.waiting.filter((candidate) => candidate.delay === ms)) {
      this.waiting.splice(this.waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
    return this.nextId;
  }

  /**
   * Resolves once a timer of `delay` ms is pending, now or when one is set: the event that the code
   * under test has started waiting, so that a test advances time only after that.
   */
  whenPending(delay: number): Promise<void> {
    if ([...this.timers.values()].some((timer) => timer.due - this.time === delay)) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ delay, resolve }));
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  get pendingTimers(): number {
    return this.timers.size;
  }

  /**
   * The timers now pending, soonest first. `fire` runs one directly, even after it was cleared:
   * how a test proves that a stale timer firing late does nothing.
   */
  pending(): Array<{ readonly delay: number; fire(): void }> {
    return [...this.timers.values()].sort((a, b) => a.due - b.due).map((timer) => ({ delay: timer.due - this.time, fire: timer.callback }));
  }

  /** Delays of the timers now pending, from now, soonest first. */
  pendingDelays(): number[] {
    return [...this.timers.values()].map((timer) => timer.due - this.time).sort((a, b) => a - b);
  }

  /** Moves time forward, running every timer that falls due (including ones they schedule). */
  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      let next: [number, { due: number; callback: () => void }] | undefined;
      for (const timer of this.timers) if (timer[1].due <= target && (!next || timer[1].due < next[1].due)) next = timer;
      if (!next) break;
      this.timers.delete(next[0]);
      this.time = next[1].due;
      next[1].callback();
    }
    this.time = target;
  }
}
