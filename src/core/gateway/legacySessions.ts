// The gateway's 2025-era side: one SDK transport and one Server per client session, opened by an
// initialize request, found again by its `Mcp-Session-Id`, bounded in number and idle time
// (sessionTable.ts), told when its endpoint's tool list changed, and closed with the gateway.
import type { Principal, UpstreamTokens } from '../identity';
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Server } from '@modelcontextprotocol/server';
import type { Clock } from '../base/clock';
import type { SealContext } from '../base/sealer';
import { Emitter, type Event } from '../base/events';
import { errorMessage } from '../base/errorMessage';
import type { Logger } from '../base/logging';
import type { OfferSource, ToolSource } from '../catalog';
import type { RelayRouter } from '../connection';
import { describeEndpoint, endpointKey, replyError, type EndpointId } from './http';
import { endWithToken, listedTools, listFingerprint, tokenUntil, type SessionAccess } from './exposure';
import { SessionLedger, unsubscribeSession, type OfferNotifier, type NotifiedSession, type OfferFingerprint } from './offers';
import { BoundedEventStore, EventBudget, SessionTable, type TableSession, SessionTransport } from './sessions';
import { createSessionServer } from './sessionServer';
import { SessionTasks, type GatewayTasks } from './tasks';
import type { CallTracer } from './callTracing';
import { FORWARDED_HEADER, type ReplicaRouter } from './replicas';

export interface LegacySession extends TableSession, NotifiedSession {
  readonly endpoint: EndpointId;
  readonly key: string;
  /** Answers the session's HTTP requests. */
  readonly transport: SessionTransport;
  readonly server: Server;
  /** Of the tool list as of the last notice (or the session's start): a change sends a new one. */
  fingerprint: string;
  readonly ledger: SessionLedger;
  offerPrint: OfferFingerprint;
  /** The `v` query parameter of the URL the session was opened at (the editor puts its definition version there). */
  readonly tag: string | undefined;
  /** On a team gateway, the user who opened it: only their requests find it. */
  readonly principalKey: string | undefined;
  /** What it serves: its user's view as of the token that opened it (a request with other access closes it). */
  readonly access: SessionAccess;
  /**
   * Until when (epoch ms) the latest token of its user is valid: nothing is sent to the session
   * after, until a request with a valid token comes. Infinity without identity.
   */
  tokenUntil: number;
}

/** A session that closed: where it was open, and its tag. */
export interface ClosedSession {
  readonly endpoint: EndpointId;
  readonly tag: string | undefined;
}

export interface LegacySessionsOptions {
  readonly source: ToolSource;
  readonly offers: OfferSource | undefined;
  readonly relays: RelayRouter;
  /** The gateway's notifier of offer changes, once it listens. */
  readonly notifier: () => OfferNotifier | undefined;
  readonly logger: Logger;
  readonly limits: { readonly idleMs: number; readonly maxSessions: number };
  readonly clock: Clock;
  /** The gateway is shutting down: a session created now is closed at once. */
  readonly closing: () => boolean;
  /**
   * A team gateway's replica: new session ids are marked as its own and carry, sealed, what
   * another replica needs to take the session over when this one is gone; a request for another
   * replica's session goes there (replicas.ts).
   */
  readonly replicas?: Pick<ReplicaRouter, 'mint' | 'seal' | 'open' | 'holderOf' | 'forward'>;
  /** Spans of tool calls (callTracing.ts). */
  readonly tracer?: CallTracer;
  /** Users' own tokens for upstreams that take them (identity/upstreamTokens.ts). */
  readonly upstreamTokens?: UpstreamTokens;
  /** This Switchboard's id, in the trail of what its sessions list (base/selfLoop.ts). */
  readonly switchboardId?: string;
}

/** A request that names a session: the access of its own token, and how to read its body (once). */
export interface NamedRequest {
  readonly access: SessionAccess;
  readonly principal: Principal | undefined;
  readonly readBody: () => Promise<{ read: true; value: unknown } | { read: false }>;
}

const NO_OFFER_PRINT: OfferFingerprint = { resources: '', prompts: '' };

/** What a replica's session id carries, sealed, for another replica to take the session over. */
interface KeptSession {
  /** The endpoint's key. */
  readonly e: string;
  /** The user's key on a team gateway with identities, else ''. */
  readonly p: string;
  /** The params of the client's initialize. */
  readonly i: Record<string, unknown>;
  readonly n: string;
  /** The `v` query parameter of the URL it was opened at. */
  readonly t?: string;
  /** When it was opened (ms, the gateway's clock). */
  readonly c: number;
}
const MAX_KEPT_CHARS = 4096;
/** A session is taken over within this long of its start; after, its client initializes again. */
export const MAX_RESTORE_AGE_MS = 24 * 60 * 60_000;
/** How far replicas' clocks may disagree about when a session was opened. */
const CLOCK_SKEW_MS = 5 * 60_000;
/** Sessions their clients ended (DELETE), remembered so that none is taken over again. */
const MAX_ENDED = 4096;
/** How long a takeover waits for the fresh server to answer the replayed initialize. */
const RESTORE_TIMEOUT_MS = 10_000;
/** The id of the initialize a restore replays; its answer goes nowhere. */
const RESTORED_INITIALIZE = '_switchboard_restored_initialize';

