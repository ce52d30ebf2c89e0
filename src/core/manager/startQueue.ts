// Starting servers: through the concurrency limit, each reported as starting while it waits for a
// slot, and start() (or a reconcile) waits only until the startup gate closes or all have settled.
import type { Clock, TimerHandle } from '../base/clock';
import type { ServerConnection } from '../connection';
import type { ServerState } from '../state';
import type { ConcurrencyLimit } from './concurrencyLimit';
import type { ManagedServer } from './managedServer';

/**
 * Servers starting at once. Starting is CPU-bound (each is a runtime loading its code), so on any
 * machine the whole set is up soonest when all of them start together: a cap below the number of
 * servers adds a wave (bench:startup, 20 servers on 2 cores: 6.1 s with 16, 5.4 s with 20; one per
 * core brings the first server up in 0.9 s but all of them only in 9.2 s). The cap only guards
 * against configurations far beyond what people run (10 to 30 servers).
 */
export const DEFAULT_CONCURRENCY = 32;
export const DEFAULT_STARTUP_GATE_MS = 250;

export interface StartQueueOptions {
  readonly limit: ConcurrencyLimit;
  readonly clock: Clock;
  readonly gateMs: number;
  readonly fireState: (server: string, state: ServerState, previous: ServerState) => void;
  /** Whether the entry is still the manager's (not replaced, removed or disposed). */
  readonly isCurrent: (entry: ManagedServer) => boolean;
}

/**
 * Starts the connection; resolves once its first attempt is over (running, failed, or retrying). A
 * remote server that is down retries with backoff for as long as it takes; it must not hold a start
 * slot (and so keep other servers waiting) meanwhile.
 */
export function firstAttempt(connection: ServerConnection): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      subscription.dispose();
      resolve();
    };
    const subscription = connection.onDidChangeState(({ state }) => {
      if (state.kind !== 'starting') done();
    });
    void connection.start().then(done);
  });
}

export class StartQueue {
  constructor(private readonly options: StartQueueOptions) {}

  /** Starts the given servers through the concurrency limit; resolves at the gate or when all settle. */
  async startWithinGate(entries: readonly ManagedServer[]): Promise<void> {
    if (entries.length === 0) return;
    const { clock, gateMs } = this.options;
    const all = Promise.all(entries.map((entry) => this.startQueued(entry)));
    let timer: TimerHandle | undefined;
    const gate = new Promise<void>((resolve) => {
      timer = clock.setTimeout(resolve, gateMs);
    });
    await Promise.race([all, gate]);
    clock.clearTimeout(timer);
  }

  async startQueued(entry: ManagedServer): Promise<void> {
    const connection = entry.connection;
    if (!connection) return;
    const previous = entry.state;
    entry.queuedSince = this.options.clock.now();
    const queued = entry.state;
    if (previous.kind !== queued.kind) this.options.fireState(entry.name, queued, previous);
    entry.startingReported = queued.kind === 'starting';
    await this.options.limit.run(async () => {
      entry.queuedSince = undefined;
      // It may have been blocked (or disabled) while it waited for a slot.
      if (!this.options.isCurrent(entry) || !entry.startable) return;
      await firstAttempt(connection);
    });
  }
}
