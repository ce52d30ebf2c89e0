// A 2025 session's streamable HTTP transport, on Node's own request and response: the SDK's
// transport is written for web-standard Request and Response, and its adapter to Node (a Request,
// Headers, an AbortSignal and a ReadableStream per call, then SSE framing and an event store entry
// for every message) cost about a third of the gateway's own time per call.
//
// A POST's answer waits, briefly (ANSWER_HOLD_MS), for everything it will carry:
// - all of it came (the common case, a call answered at once): one `application/json` response,
//   in one write. Nothing to resume: the answer is whole or absent.
// - the hold ran out first (a slow call, a call that asks the client something, progress): the
//   answer becomes an SSE stream with a priming event, every message kept with an id in the
//   session's event store, and a client whose stream broke resumes it with `Last-Event-ID`.
//
// The priming event is named (`event: priming`): an unnamed one has empty data, which the editor's
// client hands on as a message and logs as `Failed to parse message: ""`; the SDK's client reads
// the id of every event, whatever its name.
//
// What a request must carry and the answers to what it lacks (406, 415, 400, 404, 409) are the
// SDK transport's, word for word, so that clients see the same refusals as before.
import type http from 'node:http';
import {
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type AuthInfo,
  type MessageExtraInfo,
  type JSONRPCMessage,
  type RequestId,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import type { Clock, TimerHandle } from '../../base/clock';
import { isJsonRpcMessage } from '../../base/jsonRpc';
import type { BoundedEventStore } from './eventStore';

/** How long a POST's answer waits for all it will carry before it becomes a stream. */
export const ANSWER_HOLD_MS = 50;
/** A comment on an idle stream, so that proxies and clients do not time it out (the SDK's interval). */
export const KEEP_ALIVE_MS = 15_000;
/** The most messages one POST may carry (the SDK's bound). */
const MAX_BATCH = 100;
/** The most requests of one session in flight at once: each holds a response open. */
export const MAX_IN_FLIGHT = 256;
const STANDALONE = '_GET_stream';

export interface SessionTransportOptions {
  readonly events: BoundedEventStore;
  readonly clock: Clock;
  /** How soon a client whose stream closed should reconnect (the priming event's `retry`). */
  readonly retryMs: number;
  readonly newSessionId: () => string;
  /** The initialize request was accepted: the session has its id. */
  readonly onInitialized: (id: string) => void;
}

/** One SSE response: written to while its client reads it. */
class EventStream {
  private keepAlive: TimerHandle | undefined;
  private ended = false;

  constructor(
    private readonly res: http.ServerResponse,
    private readonly clock: Clock,
    sessionId: string | undefined,
    onClose: () => void,
  ) {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
    });
    res.on('close', () => {
      this.stop();
      onClose();
    });
    // A socket error ends the stream; it must not reach the process as an unhandled 'error'.
    res.on('error', () => this.stop());
    this.arm();
  }

  /** Not ended by us, by its client, or by whoever else may end the response (endWithToken, at the token's expiry). */
  get open(): boolean {
    return !this.ended && !this.res.destroyed && !this.res.writableEnded;
  }

  write(text: string): void {
    if (!this.open) return;
    this.res.write(text);
    this.arm();
  }

  end(): void {
    if (this.ended) return;
    this.stop();
    this.res.end();
  }

  private arm(): void {
    if (this.keepAlive !== undefined) this.clock.clearTimeout(this.keepAlive);
    this.keepAlive = this.clock.setTimeout(() => this.write(': keepalive\n\n'), KEEP_ALIVE_MS);
  }

  private stop(): void {
    this.ended = true;
    if (this.keepAlive !== undefined) this.clock.clearTimeout(this.keepAlive);
    this.keepAlive = undefined;
  }
}

function sseEvent(message: JSONRPCMessage, id: string | undefined): string {
  return `event: message\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(message)}\n\n`;
}

/** The answer to one POST that carried requests: held, then sent whole, or streamed. */
class PostAnswer {
  /** held: nothing written yet; streaming: an SSE answer (its messages kept for a resume); gone: the client left first. */
  private mode: 'held' | 'streaming' | 'gone' = 'held';
  private held: JSONRPCMessage[] = [];
  private hold: TimerHandle | undefined;
  private readonly waiting: Set<RequestId>;
  private readonly responses: JSONRPCMessage[] = [];

