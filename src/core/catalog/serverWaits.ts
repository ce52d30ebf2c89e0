// The two ways a caller waits on a server through the catalog: a tools/list waits until a server
// that is starting has some list (live or cached), a tools/call until its server is running. Both
// are bounded by the server's own timeouts on the catalog's clock, end on abort, and end at once
// when the catalog is disposed.
import type { Clock, TimerHandle } from '../base/clock';
import type { Event } from '../base/events';
import { CatalogError } from './errors';
import { isConnecting } from '../state';
import type { ServerRecord } from './serverRecords';

/** How long a tools/list waits for a server whose connect timeout is 0 (no limit). */
const MAX_LIST_WAIT_MS = 60_000;

interface Waiter {
  fail(error: CatalogError): void;
}

export interface WaitSource {
  record(server: string): ServerRecord | undefined;
  /** Fires a server's name whenever its record changed (state, lists, removal). */
  readonly onDidChangeServer: Event<string>;
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
    const record = this.source.record(server);
    return record !== undefined && isConnecting(record.state) && !record.live && !record.cached;
  }

  /** Resolves once the server has a list, or when waiting could not help any more. Never rejects. */
  whenListed(server: string, signal: AbortSignal | undefined): Promise<void> {
    if (!this.isStartingWithoutTools(server) || signal?.aborted) return Promise.resolve();
    // A connect timeout of 0 means "no limit" for the connection; a listing client still deserves an answer.
    const limitMs = this.source.record(server)?.definition?.timeouts.connectMs || MAX_LIST_WAIT_MS;
    return new Promise<void>((resolve) => {
      const finish = () => {
        this.waiters.delete(waiter);
        subscription.dispose();
        this.clock.clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        resolve();
      };
      const waiter: Waiter = { fail: finish };
      const subscription = this.source.onDidChangeServer((name) => {
        if (name === server && !this.isStartingWithoutTools(server)) finish();
      });
      const timer = this.clock.setTimeout(finish, limitMs);
      signal?.addEventListener('abort', finish, { once: true });
      this.waiters.add(waiter);
    });
  }

  /** Waits, within the server's requestMs, until the catalog has seen it running. */
  whenRunning(server: string, signal: AbortSignal | undefined): Promise<void> {
    const requestMs = this.source.record(server)?.definition?.timeouts.requestMs ?? 0;
    if (signal?.aborted) return Promise.reject(new CatalogError('CANCELLED', `the call to server "${server}" was cancelled`));
    return new Promise<void>((resolve, reject) => {
      let timer: TimerHandle | undefined;
      const finish = (error?: CatalogError) => {
        this.waiters.delete(waiter);
        subscription.dispose();
        if (timer !== undefined) this.clock.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve();
      };
      const waiter: Waiter = { fail: finish };
      const onAbort = () => finish(new CatalogError('CANCELLED', `the call to server "${server}" was cancelled while it was starting`));
      const check = () => {
        const record = this.source.record(server);
        if (!record) finish(new CatalogError('SERVER_UNAVAILABLE', `server "${server}" was removed while a call was waiting for it`));
        else if (record.state === 'running') finish();
        else if (!isConnecting(record.state))
          finish(new CatalogError('SERVER_UNAVAILABLE', `server "${server}" is ${record.state}; the call was not sent`));
      };
      const subscription = this.source.onDidChangeServer((name) => {
        if (name === server) check();
      });
      this.waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (requestMs > 0) {
        timer = this.clock.setTimeout(
          () =>
            finish(
              new CatalogError(
                'SERVER_UNAVAILABLE',
                `server "${server}" did not start within ${requestMs} ms (timeouts.requestMs); the call was not sent`,
              ),
            ),
          requestMs,
        );
      }
      check();
    });
  }

  /** Ends every wait: calls fail with `error`, lists resolve. */
  failAll(error: CatalogError): void {
    for (const waiter of [...this.waiters]) waiter.fail(error);
  }
}
