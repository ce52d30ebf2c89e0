// The limits of one request, on the connection's clock: the caller's cancel signal, the quiet
// time (`timeoutMs` without an answer or a progress notification), and the maximum total time
// even while progress keeps arriving. Whichever ends it first aborts the request's signal, so the
// SDK tells the server with notifications/cancelled, and is remembered to say why it ended.
import type { Clock, TimerHandle } from '../../base/clock';
import type { RequestPolicy } from './requestPolicy';

export type RequestEnd = 'caller' | 'timeout' | 'maxTotal';

export class RequestDeadlines {
  private readonly controller = new AbortController();
  private quietTimer: TimerHandle | undefined;
  private readonly totalTimer: TimerHandle | undefined;
  private readonly onCallerAbort = () => this.end('caller', this.policy.signal?.reason);
  /** What ended the request, if one of these did. */
  ended: RequestEnd | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly policy: RequestPolicy,
  ) {
    policy.signal?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.armQuietTimer();
    this.totalTimer =
      policy.maxTotalMs > 0
        ? clock.setTimeout(
            () => this.end('maxTotal', new Error(`maximum total time of ${policy.maxTotalMs} ms exceeded`)),
            policy.maxTotalMs,
          )
        : undefined;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** A progress notification: the server is at work, so the quiet time starts again. */
  progressed(): void {
    if (this.ended === undefined) this.armQuietTimer();
  }

  dispose(): void {
    if (this.quietTimer !== undefined) this.clock.clearTimeout(this.quietTimer);
    if (this.totalTimer !== undefined) this.clock.clearTimeout(this.totalTimer);
    this.policy.signal?.removeEventListener('abort', this.onCallerAbort);
  }

  private armQuietTimer(): void {
    if (this.quietTimer !== undefined) this.clock.clearTimeout(this.quietTimer);
    const { timeoutMs } = this.policy;
    this.quietTimer =
      timeoutMs > 0
        ? this.clock.setTimeout(() => this.end('timeout', new Error(`request timed out: no response within ${timeoutMs} ms`)), timeoutMs)
        : undefined;
  }

  private end(why: RequestEnd, reason: unknown): void {
    this.ended ??= why;
    this.controller.abort(reason);
  }
}