  constructor(
    private readonly transport: SessionTransport,
    private readonly res: http.ServerResponse,
    readonly streamId: string,
    ids: readonly RequestId[],
    private readonly primed: boolean,
  ) {
    this.waiting = new Set(ids);
    this.hold = transport.clock.setTimeout(() => this.startStream(), ANSWER_HOLD_MS);
    res.on('close', () => {
      if (this.mode !== 'held') return;
      this.mode = 'gone';
      this.clearHold();
    });
  }

  /** A message for one of this POST's requests: its answer, or something sent on its way. */
  deliver(message: JSONRPCMessage): void {
    const isResponse = isAnswer(message);
    if (isResponse) {
      this.waiting.delete(message.id);
      this.responses.push(message);
    }
    const done = this.waiting.size === 0;
    switch (this.mode) {
      case 'gone':
        break;
      case 'streaming':
        this.transport.writeEvent(this.streamId, message);
        break;
      case 'held':
        this.held.push(message);
        // A question or a progress report for the client goes now; answers alone wait for each other.
        if (!isResponse) this.startStream();
        else if (done) this.answerWhole();
        break;
    }
    if (done) this.finish();
  }

  private answerWhole(): void {
    this.clearHold();
    const body = JSON.stringify(this.responses.length === 1 ? this.responses[0] : this.responses);
    this.res.writeHead(200, { 'Content-Type': 'application/json', ...this.transport.sessionHeader() });
    this.res.end(body);
    this.mode = 'gone';
  }

  private startStream(): void {
    this.clearHold();
    if (this.mode !== 'held') return;
    this.mode = 'streaming';
    this.transport.openStream(this.streamId, this.res);
    if (this.primed) this.transport.writePriming(this.streamId);
    const held = this.held;
    this.held = [];
    for (const message of held) this.transport.writeEvent(this.streamId, message);
  }

  /** The session closed: an answer still held is refused as the session's requests are (its stream ends with the session's). */
  abort(): void {
    this.clearHold();
    if (this.mode === 'held' && !this.res.headersSent) refuse(this.res, [404, -32001, 'Session not found']);
    this.mode = 'gone';
  }

  private clearHold(): void {
    if (this.hold !== undefined) this.transport.clock.clearTimeout(this.hold);
    this.hold = undefined;
  }

  private finish(): void {
    this.clearHold();
    this.transport.answered(this);
  }
}

function isAnswer(message: JSONRPCMessage): message is JSONRPCMessage & { readonly id: RequestId } {
  return 'id' in message && ('result' in message || 'error' in message);
}

type Refusal = readonly [status: number, code: number, message: string];

export class SessionTransport implements Transport {
  sessionId: string | undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  readonly clock: Clock;
  private supported: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
  private initialized = false;
  private closed = false;
  /** Each request in flight, to the answer of the POST that carried it. */
  private readonly answers = new Map<RequestId, PostAnswer>();
  /** Each open SSE stream, by its stream id (a POST's, or the standalone GET's). */
  private readonly streams = new Map<string, EventStream>();
  private nextStream = 0;
  /** A restore's replayed initialize, whose answer nobody waits for. */
  private restoring: { readonly id: RequestId; readonly answered: () => void } | undefined;

  constructor(private readonly options: SessionTransportOptions) {
    this.clock = options.clock;
  }

  async start(): Promise<void> {}

  setSupportedProtocolVersions(versions: string[]): void {
    this.supported = versions;
  }

