// The life of one configured server: start, stay connected (reconnecting with backoff and a
// circuit breaker when the connection drops), answer tool calls, stop. Self-contained: the
// manager owns many of these and only listens to their events.
import os from 'node:os';
import type { AuthProvider, CallToolResult, FetchLike, Implementation, Progress, Tool } from '@modelcontextprotocol/client';
import type { SwitchboardOAuthProvider } from '../auth/oauthProvider';
import { signsInWithOAuth, type HttpServerDefinition, type LifecycleSettings, type ServerDefinition } from '../config/types';
import { Emitter, type Event } from '../base/events';
import { nullLogger, redactSecrets, redactingLogger, type Logger } from '../base/logging';
import { backoffDelay } from './backoff';
import { systemClock, type Clock, type TimerHandle } from '../base/clock';
import { ConnectionError, isTransientRemoteFailure, type ConnectionErrorCode } from './errors';
import { LineRingBuffer } from './lineRingBuffer';
import type { ServerRequestHandlers } from './clientLink';
import { McpSession, type ConnectPhase, type EraVerdict, type QuarantinedTool, type ToolList, type RequestPolicy, type RetryBudget, type SessionCounters, type StdioLaunch } from './session';
import { IdleStop } from './idleStop';
import { copyState, isSettled, startsOnDemand, type IdleState, type ServerState, type ServerStateChangeEvent } from '../state/serverState';
import { checkToolArguments } from './toolArguments';
import { OfferKeeper, type OfferChangeEvent, type ServerNotice } from './offerKeeper';
import { FORWARDED_RESULTS, type ForwardedMethod, type ForwardedResult, type ServerOffer } from './serverOffer';
import { jsonShapeProblem, RESULT_LIMITS } from '../base/jsonShape';
import { errorMessage } from '../base/errorMessage';

export interface ConnectionOptions {
  readonly logger?: Logger;
  /**
   * Timestamps, backoff timers, the connect deadline and the maximum total time of a request. The
   * per-request timeout (reset by progress) is the SDK's, in real time.
   */
  readonly clock?: Clock;
  /** Jitter source for backoff, in [0, 1). */
  readonly random?: () => number;
  /** For the Windows command rules; defaults to process.platform. */
  readonly platform?: NodeJS.Platform;
  /** Working directory for a stdio server without `cwd`. Defaults to the user's home directory. */
  readonly defaultCwd?: string;
  /** Environment the definition's `env` is laid over. Defaults to process.env. */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Time between SIGTERM and SIGKILL when ending a stdio process tree. Default 2000. */
  readonly killGraceMs?: number;
  /** Lines of stderr kept. Default 1000. */
  readonly stderrLines?: number;
  readonly clientInfo?: Implementation;
  /** For HTTP servers; defaults to the global fetch. */
  readonly fetch?: FetchLike;
  /** After the circuit breaker opened on a transient remote failure, the time between slow retries. Default 5 minutes. */
  readonly slowRetryMs?: number;
  /** Answers what the server asks of the client (elicitation, sampling, roots), in both eras. */
  readonly serverRequests?: ServerRequestHandlers;
  /** Signs in to HTTP servers that ask for OAuth; absent, a 401 is an HTTP error. */
  readonly oauth?: OAuthProviders;
}

export interface OAuthProviders {
  providerFor(definition: HttpServerDefinition): SwitchboardOAuthProvider | undefined;
}

export interface CallToolOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: Progress) => void;
}

export interface ToolsChangeEvent {
  readonly server: string;
  readonly tools: readonly Tool[];
}

export interface ConnectionDiagnostics extends SessionCounters {
  readonly connectAttempts: number;
}

/** A progress notification extends a call's deadline, but never past this many × requestMs. */
export const MAX_TOTAL_TIMEOUT_FACTOR = 10;
const STDERR_TAIL_IN_ERROR = 20;
const DEFAULT_CLIENT_INFO: Implementation = { name: 'mcp-switchboard', version: '0.1.0' };
export const DEFAULT_SLOW_RETRY_MS = 5 * 60_000;
/** A server's cache hint never makes us ask more often than this. */
const MIN_TTL_REFRESH_MS = 1_000;

type AttemptMode = { readonly kind: 'start' } | { readonly kind: 'auto'; readonly attempt: number };

interface Attempt {
  readonly generation: number;
  readonly abort: AbortController;
  done: Promise<void>;
  pid?: number;
}

