// When a server runs, as opposed to how it connects: an idle server (lazy, or stopped after
// `idleStopMinutes` unused) starts on the first request that needs it, or once to learn what it
// offers; a running one stops again once unused (idleStop.ts counts requests and subscriptions).
// The settings follow the configuration without a restart. It moves the connection only through
// its attempt runner.
import type { Clock } from '../base/clock';
import type { Logger } from '../base/logging';
import type { LifecycleSettings } from '../config';
import { startsOnDemand, type IdleState, type ServerState, type ServerStateKind } from '../state';
import type { AttemptRunner } from './attemptRunner';
import { describeIdleTime, IdleStop } from './idleStop';

export interface LifecycleHost {
  readonly logger: Logger;
  readonly clock: Clock;
  readonly attempts: AttemptRunner;
  /** The connection's state now, and whether it was disposed. */
  readonly state: () => ServerState;
  readonly disposed: () => boolean;
  /** Uses that are not requests: resource subscriptions. */
  readonly held: () => boolean;
}

export class ServerLifecycle {
  private readonly idleStop: IdleStop;

  constructor(
    private settings: LifecycleSettings,
    private readonly host: LifecycleHost,
  ) {
    this.idleStop = new IdleStop({
      clock: host.clock,
      idleStopMs: () => this.settings.idleStopMs,
      running: () => host.state().kind === 'running',
      held: host.held,
      onIdle: (why) => void this.goIdle(why === 'learned' ? 'lazy' : 'unused'),
    });
  }

  /** Requests from clients in flight now (an idle stop waits for them). */
  get requestsInFlight(): number {
    return this.idleStop.requestsInFlight;
  }

  /** Stops the server until a request needs it; resolves when its process or session has ended. */
  goIdle(reason: IdleState['reason']): Promise<void> {
    const { host } = this;
    const kind = host.state().kind;
    if (host.disposed() || kind === 'disabled') return Promise.resolve();
    // Already idle: resolves when the last process or session has ended, as stop() does.
    if (startsOnDemand(kind)) return host.attempts.closed();
    if (reason === 'unused')
      host.logger.info(`stopping: unused for ${describeIdleTime(this.settings.idleStopMs)}; the next request starts it again`);
    return host.attempts.halt({ kind: 'idle', reason, since: host.clock.now() });
  }

  /**
   * Starts an idle server: a request needs it. Nothing to do in any other state. `why`: what needs
   * it, for the log (a user reads why a lazy server started).
   */
  wake(why = 'a request'): void {
    this.startFromIdle(`starting: ${why} needs it`);
  }

  /** Starts an idle server that has nothing cached, to learn its lists; it idles again once unused. */
  learn(): void {
    this.startFromIdle('starting to learn its tools, resources and prompts; it stops again once they are listed', true);
  }

  /** A changed `lifecycle` or `idleStopMinutes`: applies to the running connection, without a restart. */
  apply(settings: LifecycleSettings): void {
    this.settings = settings;
    this.idleStop.arm();
  }

  /**
   * Counts a client's request as use of the server, from before it waits for the server until it
   * ends: call what this returns when it has ended.
   */
  beginUse(): () => void {
    return this.idleStop.begin();
  }

  /** A resource subscription holds the server: an idle one starts, and none stops for lack of use. */
  subscribed(): void {
    this.idleStop.cancel();
    this.wake('a resource subscription');
  }

  unsubscribed(): void {
    this.idleStop.arm();
  }

  /** The connection's state changed. */
  follow(previous: ServerStateKind, next: ServerState): void {
    this.idleStop.follow(previous, next);
  }

  /** Only an idle connection starts; `learning`: it idles again as soon as nothing uses it. */
  private startFromIdle(why: string, learning = false): void {
    if (this.host.disposed() || !startsOnDemand(this.host.state().kind)) return;
    this.host.logger.info(why);
    if (learning) this.idleStop.stopAfterLearning();
    this.host.attempts.begin({ kind: 'start' });
  }
}