  /** Answers one HTTP request of the session; `body` is the POST's parsed JSON. */
  async handle(req: http.IncomingMessage, res: http.ServerResponse, body?: unknown): Promise<void> {
    if (this.closed) return refuse(res, [404, -32001, 'Session not found']);
    switch (req.method) {
      case 'POST':
        return this.post(req, res, body);
      case 'GET':
        return this.get(req, res);
      case 'DELETE': {
        const refusal = this.checkSession(req) ?? this.checkVersion(req);
        if (refusal) return refuse(res, refusal);
        res.writeHead(200).end();
        return this.close();
      }
      default:
        res.writeHead(405, { Allow: 'GET, POST, DELETE', 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }));
    }
  }

  private post(req: http.IncomingMessage, res: http.ServerResponse, body: unknown): void {
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
      return refuse(res, [406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream']);
    if (!isJsonContentType(req.headers['content-type']))
      return refuse(res, [415, -32000, 'Unsupported Media Type: Content-Type must be application/json']);
    if (Array.isArray(body) && body.length > MAX_BATCH)
      return refuse(res, [400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`]);
    const raw = (Array.isArray(body) ? body : [body]) as unknown[];
    if (!raw.every(isJsonRpcMessage)) return refuse(res, [400, -32700, 'Parse error: Invalid JSON-RPC message']);
    const messages = raw as JSONRPCMessage[];
    const initialize = messages.find((message) => 'method' in message && message.method === 'initialize' && 'id' in message);
    if (initialize) {
      if (this.initialized) return refuse(res, [400, -32600, 'Invalid Request: Server already initialized']);
      if (messages.length > 1) return refuse(res, [400, -32600, 'Invalid Request: Only one initialization request is allowed']);
      this.sessionId = this.options.newSessionId();
      this.initialized = true;
      this.options.onInitialized(this.sessionId);
    } else {
      const refusal = this.checkSession(req) ?? this.checkVersion(req);
      if (refusal) return refuse(res, refusal);
    }
    if (this.closed) return refuse(res, [404, -32001, 'Session not found']);
    const ids = messages.flatMap((message) => ('method' in message && 'id' in message ? [message.id as RequestId] : []));
    // An id still in flight would take over the first request's answer, which would then never come.
    const reused = ids.find((id, index) => this.answers.has(id) || ids.indexOf(id) !== index);
    if (this.answers.size + ids.length > MAX_IN_FLIGHT)
      return refuse(res, [429, -32000, `Too many requests in flight in this session (at most ${MAX_IN_FLIGHT})`]);
    if (reused !== undefined)
      return refuse(res, [
        400,
        -32600,
        `Invalid Request: request id ${JSON.stringify(reused).slice(0, 80)} is already in flight in this session`,
      ]);
    // A team gateway's verified token of this very request (the gateway set it, as the SDK's own
    // transports take it): its handlers act for that user (sessionServer.ts's onBehalfOf).
    const auth = (req as http.IncomingMessage & { auth?: AuthInfo }).auth;
    const extra = auth ? { authInfo: auth } : undefined;
    if (ids.length === 0) {
      res.writeHead(202).end();
      for (const message of messages) this.onmessage?.(message, extra);
      return;
    }
    const version = initialize
      ? String((initialize as { params?: { protocolVersion?: unknown } }).params?.protocolVersion ?? '')
      : (headerOf(req, 'mcp-protocol-version') ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION);
    // Older clients read an empty data line as a message: no priming event for them (the SDK's rule).
    const primed = this.supported.includes(version) && version >= '2025-11-25';
    const answer = new PostAnswer(this, res, `${++this.nextStream}`, ids, primed);
    for (const id of ids) this.answers.set(id, answer);
    for (const message of messages) this.onmessage?.(message, extra);
  }

  private get(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (!(req.headers.accept ?? '').includes('text/event-stream'))
      return refuse(res, [406, -32000, 'Not Acceptable: Client must accept text/event-stream']);
    const refusal = this.checkSession(req) ?? this.checkVersion(req);
    if (refusal) return refuse(res, refusal);
    const lastEventId = headerOf(req, 'last-event-id');
    if (lastEventId) return this.resume(lastEventId, res);
    if (this.streams.has(STANDALONE)) return refuse(res, [409, -32000, 'Conflict: Only one SSE stream is allowed per session']);
    const stream: EventStream = new EventStream(res, this.clock, this.sessionId, () => this.streamClosed(STANDALONE, stream));
    // Headers now: the client waits for them, and a standalone stream may stay silent for long.
    res.flushHeaders();
    this.streams.set(STANDALONE, stream);
  }

  /** A client whose stream broke gets what it missed, then what is still to come on that stream. */
  private resume(lastEventId: string, res: http.ServerResponse): void {
    const events = this.options.events;
    const streamId = events.streamOf(lastEventId);
    if (streamId === undefined) return refuse(res, [400, -32000, 'Invalid event ID format']);
    if (this.streams.has(streamId)) return refuse(res, [409, -32000, 'Conflict: Stream already has an active connection']);
    let missed: ReadonlyArray<readonly [string, JSONRPCMessage]>;
    try {
      missed = events.after(lastEventId);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return refuse(res, [500, -32000, 'Error replaying events']);
    }
    const stream: EventStream = new EventStream(res, this.clock, this.sessionId, () => this.streamClosed(streamId, stream));
    res.flushHeaders();
    for (const [id, message] of missed) stream.write(sseEvent(message, id));
    const live = streamId === STANDALONE || [...this.answers.values()].some((answer) => answer.streamId === streamId);
    if (live) this.streams.set(streamId, stream);
    else stream.end();
  }

  /**
   * A session another replica opened, taken over here because that replica is gone: the server is
   * given the client's initialize again, exactly as it was sent, and its answer is dropped (the
   * client had it long ago); the session keeps its id. Resolves once the server is initialized.
   */
  async restore(sessionId: string, initialize: JSONRPCMessage & { readonly id: RequestId }, timeoutMs: number): Promise<void> {
    this.sessionId = sessionId;
    this.initialized = true;
    let timer: TimerHandle | undefined;
    const answered = new Promise<void>((resolve, reject) => {
      this.restoring = { id: initialize.id, answered: resolve };
      timer = this.clock.setTimeout(() => reject(new Error(`its server did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    this.onmessage?.(initialize);
    try {
      await answered;
    } finally {
      if (timer !== undefined) this.clock.clearTimeout(timer);
      this.restoring = undefined;
    }
    // In the table only once its server is initialized: no request reaches it half made.
    this.options.onInitialized(sessionId);
    this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.restoring && isAnswer(message) && message.id === this.restoring.id) return this.restoring.answered();
    const isResponse = isAnswer(message);
    const requestId = isAnswer(message) ? message.id : options?.relatedRequestId;
    if (requestId === undefined) {
      if (isResponse) throw new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request');
      this.writeEvent(STANDALONE, message);
      return;
    }
    const answer = this.answers.get(requestId);
    if (!answer) throw new Error(`No connection established for request ID: ${String(requestId)}`);
    answer.deliver(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const answer of new Set(this.answers.values())) answer.abort();
    for (const stream of this.streams.values()) stream.end();
    this.streams.clear();
    this.answers.clear();
    this.onclose?.();
  }

  // For the answers of this session's POSTs (PostAnswer).

  sessionHeader(): Record<string, string> {
    return this.sessionId === undefined ? {} : { 'mcp-session-id': this.sessionId };
  }

  /** A POST's answer becomes an SSE stream; its headers go at once (a client of an older revision gets no priming event to carry them). */
  openStream(streamId: string, res: http.ServerResponse): void {
    const stream = new EventStream(res, this.clock, this.sessionId, () => this.streamClosed(streamId, stream));
    res.flushHeaders();
    this.streams.set(streamId, stream);
  }

  writePriming(streamId: string): void {
    const id = this.options.events.keep(streamId, {} as JSONRPCMessage);
    this.streams.get(streamId)?.write(`event: priming\nid: ${id}\nretry: ${this.options.retryMs}\ndata: \n\n`);
  }

  /** Keeps the message for a resume and writes it to the stream, if its client is there. */
  writeEvent(streamId: string, message: JSONRPCMessage): void {
    const id = this.options.events.keep(streamId, message);
    this.streams.get(streamId)?.write(sseEvent(message, id));
  }

  /** Every request of the POST is answered: its stream (or the one that resumed it) ends. */
  answered(answer: PostAnswer): void {
    for (const [id, owner] of this.answers) if (owner === answer) this.answers.delete(id);
    const stream = this.streams.get(answer.streamId);
    if (!stream) return;
    this.streams.delete(answer.streamId);
    stream.end();
  }

  private streamClosed(streamId: string, stream: EventStream): void {
    if (this.streams.get(streamId) === stream) this.streams.delete(streamId);
  }

  private checkSession(req: http.IncomingMessage): Refusal | undefined {
    if (!this.initialized) return [400, -32000, 'Bad Request: Server not initialized'];
    const id = headerOf(req, 'mcp-session-id');
    if (!id) return [400, -32000, 'Bad Request: Mcp-Session-Id header is required'];
    if (id !== this.sessionId) return [404, -32001, 'Session not found'];
    return undefined;
  }

  private checkVersion(req: http.IncomingMessage): Refusal | undefined {
    const version = headerOf(req, 'mcp-protocol-version');
    if (version === undefined || this.supported.includes(version)) return undefined;
    return [
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${this.supported.join(', ')})`.slice(0, 400),
    ];
  }
}

function refuse(res: http.ServerResponse, [status, code, message]: Refusal): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function headerOf(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function isJsonContentType(value: string | undefined): boolean {
  return (value ?? '').split(';', 1)[0]?.trim().toLowerCase() === 'application/json';
}
