// The attempts of one connection, and the state machine they drive: each start, reconnect and
// scheduled retry is an attempt with a generation, so that an older one sees it is stale; one
// session at most is current, and a new attempt waits for the previous process to end. It owns the
// connection's state and moves it through starting → running, or to reconnecting/error/needsSignIn
// by reconnectPolicy.ts; everyone else reads it and follows its events.
import { takesUserCredential, userCredentialFetch } from './credentials';
import type { AuthProvider, FetchLike } from '@modelcontextprotocol/client';
import type { Clock, TimerHandle } from '../base/clock';
import { errorMessage } from '../base/errorMessage';
import { redactSecrets, type Logger } from '../base/logging';
import { sandboxOf, signsInWithOAuth, type ServerDefinition } from '../config';
import { isTransientSandboxStart } from '../sandbox';
import { Emitter, type Event } from '../base/events';
import { boundedInstructions, frozenState, identityOf, type RunningState, type ServerState, type ServerStateChangeEvent } from '../state';
import {
  abortable,
  type ConnectPhase,
  type EraVerdict,
  SwitchboardError,
  isTransientRemoteFailure,
  type ConnectionErrorCode,
  type ConnectionFailure,
} from './link';
import { LaunchDiagnostics, type AttemptLaunch } from './launchDiagnostics';
import type { ListedOffer, OfferKeeper } from './offer';
import { decideRetry } from './reconnectPolicy';
import { DEFAULT_CLIENT_INFO, type ConnectionOptions } from './connectionOptions';
import { McpSession } from './session';

/** Whose attempts these are: the server's definition, its log and the clock. */
export interface AttemptContext {
  readonly definition: ServerDefinition;
  readonly logger: Logger;
  readonly clock: Clock;
}

/** `restart`: the user's Reconnect, which also restarts a shared server's process in the machine host. */
export type AttemptMode = { readonly kind: 'start'; readonly restart?: true } | { readonly kind: 'auto'; readonly attempt: number };

interface Attempt {
  readonly generation: number;
  readonly abort: AbortController;
  readonly mode: AttemptMode;
  done: Promise<void>;
  pid?: number;
}

export class AttemptRunner {
  readonly launches: LaunchDiagnostics;
  private current: McpSession | undefined;
  /** Bumped by every start, stop, reconnect and scheduled retry; older attempts see they are stale. */
  private generation = 0;
  private attempt: Attempt | undefined;
  private retryTimer: TimerHandle | undefined;
  /** Consecutive failed automatic attempts; the circuit breaker opens at maxAttempts. */
  private failures = 0;
  /** The era the last connection found, so a reconnect skips the probe. */
  private verdict: EraVerdict | undefined;
  private readonly closingSessions = new Set<Promise<void>>();
  private readonly counters = { connectAttempts: 0, transportsCreated: 0, clientsCreated: 0, sessionRenewals: 0 };
  private state: ServerState;
  private lastRun: RunningState | undefined;
  private readonly stateEmitter = new Emitter<ServerStateChangeEvent>();
  /** Every transition, in order; the connection's own listener (idle stop, log level) is the first. */
  readonly onDidChangeState: Event<ServerStateChangeEvent> = this.stateEmitter.event;

  constructor(
    private readonly connection: AttemptContext,
    private readonly keeper: OfferKeeper,
    private readonly options: ConnectionOptions,
  ) {
    this.launches = new LaunchDiagnostics(connection.definition, connection.logger, options);
    // A disabled definition cannot start: that is the connection's own state, not an overlay.
    this.state = frozenState(connection.definition.enabled ? { kind: 'stopped' } : { kind: 'disabled' });
  }

  /** Frozen: shared by every reader, never copied. */
  get currentState(): ServerState {
    return this.state;
  }

  /**
   * The state of the last run (capabilities, instructions, identity): what the server said of
   * itself, kept while it reconnects or idles; undefined until it first runs. Frozen.
   */
  get lastRunning(): RunningState | undefined {
    return this.lastRun;
  }

  /** No more events (the connection was disposed). */
  closeEvents(): void {
    this.stateEmitter.dispose();
  }

  get session(): McpSession | undefined {
    return this.current;
  }

  get pid(): number | undefined {
    return this.current?.pid ?? this.attempt?.pid;
  }

