// Real time, with a count of the timers still pending: lets a test prove that nothing more is
// scheduled (no further reconnect attempt) without sleeping to see whether something happens.
import { systemClock, type Clock } from '../../../src/core/base/clock';

export class TrackingClock implements Clock {
  private readonly live = new Set<unknown>();

  get pending(): number {
    return this.live.size;
  }

  now(): number {
    return systemClock.now();
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const handle = systemClock.setTimeout(() => {
      this.live.delete(handle);
      callback();
    }, ms);
    this.live.add(handle);
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.live.delete(handle);
    systemClock.clearTimeout(handle);
  }
}
