// The life of one configured server, put together from its parts: the attempt state machine
// (attemptRunner.ts, which owns the state: it starts, stays connected with backoff and a circuit
// breaker, reconnectPolicy.ts, and stops), what the server offers (offerKeeper.ts), how requests
// wait for a session (requestGate.ts), why a launch failed (launchDiagnostics.ts) and when a server
// runs at all (serverLifecycle.ts). Each part gets what it needs, never this class; the manager
// owns many connections and lays its own states (invalid, blocked, queued) over theirs.
import type { CallToolResult, LoggingLevel, Tool } from '@modelcontextprotocol/client';
import { systemClock, type Clock } from '../base/clock';
import { errorMessage } from '../base/errorMessage';
import type { Event } from '../base/events';
import { jsonShapeProblem, RESULT_LIMITS } from '../base/jsonShape';
import { nullLogger, redactingLogger, type Logger } from '../base/logging';
import type { LifecycleSettings, ServerDefinition } from '../config';
import { isConnecting, isSettled, type IdleState, type RunningState, type ServerState, type ServerStateChangeEvent } from '../state';
import { AttemptRunner } from './attemptRunner';
import type { CallerOptions, CallOutcome, ConnectionOptions } from './connectionOptions';
import { SwitchboardError, type Skill, type SkillFile, type RequestPolicy, type RetryBudget } from './link';
import {
  OfferKeeper,
  type OfferChangeEvent,
  type ToolsChangeEvent,
  type ServerNotice,
  FORWARDED_RESULTS,
  type ForwardedMethod,
  type ForwardedResult,
  type ServerOffer,
  type QuarantinedTool,
} from './offer';
import { RequestGate, type SessionOperation } from './requestGate';
import { ServerLifecycle } from './serverLifecycle';
import type { McpSession, SessionCounters } from './session';
import { RunningTasks, needsTasks, requiresTask } from './tasks';
import type { ClientInputRound } from './rounds';
import { asUser, takesUserCredential, userTokenFor } from './credentials';

const LOG_LEVELS: ReadonlySet<string> = new Set<LoggingLevel>([
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
]);

export interface ConnectionDiagnostics extends SessionCounters {
  readonly connectAttempts: number;
}

export class ServerConnection {
  readonly logger: Logger;
  readonly clock: Clock;
  private readonly keeper: OfferKeeper;
  private readonly lifecycle: ServerLifecycle;
  private readonly gate: RequestGate;
  private readonly attempts: AttemptRunner;
  /** Tasks run for callers that made plain calls of task-required tools. */
  readonly tasks: RunningTasks;
  private manualReconnect: Promise<ServerState> | undefined;
  private disposing: Promise<void> | undefined;
  private wasDisposed = false;
  /** What a client last asked the server's log level to be (logging/setLevel). */
  private logLevel: LoggingLevel | undefined;

  constructor(
    readonly definition: ServerDefinition,
    options: ConnectionOptions = {},
  ) {
    this.logger = redactingLogger(options.logger ?? nullLogger, definition.secrets, `[${definition.name}] `);
    this.clock = options.clock ?? systemClock;
    this.keeper = new OfferKeeper({
      server: definition.name,
      logger: this.logger,
      clock: this.clock,
      activeSession: () => (this.state.kind === 'running' ? this.session : undefined),
      refreshPolicy: () => ({ timeoutMs: definition.timeouts.requestMs, maxTotalMs: 0 }),
      onToolsReplaced: () => this.attempts.toolsReplaced(),
      switchboardId: options.switchboardId,
    });
    this.tasks = new RunningTasks(definition.name, () => this.clock.now());
    const { serverRequests } = options;
    this.attempts = new AttemptRunner({ definition, logger: this.logger, clock: this.clock }, this.keeper, {
      ...options,
      ...(serverRequests ? { serverRequests: this.tasks.withdrawingOnEnd(serverRequests) } : {}),
    });
    const attempts = this.attempts;
    this.lifecycle = new ServerLifecycle(definition.lifecycle, {
      logger: this.logger,
      clock: this.clock,
      attempts,
      state: () => attempts.currentState,
      disposed: () => this.disposed,
      held: () => this.keeper.subscriptions.size > 0,
    });
    // The first listener of the state machine: idle stop follows it, and a new run gets the log level a client asked for.
    attempts.onDidChangeState(({ state, previous }) => {
      this.lifecycle.follow(previous.kind, state);
      if (state.kind === 'running' && previous.kind !== 'running') this.sendLogLevel();
    });
    this.gate = new RequestGate({
      name: definition.name,
      requestMs: definition.timeouts.requestMs,
      clock: this.clock,
      logger: this.logger,
      sessions: attempts,
      disposed: () => this.disposed,
      wake: (why) => this.lifecycle.wake(why),
    });
  }

