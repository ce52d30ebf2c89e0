// One established MCP session: an SDK Client on one transport, from the initialize handshake to
// close. It knows the protocol (paging, timeouts, cancellation, expired HTTP sessions) but no
// policy: reconnecting, states and events belong to ServerConnection.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  InitializeResultSchema,
  LATEST_PROTOCOL_VERSION,
  PaginatedResultSchema,
  ToolSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type Implementation,
  type Progress,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ServerDefinition } from '../config/types';
import type { Logger } from '../logging';
import { jsonShapeProblem, RESULT_LIMITS, TOOL_DEFINITION_LIMITS } from '../jsonShape';
import type { Clock } from './clock';
import { ConnectionError, errorMessage } from './errors';
import { traceTraffic } from './traffic';
import { createSseTransport, createStreamableHttpTransport, describeFetchFailure, httpStatus, isSessionRejected, isUnreachable } from './httpTransport';
import { translateRequestError } from './requestErrors';
import { StdioProcessTransport } from './stdioTransport';

export type ActiveTransport = 'stdio' | 'http' | 'sse';

/** What a connect attempt is waiting for, to say so when it times out. */
export type ConnectPhase = 'spawn' | 'connect' | 'initialize' | 'tools/list';

export interface SessionCounters {
  transportsCreated: number;
  clientsCreated: number;
  /** Expired HTTP sessions replaced by a new initialize on the same Client and transport. */
  sessionRenewals: number;
}

export interface RequestPolicy {
  /** Per request, reset by progress. 0 disables. */
  readonly timeoutMs: number;
  /** Upper bound even while progress keeps arriving. 0 disables. */
  readonly maxTotalMs: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: Progress) => void;
}

/** Shared by every try of one logical request, so that it is retried at most once in total. */
export interface RetryBudget {
  retried: boolean;
}

export interface StdioLaunch {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly platform: NodeJS.Platform;
  readonly killGraceMs?: number;
  readonly onStderrLine: (line: string) => void;
  readonly onGarbageLine?: (line: string) => void;
  readonly onSpawn?: (pid: number) => void;
}

export interface OpenSessionOptions {
  readonly definition: ServerDefinition;
  readonly logger: Logger;
  readonly clientInfo: Implementation;
  /** Aborted on connect timeout, stop or a newer attempt; the reason is what open() rejects with. */
  readonly signal: AbortSignal;
  /** Per request while connecting (initialize, tools/list pages). 0 disables. */
  readonly requestTimeoutMs: number;
  readonly stdio: StdioLaunch;
  readonly counters: SessionCounters;
  readonly fetch?: FetchLike;
  readonly onPhase: (phase: ConnectPhase) => void;
  /** The transport closed (process exit, stream end, close()). */
  readonly onClosed: (session: McpSession) => void;
  readonly onToolListChanged: (session: McpSession) => void;
  /** For the maximum total time of a request (per-request timeouts are the SDK's, in real time). */
  readonly clock: Clock;
}

/** A tool held back because its definition is over a limit; the rest of the server's tools stay usable. */
export interface QuarantinedTool {
  readonly name: string;
  readonly problem: string;
}

export interface ToolList {
  readonly tools: Tool[];
  readonly quarantined: QuarantinedTool[];
}

/** More than any real server offers; a list past it is cut, with a quarantine entry saying so. */
export const MAX_TOOLS_PER_SERVER = 10_000;
const MAX_TOOL_PAGES = 1_000;
const MAX_TOOL_NAME_IN_MESSAGE = 80;

/**
 * A tools/list page checked item by item: the SDK's own result schema rejects the whole page (and
 * so the whole server) for one malformed tool, which is what this host must never do.
 */
const ToolPageSchema = PaginatedResultSchema.extend({ tools: z.array(z.unknown()) });

function describeInvalidTool(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'the definition is not a valid MCP tool';
  const where = issue.path.length > 0 ? issue.path.join('.') : 'the definition';
  return `${where}: ${issue.message}`;
}