export class ServerConnection {
  private readonly stateEmitter = new Emitter<ServerStateChangeEvent>();
  private readonly toolsEmitter = new Emitter<ToolsChangeEvent>();
  /** Fires on every state change, with copies of the old and new state. */
  readonly onDidChangeState: Event<ServerStateChangeEvent> = this.stateEmitter.event;
  /** Fires when the tool list differs from the last one: after connect, listTools() or list_changed. */
  readonly onDidChangeTools: Event<ToolsChangeEvent> = this.toolsEmitter.event;

  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly stderr: LineRingBuffer;
  private readonly extras: OfferKeeper;
  private readonly idleStop: IdleStop;
  /** Follows the configuration without a restart: it changes when, not how, the server connects. */
  private lifecycle: LifecycleSettings;
  private current: ServerState = { kind: 'stopped' };
  private toolList: Tool[] = [];
  private quarantinedList: QuarantinedTool[] = [];
  private session: McpSession | undefined;
  /** Bumped by every start, stop, reconnect and scheduled retry; older attempts see they are stale. */
  private generation = 0;
  private attempt: Attempt | undefined;
  private reconnectTimer: TimerHandle | undefined;
  /** Consecutive failed automatic attempts; the circuit breaker opens at maxAttempts. */
  private failures = 0;
  /** The era the last connection found, so a reconnect skips the probe. */
  private verdict: EraVerdict | undefined;
  /** The next refresh of a list whose `ttlMs` runs out; belongs to the current session. */
  private ttlTimer: TimerHandle | undefined;
  private manualReconnect: Promise<ServerState> | undefined;
  private readonly closingSessions = new Set<Promise<void>>();
  private disposed = false;
  private disposing: Promise<void> | undefined;
  private readonly counters = { connectAttempts: 0, transportsCreated: 0, clientsCreated: 0, sessionRenewals: 0 };

  constructor(
    readonly definition: ServerDefinition,
    private readonly options: ConnectionOptions = {},
  ) {
    this.logger = redactingLogger(options.logger ?? nullLogger, definition.secrets, `[${definition.name}] `);
    this.clock = options.clock ?? systemClock;
    this.stderr = new LineRingBuffer(options.stderrLines ?? 1000);
    if (!definition.enabled) this.current = { kind: 'disabled' };
    this.extras = new OfferKeeper(
      definition.name,
      this.logger,
      () => (this.current.kind === 'running' ? this.session : undefined),
      () => ({ timeoutMs: definition.timeouts.requestMs, maxTotalMs: 0 }),
      this.clock,
    );
    this.lifecycle = definition.lifecycle;
    this.idleStop = new IdleStop({
      clock: this.clock,
      idleStopMs: () => this.lifecycle.idleStopMs,
      running: () => this.current.kind === 'running',
      held: () => this.extras.subscriptionCount > 0,
      onIdle: (why) => void this.goIdle(why === 'learned' ? 'lazy' : 'unused'),
    });
  }

  /** Fires when the resources, templates or prompts differ from the last ones. */
  get onDidChangeOffer(): Event<OfferChangeEvent> {
    return this.extras.onDidChangeOffer;
  }

  /** Resource updates (of subscribed URIs) and log messages from the server. */
  get onNotice(): Event<ServerNotice> {
    return this.extras.onNotice;
  }

  /** Resources, templates and prompts, as last listed (kept while reconnecting); frozen. */
  get offer(): ServerOffer {
    return this.extras.offer;
  }

  get name(): string {
    return this.definition.name;
  }

  get state(): ServerState {
    return copyState(this.current);
  }

  get tools(): Tool[] {
    return structuredClone(this.toolList);
  }

  /** Tools held back because their definitions break a limit or the MCP schema, with the reason. */
  get quarantinedTools(): QuarantinedTool[] {
    return this.quarantinedList.map((tool) => ({ ...tool }));
  }

  /** The stdio server's process id, from spawn (while still starting) until it is stopped. */
  get pid(): number | undefined {
    return this.session?.pid ?? this.attempt?.pid;
  }

  get diagnostics(): ConnectionDiagnostics {
    return { ...this.counters };
  }

  /** The last `count` stderr lines of the stdio server (across restarts), oldest first. */
  stderrTail(count?: number): string[] {
    return this.stderr.tail(count);
  }

  /**
   * Connects unless already running or connecting. Resolves with the state once it settles
   * (running, error, stopped, disabled); never rejects — failures are states.
   */
  start(): Promise<ServerState> {
    if (this.disposed) return Promise.resolve(this.state);
    if (!this.definition.enabled) {
      if (this.current.kind !== 'disabled') this.setState({ kind: 'disabled' });
      return Promise.resolve(this.state);
    }
    if (this.current.kind === 'running') return Promise.resolve(this.state);
    if (this.current.kind !== 'starting' && this.current.kind !== 'reconnecting') this.beginAttempt({ kind: 'start' });
    return this.whenSettled();
  }

