// One way to wait for the servers to reach a condition: driven by state events, bounded by a
// timeout on an injected clock, and ended early by an abort signal. The check runs once up front,
// since everything may have happened before the caller got here.
import type { Clock } from '../base/clock';
import type { ServerStateChangeEvent } from '../state';
import type { Event } from '../base/events';
import type { ServerView } from './managedServer';

export type WaitOutcome = 'met' | 'timeout' | 'aborted';

export interface StateSource {
  servers(): ServerView[];
  readonly onDidChangeState: Event<ServerStateChangeEvent>;
}

export interface WaitOptions {
  readonly clock: Clock;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

export function waitForState(
  source: StateSource,
  predicate: (servers: readonly ServerView[]) => boolean,
  options: WaitOptions,
): Promise<WaitOutcome> {
  const { clock, signal } = options;
  if (signal?.aborted) return Promise.resolve('aborted');
  if (predicate(source.servers())) return Promise.resolve('met');
  return new Promise((resolve) => {
    const finish = (outcome: WaitOutcome): void => {
      clock.clearTimeout(timer);
      subscription.dispose();
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onAbort = (): void => finish('aborted');
    const timer = clock.setTimeout(() => finish('timeout'), options.timeoutMs);
    const subscription = source.onDidChangeState(() => {
      if (predicate(source.servers())) finish('met');
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