  get diagnostics(): { connectAttempts: number; transportsCreated: number; clientsCreated: number; sessionRenewals: number } {
    return { ...this.counters };
  }

  /** Resolves when every session being closed has ended. */
  closed(): Promise<void> {
    return Promise.all(this.closingSessions).then(() => undefined);
  }

  /** A manual reconnect: the breaker is reset and the current session closed first. */
  restart(): void {
    this.failures = 0;
    this.begin({ kind: 'start', restart: true }, this.detach());
  }

  begin(mode: AttemptMode, closingFirst?: Promise<void>): void {
    this.generation += 1;
    this.cancelRetry();
    const superseded = this.attempt;
    superseded?.abort.abort(new SwitchboardError('CLOSED', 'superseded by a newer connection attempt'));
    const attempt: Attempt = { generation: this.generation, abort: new AbortController(), mode, done: Promise.resolve() };
    this.attempt = attempt;
    const { maxAttempts } = this.connection.definition.reconnect;
    this.setState({
      kind: 'starting',
      since: this.connection.clock.now(),
      ...(mode.kind === 'auto' ? { attempt: mode.attempt, maxAttempts } : {}),
    });
    // A superseded attempt is still ending its process; the new one must not overlap with it
    // (servers holding a port or a lock file would fail). Without anything to wait for, the
    // attempt starts synchronously: the process exists (and `pid` is known) when start() returns.
    const before = closingFirst || superseded ? Promise.all([closingFirst, superseded?.done]).then(() => undefined) : undefined;
    attempt.done = this.run(attempt, before).catch((error: unknown) => {
      // run() handles its failures; anything here is a bug, and must not become unhandled.
      this.connection.logger.error(`connect attempt failed unexpectedly: ${errorMessage(error)}`);
    });
  }

  /** Ends every attempt, retry and session, and moves to `next`; resolves when all have ended. */
  async halt(next: ServerState): Promise<void> {
    this.generation += 1;
    this.cancelRetry();
    const attempt = this.attempt;
    attempt?.abort.abort(new SwitchboardError('CLOSED', 'stopped while connecting'));
    this.attempt = undefined;
    this.detach();
    this.failures = 0;
    const now = this.state.kind;
    if (now !== next.kind && now !== 'disabled') this.setState(next);
    await Promise.all([attempt?.done, ...this.closingSessions]);
  }

  /** The one place the state changes. */
  private setState(next: ServerState, at = this.connection.clock.now()): void {
    const previous = this.state;
    this.state = frozenState(next);
    if (this.state.kind === 'running') this.lastRun = this.state;
    this.stateEmitter.fire({ server: this.connection.definition.name, state: this.state, previous, at });
  }

  /**
   * The running session is gone (process exit, stream error, unreachable server). Idempotent per
   * session: process exit and a failed request may both report the same loss.
   */
  sessionLost(session: McpSession, reason: ConnectionFailure): void {
    if (session !== this.current || session.isClosing) return;
    this.connection.logger.warn(`connection lost: ${reason.message}`);
    this.detach(false);
    // The count is already 0: the session was adopted (a good connect resets it, in adopt()).
    this.scheduleReconnect(reason);
  }

  /** A request was refused for want of a sign-in: not a lost connection, and retrying cannot help. */
  signInNeeded(session: McpSession, failure: ConnectionFailure): void {
    if (session !== this.current) return;
    this.detach(false);
    this.setNeedsSignIn(failure);
  }

  /** The tool list of the running session changed: the running state says how many there are. */
  toolsReplaced(): void {
    const state = this.state;
    if (state.kind !== 'running') return;
    const { quarantinedTools: _previous, ...running } = state;
    this.setState({ ...running, toolCount: this.keeper.tools.length, ...this.quarantineOfState() });
  }

  private async run(attempt: Attempt, closingFirst: Promise<void> | undefined): Promise<void> {
    if (closingFirst) await closingFirst;
    if (attempt.generation !== this.generation) return;
    this.counters.connectAttempts += 1;
    const startedAt = this.connection.clock.now();
    const launch = this.launches.launch((pid) => (attempt.pid = pid), attempt.mode.kind === 'start' && attempt.mode.restart === true);
    try {
      const { session, listed } = await this.open(attempt, launch);
      if (attempt.generation !== this.generation) return void (await session.close());
      this.adopt(session, listed, startedAt);
    } catch (error) {
      if (attempt.generation === this.generation) this.failed(attempt.mode, launch.explain(error));
    } finally {
      if (this.attempt === attempt) this.attempt = undefined;
    }
  }