/** How soon a client whose stream closed should reconnect (the SSE `retry` of the priming event). */
const SSE_RETRY_MS = 1_000;

export class LegacySessions {
  readonly table: SessionTable<LegacySession>;
  private readonly closeEmitter = new Emitter<ClosedSession>();
  /** A session closed (its client ended it, or it was evicted). */
  readonly onDidClose: Event<ClosedSession> = this.closeEmitter.event;
  /** Takeovers under way, by session id. */
  private readonly restoring = new Map<string, Promise<LegacySession | undefined>>();
  /** Ids of sessions their clients ended, oldest first: never taken over. */
  private readonly ended = new Set<string>();
  /** Transports whose initialize request is still being answered (they have no session id yet), and their endpoint. */
  private readonly opening = new Map<SessionTransport, EndpointId>();
  /** What every session's stream events may hold together. */
  private readonly eventBudget = new EventBudget();

  constructor(private readonly options: LegacySessionsOptions) {
    this.table = new SessionTable<LegacySession>(options.limits, options.clock, options.logger);
  }

  /**
   * A request that names a session (`Mcp-Session-Id`). Its session answers it, with the access of
   * the request's own token: a session opened with other access (a group left, a scope not asked
   * for) ends, and the client opens a new one that serves this token's. Another replica's session
   * goes there; one whose replica is gone, or is this one restarted, is taken over here from what
   * its id carries; any other id is not found.
   */
  async serveNamed(
    id: string,
    endpoint: EndpointId,
    req: http.IncomingMessage,
    res: http.ServerResponse,
    request: NamedRequest,
  ): Promise<void> {
    const { access, principal } = request;
    const session = this.find(id, endpoint, principal?.key);
    if (!session) {
      const replicas = this.options.replicas;
      const holder = replicas?.holderOf(id);
      // Never forwarded twice, and never taken over while its replica may be up.
      if (holder !== undefined && req.headers[FORWARDED_HEADER] !== undefined) return replyError(res, 404, 'Session not found', {}, -32001);
      const body = req.method === 'POST' ? await request.readBody() : { read: true as const, value: undefined };
      if (!body.read) return;
      if (holder !== undefined && replicas && (await replicas.forward(req, res, body.value, holder))) return;
      const restored = req.method === 'DELETE' ? undefined : await this.restore(id, endpoint, access);
      if (!restored) return replyError(res, 404, 'Session not found', {}, -32001);
      return restored.transport.handle(req, res, body.value);
    }
    if (session.access.grant !== access.grant) {
      this.options.logger.info(`session ${id.slice(-12)} closed: its user's access changed; they initialize again`);
      void session.server.close();
      return replyError(res, 404, 'Session not found', {}, -32001);
    }
    session.tokenUntil = tokenUntil(access);
    // A notification stream lives no longer than the token that opened it.
    if (req.method === 'GET' && principal) endWithToken(res, principal, this.options.clock);
    if (req.method === 'DELETE') this.markEnded(id);
    if (req.method !== 'POST') return session.transport.handle(req, res);
    const body = await request.readBody();
    return body.read ? session.transport.handle(req, res, body.value) : undefined;
  }

  /**
   * The session with this id, if it is open at `endpoint` (a session answers only where it was
   * opened) and was opened by the same user (another user's request finds no session).
   */
  find(id: string, endpoint: EndpointId, principalKey: string | undefined): LegacySession | undefined {
    const session = this.table.get(id);
    if (!session || session.key !== endpointKey(endpoint) || session.principalKey !== principalKey) return undefined;
    this.table.touch(id, session);
    return session;
  }

  /**
   * A POST without a session id: the SDK answers it, creating a session if it is an initialize
   * request and rejecting it otherwise; a transport that did not become a session is closed.
   */
  async open(
    endpoint: EndpointId,
    req: http.IncomingMessage,
    res: http.ServerResponse,
    body: unknown,
    access: SessionAccess,
  ): Promise<void> {
    const tag = tagOf(req);
    const { server, transport } = this.create(endpoint, access, tag, describeClient(body), () =>
      this.newSessionId(endpoint, access, body, tag),
    );
    this.opening.set(transport, endpoint);
    try {
      await server.connect(transport);
      await transport.handle(req, res, body);
    } finally {
      this.opening.delete(transport);
    }
    // Not a session, or one created while shutting down.
    if (transport.sessionId === undefined || this.options.closing()) await server.close();
  }