  /**
   * Closes any current connection and connects again, resetting the circuit breaker. Calls made
   * while one is pending share its promise. Resolves with the settled state; never rejects.
   */
  reconnect(): Promise<ServerState> {
    if (this.disposed) return Promise.resolve(this.state);
    if (this.manualReconnect) return this.manualReconnect;
    if (!this.definition.enabled) return this.start();
    this.failures = 0;
    const previous = this.detachSession();
    this.beginAttempt({ kind: 'start' }, previous);
    const promise = this.whenSettled().finally(() => {
      if (this.manualReconnect === promise) this.manualReconnect = undefined;
    });
    this.manualReconnect = promise;
    return promise;
  }

  /**
   * Stops the server: cancels pending attempts and retries, ends the process tree or HTTP session.
   * The state is `stopped` at once; the promise resolves when everything has exited.
   */
  stop(): Promise<void> {
    return this.halt({ kind: 'stopped' });
  }

  /**
   * Stops the server until a request needs it (`idle`): at the start of a lazy server, and after
   * `idleStopMinutes` without use. Resolves when its process or session has ended.
   */
  goIdle(reason: IdleState['reason']): Promise<void> {
    if (this.disposed || this.current.kind === 'disabled') return Promise.resolve();
    // Already idle: resolves when the last process or session has ended, as stop() does.
    if (startsOnDemand(this.current.kind)) return Promise.all(this.closingSessions).then(() => undefined);
    if (reason === 'unused') this.logger.info(`stopping: unused for ${describeIdleTime(this.lifecycle.idleStopMs)}; the next request starts it again`);
    return this.halt({ kind: 'idle', reason, since: this.clock.now() });
  }

  /** Starts an idle server: a request needs it. Nothing to do in any other state. */
  wake(): void {
    this.startFromIdle('starting: a request needs it');
  }

  /** Starts an idle server that has nothing cached, to learn its lists, and idles it again once unused. */
  learn(): void {
    this.startFromIdle('starting to learn its tools, resources and prompts; it stops again once they are listed', true);
  }

  /** Only an idle connection starts; `learning`: it idles again as soon as nothing uses it. */
  private startFromIdle(why: string, learning = false): void {
    if (this.disposed || !startsOnDemand(this.current.kind)) return;
    this.logger.info(why);
    if (learning) this.idleStop.stopAfterLearning();
    this.beginAttempt({ kind: 'start' });
  }

  /** A changed `lifecycle` or `idleStopMinutes`: applies to the running connection, without a restart. */
  applyLifecycle(lifecycle: LifecycleSettings): void {
    this.lifecycle = lifecycle;
    this.idleStop.arm();
  }

  /** Requests from clients in flight now (an idle stop waits for them). */
  get requestsInFlight(): number {
    return this.idleStop.requestsInFlight;
  }

  private async halt(next: ServerState): Promise<void> {
    this.generation += 1;
    this.cancelReconnectTimer();
    const attempt = this.attempt;
    attempt?.abort.abort(new ConnectionError('CLOSED', 'stopped while connecting'));
    this.attempt = undefined;
    this.detachSession();
    this.failures = 0;
    if (this.current.kind !== next.kind && this.current.kind !== 'disabled') this.setState(next);
    await Promise.all([attempt?.done, ...this.closingSessions]);
  }

