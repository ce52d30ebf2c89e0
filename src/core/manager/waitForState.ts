// Waiting for the servers to reach a condition, as the manager's callers do (doctor, serve, tests):
// the one wait (base/waitUntil.ts) driven by state events, bounded by a timeout.
import type { Clock } from '../base/clock';
import { waitUntil } from '../base/waitUntil';
import type { ServerStateChangeEvent } from '../state';
import type { Event } from '../base/events';
import type { ServerView } from './managedServer';

export type WaitOutcome = 'met' | 'timeout' | 'aborted';

export interface StateSource {
  servers(): ServerView[];
  readonly onDidChangeState: Event<ServerStateChangeEvent>;
  /**
   * Which servers there are changed. A server removed fires no state event of its own, so a wait
   * for it to be gone (or for every server to settle) is looked at again on this too.
   */
  readonly onDidChangeServers?: Event<unknown>;
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
  return waitUntil<WaitOutcome>({
    on: (listener) => {
      const states = source.onDidChangeState(listener);
      const servers = source.onDidChangeServers?.(listener);
      return {
        dispose: () => {
          states.dispose();
          servers?.dispose();
        },
      };
    },
    check: () => (predicate(source.servers()) ? { done: 'met' } : undefined),
    clock: options.clock,
    deadline: { at: options.clock.now() + options.timeoutMs, verdict: () => ({ done: 'timeout' }) },
    signal: options.signal,
    aborted: () => ({ done: 'aborted' }),
  });
}