  /**
   * A session another replica of a team gateway opened, whose replica is gone (or is this one,
   * restarted): taken over here from what its id carries, sealed, if it was opened at `endpoint` by
   * the same user. Its server starts afresh (its subscriptions, log level, tasks and stream events
   * stayed with the replica that is gone); the client goes on with the same id.
   */
  restore(id: string, endpoint: EndpointId, access: SessionAccess): Promise<LegacySession | undefined> {
    // The session's requests that arrive together (a POST and its GET stream) share one takeover.
    let restoring = this.restoring.get(id);
    if (!restoring) {
      restoring = this.takeOver(id, endpoint, access).finally(() => this.restoring.delete(id));
      this.restoring.set(id, restoring);
    }
    return restoring.then((session) => (session && this.find(id, endpoint, access.principal?.key)) ?? undefined);
  }

  private async takeOver(id: string, endpoint: EndpointId, access: SessionAccess): Promise<LegacySession | undefined> {
    const marks = this.options.replicas;
    // `<mark>.<kept>`, whichever replica's mark it is; the kept part opens only beside its own mark.
    const dot = id.indexOf('.');
    const sealed = dot > 0 ? marks?.open(id.slice(dot + 1), keptContext(id.slice(0, dot))) : undefined;
    if (sealed === undefined || this.options.closing()) return undefined;
    let kept: KeptSession;
    try {
      kept = JSON.parse(sealed) as KeptSession;
    } catch {
      return undefined;
    }
    const age = this.options.clock.now() - kept.c;
    if (
      kept.e !== endpointKey(endpoint) ||
      kept.p !== (access.principal?.key ?? '') ||
      typeof kept.i !== 'object' ||
      kept.i === null ||
      !(age >= -CLOCK_SKEW_MS && age <= MAX_RESTORE_AGE_MS) ||
      this.ended.has(id)
    )
      return undefined;
    const initialize = { jsonrpc: '2.0' as const, id: RESTORED_INITIALIZE, method: 'initialize', params: kept.i };
    const { server, transport } = this.create(endpoint, access, kept.t, describeClient(initialize), () => id);
    this.opening.set(transport, endpoint);
    try {
      await server.connect(transport);
      await transport.restore(id, initialize, RESTORE_TIMEOUT_MS);
    } catch (error) {
      this.options.logger.warn(`session ${id.slice(-12)} could not be taken over: ${errorMessage(error)}`);
      await server.close();
      return undefined;
    } finally {
      this.opening.delete(transport);
    }
    if (this.options.closing()) {
      await server.close();
      return undefined;
    }
    this.options.logger.info(`session ${id.slice(-12)} taken over from a replica that is gone`);
    return this.find(id, endpoint, access.principal?.key);
  }

  /**
   * A new session's id: random; on a team gateway's replica, marked as its own and carrying what a
   * restore needs (the endpoint, the user, the client's initialize), sealed (at most 4 KiB of it;
   * past that the session cannot be taken over).
   */
  private newSessionId(endpoint: EndpointId, access: SessionAccess, body: unknown, tag: string | undefined): string {
    const marks = this.options.replicas;
    if (!marks) return randomUUID();
    const params = (body as { params?: Record<string, unknown> } | undefined)?.params;
    const kept: KeptSession = {
      e: endpointKey(endpoint),
      p: access.principal?.key ?? '',
      i: params ?? {},
      n: randomUUID(),
      c: this.options.clock.now(),
      t: tag,
    };
    const text = JSON.stringify(kept);
    if (text.length > MAX_KEPT_CHARS) return marks.mint(randomUUID());
    // The mark is the same for every id this replica mints: minted once to learn it.
    const mark = marks.mint('');
    return `${mark}${marks.seal(text, keptContext(mark.slice(0, -1)))}`;
  }