  /** Opens a session and lists what it offers, within connectMs (0: no limit). */
  private async open(attempt: Attempt, launch: AttemptLaunch): Promise<{ session: McpSession; listed: ListedOffer }> {
    const { definition, clock, logger } = this.connection;
    const { connectMs } = definition.timeouts;
    let phase: ConnectPhase = 'spawn';
    const signal = attempt.abort.signal;
    const deadline =
      connectMs > 0
        ? clock.setTimeout(() => {
            const waitingFor = phase === 'spawn' || phase === 'connect' ? 'the connection' : phase;
            attempt.abort.abort(new SwitchboardError('CONNECT_TIMEOUT', `timed out after ${connectMs} ms waiting for ${waitingFor}`));
          }, connectMs)
        : undefined;
    try {
      const session = await McpSession.open({
        definition,
        logger,
        clock,
        signal,
        clientInfo: this.options.clientInfo ?? DEFAULT_CLIENT_INFO,
        serverRequests: this.options.serverRequests,
        // initialize includes the server's own start-up (npx may download for a minute), so while
        // connecting connectMs bounds everything and requestMs does not apply.
        requestTimeoutMs: connectMs,
        stdio: launch.stdio,
        counters: this.counters,
        fetch: this.options.fetch,
        ...this.authProvider(),
        onPhase: (next) => (phase = next),
        onClosed: (closed) => this.sessionLost(closed, this.launches.describeClose(closed)),
        ...this.keeper.sessionHooks(),
        prior: this.verdict,
      });
      phase = 'tools/list';
      try {
        const listed = await abortable(this.keeper.listAll(session, { timeoutMs: connectMs, maxTotalMs: 0, signal }), signal);
        return { session, listed };
      } catch (error) {
        await session.close();
        throw signal.aborted ? signal.reason : error;
      }
    } finally {
      if (deadline !== undefined) clock.clearTimeout(deadline);
    }
  }

  private adopt(session: McpSession, listed: ListedOffer, startedAt: number): void {
    const { clock, logger } = this.connection;
    this.current = session;
    this.verdict = session.verdict;
    this.failures = 0;
    // Before the running state, so that whoever reacts to it (the catalog stores the offer) sees
    // this session's offer and not the previous one.
    const toolsChanged = this.keeper.adopt(session, listed);
    const now = clock.now();
    const toolCount = this.keeper.tools.length;
    this.setState(
      {
        kind: 'running',
        transport: session.kind,
        serverInfo: identityOf(session.serverInfo),
        ...session.serverProtocol,
        capabilities: session.capabilities,
        ...(session.instructions === undefined ? {} : { instructions: boundedInstructions(session.instructions) }),
        since: now,
        connectMs: now - startedAt,
        toolCount,
        ...this.quarantineOfState(),
      },
      now,
    );
    logger.info(
      `running: ${session.serverInfo.name} ${session.serverInfo.version}, protocol ${session.serverProtocol.protocolVersion} (${session.serverProtocol.era} era), ${toolCount} tools, ${now - startedAt} ms`,
    );
    if (toolsChanged) this.keeper.publishTools();
  }

  private failed(mode: AttemptMode, failure: ConnectionFailure): void {
    // A remembered era may be what failed (a server that was downgraded); the next try probes.
    this.verdict = undefined;
    this.connection.logger.warn(`connect failed: ${failure.message}`);
    if (failure.code === 'NEEDS_SIGN_IN') return this.setNeedsSignIn(failure);
    // Retrying cannot install bubblewrap: the server stays stopped with the reason and the fix.
    if (failure.code === 'SANDBOX_UNAVAILABLE') return this.setError(failure.code, failure.message);
    // A remote server that is down or overloaded at start gets the same backoff as one that
    // dropped: it is usually a matter of time (a laptop waking up, a server deploying).
    if (mode.kind === 'auto' || this.isRemoteTransient(failure) || this.isSandboxHiccup(failure)) {
      // The first, manual attempt is not a reconnect attempt: the breaker counts those only.
      if (mode.kind === 'auto') this.failures += 1;
      this.scheduleReconnect(failure);
    } else {
      this.setError(failure.code, failure.message);
    }
  }

