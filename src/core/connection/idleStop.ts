// When a running server may stop for lack of use: `idleStopMinutes` after the last request from a
// client ended, or as soon as nothing uses it when it was started only to learn its lists. A
// request in flight or a resource subscription holds it; the countdown starts again when the last
// use ends. Runs on the connection's clock, so tests drive it without waiting.
import type { Clock, TimerHandle } from '../base/clock';
import { isSettled, type ServerState, type ServerStateKind } from '../state';

export interface IdleStopOptions {
  readonly clock: Clock;
  /** The configured idle time; 0: never stops for lack of use. */
  readonly idleStopMs: () => number;
  /** Whether the server is running (the countdown only runs then). */
  readonly running: () => boolean;
  /** Uses that are not requests: resource subscriptions. */
  readonly held: () => boolean;
  /** Due: the server is running and unused, for `idleStopMs` (`unused`) or since it listed what it offers (`learned`). */
  readonly onIdle: (why: 'unused' | 'learned') => void;
}

export class IdleStop {
  private inFlight = 0;
  private timer: TimerHandle | undefined;
  /** Started only to learn its lists: stops once unused, whatever `idleStopMs` says. */
  private learning = false;

  constructor(private readonly options: IdleStopOptions) {}

  /** Requests from clients now in flight. */
  get requestsInFlight(): number {
    return this.inFlight;
  }

  get inUse(): boolean {
    return this.inFlight > 0 || this.options.held();
  }

  /** Marks a request in flight; the returned function ends it (once). */
  begin(): () => void {
    this.inFlight += 1;
    this.cancel();
    // Used by a client: it was needed after all, and stops only as configured from now on.
    this.learning = false;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight -= 1;
      this.arm();
    };
  }

  /** The next time the server runs, it stops once unused: it was started to learn its lists. */
  stopAfterLearning(): void {
    this.learning = true;
  }

  /** (Re)starts the countdown, if the server is running, unused, and may stop at all. */
  arm(): void {
    this.cancel();
    if (!this.options.running() || this.inUse) return;
    if (this.learning) {
      // After whoever reacts to the running state (the catalog stores the lists) has run.
      queueMicrotask(() => this.due());
      return;
    }
    const delayMs = this.options.idleStopMs();
    if (delayMs <= 0) return;
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = undefined;
      this.due();
    }, delayMs);
    // A countdown must not keep a CLI process alive.
    (this.timer as { unref?: () => void } | undefined)?.unref?.();
  }

  private due(): void {
    if (!this.options.running() || this.inUse) return;
    const why = this.learning ? 'learned' : 'unused';
    this.learning = false;
    this.options.onIdle(why);
  }

  cancel(): void {
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Follows the connection's state: the countdown starts when it starts running, and a server that
   * stopped or failed is not counting down any more. running → running is a changed tool count,
   * not a use: the countdown goes on.
   */
  follow(previous: ServerStateKind, next: ServerState): void {
    if (next.kind === 'running') {
      if (previous !== 'running') this.arm();
    } else if (isSettled(next)) this.reset();
    else this.cancel();
  }

  /** The server stopped or failed: no countdown, and a start after this is not for learning. */
  reset(): void {
    this.cancel();
    this.learning = false;
  }
}

/** `15 min`, `90 s`: how long an idle stop waited, for the log. */
export function describeIdleTime(ms: number): string {
  return ms >= 60_000 ? `${Math.round((ms / 60_000) * 10) / 10} min` : `${Math.round(ms / 1000)} s`;
}