/** Splits a page into usable tools and quarantined ones. Measures before it parses anything deep. */
export function screenTools(page: readonly unknown[]): ToolList {
  const tools: Tool[] = [];
  const quarantined: QuarantinedTool[] = [];
  for (const raw of page) {
    const rawName = typeof raw === 'object' && raw !== null ? (raw as { name?: unknown }).name : undefined;
    const name = typeof rawName === 'string' ? rawName.slice(0, MAX_TOOL_NAME_IN_MESSAGE) : '(unnamed)';
    const tooBig = jsonShapeProblem(raw, TOOL_DEFINITION_LIMITS, `the definition of tool \`${name}\``);
    if (tooBig) {
      quarantined.push({ name, problem: tooBig });
      continue;
    }
    const parsed = ToolSchema.safeParse(raw);
    if (parsed.success) tools.push(parsed.data);
    else quarantined.push({ name, problem: `tool \`${name}\` is not valid MCP: ${describeInvalidTool(parsed.error)}` });
  }
  return { tools, quarantined };
}

/** setTimeout's maximum; the SDK applies a 60 s default when no timeout is given. */
export const NO_TIMEOUT = 2_147_483_647;

const TERMINATE_SESSION_TIMEOUT_MS = 2000;
/** How long requests in flight on a lost HTTP session may take to settle before it is closed. */
const LOST_SESSION_GRACE_MS = 1000;

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function connectFailure(error: unknown, kind: ActiveTransport, transport: Transport, phase: ConnectPhase, options: OpenSessionOptions): ConnectionError {
  const { definition } = options;
  if (transport instanceof StdioProcessTransport && transport.exitStatus) {
    const { code, signal } = transport.exitStatus;
    return new ConnectionError('PROCESS_EXITED', `server process exited with ${signal ? `signal ${signal}` : `code ${code}`} during ${phase}`, { cause: error });
  }
  if (error instanceof ConnectionError) return error;
  const where = definition.transport === 'stdio' ? definition.command : definition.url;
  const status = httpStatus(error);
  if (status !== undefined) {
    return new ConnectionError('HTTP_ERROR', `${kind === 'sse' ? 'SSE' : 'streamable HTTP'} ${phase} at ${where} failed with HTTP ${status}: ${errorMessage(error)}`, {
      cause: error,
      status,
    });
  }
  if (isUnreachable(error) || (error instanceof TypeError && error.message === 'fetch failed')) {
    return new ConnectionError('CONNECT_FAILED', `cannot reach ${where}: ${describeFetchFailure(error)}`, { cause: error, notSent: true });
  }
  if (error instanceof SseError) return new ConnectionError('CONNECT_FAILED', `cannot open SSE stream at ${where}: ${error.message}`, { cause: error });
  if (error instanceof Error && /protocol version is not supported/i.test(error.message)) {
    return new ConnectionError('PROTOCOL_ERROR', error.message, { cause: error });
  }
  return translateRequestError(error, { what: phase, timeoutMs: options.requestTimeoutMs, maxTotalMs: 0, closing: false });
}

export class McpSession {
  tools: Tool[] = [];
  quarantined: QuarantinedTool[] = [];
  serverInfo: Implementation = { name: '', version: '' };
  protocolVersion = '';
  capabilities: Record<string, unknown> = {};
  instructions: string | undefined;
  private closeRequested = false;
  private closing: Promise<void> | undefined;
  private inFlight = 0;
  private onIdle: (() => void) | undefined;
  private renewal: Promise<void> | undefined;

  private constructor(
    readonly kind: ActiveTransport,
    private readonly client: Client,
    private readonly transport: Transport,
    private readonly options: OpenSessionOptions,
  ) {}

