// The gateway's open client sessions: bounded in number (least recently used closed first) and in
// idle time. Most clients never send DELETE; without these bounds every session they opened would
// be kept (about 27 KB each) until the process runs out of memory.
import type { Clock, TimerHandle } from '../../base/clock';
import type { Logger } from '../../base/logging';
import { errorMessage } from '../../base/errorMessage';

export interface TableSession {
  lastUsed: number;
  /** For log lines: where the session was opened. */
  readonly where: string;
  close(): Promise<void>;
}

export interface SessionLimits {
  readonly idleMs: number;
  readonly maxSessions: number;
}

/** The idle sweep runs at most this often, so expiry is at most this late. */
const MAX_SWEEP_INTERVAL_MS = 60_000;

export class SessionTable<S extends TableSession> {
  /** Least recently used first: a Map keeps insertion order, and touch() re-inserts. */
  private readonly sessions = new Map<string, S>();
  private sweepTimer: TimerHandle | undefined;
  private stopped = false;

  constructor(
    private readonly limits: SessionLimits,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): S | undefined {
    return this.sessions.get(id);
  }

  values(): S[] {
    return [...this.sessions.values()];
  }

  entries(): Array<[string, S]> {
    return [...this.sessions];
  }

  /** Adds a session, closing the least recently used ones over the cap. */
  add(id: string, session: S): void {
    session.lastUsed = this.clock.now();
    this.sessions.set(id, session);
    while (this.sessions.size > this.limits.maxSessions) {
      const [oldest] = this.sessions.keys();
      if (oldest === undefined) return;
      this.close(oldest, `the gateway holds at most ${this.limits.maxSessions} sessions; closing the least recently used`);
    }
  }

  touch(id: string, session: S): void {
    session.lastUsed = this.clock.now();
    this.sessions.delete(id);
    this.sessions.set(id, session);
  }

  /** Forgets a session that closed by itself (DELETE, transport closed). */
  forget(id: string, session: S): void {
    if (this.sessions.get(id) === session) this.sessions.delete(id);
  }

  /** Empties the table and stops the sweep; returns what was in it, for the caller to close. */
  drain(): S[] {
    this.stopped = true;
    if (this.sweepTimer !== undefined) this.clock.clearTimeout(this.sweepTimer);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    return all;
  }

  startSweeping(): void {
    if (this.stopped) return;
    const interval = Math.min(this.limits.idleMs, MAX_SWEEP_INTERVAL_MS);
    this.sweepTimer = this.clock.setTimeout(() => {
      this.sweepTimer = undefined;
      if (this.stopped) return;
      this.expireIdle();
      this.startSweeping();
    }, interval);
    // A pending sweep must not keep a CLI process alive on its own.
    (this.sweepTimer as { unref?: () => void } | undefined)?.unref?.();
  }

  private expireIdle(): void {
    const cutoff = this.clock.now() - this.limits.idleMs;
    for (const [id, session] of [...this.sessions]) {
      if (session.lastUsed <= cutoff) this.close(id, `idle for more than ${Math.round(this.limits.idleMs / 60_000)} min`);
    }
  }

  private close(id: string, why: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    this.logger.info(`session ${id} on ${session.where} closed: ${why}`);
    session.close().catch((error: unknown) => this.logger.debug(`closing session ${id} failed: ${errorMessage(error)}`));
  }
}