  private quarantineOfState(): { quarantinedTools?: ReadonlyArray<{ name: string; problem: string }> } {
    const quarantined = this.keeper.quarantined;
    return quarantined.length > 0 ? { quarantinedTools: quarantined.map((tool) => ({ ...tool })) } : {};
  }

  /** The sandbox runtime's own start failed in a way a second try heals (its bridges were slow). */
  private isSandboxHiccup(failure: ConnectionFailure): boolean {
    return (
      failure.code === 'PROCESS_EXITED' && sandboxOf(this.connection.definition) !== undefined && isTransientSandboxStart(failure.message)
    );
  }

  private isRemoteTransient(failure: ConnectionFailure): boolean {
    return this.connection.definition.transport !== 'stdio' && isTransientRemoteFailure(failure);
  }

  private scheduleReconnect(lastError: ConnectionFailure): void {
    const { definition, clock } = this.connection;
    const decision = decideRetry({
      failures: this.failures,
      settings: definition.reconnect,
      lastError: lastError.message,
      transientRemote: this.isRemoteTransient(lastError),
      slowRetryMs: this.options.slowRetryMs,
      random: this.options.random,
    });
    const now = clock.now();
    if (decision.kind === 'giveUp') {
      const slow = decision.slowRetry;
      this.setError(lastError.code, decision.message, slow && now + slow.delayMs);
      if (slow) this.scheduleAttempt(slow.delayMs, slow.attempt);
      return;
    }
    const { attempt, maxAttempts, delayMs } = decision;
    this.setState(
      {
        kind: 'reconnecting',
        attempt,
        maxAttempts,
        nextTryAt: now + delayMs,
        lastError: redactSecrets(lastError.message, definition.secrets),
      },
      now,
    );
    this.scheduleAttempt(delayMs, attempt);
  }

  private scheduleAttempt(delay: number, attempt: number): void {
    this.generation += 1;
    const generation = this.generation;
    this.retryTimer = this.connection.clock.setTimeout(() => {
      this.retryTimer = undefined;
      if (generation === this.generation) this.begin({ kind: 'auto', attempt });
    }, delay);
  }

  private cancelRetry(): void {
    if (this.retryTimer !== undefined) this.connection.clock.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  /** Forgets the current session and closes it in the background; halt() waits for the close. */
  private detach(deliberate = true): Promise<void> | undefined {
    const session = this.current;
    if (!session) return undefined;
    this.current = undefined;
    this.keeper.detach();
    const closing = session.close(deliberate);
    this.closingSessions.add(closing);
    void closing.finally(() => this.closingSessions.delete(closing));
    return closing;
  }

  /** The provider for an HTTP server that may ask for OAuth; its credentials are read again per attempt. */
  private authProvider(): { authProvider?: AuthProvider; fetch?: FetchLike } {
    const { definition } = this.connection;
    if (!signsInWithOAuth(definition)) return {};
    const provider = this.options.oauth?.providerFor(definition);
    provider?.credentialsMayHaveChanged();
    if (!provider) return {};
    const own = provider.transportFetch?.(this.options.fetch);
    // A server that takes each user's own token gets it on the requests made for a user.
    const fetch = takesUserCredential(definition) ? userCredentialFetch(own ?? this.options.fetch) : own;
    return { authProvider: provider.transportAuth(), ...(fetch ? { fetch } : {}) };
  }

  private setNeedsSignIn(failure: ConnectionFailure): void {
    this.failures = 0;
    const need = failure.signIn ?? { reason: 'signInRequired' as const };
    const detail = redactSecrets(failure.message, this.connection.definition.secrets);
    this.setState({
      kind: 'needsSignIn',
      reason: need.reason,
      detail,
      ...(need.scope ? { scope: need.scope } : {}),
      since: this.connection.clock.now(),
    });
  }

  private setError(code: ConnectionErrorCode, message: string, nextTryAt?: number): void {
    const { definition, clock } = this.connection;
    const stderrTail = this.launches.errorTail();
    const denied = this.launches.sandboxDenied();
    const state = {
      kind: 'error' as const,
      code,
      message: redactSecrets(message, definition.secrets),
      stderrTail,
      sandboxDenied: denied,
      since: clock.now(),
    };
    this.setState(nextTryAt === undefined ? state : { ...state, nextTryAt });
  }
}