  /**
   * Connects, initializes and lists all tools. On failure everything it started is closed (the
   * process tree is gone) before it rejects. For a streamable-HTTP definition without an explicit
   * type, a 4xx answer to the initialize POST falls back to legacy SSE at the same URL, as the
   * MCP backwards-compatibility rules describe.
   */
  static async open(options: OpenSessionOptions): Promise<McpSession> {
    const { definition } = options;
    if (definition.transport !== 'http') return McpSession.openWith(definition.transport, options);
    try {
      return await McpSession.openWith('http', options);
    } catch (error) {
      const status = error instanceof ConnectionError ? error.status : undefined;
      if (!definition.sseFallback || options.signal.aborted || status === undefined || status < 400 || status > 499) throw error;
      options.logger.info(`streamable HTTP answered ${status}; falling back to the legacy SSE transport`);
      return McpSession.openWith('sse', options);
    }
  }

  private static async openWith(kind: ActiveTransport, options: OpenSessionOptions): Promise<McpSession> {
    const { logger, signal } = options;
    const transport = McpSession.createTransport(kind, options);
    options.counters.transportsCreated += 1;
    const client = new Client(options.clientInfo, { capabilities: {} });
    options.counters.clientsCreated += 1;
    let session: McpSession | undefined;
    let phase: ConnectPhase = kind === 'stdio' ? 'spawn' : 'connect';
    const enter = (next: ConnectPhase) => {
      phase = next;
      options.onPhase(next);
    };
    enter(phase);
    client.onerror = (error) => {
      if (session?.closeRequested) return;
      if (error instanceof ConnectionError && error.code === 'PROTOCOL_ERROR') logger.warn(error.message);
      else logger.debug(`transport: ${errorMessage(error)}`);
      // The SSE stream is the connection: once it errors the server-side session is gone, even if
      // EventSource reconnects on its own (it would land in a new, uninitialized session).
      if (kind === 'sse' && error instanceof SseError && session) void session.transport.close();
    };
    client.onclose = () => {
      if (session) options.onClosed(session);
    };
    // The Client hands the negotiated protocol version only to the transport, and keeps no copy.
    let negotiated: string | undefined;
    const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = (version: string) => {
      negotiated = version;
      setProtocolVersion?.(version);
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (session) options.onToolListChanged(session);
    });
    const requestOptions = { signal, timeout: options.requestTimeoutMs > 0 ? options.requestTimeoutMs : NO_TIMEOUT };
    try {
      // start() runs synchronously inside connect() up to its first await: by then the stdio
      // process is spawned and the HTTP transport is ready, so the next wait is for initialize.
      // (SSE first waits for its endpoint event, still 'connect'.)
      const connecting = client.connect(traceTraffic(transport, options.logger), requestOptions);
      if (kind !== 'sse') enter('initialize');
      await abortable(connecting, signal);
      if (transport instanceof StdioProcessTransport) transport.markEstablished();
      const created = new McpSession(kind, client, transport, options);
      created.readServerInfo(negotiated);
      enter('tools/list');
      const list = await abortable(created.listAllTools({ timeoutMs: options.requestTimeoutMs, maxTotalMs: 0, signal }, { retried: true }), signal);
      created.tools = list.tools;
      created.quarantined = list.quarantined;
      session = created;
      return created;
    } catch (error) {
      // Described before closing: afterwards the process has exited because we ended it.
      const failure = signal.aborted ? signal.reason : connectFailure(error, kind, transport, phase, options);
      await transport.close().catch(() => undefined);
      throw failure;
    }
  }

  private static createTransport(kind: ActiveTransport, options: OpenSessionOptions): Transport {
    const { definition, logger } = options;
    if (definition.transport === 'stdio') {
      return new StdioProcessTransport({
        command: definition.command,
        args: definition.args,
        env: options.stdio.env,
        cwd: options.stdio.cwd,
        platform: options.stdio.platform,
        logger,
        onStderrLine: options.stdio.onStderrLine,
        onGarbageLine: options.stdio.onGarbageLine,
        onSpawn: options.stdio.onSpawn,
        killGraceMs: options.stdio.killGraceMs,
      });
    }
    const http = { url: definition.url, headers: definition.headers, fetch: options.fetch };
    logger.info(`connecting to ${definition.url} (${kind === 'sse' ? 'legacy SSE' : 'streamable HTTP'})`);
    return kind === 'sse' ? createSseTransport(http) : createStreamableHttpTransport(http);
  }

  private readServerInfo(protocolVersion: string | undefined): void {
    this.serverInfo = this.client.getServerVersion() ?? { name: '', version: '' };
    this.capabilities = { ...(this.client.getServerCapabilities() ?? {}) };
    this.instructions = this.client.getInstructions();
    this.protocolVersion = protocolVersion ?? '';
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
   * All tools, following nextCursor, with definitions over the size and depth limits held back.
   * Bounded in pages and tools, so a server cannot make this loop forever or fill memory.
   */
  async listAllTools(policy: RequestPolicy, budget: RetryBudget): Promise<ToolList> {
    const tools: Tool[] = [];
    const quarantined: QuarantinedTool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const params = cursor === undefined ? undefined : { cursor };
      // A raw request rather than client.listTools(): that one caches output-schema validators per
      // page (so only the last page's tools would be validated). A host passes results through
      // and lets the model read them, so no client-side output validation at all is consistent.
      const page = await this.request('tools/list', policy, budget, (options) =>
        this.client.request({ method: 'tools/list', params }, ToolPageSchema, options),
      );
      const screened = screenTools(page.tools);
      tools.push(...screened.tools);
      quarantined.push(...screened.quarantined);
      pages += 1;
      cursor = page.nextCursor;
      if (cursor !== undefined) {
        if (seen.has(cursor)) throw new ConnectionError('PROTOCOL_ERROR', `tools/list returned the cursor "${cursor.slice(0, 80)}" twice`);
        if (pages >= MAX_TOOL_PAGES) throw new ConnectionError('PROTOCOL_ERROR', `tools/list did not end after ${MAX_TOOL_PAGES} pages`);
        seen.add(cursor);
      }
    } while (cursor !== undefined && tools.length <= MAX_TOOLS_PER_SERVER);
    if (tools.length > MAX_TOOLS_PER_SERVER) {
      const cut = tools.splice(MAX_TOOLS_PER_SERVER);
      quarantined.push({ name: `${cut.length}${cursor === undefined ? '' : '+'} more`, problem: `the server offers more than ${MAX_TOOLS_PER_SERVER} tools; the rest are ignored` });
    }
    return { tools, quarantined };
  }

  async callTool(name: string, args: Record<string, unknown>, policy: RequestPolicy, budget: RetryBudget): Promise<CallToolResult> {
    const result = await this.request(`tools/call \`${name}\``, policy, budget, (options) =>
      this.client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, {
        ...options,
        // Always ask for progress: it is what lets a long call outlive timeoutMs.
        onprogress: (progress) => policy.onProgress?.(progress),
        resetTimeoutOnProgress: true,
      }),
    );
    // A result is passed on (cloned, serialized) by everything downstream: refuse one that would
    // overflow the stack there, naming what was wrong, rather than let it crash the host later.
    const problem = jsonShapeProblem(result, RESULT_LIMITS, `the result of tool \`${name}\``);
    if (problem) throw new ConnectionError('PROTOCOL_ERROR', `tools/call \`${name}\` failed: ${problem}`);
    return result;
  }

  /**
   * Sends one request with the policy's limits. The SDK sends notifications/cancelled for its
   * own timeout and for an aborted signal; the maximum total time is enforced here through the
   * signal rather than the SDK's maxTotalTimeout, because the SDK gives up on that one without
   * telling the server.
   */
  private async request<T>(what: string, policy: RequestPolicy, budget: RetryBudget, send: (options: RequestOptions) => Promise<T>): Promise<T> {
    for (;;) {
      if (policy.signal?.aborted) throw new ConnectionError('CANCELLED', `${what} was cancelled`);
      const sentWithSession = this.transport.sessionId;
      const controller = new AbortController();
      let aborted: 'caller' | 'maxTotal' | undefined;
      const onCallerAbort = () => {
        aborted ??= 'caller';
        controller.abort(policy.signal?.reason);
      };
      policy.signal?.addEventListener('abort', onCallerAbort, { once: true });
      const totalTimer =
        policy.maxTotalMs > 0
          ? this.options.clock.setTimeout(() => {
              aborted ??= 'maxTotal';
              controller.abort(new Error(`maximum total time of ${policy.maxTotalMs} ms exceeded`));
            }, policy.maxTotalMs)
          : undefined;
      this.inFlight += 1;
      try {
        return await send({ signal: controller.signal, timeout: policy.timeoutMs > 0 ? policy.timeoutMs : NO_TIMEOUT });
      } catch (error) {
        const rejected = aborted === undefined && !this.closeRequested && sentWithSession !== undefined && isSessionRejected(error);
        if (rejected && !budget.retried) {
          budget.retried = true;
          this.options.logger.info(`session ${sentWithSession} is unknown to the server (HTTP ${httpStatus(error) ?? '?'}); initializing a new session`);
          await this.renewSession(sentWithSession, policy);
          continue;
        }
        if (rejected) {
          // A fresh session was rejected as well: this connection is no use. The request was
          // refused before the server acted on it; the connection reconnects with backoff.
          throw new ConnectionError('CONNECTION_LOST', `${what} failed: the server rejected the session again after a new one was initialized`, { cause: error, notSent: true });
        }
        throw translateRequestError(error, { what, timeoutMs: policy.timeoutMs, maxTotalMs: policy.maxTotalMs, aborted, closing: this.closeRequested });
      } finally {
        this.inFlight -= 1;
        if (this.inFlight === 0) this.onIdle?.();
        if (totalTimer !== undefined) this.options.clock.clearTimeout(totalTimer);
        policy.signal?.removeEventListener('abort', onCallerAbort);
      }
    }
  }

  /**
   * Repeats the initialize handshake on this Client and transport. One renewal at a time: callers
   * whose requests failed with the same expired session share it, and a caller whose 404 arrives
   * after the renewal finished sees the new session id and just retries.
   */
  private renewSession(expired: string | undefined, policy: RequestPolicy): Promise<void> {
    if (this.renewal) return this.renewal;
    if (this.transport.sessionId !== expired) return Promise.resolve();
    this.renewal = this.initializeAgain(policy).finally(() => (this.renewal = undefined));
    return this.renewal;
  }

  private async initializeAgain(policy: RequestPolicy): Promise<void> {
    this.options.counters.sessionRenewals += 1;
    const timeout = policy.timeoutMs > 0 ? policy.timeoutMs : NO_TIMEOUT;
    try {
      const result = await this.client.request(
        { method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: this.options.clientInfo } },
        InitializeResultSchema,
        { timeout },
      );
      if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
        throw new ConnectionError('PROTOCOL_ERROR', `server's protocol version is not supported: ${result.protocolVersion}`);
      }
      this.transport.setProtocolVersion?.(result.protocolVersion);
      await this.client.notification({ method: 'notifications/initialized' });
      this.protocolVersion = result.protocolVersion;
      this.options.logger.info(`new session ${this.transport.sessionId ?? '?'} initialized`);
    } catch (error) {
      const failure = translateRequestError(error, { what: 'initialize (new session)', timeoutMs: policy.timeoutMs, maxTotalMs: 0, closing: this.closeRequested });
      if (failure.code === 'CLOSED' || failure.code === 'CANCELLED') throw failure;
      // Without a session nothing works: report the connection lost so that it reconnects with
      // backoff, rather than stay "running" while every call fails. The request that found the
      // session gone was refused, so it was never carried out.
      throw new ConnectionError('CONNECTION_LOST', `the session expired and a new one could not be initialized: ${failure.message}`, { cause: failure, notSent: true });
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
    if (this.transport instanceof StreamableHTTPClientTransport && this.transport.sessionId !== undefined) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, TERMINATE_SESSION_TIMEOUT_MS)));
      await Promise.race([this.transport.terminateSession().catch((error: unknown) => this.options.logger.debug(`terminate session: ${errorMessage(error)}`)), timedOut]);
      clearTimeout(timer);
    }
    await this.client.close().catch((error: unknown) => this.options.logger.debug(`close: ${errorMessage(error)}`));
  }
}