  /** stop(), then no further use. Idempotent. */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      this.disposed = true;
      await this.stop();
      this.stateEmitter.dispose();
      this.toolsEmitter.dispose();
      this.extras.dispose();
    })();
    return this.disposing;
  }

  /** Fetches every page of tools/list again and updates `tools`. */
  async listTools(options: { signal?: AbortSignal } = {}): Promise<Tool[]> {
    const tools = await this.withSession('tools/list', options.signal, (session, policy, budget) =>
      session.listAllTools(policy, budget).then((list) => {
        this.updateTools(session, list);
        return list.tools;
      }),
    );
    return structuredClone(tools);
  }

  /**
   * Calls a tool. Waits (up to requestMs) for a starting or reconnecting server. Arguments are
   * checked against the tool's input schema first: an INVALID_ARGUMENTS error costs no round trip.
   * A result with `isError` is returned, not thrown. Only a request that provably never reached
   * the server, or hit an expired HTTP session, is sent again, once.
   */
  async sendToolCall(name: string, args: Record<string, unknown> = {}, options: CallToolOptions = {}): Promise<CallToolResult> {
    return this.inUse(() => this.withSession(`tools/call \`${name}\``, options.signal, (session, policy, budget) => {
      const tool = this.toolList.find((candidate) => candidate.name === name);
      const quarantined = tool ? undefined : this.quarantinedList.find((candidate) => candidate.name === name);
      if (quarantined) throw new ConnectionError('UNKNOWN_TOOL', `tool \`${name}\` of server \`${this.name}\` is quarantined: ${quarantined.problem}`);
      if (!tool) throw new ConnectionError('UNKNOWN_TOOL', `server \`${this.name}\` has no tool \`${name}\``);
      const problems = checkToolArguments(tool, args);
      if (problems.length > 0) throw new ConnectionError('INVALID_ARGUMENTS', `invalid arguments for tool \`${name}\`: ${problems.join('; ')}`);
      return session.requestToolCall(name, args, { ...policy, onProgress: options.onProgress }, budget);
    }));
  }

  /**
   * Forwards a request about what the server offers (read a resource, get a prompt, complete an
   * argument, set the log level), with the same waiting, limits and retry as a tool call. The
   * result is passed on as the server sent it.
   */
  async forwardRequest<M extends ForwardedMethod>(method: M, params: Record<string, unknown>, options: CallToolOptions = {}): Promise<ForwardedResult<M>> {
    const result = await this.inUse(() => this.withSession(method, options.signal, (session, policy, budget) =>
      session.requestRaw<ForwardedResult<M>>(method, params, FORWARDED_RESULTS[method], { ...policy, onProgress: options.onProgress }, budget),
    ));
    const problem = jsonShapeProblem(result, RESULT_LIMITS, `the result of ${method}`);
    if (problem) throw new ConnectionError('PROTOCOL_ERROR', `${method} failed: ${problem}`);
    return result;
  }

  /** Lists the resources, templates and prompts of a running server again. */
  async refreshOffer(): Promise<void> {
    if (this.current.kind === 'running' && this.session) await this.extras.refresh(this.session, 'all');
  }

  /** `notifications/roots/list_changed` to a running server; nothing otherwise (it asks when it connects). */
  notifyRootsChanged(): void {
    const session = this.current.kind === 'running' ? this.session : undefined;
    session?.notifyRootsChanged().catch((error: unknown) => this.logger.debug(`roots/list_changed not delivered: ${errorMessage(error)}`));
  }

  /**
   * Updates of `uri` arrive as `resourceUpdated` notices; counted, so each subscribe needs its
   * unsubscribe. A subscription holds the server: an idle one starts, and none stops for lack of use.
   */
  async subscribeResource(uri: string): Promise<void> {
    await this.extras.subscribe(uri);
    this.idleStop.cancel();
    this.wake();
  }

  async unsubscribeResource(uri: string): Promise<void> {
    await this.extras.unsubscribe(uri);
    this.idleStop.arm();
  }

  /** Counts a client's request as use of the server, from before it waits for the server until it ends. */
  private async inUse<T>(request: () => Promise<T>): Promise<T> {
    const end = this.idleStop.begin();
    try {
      return await request();
    } finally {
      end();
    }
  }

  private async withSession<T>(
    what: string,
    signal: AbortSignal | undefined,
    operation: (session: McpSession, policy: RequestPolicy, budget: RetryBudget) => Promise<T>,
  ): Promise<T> {
    if (this.disposed) throw new ConnectionError('CLOSED', `${what}: the connection to \`${this.name}\` was disposed`);
    const requestMs = this.definition.timeouts.requestMs;
    const policy: RequestPolicy = { timeoutMs: requestMs, maxTotalMs: requestMs * MAX_TOTAL_TIMEOUT_FACTOR, signal };
    const budget: RetryBudget = { retried: false };
    let session = await this.waitForSession(what, signal);
    try {
      return await operation(session, policy, budget);
    } catch (error) {
      const failure = this.noteRequestFailure(session, error);
      // A sign-in is never waited for: only a person can give one.
      if (!failure.notSent || budget.retried || failure.code === 'NEEDS_SIGN_IN') throw failure;
      budget.retried = true;
      this.logger.info(`${what} could not be sent (${failure.message}); retrying once the server is back`);
      session = await this.waitForSession(what, signal);
      try {
        return await operation(session, policy, budget);
      } catch (retryError) {
        throw this.noteRequestFailure(session, retryError);
      }
    }
  }

  /** Translates and, if the failure means the connection is gone, starts reconnecting. */
  private noteRequestFailure(session: McpSession, error: unknown): ConnectionError {
    const failure = error instanceof ConnectionError ? error : new ConnectionError('PROTOCOL_ERROR', errorMessage(error), { cause: error });
    if (failure.code === 'NEEDS_SIGN_IN') {
      // Not a lost connection: retrying cannot help until somebody signs in.
      if (session === this.session) {
        this.detachSession(false);
        this.setNeedsSignIn(failure);
      }
      return failure;
    }
    if (failure.notSent || failure.code === 'CONNECTION_LOST') this.connectionLost(session, failure);
    return failure;
  }

  /** The running session, waiting for a starting/reconnecting server for up to requestMs. */
  private waitForSession(what: string, signal: AbortSignal | undefined): Promise<McpSession> {
    if (signal?.aborted) return Promise.reject(new ConnectionError('CANCELLED', `${what} was cancelled`));
    if (this.current.kind === 'running' && this.session) return Promise.resolve(this.session);
    this.wake();
    if (this.current.kind !== 'starting' && this.current.kind !== 'reconnecting') return Promise.reject(this.notRunning(what));
    const budgetMs = this.definition.timeouts.requestMs;
    return new Promise<McpSession>((resolve, reject) => {
      let timer: TimerHandle | undefined;
      const finish = (error: ConnectionError | undefined, session?: McpSession) => {
        subscription.dispose();
        if (timer !== undefined) this.clock.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (session) resolve(session);
        else reject(error);
      };
      const onAbort = () => finish(new ConnectionError('CANCELLED', `${what} was cancelled`));
      const subscription = this.onDidChangeState(({ state }) => {
        if (state.kind === 'running' && this.session) finish(undefined, this.session);
        else if (isSettled(state)) finish(this.notRunning(what));
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      if (budgetMs > 0) {
        timer = this.clock.setTimeout(
          () => finish(new ConnectionError('REQUEST_TIMEOUT', `${what}: server \`${this.name}\` did not become ready within ${budgetMs} ms`)),
          budgetMs,
        );
      }
    });
  }

  private notRunning(what: string): ConnectionError {
    const state = this.current;
    if (state.kind === 'stopped' && this.disposed) return new ConnectionError('CLOSED', `${what}: the connection to \`${this.name}\` was disposed`);
    if (state.kind === 'needsSignIn') {
      // Said so that a person reading it (in chat, in a terminal) knows what to do.
      return new ConnectionError('NEEDS_SIGN_IN', `${what}: server \`${this.name}\` needs a sign-in (${state.detail}): use Sign In on its row in the editor, or run \`mcp-switchboard login ${this.name}\``, {
        notSent: true,
        signIn: { reason: state.reason, ...(state.scope ? { scope: state.scope } : {}) },
      });
    }
    const detail = state.kind === 'error' ? `: ${state.message}` : '';
    return new ConnectionError('NOT_RUNNING', `${what}: server \`${this.name}\` is ${state.kind}${detail}`);
  }

  private whenSettled(): Promise<ServerState> {
    if (isSettled(this.current)) return Promise.resolve(this.state);
    return new Promise((resolve) => {
      const subscription = this.onDidChangeState(({ state }) => {
        if (!isSettled(state)) return;
        subscription.dispose();
        resolve(state);
      });
    });
  }

  private beginAttempt(mode: AttemptMode, closingFirst?: Promise<void>): void {
    this.generation += 1;
    const generation = this.generation;
    this.cancelReconnectTimer();
    const superseded = this.attempt;
    superseded?.abort.abort(new ConnectionError('CLOSED', 'superseded by a newer connection attempt'));
    const abort = new AbortController();
    const attempt: Attempt = { generation, abort, done: Promise.resolve() };
    this.attempt = attempt;
    const { maxAttempts } = this.definition.reconnect;
    this.setState({ kind: 'starting', since: this.clock.now(), ...(mode.kind === 'auto' ? { attempt: mode.attempt, maxAttempts } : {}) });
    // A superseded attempt is still ending its process; the new one must not overlap with it
    // (servers holding a port or a lock file would fail).
    // Without anything to wait for, the attempt starts synchronously: the process exists (and
    // `pid` is known) when start() returns.
    const before = closingFirst || superseded ? Promise.all([closingFirst, superseded?.done]).then(() => undefined) : undefined;
    attempt.done = this.runAttempt(attempt, mode, before).catch((error: unknown) => {
      // runAttempt handles its failures; anything here is a bug, and must not become unhandled.
      this.logger.error(`connect attempt failed unexpectedly: ${errorMessage(error)}`);
    });
  }

  private async runAttempt(attempt: Attempt, mode: AttemptMode, closingFirst: Promise<void> | undefined): Promise<void> {
    if (closingFirst) await closingFirst;
    const stale = () => attempt.generation !== this.generation;
    if (stale()) return;
    this.counters.connectAttempts += 1;
    const startedAt = this.clock.now();
    const { connectMs } = this.definition.timeouts;
    let phase: ConnectPhase = 'spawn';
    const garbage: string[] = [];
    const deadline =
      connectMs > 0
        ? this.clock.setTimeout(() => {
            const waitingFor = phase === 'spawn' || phase === 'connect' ? 'the connection' : phase;
            attempt.abort.abort(new ConnectionError('CONNECT_TIMEOUT', `timed out after ${connectMs} ms waiting for ${waitingFor}`));
          }, connectMs)
        : undefined;
    try {
      const session = await McpSession.open({
        definition: this.definition,
        logger: this.logger,
        clientInfo: this.options.clientInfo ?? DEFAULT_CLIENT_INFO,
        ...(this.options.serverRequests ? { serverRequests: this.options.serverRequests } : {}),
        signal: attempt.abort.signal,
        // initialize includes the server's own start-up (npx may download for a minute), so while
        // connecting connectMs bounds everything and requestMs does not apply; connectMs 0 means
        // no limit at all (stop() and reconnect() still end a hanging attempt).
        requestTimeoutMs: connectMs,
        stdio: { ...this.stdioLaunch(garbage), onSpawn: (pid) => (attempt.pid = pid) },
        counters: this.counters,
        fetch: this.options.fetch,
        ...this.authProvider(),
        onPhase: (next) => (phase = next),
        onClosed: (closed) => this.connectionLost(closed, this.describeClose(closed)),
        onToolListChanged: (changed) => void this.refreshTools(changed),
        ...this.extras.sessionHooks(),
        clock: this.clock,
        ...(this.verdict ? { prior: this.verdict } : {}),
      });
      if (stale()) {
        await session.close();
        return;
      }
      this.session = session;
      this.verdict = session.verdict;
      this.failures = 0;
      const toolsChanged = this.replaceTools({ tools: session.tools, quarantined: session.quarantined });
      // Before the running state, so that whoever reacts to it (the catalog stores the offer) sees
      // this session's offer and not the previous one.
      this.extras.adopt(session);
      const now = this.clock.now();
      this.setState(
        {
          kind: 'running',
          transport: session.kind,
          serverInfo: { name: session.serverInfo.name, version: session.serverInfo.version },
          protocolVersion: session.protocolVersion,
          era: session.era,
          capabilities: session.capabilities,
          ...(session.instructions === undefined ? {} : { instructions: session.instructions }),
          since: now,
          connectMs: now - startedAt,
          toolCount: this.toolList.length,
          ...(this.quarantinedList.length > 0 ? { quarantinedTools: this.quarantinedTools } : {}),
        },
        now,
      );
      this.logger.info(
        `running: ${session.serverInfo.name} ${session.serverInfo.version}, protocol ${session.protocolVersion} (${session.era} era), ${this.toolList.length} tools, ${now - startedAt} ms`,
      );
      if (toolsChanged) this.fireTools();
      this.scheduleTtlRefresh(session);
    } catch (error) {
      if (stale()) return;
      // A remembered era may be what failed (a server that was downgraded); the next try probes.
      this.verdict = undefined;
      const failure = this.withStderrHint(
        this.withGarbageHint(error instanceof ConnectionError ? error : new ConnectionError('CONNECT_FAILED', errorMessage(error), { cause: error }), garbage),
      );
      this.logger.warn(`connect failed: ${failure.message}`);
      if (failure.code === 'NEEDS_SIGN_IN') {
        this.setNeedsSignIn(failure);
        return;
      }
      // A remote server that is down or overloaded at start gets the same backoff as one that
      // dropped: it is usually a matter of time (a laptop waking up, a server deploying).
      if (mode.kind === 'auto' || this.isRemoteTransient(failure)) {
        // The first, manual attempt is not a reconnect attempt: the breaker counts those only.
        if (mode.kind === 'auto') this.failures += 1;
        this.scheduleReconnect(failure);
      } else {
        this.setError(failure.code, failure.message);
      }
    } finally {
      if (deadline !== undefined) this.clock.clearTimeout(deadline);
      if (this.attempt === attempt) this.attempt = undefined;
    }
  }

  private stdioLaunch(garbage: string[]): StdioLaunch {
    const definition = this.definition;
    const env = { ...(this.options.baseEnv ?? process.env), ...(definition.transport === 'stdio' ? definition.env : {}) };
    return {
      env,
      cwd: (definition.transport === 'stdio' ? definition.cwd : undefined) ?? this.options.defaultCwd ?? os.homedir(),
      platform: this.options.platform ?? process.platform,
      killGraceMs: this.options.killGraceMs,
      onRestart: () => {
        this.stderr.clear();
        garbage.length = 0;
      },
      onGarbageLine: (line: string) => {
        garbage.push(line);
        this.logger.warn(`server wrote a line to stdout that is not a JSON-RPC message: "${line}"`);
      },
      onStderrLine: (line: string) => {
        const redacted = redactSecrets(line, this.definition.secrets);
        this.stderr.push(redacted);
        this.logger.info(`stderr: ${line}`);
      },
    };
  }

  /**
   * A server that prints banners or logs to stdout usually fails by timing out or exiting; the
   * real cause is the output, so that is what the error says.
   */
  private withGarbageHint(error: ConnectionError, garbage: readonly string[]): ConnectionError {
    const first = garbage[0];
    if (first === undefined || !['CONNECT_TIMEOUT', 'PROCESS_EXITED', 'CONNECTION_LOST'].includes(error.code)) return error;
    return new ConnectionError(
      'PROTOCOL_ERROR',
      `${error.message}. The server wrote output to stdout that is not JSON-RPC ("${first}"); a stdio server must write only JSON-RPC messages to stdout and log to stderr`,
      { cause: error },
    );
  }

  /** Adds the last stderr line to messages about a stdio process that died or never answered. */
  private withStderrHint(error: ConnectionError): ConnectionError {
    const hinted: ConnectionErrorCode[] = ['PROCESS_EXITED', 'CONNECT_TIMEOUT', 'PROTOCOL_ERROR', 'CONNECTION_LOST'];
    const last = this.definition.transport === 'stdio' ? this.stderr.tail(1)[0] : undefined;
    if (last === undefined || !hinted.includes(error.code) || error.message.includes(last)) return error;
    return new ConnectionError(error.code, `${error.message}. Last stderr line: ${last}`, { cause: error.cause, status: error.status, notSent: error.notSent });
  }

  private describeClose(session: McpSession): ConnectionError {
    const exit = session.exitStatus;
    const how = exit ? `the server process exited with ${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`}` : 'the connection closed';
    return this.withStderrHint(new ConnectionError('CONNECTION_LOST', how));
  }

  /**
   * The running session is gone (process exit, stream error, unreachable server). Idempotent per
   * session: process exit and a failed request may both report the same loss.
   */
  private connectionLost(session: McpSession, reason: ConnectionError): void {
    if (session !== this.session || session.isClosing) return;
    this.logger.warn(`connection lost: ${reason.message}`);
    this.detachSession(false);
    this.failures = 0;
    this.scheduleReconnect(reason);
  }

  private isRemoteTransient(failure: ConnectionError): boolean {
    return this.definition.transport !== 'stdio' && isTransientRemoteFailure(failure);
  }

  /**
   * Next automatic attempt with backoff, or `error` once the breaker opens. A remote server whose
   * failure waiting may heal keeps a slow retry after that, so a long-running host recovers
   * without a click.
   */
  private scheduleReconnect(lastError: ConnectionError): void {
    const { maxAttempts } = this.definition.reconnect;
    if (this.failures >= maxAttempts) {
      const message = maxAttempts === 0 || this.failures === 0 ? lastError.message : `gave up after ${this.failures} reconnect attempt${this.failures > 1 ? 's' : ''}: ${lastError.message}`;
      const retryMs = this.isRemoteTransient(lastError) ? (this.options.slowRetryMs ?? DEFAULT_SLOW_RETRY_MS) : undefined;
      this.setError(lastError.code, message, retryMs === undefined ? undefined : this.clock.now() + retryMs);
      if (retryMs !== undefined) this.scheduleAttempt(retryMs, this.failures + 1);
      return;
    }
    const attempt = this.failures + 1;
    const delay = backoffDelay(attempt, this.definition.reconnect, this.options.random);
    const now = this.clock.now();
    this.setState({ kind: 'reconnecting', attempt, maxAttempts, nextTryAt: now + delay, lastError: redactSecrets(lastError.message, this.definition.secrets) }, now);
    this.scheduleAttempt(delay, attempt);
  }

  private scheduleAttempt(delay: number, attempt: number): void {
    this.generation += 1;
    const generation = this.generation;
    this.reconnectTimer = this.clock.setTimeout(() => {
      this.reconnectTimer = undefined;
      if (generation === this.generation) this.beginAttempt({ kind: 'auto', attempt });
    }, delay);
  }

  private cancelReconnectTimer(): void {
    if (this.reconnectTimer !== undefined) this.clock.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
  }

  /** Forgets the current session and closes it in the background; stop() waits for the close. */
  private detachSession(deliberate = true): Promise<void> | undefined {
    const session = this.session;
    if (!session) return undefined;
    this.session = undefined;
    this.clearTtlTimer();
    this.extras.detach();
    const closing = session.close(deliberate);
    this.closingSessions.add(closing);
    void closing.finally(() => this.closingSessions.delete(closing));
    return closing;
  }

  /**
   * A 2026-07-28 server's `ttlMs` on tools/list says how long the list stays fresh. A server that
   * sends no change notifications is asked again when it expires; one that does is trusted to
   * notify. 0 (the SDK's default) promises nothing, so nothing is scheduled.
   */
  private scheduleTtlRefresh(session: McpSession): void {
    this.clearTtlTimer();
    const ttl = session.toolsTtlMs;
    const tools = session.capabilities.tools as { listChanged?: boolean } | undefined;
    if (session !== this.session || ttl === undefined || ttl <= 0 || tools?.listChanged === true) return;
    this.ttlTimer = this.clock.setTimeout(() => {
      this.ttlTimer = undefined;
      void this.refreshTools(session).finally(() => this.scheduleTtlRefresh(session));
    }, Math.max(MIN_TTL_REFRESH_MS, ttl));
    (this.ttlTimer as { unref?: () => void } | undefined)?.unref?.();
  }

  private clearTtlTimer(): void {
    if (this.ttlTimer !== undefined) this.clock.clearTimeout(this.ttlTimer);
    this.ttlTimer = undefined;
  }

  private async refreshTools(session: McpSession): Promise<void> {
    if (session !== this.session) return;
    const requestMs = this.definition.timeouts.requestMs;
    try {
      const tools = await session.listAllTools({ timeoutMs: requestMs, maxTotalMs: 0 }, { retried: false });
      this.updateTools(session, tools);
    } catch (error) {
      this.logger.warn(`refreshing tools after tools/list_changed failed: ${errorMessage(error)}`);
    }
  }

  private updateTools(session: McpSession, list: ToolList): void {
    if (session !== this.session) return;
    session.tools = list.tools;
    session.quarantined = list.quarantined;
    if (!this.replaceTools(list)) return;
    if (this.current.kind === 'running') {
      const { quarantinedTools: _previous, ...running } = this.current;
      this.setState({ ...running, toolCount: list.tools.length, ...(list.quarantined.length > 0 ? { quarantinedTools: this.quarantinedTools } : {}) });
    }
    this.fireTools();
  }

  /** Whether the list differs from the last one. Logs each newly quarantined tool once. */
  private replaceTools(list: ToolList): boolean {
    const known = new Set(this.quarantinedList.map((tool) => `${tool.name}\u0000${tool.problem}`));
    for (const tool of list.quarantined) {
      if (!known.has(`${tool.name}\u0000${tool.problem}`)) this.logger.warn(`tool quarantined: ${tool.problem}`);
    }
    // Screened lists are bounded in depth and size, so comparing them as JSON is safe.
    const same = JSON.stringify(list.tools) === JSON.stringify(this.toolList) && JSON.stringify(list.quarantined) === JSON.stringify(this.quarantinedList);
    this.toolList = list.tools;
    this.quarantinedList = list.quarantined;
    return !same;
  }

  private fireTools(): void {
    this.toolsEmitter.fire({ server: this.name, tools: structuredClone(this.toolList) });
  }

  /** The provider for an HTTP server that may ask for OAuth; its credentials are read again per attempt. */
  private authProvider(): { authProvider?: AuthProvider } {
    if (!signsInWithOAuth(this.definition)) return {};
    const provider = this.options.oauth?.providerFor(this.definition);
    provider?.credentialsMayHaveChanged();
    return provider ? { authProvider: provider.transportAuth() } : {};
  }

  private setNeedsSignIn(failure: ConnectionError): void {
    this.failures = 0;
    const need = failure.signIn ?? { reason: 'signInRequired' as const };
    const detail = redactSecrets(failure.message, this.definition.secrets);
    this.setState({ kind: 'needsSignIn', reason: need.reason, detail, ...(need.scope ? { scope: need.scope } : {}), since: this.clock.now() });
  }

  private setError(code: ConnectionErrorCode, message: string, nextTryAt?: number): void {
    const tail = this.definition.transport === 'stdio' ? this.stderr.tail(STDERR_TAIL_IN_ERROR) : [];
    const state = { kind: 'error' as const, code, message: redactSecrets(message, this.definition.secrets), stderrTail: tail, since: this.clock.now() };
    this.setState(nextTryAt === undefined ? state : { ...state, nextTryAt });
  }

  private setState(next: ServerState, at = this.clock.now()): void {
    const previous = this.current;
    this.current = next;
    // running → running is a changed tool count, not a use: the countdown goes on.
    if (next.kind === 'running') {
      if (previous.kind !== 'running') this.idleStop.arm();
    } else if (isSettled(next)) this.idleStop.reset();
    else this.idleStop.cancel();
    this.stateEmitter.fire({ server: this.name, state: copyState(next), previous: copyState(previous), at });
  }
}

/** `15 min`, `90 s`: how long an idle stop waited, for the log. */
function describeIdleTime(ms: number): string {
  return ms >= 60_000 ? `${Math.round((ms / 60_000) * 10) / 10} min` : `${Math.round(ms / 1000)} s`;
}
