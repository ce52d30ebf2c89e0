// How a caller waits on a server through the catalog, with one mechanism: a tools/list waits until
// a server that is starting has some list (live or cached), a tools/call until its server is
// ready (running, so its live list is known). Each wait ends when its condition holds, when the
// server settles otherwise, on abort, when the catalog is disposed, or at its deadline.
//
// A call has one deadline (`readyBy`, the server's timeouts.requestMs from when the call arrived),
// made once by the call gate (callGate.ts: finding the tool a qualified name names and waiting for
// its server are one wait) and passed on with the call (CallerOptions.readyBy) to the connection,
// which waits only if the session drops between the gate and the send. Whoever is waiting when it
// passes fails the call with the one NOT_READY error (connection/link/errors.ts).
import type { Clock } from '../base/clock';
import { waitUntil } from '../base/waitUntil';
import type { Event } from '../base/events';
import { notReadyError } from '../connection';
import { SwitchboardError } from '../state';
import { isConnecting } from '../state';
import type { ServerFacts } from './serverLists';
import type { ServerDefinition } from '../config';

const DONE = { done: undefined } as const;

/** How long a tools/list waits for a server whose connect timeout is 0 (no limit). */
const MAX_LIST_WAIT_MS = 60_000;

interface Waiter {
  fail(error: SwitchboardError): void;
}

export interface WaitSource {
  facts(server: string): ServerFacts | undefined;
  /** Only the definition (its timeouts), without reading the lists: what a call's deadline needs. */
  definition(server: string): ServerDefinition | undefined;
  /** Fires a server's name whenever what the catalog reads of it may have changed (state, lists, removal); undefined: any server. */
  readonly onDidChangeServer: Event<string | undefined>;
}

/** What ends a wait besides its condition. */
interface WaitRule {
  /** Checked on every change of the server: undefined to go on waiting. */
  readonly settle: (facts: ServerFacts | undefined) => 'done' | SwitchboardError | undefined;
  readonly signal: AbortSignal | undefined;
  /** When the wait ends (a time on the catalog's clock), and how. */
  readonly deadline?: { readonly at: number; readonly outcome: () => Error | undefined };
}

export class ServerWaits {
  private readonly waiters = new Set<Waiter>();

  constructor(
    private readonly source: WaitSource,
    private readonly clock: Clock,
  ) {}

  /** Calls waiting for their server to start, and lists waiting for a first list. */
  get size(): number {
    return this.waiters.size;
  }

  /** Whether the server is starting and nothing is known of its tools yet. */
  isStartingWithoutTools(server: string): boolean {
    const facts = this.source.facts(server);
    return facts !== undefined && isConnecting(facts.state) && !facts.live && !facts.cached;
  }

  /** A call's deadline for this server: its requestMs from now (undefined: it waits without limit). */
  readyBy(server: string): number | undefined {
    const requestMs = this.source.definition(server)?.timeouts.requestMs ?? 0;
    return requestMs > 0 ? this.clock.now() + requestMs : undefined;
  }

  /** Resolves once the server has a list, or when waiting could not help any more. Never rejects. */
  whenListed(server: string, signal: AbortSignal | undefined): Promise<void> {
    if (!this.isStartingWithoutTools(server) || signal?.aborted) return Promise.resolve();
    // A connect timeout of 0 means "no limit" for the connection; a listing client still deserves an answer.
    const limitMs = this.source.definition(server)?.timeouts.connectMs || MAX_LIST_WAIT_MS;
    return this.wait(server, {
      settle: () => (this.isStartingWithoutTools(server) ? undefined : 'done'),
      signal,
      deadline: { at: this.clock.now() + limitMs, outcome: () => undefined },
    }).catch(() => undefined);
  }

  /**
   * The one wait of a call for a server that is not ready: until the catalog has seen it running,
   * until `readyBy` (NOT_READY), or until it settles otherwise (SERVER_UNAVAILABLE).
   */
  whenReady(server: string, signal: AbortSignal | undefined, readyBy: number | undefined): Promise<void> {
    if (signal?.aborted)
      return Promise.reject(new SwitchboardError('CANCELLED', `the call to server "${server}" was cancelled`, { notSent: true }));
    const requestMs = this.source.definition(server)?.timeouts.requestMs ?? 0;
    return this.wait(server, {
      settle: (facts) => {
        if (!facts)
          return new SwitchboardError('SERVER_UNAVAILABLE', `server "${server}" was removed while a call was waiting for it`, {
            notSent: true,
          });
        if (facts.state === 'running') return 'done';
        if (!isConnecting(facts.state))
          return new SwitchboardError('SERVER_UNAVAILABLE', `server "${server}" is ${facts.state}; the call was not sent`, {
            notSent: true,
          });
        return undefined;
      },
      signal,
      ...(readyBy === undefined ? {} : { deadline: { at: readyBy, outcome: () => notReadyError(server, requestMs) } }),
    });
  }

  /** Ends every wait: calls fail with `error`, lists resolve. */
  failAll(error: SwitchboardError): void {
    for (const waiter of [...this.waiters]) waiter.fail(error);
  }

  private wait(server: string, rule: WaitRule): Promise<void> {
    return waitUntil<undefined>({
      on: (listener) =>
        this.source.onDidChangeServer((name) => {
          if (name === server || name === undefined) listener();
        }),
      check: () => {
        const outcome = rule.settle(this.source.facts(server));
        return outcome === 'done' ? DONE : outcome ? { failed: outcome } : undefined;
      },
      clock: this.clock,
      deadline: rule.deadline && {
        at: rule.deadline.at,
        verdict: () => {
          const error = rule.deadline?.outcome();
          return error ? { failed: error } : DONE;
        },
      },
      signal: rule.signal,
      aborted: () => ({
        failed: new SwitchboardError('CANCELLED', `the call to server "${server}" was cancelled while it was starting`, { notSent: true }),
      }),
      endable: (end) => {
        const waiter: Waiter = { fail: (error) => end({ failed: error }) };
        this.waiters.add(waiter);
        return { dispose: () => this.waiters.delete(waiter) };
      },
    });
  }
}
