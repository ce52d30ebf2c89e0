// One established MCP session: an SDK Client on one transport, from the handshake to close. It
// knows the protocol (eras, paging, timeouts, cancellation, expired HTTP sessions, change
// subscriptions) but no policy: reconnecting, states and events belong to ServerConnection.
import {
  ProtocolError,
  withInputRequired,
  type CallToolResult,
  type Client,
  type Implementation,
  type InputRequiredResult,
  type Progress,
  type RequestOptions,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import type { Clock } from '../base/clock';
import { jsonShapeProblem, RESULT_LIMITS } from '../base/jsonShape';
import type { TransportType } from '../config';
import { ChangeSubscription } from './offer';
import {
  closedDuringProbe,
  refusedLegacyHandshake,
  closeLink,
  linkClient,
  NO_TIMEOUT,
  TASKS_EXTENSION,
  type ClientLink,
  type EraVerdict,
  type LinkOptions,
  type ProtocolEra,
  SwitchboardError,
  type ConnectionFailure,
  httpStatus,
  isSessionRejected,
  translateRequestError,
  RequestDeadlines,
  type RequestPolicy,
  type RetryBudget,
  StdioProcessTransport,
  SocketTransport,
  listSkills,
  readSkillFile,
  type Skill,
  type SkillFile,
  type SkillListing,
} from './link';
import { credentialHeaders } from './credentials';
import { extrasFor, runClientRounds, type ClientInputRound, type ClientTasks, type RoundParams, type UpstreamExtras } from './rounds';
import { wireClient, type SessionHooks } from './sessionWiring';
import { RetiredClients } from './retiredClients';
import { type RunningTasks, TaskCalls, ServerTaskFollower, serverTaskPath, taskEnvelope } from './tasks';

type RawSchema = Parameters<Client['request']>[1];

/**
 * A result schema that takes any result as it came: for a result passed on to a client that parses
 * it itself (CallerOptions.asSent). Its size and depth are still checked (RESULT_LIMITS).
 */
const AS_SENT: RawSchema = { '~standard': { version: 1, vendor: 'mcp-switchboard', validate: (value: unknown) => ({ value }) } };

/** A 2026-07-28 server's answer to a call that declared the tasks extension: the task it made of it. */
interface UpstreamTask {
  readonly resultType: 'task';
  readonly taskId: string;
}

function isUpstreamTask(result: unknown): result is UpstreamTask {
  const candidate = result as Partial<UpstreamTask> | null;
  return (
    candidate?.resultType === 'task' &&
    typeof candidate.taskId === 'string' &&
    candidate.taskId.length > 0 &&
    candidate.taskId.length <= MAX_TASK_ID_CHARS
  );
}

/** A task id longer than this is no id a server needs; one is refused rather than echoed on every poll. */
const MAX_TASK_ID_CHARS = 1_000;

export interface SessionCounters {
  transportsCreated: number;
  clientsCreated: number;
  /** Expired HTTP sessions replaced by a new client and transport. */
  sessionRenewals: number;
}

/** Everything a link needs, and what the session reports to its connection. */
export interface OpenSessionOptions extends LinkOptions, SessionHooks<McpSession> {
  readonly counters: SessionCounters;
  /** For the maximum total time of a request (per-request timeouts are the SDK's, in real time). */
  readonly clock: Clock;
}

const TERMINATE_SESSION_TIMEOUT_MS = 2000;
/** How long requests in flight on a lost HTTP session may take to settle before it is closed. */
const LOST_SESSION_GRACE_MS = 1000;

export class McpSession {
  private closeRequested = false;
  private closing: Promise<void> | undefined;
  private inFlight = 0;
  private onIdle: (() => void) | undefined;
  private renewal: Promise<void> | undefined;
  private readonly changes: ChangeSubscription;
  private readonly tasks: TaskCalls;
  private readonly serverTasks: ServerTaskFollower;
  /** Clients a renewal replaced, closed once their requests settle. */
  private readonly retired = new RetiredClients();

  private constructor(
    private link: ClientLink,
    private readonly options: OpenSessionOptions,
  ) {
    this.changes = new ChangeSubscription(this, options.logger);
    this.tasks = new TaskCalls(options.definition.name, options.logger, options.clock);
    this.serverTasks = new ServerTaskFollower(options.clock, options.logger);
  }

  /** A 2025-11-25 tool that requires a task, for a plain call: run as one, its status reported as progress (taskCalls.ts). */
  requestTaskCall(
    tool: Tool,
    args: Record<string, unknown>,
    policy: RequestPolicy,
    budget: RetryBudget,
    registry: RunningTasks,
  ): Promise<CallToolResult> {
    // No quiet-time limit: each poll shows the server alive; the maximum total time still applies.
    return this.request(`tools/call \`${tool.name}\` (a task)`, { ...policy, timeoutMs: 0 }, budget, (options, onprogress) =>
      this.tasks.run(this.client, tool, args, registry, options.signal as AbortSignal, onprogress, options.headers),
    );
  }

  /**
   * A tools/call that declares the tasks extension upstream, for a caller that declared it (a
   * 2026-07-28 gateway client): on the raw path, as the tasks package makes its own calls, since
   * the SDK client refuses a `task` result. Rounds go to the caller as on the plain path; a task
   * the server makes of the call is followed to its outcome for the caller (taskCalls.ts).
   */
  async requestToolCallDeclaringTasks(
    tool: Tool,
    args: Record<string, unknown>,
    policy: RequestPolicy,
    budget: RetryBudget,
    registry: RunningTasks,
    upstream: UpstreamExtras & { readonly clientTasks?: ClientTasks },
  ): Promise<CallToolResult | ClientInputRound> {
    const what = `tools/call \`${tool.name}\``;
    // The task's every message (its follow-ups, its cancel) carries what the call does: a user's credential.
    const path = serverTaskPath(this.link, this.options, credentialHeaders(policy.credential));
    const envelope = taskEnvelope(path, upstream.meta);
    const send = (round: RoundParams) =>
      this.request(what, policy, budget, async (options) => {
        const params = { name: tool.name, arguments: args, _meta: envelope, ...round };
        const response = await path.raw.dispatch({ method: 'tools/call', params }, options.signal, options.headers);
        if (response.kind === 'error') throw new ProtocolError(response.error.code, response.error.message, response.error.data);
        return response.result as CallToolResult | InputRequiredResult | UpstreamTask;
      });
    const result = await runClientRounds(what, upstream.rounds ?? { clientAnswers: new Set() }, this.options.serverRequests ?? {}, send);
    const problem = jsonShapeProblem(result, RESULT_LIMITS, `the result of tool \`${tool.name}\``);
    if (problem) throw new SwitchboardError('PROTOCOL_ERROR', `${what} failed: ${problem}`);
    if (!isUpstreamTask(result)) {
      if ((result as { resultType?: unknown }).resultType === 'task')
        throw new SwitchboardError('PROTOCOL_ERROR', `${what} failed: the server answered with a task but no usable task id`);
      return result as CallToolResult | ClientInputRound;
    }
    upstream.clientTasks?.onUpstreamTask?.();
    // No quiet-time limit: each poll shows the server alive; the maximum total time still applies.
    return this.request(`${what} (the server's task)`, { ...policy, timeoutMs: 0 }, budget, (options, onprogress) =>
      this.serverTasks.follow(
        { server: this.options.definition.name, tool: tool.name, taskId: result.taskId },
        path,
        registry,
        options.signal as AbortSignal,
        onprogress,
      ),
    );
  }

  get kind(): TransportType {
    return this.link.kind;
  }

  // What the handshake told: read from the current link, which a session renewal replaces.
  get serverInfo(): Implementation {
    return this.client.getServerVersion() ?? { name: '', version: '' };
  }

  get capabilities(): Record<string, unknown> {
    return { ...(this.client.getServerCapabilities() ?? {}) };
  }

  /** Whether the server supports the tasks extension (2026-07-28): only then can it make a task of a call. */
  get declaresTasks(): boolean {
    const extensions = (this.client.getServerCapabilities() as { extensions?: Record<string, unknown> } | undefined)?.extensions;
    return extensions?.[TASKS_EXTENSION] !== undefined && extensions[TASKS_EXTENSION] !== null;
  }

  get instructions(): string | undefined {
    return this.client.getInstructions();
  }

  get protocolVersion(): string {
    return this.link.protocolVersion;
  }

  get era(): ProtocolEra {
    return this.link.era;
  }

  /** To remember for the next connect, so that it skips the era probe. */
  get verdict(): EraVerdict {
    return this.link.verdict;
  }

  /** The current SDK client (a session renewal replaces it). */
  get client(): Client {
    return this.link.client;
  }

  owns(client: Client): boolean {
    return this.link.client === client;
  }

  private get transport(): Transport {
    return this.link.transport;
  }

  /**
   * Connects and negotiates the era. On failure everything it started is closed
   * (the process tree is gone) before it rejects. For a streamable-HTTP definition without an
   * explicit type, a 4xx answer falls back to legacy SSE at the same URL, as the MCP
   * backwards-compatibility rules describe.
   */
  static async open(options: OpenSessionOptions): Promise<McpSession> {
    try {
      return await McpSession.openOver(options);
    } catch (error) {
      if (options.signal.aborted || options.prior !== undefined || options.patientProbe || !refusedLegacyHandshake(error)) throw error;
      options.logger.info(
        'the server answered server/discover too late and refused initialize: a 2026-07-28 server slow to start; trying again, waiting for its answer',
      );
      if (options.definition.transport === 'stdio') options.stdio.onRestart?.();
      return McpSession.openOver({ ...options, patientProbe: true });
    }
  }

  private static async openOver(options: OpenSessionOptions): Promise<McpSession> {
    const { definition } = options;
    if (definition.transport === 'stdio') {
      try {
        return await McpSession.openWith('stdio', options);
      } catch (error) {
        if (options.signal.aborted || options.prior !== undefined || !closedDuringProbe(error)) throw error;
        options.logger.info('the server exited when asked server/discover: a 2025-era server; starting it again for initialize');
        options.stdio.onRestart?.();
        return McpSession.openWith('stdio', { ...options, prior: { kind: 'legacy' } });
      }
    }
    if (definition.transport !== 'http') return McpSession.openWith(definition.transport, options);
    try {
      return await McpSession.openWith('http', options);
    } catch (error) {
      const status = error instanceof SwitchboardError ? error.status : undefined;
      if (!definition.sseFallback || options.signal.aborted || status === undefined || status < 400 || status > 499) throw error;
      options.logger.info(`streamable HTTP answered ${status}; falling back to the legacy SSE transport`);
      return McpSession.openWith('sse', options);
    }
  }

  private static async openWith(kind: TransportType, options: OpenSessionOptions): Promise<McpSession> {
    const holder: { session?: McpSession } = {};
    options.counters.transportsCreated += 1;
    options.counters.clientsCreated += 1;
    const link = await linkClient(kind, options, (client, transport) =>
      wireClient(client, transport, kind, options, options.logger, holder),
    );
    const created = new McpSession(link, options);
    holder.session = created;
    if (created.era === 'modern') created.changes.listen();
    return created;
  }

  get pid(): number | undefined {
    return this.transport instanceof StdioProcessTransport ? this.transport.pid : undefined;
  }

  get sessionId(): string | undefined {
    return this.transport.sessionId;
  }

  /** Whether the session is being or has been shut down on purpose. */
  get isClosing(): boolean {
    return this.closeRequested;
  }

  /** The stdio process's exit, once it has exited. */
  get exitStatus(): StdioProcessTransport['exitStatus'] {
    return this.transport instanceof StdioProcessTransport ? this.transport.exitStatus : undefined;
  }

  /**
   * The protocol the server speaks, as its row and doctor show it: for a server shared through the
   * machine host, what the host's copy speaks with it (this session, the hop to the host, is 2025's).
   */
  get serverProtocol(): { readonly protocolVersion: string; readonly era: ProtocolEra } {
    const hosted = this.transport instanceof SocketTransport ? this.transport.upstreamProtocol : undefined;
    return hosted ?? { protocolVersion: this.protocolVersion, era: this.era };
  }

  /** A shared server's session lists what the machine host screened as it took it from the server. */
  get screenedBy(): 'machine host' | undefined {
    return this.transport instanceof SocketTransport ? 'machine host' : undefined;
  }

  /** A shared server's session that the machine host ended because its copy failed there: how it failed. */
  get hostFailure(): ConnectionFailure | undefined {
    return this.transport instanceof SocketTransport ? this.transport.failure : undefined;
  }

  /** Only for a client that declared roots (the 2026-07-28 era has no such notification). */
  async notifyRootsChanged(): Promise<void> {
    if (this.era === 'legacy' && this.options.serverRequests?.listRoots) await this.client.sendRootsListChanged();
  }

  /**
   * 2026-07-28: the resources whose updates the server should report. They ride on the change
   * subscription, so a new set replaces it (the old one is closed once the new one is open).
   */
  setResourceSubscriptions(uris: readonly string[]): void {
    if (this.era === 'modern') this.changes.setResources(uris);
  }

  /**
   * One request with the session's limits, renewal and error translation, validated with `schema`.
   * For requests whose result is passed on as it came (serverOffer.ts). With `upstream.rounds`, an
   * `input_required` round for the client can be the outcome (prompts/get, resources/read).
   */
  requestRaw<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: RawSchema,
    policy: RequestPolicy,
    budget: RetryBudget,
  ): Promise<T>;
  requestRaw<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: RawSchema,
    policy: RequestPolicy,
    budget: RetryBudget,
    upstream: UpstreamExtras,
  ): Promise<T | ClientInputRound>;
  requestRaw<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: RawSchema,
    policy: RequestPolicy,
    budget: RetryBudget,
    upstream: UpstreamExtras = {},
  ): Promise<T | ClientInputRound> {
    const extras = extrasFor(this.era, upstream);
    const send = (round: RoundParams, allowInputRequired: boolean) =>
      this.request(
        method,
        policy,
        budget,
        (options, onprogress) =>
          this.client.request(
            { method, params: { ...params, ...extras.meta, ...round } } as Parameters<Client['request']>[0],
            allowInputRequired ? withInputRequired(schema) : schema,
            {
              ...options,
              ...(policy.onProgress ? { onprogress } : {}),
              ...(allowInputRequired ? { allowInputRequired } : {}),
            },
          ) as Promise<T | InputRequiredResult>,
      );
    if (!extras.rounds) return send({}, false) as Promise<T>;
    return runClientRounds(method, extras.rounds, this.options.serverRequests ?? {}, (round) => send(round, true));
  }

  /** `skills/list`, every page, with this session's limits (serverSkills.ts). */
  listSkills(policy: RequestPolicy, budget: RetryBudget): Promise<SkillListing> {
    return this.request('skills/list', policy, budget, (options) => listSkills(this.client, options));
  }

  /** One file of a listed skill, read only as its entry lists it and checked against it (serverSkills.ts). */
  readSkillFile(skill: Skill, ref: string | undefined, policy: RequestPolicy, budget: RetryBudget): Promise<SkillFile> {
    return this.request(`resources/read of skill \`${skill.frontmatter.name}\``, policy, budget, (options) =>
      readSkillFile(this.client, skill, ref, options),
    );
  }

  /** `definition`: the tool as listed, so that the SDK can mirror `x-mcp-header` parameters into headers. */
  async requestToolCall(
    name: string,
    args: Record<string, unknown>,
    policy: RequestPolicy,
    budget: RetryBudget,
    definition?: Tool,
    upstream: UpstreamExtras & { readonly asSent?: boolean } = {},
  ): Promise<CallToolResult | ClientInputRound> {
    const what = `tools/call \`${name}\``;
    const extras = extrasFor(this.era, upstream);
    // A 2025 server's result, for a client that parses it itself: taken as it came (no rounds in that era).
    const asSent = upstream.asSent === true && this.era === 'legacy';
    // What sends the call (a round's answers in it): made before request() runs it, so that the
    // call crosses no frame of its own between here and the SDK.
    const sender =
      (round: RoundParams, allowInputRequired: boolean) => (options: RequestOptions, onprogress: (progress: Progress) => void) =>
        asSent
          ? (this.client.request({ method: 'tools/call', params: { name, arguments: args, ...extras.meta } }, AS_SENT, {
              ...options,
              onprogress,
            }) as Promise<CallToolResult>)
          : (this.client.callTool(
              { name, arguments: args, ...extras.meta, ...round },
              {
                ...options,
                // Always ask for progress: it is what lets a long call outlive timeoutMs.
                onprogress,
                // The definition lets the SDK mirror `x-mcp-header` parameters into headers (2026-07-28
                // over HTTP). Without its output schema: a host passes results on unvalidated, as the
                // model reads them, rather than fail a call the server answered.
                ...(definition ? { toolDefinition: { ...definition, outputSchema: undefined } } : {}),
                ...(allowInputRequired ? { allowInputRequired } : {}),
              },
            ) as Promise<CallToolResult | InputRequiredResult>);
    const result = extras.rounds
      ? await runClientRounds(what, extras.rounds, this.options.serverRequests ?? {}, (round) =>
          this.request(what, policy, budget, sender(round, true)),
        )
      : await this.request(what, policy, budget, sender({}, false));
    // A result is passed on (cloned, serialized) by everything downstream: refuse one that would
    // overflow the stack there, naming what was wrong, rather than let it crash the host later.
    const problem = jsonShapeProblem(result, RESULT_LIMITS, `the result of tool \`${name}\``);
    if (problem) throw new SwitchboardError('PROTOCOL_ERROR', `${what} failed: ${problem}`);
    return result as CallToolResult | ClientInputRound;
  }

  /**
   * Sends one request with the policy's limits (requestDeadlines.ts), enforced through its signal
   * on the connection's clock rather than with the SDK's own timers: the SDK then sends
   * notifications/cancelled for each of them (it gives up on its maxTotalTimeout without telling
   * the server), and tests drive them without waiting. `onprogress` restarts the quiet time.
   */
  private async request<T>(
    what: string,
    policy: RequestPolicy,
    budget: RetryBudget,
    send: (options: RequestOptions, onprogress: (progress: Progress) => void) => Promise<T>,
  ): Promise<T> {
    for (;;) {
      if (policy.signal?.aborted) throw new SwitchboardError('CANCELLED', `${what} was cancelled`);
      const sentWithSession = this.transport.sessionId;
      const deadlines = new RequestDeadlines(this.options.clock, policy);
      this.inFlight += 1;
      const client = this.client;
      this.retired.begin(client);
      try {
        const onprogress = (progress: Progress) => {
          deadlines.progressed();
          policy.onProgress?.(progress);
        };
        const headers = credentialHeaders(policy.credential);
        return await send({ signal: deadlines.signal, timeout: NO_TIMEOUT, headers }, onprogress);
      } catch (error) {
        const rejected = deadlines.ended === undefined && !this.closeRequested && sentWithSession !== undefined && isSessionRejected(error);
        if (rejected && !budget.retried) {
          budget.retried = true;
          this.options.logger.info(
            `session ${sentWithSession} is unknown to the server (HTTP ${httpStatus(error) ?? '?'}); initializing a new session`,
          );
          await this.renewSession(sentWithSession, policy);
          continue;
        }
        if (rejected) {
          // A fresh session was rejected as well: this connection is no use. The request was
          // refused before the server acted on it; the connection reconnects with backoff.
          throw new SwitchboardError(
            'CONNECTION_LOST',
            `${what} failed: the server rejected the session again after a new one was initialized`,
            { cause: error, notSent: true },
          );
        }
        throw translateRequestError(error, {
          what,
          timeoutMs: policy.timeoutMs,
          maxTotalMs: policy.maxTotalMs,
          ended: deadlines.ended,
          closing: this.closeRequested,
        });
      } finally {
        this.retired.settled(client);
        this.inFlight -= 1;
        if (this.inFlight === 0) this.onIdle?.();
        deadlines.dispose();
      }
    }
  }

  /**
   * Replaces the client and transport with new ones that open a new session. One renewal at a
   * time: callers whose requests failed with the same expired session share it, and a caller
   * whose rejection arrives after the renewal finished sees the new session id and just retries.
   */
  private renewSession(expired: string | undefined, policy: RequestPolicy): Promise<void> {
    if (this.renewal) return this.renewal;
    if (this.transport.sessionId !== expired) return Promise.resolve();
    // A user's request may have found the session gone; the new one is the gateway's, not theirs:
    // its handshake is no message of the user's request, so it carries the connection's own credential.
    this.renewal = this.openNewLink(policy).finally(() => (this.renewal = undefined));
    return this.renewal;
  }

  private async openNewLink(policy: RequestPolicy): Promise<void> {
    const { options } = this;
    options.counters.sessionRenewals += 1;
    options.counters.transportsCreated += 1;
    options.counters.clientsCreated += 1;
    const renewing = new AbortController();
    const holder: { session?: McpSession } = { session: this };
    try {
      // Only the 2025 era has sessions, so the verdict is known: no probe.
      const link = await linkClient(
        this.kind,
        { ...options, signal: renewing.signal, requestTimeoutMs: policy.timeoutMs, prior: { kind: 'legacy' }, onPhase: () => undefined },
        (client, transport) => wireClient(client, transport, this.kind, options, options.logger, holder),
      );
      const old = this.link;
      this.link = link;
      this.retired.retire(old.client);
      options.logger.info(`new session ${this.transport.sessionId ?? '?'} initialized`);
    } catch (error) {
      const failure = translateRequestError(error, {
        what: 'initialize (new session)',
        timeoutMs: policy.timeoutMs,
        maxTotalMs: 0,
        closing: this.closeRequested,
      });
      if (failure.code === 'CLOSED' || failure.code === 'CANCELLED') throw failure;
      // Without a session nothing works: report the connection lost so that it reconnects with
      // backoff, rather than stay "running" while every call fails. The request that found the
      // session gone was refused, so it was never carried out.
      throw new SwitchboardError('CONNECTION_LOST', `the session expired and a new one could not be initialized: ${failure.message}`, {
        cause: failure,
        notSent: true,
      });
    }
  }

  /**
   * Ends the session: DELETE for streamable HTTP, the whole process tree for stdio. Idempotent.
   * `deliberate` (stop, reconnect) makes interrupted requests fail as CLOSED; cleaning up after a
   * lost connection leaves them failing as CONNECTION_LOST.
   */
  close(deliberate = true): Promise<void> {
    if (deliberate) this.closeRequested = true;
    this.closing ??= (deliberate || this.kind === 'stdio' ? Promise.resolve() : this.settleInFlight()).then(() => this.shutDown());
    return this.closing;
  }

  /**
   * After an HTTP server was lost, requests still in flight settle by themselves first: one that
   * the dead server refused fails as never sent (and is retried once it is back). Closing the
   * client at once would fail them all as "connection closed", sent or not.
   */
  private settleInFlight(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, LOST_SESSION_GRACE_MS);
      this.onIdle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async shutDown(): Promise<void> {
    await this.changes.close();
    await this.tasks.close();
    this.retired.closeAll();
    await closeLink(this.link, this.options.logger, TERMINATE_SESSION_TIMEOUT_MS);
  }
}
