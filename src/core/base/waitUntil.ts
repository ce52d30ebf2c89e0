// The one way anything here waits for a condition that events drive (a server to run, a session to
// come back, every server to settle): checked once up front, since it may hold already, then on
// each event, until it is decided, its deadline passes on the injected clock, its signal aborts,
// or its owner ends it. Whoever waits says what each of those means; the mechanics are here once.
import type { Clock, TimerHandle } from './clock';
import type { Disposable } from './events';

/** How a wait ends: with a value, or with an error. */
export type Verdict<T> = { readonly done: T } | { readonly failed: Error };

export interface WaitRule<T> {
  /** Subscribes to whatever may decide the wait; the listener re-checks. */
  readonly on: (listener: () => void) => Disposable;
  /** Undefined: wait on. */
  readonly check: () => Verdict<T> | undefined;
  readonly clock: Clock;
  /** When waiting stops (a time on the clock), and how it ends then; undefined: no limit. */
  readonly deadline?: { readonly at: number; readonly verdict: () => Verdict<T> } | undefined;
  readonly signal?: AbortSignal | undefined;
  /** How an abort ends it (required with a signal). */
  readonly aborted?: () => Verdict<T>;
  /** Lets an owner end the wait early (a catalog disposed); the returned disposable unregisters it. */
  readonly endable?: (end: (verdict: Verdict<T>) => void) => Disposable;
}

export function waitUntil<T>(rule: WaitRule<T>): Promise<T> {
  const settle = (verdict: Verdict<T>): Promise<T> => ('done' in verdict ? Promise.resolve(verdict.done) : Promise.reject(verdict.failed));
  if (rule.signal?.aborted && rule.aborted) return settle(rule.aborted());
  const now = rule.check();
  if (now) return settle(now);
  return new Promise<T>((resolve, reject) => {
    let timer: TimerHandle | undefined;
    let ended = false;
    const finish = (verdict: Verdict<T>) => {
      if (ended) return;
      ended = true;
      subscription.dispose();
      registration?.dispose();
      if (timer !== undefined) rule.clock.clearTimeout(timer);
      rule.signal?.removeEventListener('abort', onAbort);
      if ('done' in verdict) resolve(verdict.done);
      else reject(verdict.failed);
    };
    const onAbort = () => {
      if (rule.aborted) finish(rule.aborted());
    };
    const subscription = rule.on(() => {
      const verdict = rule.check();
      if (verdict) finish(verdict);
    });
    const registration = rule.endable?.(finish);
    rule.signal?.addEventListener('abort', onAbort, { once: true });
    const deadline = rule.deadline;
    if (deadline) timer = rule.clock.setTimeout(() => finish(deadline.verdict()), Math.max(0, deadline.at - rule.clock.now()));
  });
}