  get name(): string {
    return this.definition.name;
  }

  /** dispose() was called: nothing starts again. */
  get disposed(): boolean {
    return this.wasDisposed;
  }

  get requestMs(): number {
    return this.definition.timeouts.requestMs;
  }

  /** Fires on every state change, with the old and new state (frozen, shared). */
  get onDidChangeState(): Event<ServerStateChangeEvent> {
    return this.attempts.onDidChangeState;
  }

  /** Frozen: shared by every reader, never copied (the attempt runner owns it). */
  get state(): ServerState {
    return this.attempts.currentState;
  }

  /**
   * The state of its last run (capabilities, instructions, identity): what the server said of
   * itself, kept while it reconnects or idles; undefined until it first runs. Frozen.
   */
  get lastRunning(): RunningState | undefined {
    return this.attempts.lastRunning;
  }

  /** The running session, if any. */
  get session(): McpSession | undefined {
    return this.attempts.session;
  }

  /** Fires when the tool list differs from the last one: after connect, listTools() or list_changed. */
  get onDidChangeTools(): Event<ToolsChangeEvent> {
    return this.keeper.onDidChangeTools;
  }

  /** Fires when the resources, templates or prompts differ from the last ones. */
  get onDidChangeOffer(): Event<OfferChangeEvent> {
    return this.keeper.onDidChangeOffer;
  }

  /** Resource updates (of subscribed URIs) and log messages from the server. */
  get onNotice(): Event<ServerNotice> {
    return this.keeper.onNotice;
  }

  /** Resources, templates and prompts, as last listed (kept while reconnecting); frozen. */
  get offer(): ServerOffer {
    return this.keeper.offer;
  }

  /** Deep-frozen: shared by every reader, never copied. */
  get tools(): readonly Tool[] {
    return this.keeper.tools;
  }

  /** `fingerprint(tools)` (base/fingerprint.ts), computed once per list the server gives. */
  get toolsFingerprint(): string {
    return this.keeper.toolsFingerprint;
  }

  /** Whether the server has listed its tools yet: before that, `tools` is empty for want of an answer. */
  get toolsListed(): boolean {
    return this.keeper.listed;
  }

  /** Tools held back because their definitions break a limit or the MCP schema, with the reason. */
  get quarantinedTools(): QuarantinedTool[] {
    return this.keeper.quarantined.map((tool) => ({ ...tool }));
  }

  /** The stdio server's process id, from spawn (while still starting) until it is stopped. */
  get pid(): number | undefined {
    return this.attempts.pid;
  }

  get diagnostics(): ConnectionDiagnostics {
    return this.attempts.diagnostics;
  }

  /** The last `count` stderr lines of the stdio server (across restarts), oldest first. */
  stderrTail(count?: number): string[] {
    return this.attempts.launches.stderrTail(count);
  }

  /** Requests from clients in flight now (an idle stop waits for them). */
  get requestsInFlight(): number {
    return this.lifecycle.requestsInFlight;
  }

  /**
   * Connects unless already running or connecting. Resolves with the state once it settles
   * (running, error, stopped, disabled); never rejects — failures are states.
   */
  start(): Promise<ServerState> {
    if (this.disposed || !this.definition.enabled || this.state.kind === 'running') return Promise.resolve(this.state);
    if (!isConnecting(this.state.kind)) this.attempts.begin({ kind: 'start' });
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
    this.attempts.restart();
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
    return this.attempts.halt({ kind: 'stopped' });
  }

  /**
   * Stops the server until a request needs it (`idle`): at the start of a lazy server, and after
   * `idleStopMinutes` without use. Resolves when its process or session has ended.
   */
  goIdle(reason: IdleState['reason']): Promise<void> {
    return this.lifecycle.goIdle(reason);
  }

  /** Starts an idle server: a request (`why`) needs it. Nothing to do in any other state. */
  wake(why?: string): void {
    this.lifecycle.wake(why);
  }

  /** Starts an idle server that has nothing cached, to learn its lists, and idles it again once unused. */
  learn(): void {
    this.lifecycle.learn();
  }

