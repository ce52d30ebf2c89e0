// Debounced, generation-checked taking of one list per server. A burst of changes becomes one
// take after the burst (the catalog reads the connection's latest list then: the connection, which
// owns it, is the only one that asks the server); an explicit fetch (invalidating the cache asks
// the server again) that a newer one, or newer data from elsewhere, overtook is dropped when it
// finally answers, so it cannot overwrite a newer list.
import type { Clock, TimerHandle } from '../base/clock';

export const DEFAULT_REFRESH_DEBOUNCE_MS = 300;

export interface RefreshSchedulerOptions<T> {
  readonly delayMs: number;
  readonly clock: Clock;
  /** Takes the current value after a burst; undefined when there is nothing to take right now. */
  readonly fetch: (server: string) => Promise<T | undefined>;
  /** Called with a result only if no newer fetch or supersede() happened meanwhile. */
  readonly apply: (server: string, value: T) => void;
  /** Identifies a value, to tell whether a change signalled during a fetch is what the fetch returned. */
  readonly fingerprint: (value: T) => string;
  readonly onError: (server: string, error: unknown) => void;
}

export interface RefreshCounters {
  /** Debounced refreshes that ran (a burst of signals counts once). */
  debounced: number;
  fetches: number;
  applied: number;
  /** Results dropped because something newer had arrived. */
  stale: number;
  failed: number;
}

interface Slot {
  generation: number;
  timer: TimerHandle | undefined;
  /** Settles when the pending timer has fired and its refresh finished, or was cancelled. */
  timerDone: (() => void) | undefined;
  fetching: number;
  /** A change signalled while a fetch was running, by fingerprint. */
  signalledDuringFetch: string | undefined;
}

export class RefreshScheduler<T> {
  readonly counters: RefreshCounters = { debounced: 0, fetches: 0, applied: 0, stale: 0, failed: 0 };
  private readonly slots = new Map<string, Slot>();
  private readonly active = new Set<Promise<void>>();
  private disposed = false;

  constructor(private readonly options: RefreshSchedulerOptions<T>) {}

  /**
   * Something changed (e.g. tools/list_changed). Refreshes `delayMs` after the last signal of a
   * burst. While a fetch is running the signal is held: when the fetch returns exactly the signalled
   * value (typically the echo of the fetch itself) nothing more happens, otherwise it refreshes again.
   */
  signal(server: string, fingerprint: string): void {
    if (this.disposed) return;
    const slot = this.slot(server);
    if (slot.fetching > 0) {
      slot.signalledDuringFetch = fingerprint;
      return;
    }
    this.schedule(server);
  }

  /** (Re)starts the debounce timer. */
  schedule(server: string): void {
    if (this.disposed) return;
    const slot = this.slot(server);
    this.clearTimer(slot);
    let done!: () => void;
    this.track(new Promise<void>((resolve) => (done = resolve)));
    slot.timerDone = done;
    slot.timer = this.options.clock.setTimeout(() => {
      slot.timer = undefined;
      slot.timerDone = undefined;
      this.counters.debounced += 1;
      void this.refreshNow(server).finally(done);
    }, this.options.delayMs);
  }

  /**
   * Fetches now (cancelling a pending debounce), with `fetch` or the scheduler's own; resolves when
   * the result is applied or dropped.
   */
  refreshNow(server: string, fetch: (server: string) => Promise<T | undefined> = this.options.fetch): Promise<void> {
    if (this.disposed) return Promise.resolve();
    const slot = this.slot(server);
    this.clearTimer(slot);
    slot.generation += 1;
    const generation = slot.generation;
    slot.fetching += 1;
    this.counters.fetches += 1;
    const run = (async () => {
      let applied: T | undefined;
      try {
        const value = await fetch(server);
        if (generation !== slot.generation || this.disposed) {
          this.counters.stale += 1;
        } else if (value !== undefined) {
          this.options.apply(server, value);
          applied = value;
          this.counters.applied += 1;
        }
      } catch (error) {
        this.counters.failed += 1;
        if (!this.disposed) this.options.onError(server, error);
      } finally {
        slot.fetching -= 1;
      }
      const signalled = slot.signalledDuringFetch;
      if (slot.fetching === 0 && signalled !== undefined) {
        slot.signalledDuringFetch = undefined;
        if (applied === undefined || this.options.fingerprint(applied) !== signalled) this.schedule(server);
      }
    })();
    return this.track(run);
  }

  /** Newer data arrived by other means (a reconnect): results of fetches already running are dropped. */
  supersede(server: string): void {
    this.slot(server).generation += 1;
  }

  /** Forgets the server: cancels the pending refresh and drops running fetches' results. */
  cancel(server: string): void {
    const slot = this.slots.get(server);
    if (!slot) return;
    this.clearTimer(slot);
    slot.generation += 1;
    slot.signalledDuringFetch = undefined;
  }

  isPending(server: string): boolean {
    const slot = this.slots.get(server);
    return slot !== undefined && (slot.timer !== undefined || slot.fetching > 0);
  }

  /** Resolves once no refresh is scheduled or running (including ones scheduled meanwhile). */
  async idle(): Promise<void> {
    while (this.active.size > 0) await Promise.all([...this.active]);
  }

  dispose(): void {
    this.disposed = true;
    for (const slot of this.slots.values()) {
      this.clearTimer(slot);
      slot.generation += 1;
    }
  }

  private slot(server: string): Slot {
    let slot = this.slots.get(server);
    if (!slot) {
      slot = { generation: 0, timer: undefined, timerDone: undefined, fetching: 0, signalledDuringFetch: undefined };
      this.slots.set(server, slot);
    }
    return slot;
  }

  private clearTimer(slot: Slot): void {
    if (slot.timer !== undefined) this.options.clock.clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.timerDone?.();
    slot.timerDone = undefined;
  }

  private track(promise: Promise<void>): Promise<void> {
    this.active.add(promise);
    void promise.finally(() => this.active.delete(promise));
    return promise;
  }
}