  private create(
    endpoint: EndpointId,
    access: SessionAccess,
    tag: string | undefined,
    client: string,
    newSessionId: () => string,
  ): { server: Server; transport: SessionTransport } {
    const { relays, logger } = this.options;
    const ledger = new SessionLedger();
    // The session's tasks (a client that drives tasks itself): cancelled when the session closes.
    const tasks: GatewayTasks = new SessionTasks(this.options.clock);
    const server = createSessionServer(endpoint, access.source, logger, {
      ...(access.offers ? { offers: access.offers, ledger } : {}),
      relays,
      principal: access.principal,
      tracer: this.options.tracer,
      upstreamTokens: this.options.upstreamTokens,
      ...(this.options.switchboardId ? { switchboardId: this.options.switchboardId } : {}),
      tasks,
    });
    const events = new BoundedEventStore(undefined, undefined, this.eventBudget);
    const transport: SessionTransport = new SessionTransport({
      newSessionId,
      // What a streamed answer sent is kept (bounded): a client whose stream broke resumes with
      // Last-Event-ID instead of losing the call's result.
      events,
      clock: this.options.clock,
      retryMs: SSE_RETRY_MS,
      onInitialized: (id) => {
        // Of the endpoint in the session's own view, as the gateway's notices compare: it changes only when the view does.
        const fingerprint = listFingerprint(listedTools(access.source.snapshot(), endpoint));
        const offerPrint = this.options.notifier()?.fingerprint(access, endpoint) ?? NO_OFFER_PRINT;
        const where = describeEndpoint(endpoint);
        this.table.add(id, {
          endpoint,
          key: endpointKey(endpoint),
          transport,
          server,
          fingerprint,
          ledger,
          offerPrint,
          tag,
          principalKey: access.principal?.key,
          access,
          tokenUntil: tokenUntil(access),
          lastUsed: 0,
          where,
          close: () => server.close(),
        });
        logger.debug(`session ${id.slice(-12)} opened on ${where} (${client})`);
      },
    });
    server.onclose = () => {
      tasks.dispose();
      events.clear();
      this.closed(transport, ledger);
    };
    return { server, transport };
  }

  /** The client ended the session (DELETE): it is never taken over again. */
  markEnded(id: string): void {
    if (!this.options.replicas) return;
    if (this.ended.size >= MAX_ENDED) this.ended.delete(this.ended.values().next().value as string);
    this.ended.add(id);
  }

  /** Sends tools/list_changed to every session whose endpoint, in its own view, now lists something else. */
  noticeChanges(fingerprintOf: (access: SessionAccess, endpoint: EndpointId) => string): void {
    const now = this.options.clock.now();
    for (const [id, session] of this.table.entries()) {
      if (session.tokenUntil <= now) continue;
      const fingerprint = fingerprintOf(session.access, session.endpoint);
      if (fingerprint === session.fingerprint) continue;
      session.fingerprint = fingerprint;
      session.server
        .sendToolListChanged()
        .catch((error: unknown) => this.options.logger.debug(`tools/list_changed not delivered to session ${id}: ${errorMessage(error)}`));
    }
  }

  /**
   * Sessions on a server's endpoint, open or opening: an initialize there waits for the server to
   * start, and the client holding it is as connected as one that has its answer.
   */
  countOn(server: string): number {
    const on = (endpoint: EndpointId) => endpoint.kind === 'server' && endpoint.server === server;
    return this.table.entries().filter(([, session]) => on(session.endpoint)).length + [...this.opening.values()].filter(on).length;
  }

  /** Every session and every transport still opening, closed. */
  closeAll(): Promise<void>[] {
    // Closing them all is the gateway shutting down, not clients ending sessions: nobody is told.
    this.closeEmitter.dispose();
    return [
      ...this.table.drain().map((session) => session.server.close()),
      ...[...this.opening.keys()].map((transport) => transport.close()),
    ];
  }

  private closed(transport: SessionTransport, ledger: SessionLedger): void {
    unsubscribeSession(ledger, this.options.offers, this.options.logger);
    const id = transport.sessionId;
    const session = id === undefined ? undefined : this.table.get(id);
    if (id === undefined || session?.transport !== transport) return;
    this.table.forget(id, session);
    this.options.logger.debug(`session ${id} closed`);
    this.closeEmitter.fire({ endpoint: session.endpoint, tag: session.tag });
  }
}

/** What a session id's kept part is sealed as: a session, beside this mark and no other. */
function keptContext(mark: string): SealContext {
  return ['session', mark];
}

const MAX_TAG_LENGTH = 128;

/** The `v` query parameter of the request's URL, bounded (client input). */
function tagOf(req: http.IncomingMessage): string | undefined {
  const query = (req.url ?? '').split('?')[1];
  const tag = query === undefined ? null : new URLSearchParams(query).get('v');
  return tag === null ? undefined : tag.slice(0, MAX_TAG_LENGTH);
}

/** Who opened a 2025-era session, from its initialize request: for the log. */
function describeClient(body: unknown): string {
  const params = (body as { params?: { protocolVersion?: unknown; clientInfo?: { name?: unknown; version?: unknown } } } | undefined)
    ?.params;
  const info = params?.clientInfo;
  const name = typeof info?.name === 'string' ? info.name.slice(0, 80) : '?';
  const version = typeof info?.version === 'string' ? info.version.slice(0, 40) : '?';
  return `${name} ${version}, protocol ${typeof params?.protocolVersion === 'string' ? params.protocolVersion.slice(0, 20) : '?'}`;
}