  /** A changed `lifecycle` or `idleStopMinutes`: applies to the running connection, without a restart. */
  applyLifecycle(lifecycle: LifecycleSettings): void {
    this.lifecycle.apply(lifecycle);
  }

  /** stop(), then no further use. Idempotent. */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      this.wasDisposed = true;
      await this.stop();
      this.attempts.closeEvents();
      this.keeper.dispose();
      this.tasks.dispose();
    })();
    return this.disposing;
  }

  /** Fetches every page of tools/list again and updates `tools`. */
  async listTools(options: { signal?: AbortSignal } = {}): Promise<Tool[]> {
    const tools = await this.gate.withSession('tools/list', options, (session, policy, budget) =>
      this.keeper.listTools(session, policy, budget),
    );
    return structuredClone([...tools]);
  }

  /**
   * Calls a tool. Waits for a starting or reconnecting server (until `readyBy`, or requestMs). Arguments are
   * checked against the tool's input schema first: an INVALID_ARGUMENTS error costs no round trip.
   * A result with `isError` is returned, not thrown. Only a request that provably never reached
   * the server, or hit an expired HTTP session, is sent again, once.
   */
  sendToolCall<O extends CallerOptions = CallerOptions>(
    name: string,
    args: Record<string, unknown> = {},
    options: O = {} as O,
  ): Promise<CallOutcome<O, CallToolResult>> {
    // Bound rather than wrapped in a closure: the call crosses one frame less on its way to the SDK.
    return this.withCallerSession(`tools/call \`${name}\``, options, this.callOn.bind(this, name, args, options)) as Promise<
      CallOutcome<O, CallToolResult>
    >;
  }

  /**
   * How a client's request is sent: counted as use of the server (idle stop) from now until it
   * ends, through the gate's one wait for a session; for a server that acts for each user with
   * their own account (userCredential.ts), that user's token first, riding with the request.
   */
  private withCallerSession<T>(what: string, options: CallerOptions, operation: SessionOperation<T>): Promise<T> {
    const used = this.lifecycle.beginUse();
    const sent = !takesUserCredential(this.definition)
      ? this.gate.withSession(what, options, operation)
      : userTokenFor(this.definition, options.onBehalfOf, what).then((token) =>
          this.gate.withSession(what, options, (session, policy, budget) =>
            asUser(token, this.definition, options.onBehalfOf, () =>
              operation(session, withCredential(session, policy, token, what), budget),
            ),
          ),
        );
    return sent.finally(used);
  }

  private callOn<O extends CallerOptions>(
    name: string,
    args: Record<string, unknown>,
    options: O,
    session: McpSession,
    policy: RequestPolicy,
    budget: RetryBudget,
  ): Promise<CallToolResult | ClientInputRound> {
    const tool = this.keeper.toolToCall(name, args);
    const callerPolicy = { ...policy, onProgress: options.onProgress };
    // A plain call of a tool that requires a task is run as one (2025-11-25; taskCalls.ts).
    if (requiresTask(tool) && session.era === 'legacy') return session.requestTaskCall(tool, args, callerPolicy, budget, this.tasks);
    // A caller that declared the tasks extension gets what a server that has it makes of the call: maybe a task.
    if (options.clientTasks?.declared === true && tool !== undefined && session.era === 'modern' && session.declaresTasks)
      return session.requestToolCallDeclaringTasks(tool, args, callerPolicy, budget, this.tasks, options);
    const plain = session.requestToolCall(name, args, callerPolicy, budget, tool, options);
    // A 2026-07-28 server may answer a plain call only as a task (-32021 naming the tasks
    // extension): then it is made again with the extension declared, and its task followed, unless
    // the caller is a client that could have declared it and did not: that answer is its own.
    if (session.era !== 'modern' || tool === undefined || options.clientTasks !== undefined) return plain;
    return plain.catch((error: unknown) =>
      needsTasks(error) ? session.requestToolCallDeclaringTasks(tool, args, callerPolicy, budget, this.tasks, {}) : Promise.reject(error),
    );
  }

  /**
   * Forwards a request about what the server offers (read a resource, get a prompt, complete an
   * argument, set the log level), with the same waiting, limits and retry as a tool call. The
   * result is passed on as the server sent it.
   */
  async forwardRequest<M extends ForwardedMethod, O extends CallerOptions = CallerOptions>(
    method: M,
    params: Record<string, unknown>,
    options: O = {} as O,
  ): Promise<CallOutcome<O, ForwardedResult<M>>> {
    if (method === 'logging/setLevel') {
      this.setLogLevel(params.level);
      return {} as CallOutcome<O, ForwardedResult<M>>;
    }
    const result = await this.withCallerSession(method, options, (session, policy, budget) =>
      session.requestRaw<ForwardedResult<M>>(
        method,
        params,
        FORWARDED_RESULTS[method],
        { ...policy, onProgress: options.onProgress },
        budget,
        options,
      ),
    );
    const problem = jsonShapeProblem(result, RESULT_LIMITS, `the result of ${method}`);
    if (problem) throw new SwitchboardError('PROTOCOL_ERROR', `${method} failed: ${problem}`);
    return result as CallOutcome<O, ForwardedResult<M>>;
  }

  /**
   * One file of a skill the server listed (`ref` relative to its folder; SKILL.md by default), read
   * only as the entry lists it and checked against it: a file the entry does not list, or one whose
   * size, digest or frontmatter differ, is refused naming it, and its content is never returned.
   */
  async readSkillFile(skill: Skill, ref?: string, options: CallerOptions = {}): Promise<SkillFile> {
    return this.withCallerSession(`resources/read of skill \`${skill.frontmatter.name}\``, options, (session, policy, budget) =>
      session.readSkillFile(skill, ref, policy, budget),
    );
  }

  /** Lists the resources, templates and prompts of a running server again. */
  async refreshOffer(): Promise<void> {
    const session = this.state.kind === 'running' ? this.session : undefined;
    if (session) await this.keeper.relistOffer(session);
  }

  /**
   * The log level a client asked for (logging/setLevel), answered at once: a client that sets it
   * as it connects (the editor does, for every server) must not wait for a server that is still
   * starting, nor start one that is idle. A running 2025 server is told now, any other when it
   * next connects. 2026-07-28 has no logging/setLevel: a client's level travels with each of its
   * requests (`meta`, set by the gateway for the client that asked).
   */
  private setLogLevel(level: unknown): void {
    if (typeof level !== 'string' || !LOG_LEVELS.has(level))
      throw new SwitchboardError('INVALID_ARGUMENTS', `unknown log level ${JSON.stringify(level)}`, { notSent: true });
    this.logLevel = level as LoggingLevel;
    this.sendLogLevel();
  }

  private sendLogLevel(): void {
    const level = this.logLevel;
    const session = this.state.kind === 'running' ? this.session : undefined;
    if (level === undefined || session === undefined || session.era !== 'legacy' || !session.capabilities.logging) return;
    session.client
      .setLoggingLevel(level)
      .catch((error: unknown) => this.logger.debug(`logging/setLevel ${level} not applied: ${errorMessage(error)}`));
  }

  /** `notifications/roots/list_changed` to a running server; nothing otherwise (it asks when it connects). */
  notifyRootsChanged(): void {
    const session = this.state.kind === 'running' ? this.session : undefined;
    session?.notifyRootsChanged().catch((error: unknown) => this.logger.debug(`roots/list_changed not delivered: ${errorMessage(error)}`));
  }

  /**
   * Updates of `uri` arrive as `resourceUpdated` notices; counted, so each subscribe needs its
   * unsubscribe. A subscription holds the server: an idle one starts, and none stops for lack of use.
   */
  async subscribeResource(uri: string): Promise<void> {
    await this.keeper.subscriptions.subscribe(uri);
    this.lifecycle.subscribed();
  }

  async unsubscribeResource(uri: string): Promise<void> {
    await this.keeper.subscriptions.unsubscribe(uri);
    this.lifecycle.unsubscribed();
  }

  private whenSettled(): Promise<ServerState> {
    if (isSettled(this.state)) return Promise.resolve(this.state);
    return new Promise((resolve) => {
      const subscription = this.onDidChangeState(({ state }) => {
        if (!isSettled(state)) return;
        subscription.dispose();
        resolve(state);
      });
    });
  }
}

/**
 * The policy of a request made with a user's token: the token passed with it. Legacy SSE sends no
 * per-message headers, so a user's request on it would go out with the gateway's own credential:
 * it is refused instead.
 */
function withCredential(session: McpSession, policy: RequestPolicy, token: string | undefined, what: string): RequestPolicy {
  if (token === undefined) return policy;
  if (session.kind !== 'http')
    throw new SwitchboardError(
      'HTTP_ERROR',
      `${what}: this server answers over legacy SSE, which cannot carry each user's own credential; it needs streamable HTTP`,
    );
  return { ...policy, credential: token };
}
