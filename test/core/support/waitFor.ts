// The one way tests wait for something that has an event: the current value is checked first
// (it may have happened already), then each event, bounded by a timeout that names what was
// awaited and what was last seen. Polling (support/poll.ts) is only for what has no event.
import type { Event } from '../../../src/core/base/events';
import type { ServerManager } from '../../../src/core/manager';
import type { ServerState } from '../../../src/core/state/serverState';

export interface WaitFor<T> {
  /** The value now, or undefined when it is not there yet. */
  readonly now: () => T | undefined;
  /** Fires whenever it may have come. */
  readonly event: Event<unknown>;
  /** What is awaited and what is there, for the timeout's message. */
  readonly describe: () => string;
  readonly timeoutMs?: number;
}

export function waitFor<T>({ now, event, describe, timeoutMs = 15_000 }: WaitFor<T>): Promise<T> {
  const current = now();
  if (current !== undefined) return Promise.resolve(current);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      subscription.dispose();
      reject(new Error(`not reached within ${timeoutMs} ms: ${describe()}`));
    }, timeoutMs);
    const subscription = event(() => {
      const value = now();
      if (value === undefined) return;
      clearTimeout(timer);
      subscription.dispose();
      resolve(value);
    });
  });
}

/** Resolves with the first state (current or future) of a server that matches `predicate`. */
export function waitForServerState(
  source: { readonly state: ServerState; readonly onDidChangeState: Event<unknown> },
  predicate: (state: ServerState) => boolean,
  timeoutMs = 10_000,
): Promise<ServerState> {
  return waitFor({
    now: () => (predicate(source.state) ? source.state : undefined),
    event: source.onDidChangeState,
    describe: () => `state; last ${JSON.stringify(source.state)}`,
    timeoutMs,
  });
}

/** Resolves with the state once the manager's server `name` is in state `kind`. */
export function waitForServer(manager: ServerManager, name: string, kind: ServerState['kind'], timeoutMs = 15_000): Promise<ServerState> {
  const now = () => {
    const state = manager.server(name)?.state;
    return state?.kind === kind ? state : undefined;
  };
  return waitFor({
    now,
    event: manager.onDidChangeState,
    describe: () => `${name} ${kind}; it is ${JSON.stringify(manager.server(name)?.state)}`,
    timeoutMs,
  });
}

/** Resolves once every named server is running. */
export async function waitForRunning(manager: ServerManager, names: readonly string[], timeoutMs = 15_000): Promise<void> {
  const states = () => names.map((name) => manager.server(name)?.state);
  await waitFor({
    now: () => (states().every((state) => state?.kind === 'running') ? true : undefined),
    event: manager.onDidChangeState,
    describe: () => `servers running: ${JSON.stringify(states())}`,
    timeoutMs,
  });
}
