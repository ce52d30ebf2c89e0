// Serves the catalog's exposed tools to MCP clients over streamable HTTP, on 127.0.0.1 unless
// `serve` is told otherwise (GatewayReach): one endpoint per server plus an aggregated one, in both
// protocol eras. Every request passes the request guard first. The SDK then owns the protocol: for 2025-era clients (the editor) one
// transport and one Server per client session; for 2026-07-28 clients, see modernEndpoints.ts.
import { GATEWAY_TOKEN_PATTERN } from '../base/token';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { OfferSource, ToolSource } from '../catalog';
import { systemClock, type Clock } from '../base/clock';
import type { Disposable } from '../base/events';
import { nullLogger, redactingLogger, type Logger } from '../base/logging';
import {
  AGGREGATED,
  endpointKey,
  endpointPath,
  parseEndpointPath,
  serverEndpoint,
  type EndpointId,
  type IdentityFactory,
  type RequestIdentity,
  replyError,
  takeJsonBody,
  createToken,
  isLoopbackAddress,
  LOOPBACK_REACH,
  RequestGuard,
  validateReach,
  type GatewayReach,
  AccessLog,
  type AccessEntry,
} from './http';
import {
  hasEndpoint,
  listedTools,
  listFingerprint,
  servedServers,
  endWithToken,
  fullAccess,
  viewAccess,
  type SessionAccess,
  answerListing,
  SERVER_LISTING_PATH,
} from './exposure';
import { isLegacyPost, ModernEndpoints } from './modernEndpoints';
import { createModernTasks, type ModernTasks } from './tasks';
import { heldIds, STOPPING_HEADER, type ReplicaRouter, answerForGoneReplica, holderOf, keepFinishedTasks, markedId } from './replicas';
import type { CallTracer } from './callTracing';
import { CallBridge, GatewayRounds } from './rounds';
import { RelayRouter } from '../connection';
import { LegacySessions } from './legacySessions';
import { principalOf, type Principal, type UpstreamTokens } from '../identity';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { OfferNotifier } from './offers';
import { onSettledChange } from './settledChanges';
import { errorMessage } from '../base/errorMessage';
import { cameFrom, LOOP_STATUS, VIA_HEADER } from '../base/selfLoop';

export type { AccessEntry } from './http';

export const LOOPBACK_HOST = '127.0.0.1';
/** What a request from this gateway's own Switchboard is told (HTTP 508), and what its connection reports. */
export const SELF_REQUEST = "This is the MCP Switchboard the request came from: a server entry names this Switchboard's own gateway";

export interface GatewayOptions {
  readonly source: ToolSource;
  /** Resources, prompts, completion and logging; without it the gateway serves tools only. */
  readonly offers?: OfferSource;
  /** Relays what servers ask (elicitation, sampling, roots) to the 2025 client whose request caused it. */
  readonly relays?: RelayRouter;
  readonly logger?: Logger;
  /** 0 or absent: an ephemeral port. */
  readonly port?: number;
  /**
   * Where to listen and who may reach it (`serve --host` and the rest, for a team). Absent:
   * 127.0.0.1 only, which is what the editor always uses.
   */
  readonly reach?: GatewayReach;
  /** A session unused this long is closed; its client gets 404 and initializes again. Default 30 minutes. */
  readonly sessionIdleMs?: number;
  /** Open sessions at most; the least recently used is closed to admit a new one. Default 256. */
  readonly maxSessions?: number;
  /** For the idle sweep and the last-use times. */
  readonly clock?: Clock;
  /**
   * A token kept across runs (serve --token-file, so that other agents' configs keep working); at
   * least 32 characters. Absent: 256 random bits, new for this gateway.
   */
  readonly token?: string;
  /** Told of every HTTP request once its response has ended (serve --access-log, metrics). */
  readonly onAccess?: (entry: AccessEntry) => void;
  /** Served at /metrics, to a client with the token (serve --metrics). */
  readonly metrics?: MetricsEndpoint;
  /**
   * A team gateway: every MCP request carries a user's OAuth access token, which decides what they
   * see (resourceServer.ts). The static token then guards /metrics only.
   */
  readonly identity?: IdentityFactory;
  /**
   * The other replicas of a team gateway: requests about what another replica holds are sent on
   * to it, and finished tasks are kept where every replica finds them (replicas.ts).
   */
  readonly replicas?: ReplicaRouter;
  /** Spans of tool calls, the trace context passed upstream (serve --otlp-endpoint). */
  readonly tracer?: CallTracer;
  /**
   * A team gateway's users' own tokens for the upstreams that act for each user (`oauth.perUser`):
   * with `identity` only, since only a verified user has a token to exchange.
   */
  readonly upstreamTokens?: UpstreamTokens;
  /** This Switchboard's id: a request that comes from it is refused at once (base/selfLoop.ts). */
  readonly switchboardId?: string;
}

/** What /metrics serves: Prometheus' text format, rendered when scraped. */
export interface MetricsEndpoint {
  readonly contentType: string;
  render(): Promise<string>;
}

export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

/** The probes' paths, exactly (a Map: no `constructor` or `__proto__` to stumble on). */
const PROBES = new Map<string, 'live' | 'ready'>([
  ['/healthz', 'live'],
  ['/readyz', 'ready'],
]);
export const DEFAULT_MAX_SESSIONS = 256;

export interface GatewayAddress {
  /** The base URL, `http://127.0.0.1:<port>`; endpoints live below it. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
}

export class McpGateway {
  /** 256 random bits, new for every gateway instance unless given. Clients send it as `Authorization: Bearer`. */
  readonly token: string;
  private readonly source: ToolSource;
  private readonly offers: OfferSource | undefined;
  private readonly relays: RelayRouter;
  private notifier: OfferNotifier | undefined;
  private readonly logger: Logger;
  private readonly requestedPort: number;
  private readonly httpServer: http.Server;
  private readonly legacy: LegacySessions;
  private readonly modern: ModernEndpoints;
  /** The tasks of 2026-07-28 clients: one store for the gateway, as they have no sessions. */
  private readonly modernTasks: ModernTasks;
  /** 2026-07-28 clients' calls parked while they answer what a 2025 upstream asked. */
  private readonly bridge: CallBridge;
  private readonly reach: GatewayReach;
  private guard: RequestGuard | undefined;
  private readonly identity: IdentityFactory | undefined;
  /** Made once listening, when the gateway's URL (its default resource) is known. */
  private resourceServer: RequestIdentity | undefined;
  private readonly replicas: ReplicaRouter | undefined;
  private readonly upstreamTokens: UpstreamTokens | undefined;
  private readonly switchboardId: string | undefined;
  private storing: Disposable | undefined;
  private boundPort: number | undefined;
  /** POSTs whose response has not ended: what a drain waits for. */
  private inFlight = 0;
  private readonly whenIdle = new Set<() => void>();
  private draining = false;
  /** /readyz answers 503 (a drain began); requests are still served until `draining`. */
  private unready = false;
  private readonly metrics: MetricsEndpoint | undefined;
  /** Each request's access log entry, told when its response has ended (absent without onAccess). */
  private readonly accessLog: AccessLog | undefined;
  private readonly clock: Clock;
  private portClosed: Promise<void> | undefined;
  private starting: Promise<GatewayAddress> | undefined;
  private subscription: Disposable | undefined;
  private disposing: Promise<void> | undefined;

  constructor(options: GatewayOptions) {
    this.reach = validateReach(options.reach ?? LOOPBACK_REACH);
    this.accessLog =
      options.onAccess &&
      new AccessLog(
        options.onAccess,
        (req) => this.guard?.clientAddress(req.headers, req.socket.remoteAddress),
        (error) => this.logger.error(`the access log failed: ${errorMessage(error)}`),
      );
    this.metrics = options.metrics;
    this.identity = options.identity;
    this.replicas = options.replicas;
    this.upstreamTokens = options.upstreamTokens;
    this.switchboardId = options.switchboardId;
    const port = options.port ?? 0;
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new Error(`Invalid gateway port ${String(port)}: expected an integer from 0 to 65535`);
    if (options.token !== undefined && !GATEWAY_TOKEN_PATTERN.test(options.token))
      throw new Error('A gateway token must be 32 to 512 URL-safe characters');
    this.token = options.token ?? createToken();
    this.requestedPort = port;

    this.source = options.source;
    this.offers = options.offers;
    this.clock = options.clock ?? systemClock;
    // Without the runtime's router (a gateway over a bare source), no server asks reach one: nothing relays.
    this.relays = options.relays ?? new RelayRouter();
    this.logger = redactingLogger(options.logger ?? nullLogger, [this.token], '[gateway] ');
    const limits = {
      idleMs: Math.max(1, options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS),
      maxSessions: Math.max(1, options.maxSessions ?? DEFAULT_MAX_SESSIONS),
    };
    this.legacy = new LegacySessions({
      source: this.source,
      offers: this.offers,
      relays: this.relays,
      notifier: () => this.notifier,
      logger: this.logger,
      limits,
      clock: options.clock ?? systemClock,
      closing: () => this.disposing !== undefined,
      replicas: this.replicas,
      tracer: options.tracer,
      upstreamTokens: options.upstreamTokens,
      ...(options.switchboardId ? { switchboardId: options.switchboardId } : {}),
    });
    const clock = options.clock ?? systemClock;
    const rounds = new GatewayRounds(
      () => this.relays.hostKinds(),
      () => clock.now(),
      this.replicas,
    );
    this.modernTasks = createModernTasks(clock, this.replicas && markedId(this.replicas));
    const shared = this.replicas?.tasks;
    if (shared) this.storing = keepFinishedTasks(this.modernTasks.tasks, shared, this.logger);
    this.bridge = new CallBridge(this.relays, clock);
    this.modern = new ModernEndpoints(
      this.source,
      this.logger,
      {
        offers: this.offers,
        relays: this.relays,
        rounds,
        modernTasks: this.modernTasks,
        bridge: this.bridge,
        tracer: options.tracer,
        upstreamTokens: options.upstreamTokens,
        ...(options.switchboardId ? { switchboardId: options.switchboardId } : {}),
      },
      this.identity ? (authInfo) => this.accessOf(principalOf(authInfo)) : undefined,
    );
    this.httpServer = http.createServer((req, res) => void this.handle(req, res));
  }

  /** Listens on 127.0.0.1. Calling it again returns the same address. */
  start(): Promise<GatewayAddress> {
    if (this.disposing) return Promise.reject(new Error('The MCP gateway was disposed'));
    this.starting ??= this.listen();
    return this.starting;
  }

  get port(): number {
    if (this.boundPort === undefined) throw new Error('The MCP gateway has not started');
    return this.boundPort;
  }

  /** The base URL a client on this machine uses: 127.0.0.1 when listening on every address. */
  get url(): string {
    const host = this.reach.host === '0.0.0.0' || this.reach.host === '::' ? LOOPBACK_HOST : this.reach.host;
    return `http://${net.isIPv6(host) ? `[${host}]` : host}:${this.port}`;
  }

  /** `/mcp`: every exposed tool, under its qualified name. */
  get aggregatedUrl(): string {
    return this.url + endpointPath(AGGREGATED);
  }

  /** `/mcp/<server>`: that server's exposed tools, under their upstream names. */
  endpointUrl(server: string): string {
    return this.url + endpointPath(serverEndpoint(server));
  }

  /** The socket address, for diagnostics: 127.0.0.1 once started, unless `reach` says otherwise. */
  address(): AddressInfo | undefined {
    const address = this.httpServer.address();
    return address === null || typeof address === 'string' ? undefined : address;
  }

  /** Servers that currently have an endpoint, in configuration order. */
  servers(): string[] {
    return servedServers(this.source.snapshot());
  }

  /**
   * A 2025 client's session on a server's endpoint closed: the server's name, and the `v` query
   * parameter of the URL the session was opened at (the editor adapter's definition version).
   */
  onDidCloseServerSession(listener: (server: string, tag: string | undefined) => void): Disposable {
    return this.legacy.onDidClose(({ endpoint, tag }) => {
      if (endpoint.kind === 'server') listener(endpoint.server, tag);
    });
  }

  /** 2025 sessions on a server's endpoint, open or opening: whether the editor is connected to it, for one. */
  serverSessionCount(server: string): number {
    return this.legacy.countOn(server);
  }

  /** Open client sessions over all endpoints. */
  get sessionCount(): number {
    return this.legacy.table.size;
  }

  /**
   * Stops taking requests and waits, at most `timeoutMs`, for the calls in flight to be answered:
   * a rolling update loses none. `/readyz` says 503 at once; for `unreadyMs` requests are still
   * served (the time a load balancer's probes take to see it), then new connections are refused
   * and a new request on an open connection gets 503 with `Connection: close`. Resolves early when
   * `force` aborts (a second SIGTERM). dispose() ends whatever is left.
   */
  async drain(timeoutMs: number, force?: AbortSignal, unreadyMs = 0): Promise<{ readonly answered: boolean; readonly left: number }> {
    // First only unready: a load balancer that probes /readyz stops sending before requests are refused.
    this.unready = true;
    if (unreadyMs > 0 && force?.aborted !== true) {
      this.logger.info(`stopping: /readyz answers 503; requests still served for ${unreadyMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, unreadyMs);
        function done(): void {
          clearTimeout(timer);
          force?.removeEventListener('abort', done);
          resolve();
        }
        force?.addEventListener('abort', done, { once: true });
      });
    }
    this.draining = true;
    void this.closePort();
    const left = this.inFlight;
    if (left === 0) return { answered: true, left: 0 };
    this.logger.info(`draining: waiting up to ${timeoutMs} ms for ${left} call(s) in flight`);
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.whenIdle.delete(done);
        force?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.whenIdle.add(done);
      force?.addEventListener('abort', done, { once: true });
      if (force?.aborted) done();
    });
    if (this.inFlight > 0) this.logger.warn(`drained with ${this.inFlight} call(s) still in flight: they are cut`);
    return { answered: this.inFlight === 0, left: this.inFlight };
  }

  /** Closes every session and the port. Idempotent. */
  dispose(): Promise<void> {
    this.disposing ??= this.shutdown();
    return this.disposing;
  }

  private async listen(): Promise<GatewayAddress> {
    await new Promise<void>((resolve, reject) => {
      this.httpServer.once('error', reject);
      this.httpServer.listen({ host: this.reach.host, port: this.requestedPort }, () => {
        this.httpServer.off('error', reject);
        resolve();
      });
    });
    const address = this.httpServer.address();
    const loopback = isLoopbackAddress(this.reach.host);
    if (address === null || typeof address === 'string' || (loopback && !isLoopbackAddress(address.address))) {
      this.httpServer.close();
      throw new Error(`The MCP gateway did not bind to ${this.reach.host} (got ${JSON.stringify(address)})`);
    }
    this.guard = new RequestGuard(address.port, this.token, this.reach);
    this.boundPort = address.port;
    if (this.identity) this.resourceServer = this.identity({ url: this.url, source: this.source, offers: this.offers });
    this.httpServer.on('error', (error) => this.logger.error(`HTTP server error: ${errorMessage(error)}`));
    this.subscription = onSettledChange(this.source, this.clock, () => this.noticeChanges());
    if (this.offers) {
      this.notifier = new OfferNotifier(
        this.offers,
        {
          sessions: () => this.legacy.table.entries(),
          notifyModern: (affects, what, printOf) => this.modern.notifyOffer(affects, what, printOf),
        },
        this.logger,
        this.clock,
      );
    }
    if (this.disposing) {
      // dispose() ran while listen() was pending.
      this.subscription.dispose();
      this.notifier?.dispose();
    } else this.legacy.table.startSweeping();
    const required = this.resourceServer ? `access tokens of ${this.resourceServer.issuer} required` : 'token required';
    if (loopback) this.logger.info(`listening on ${this.url} (loopback only, ${required})`);
    else {
      const where = `${net.isIPv6(address.address) ? `[${address.address}]` : address.address}:${address.port}`;
      this.logger.info(`listening on ${where}, reachable from other machines (${required})`);
      // The gateway speaks plain HTTP: the token crosses the network as it is unless a proxy in front adds TLS.
      this.logger.warn(`plain HTTP on ${where}: put a proxy that terminates TLS in front of it, or keep it on a private network`);
    }
    return { url: this.url, port: address.port, token: this.token };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.accessLog?.follow(req, res);
    if (req.method === 'POST') {
      this.inFlight += 1;
      res.once('close', () => {
        this.inFlight -= 1;
        if (this.inFlight === 0) for (const resolve of this.whenIdle) resolve();
      });
    }
    try {
      await this.route(req, res);
    } catch (error) {
      this.logger.error(`${req.method ?? '?'} ${req.url ?? ''} failed: ${errorMessage(error)}`);
      if (!res.headersSent) replyError(res, 500, 'Internal server error');
      else res.destroy();
    }
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (this.disposing || this.guard === undefined)
      return replyError(res, 503, 'The MCP gateway is shutting down', { [STOPPING_HEADER]: '1' });
    const target = req.url ?? '';
    const probe = PROBES.get(target);
    if (probe !== undefined) return this.answerProbe(probe, req, res);
    if (this.draining) return replyError(res, 503, 'The MCP gateway is shutting down', { Connection: 'close', [STOPPING_HEADER]: '1' });
    // Before the token: the Switchboard that sent it may not hold it, and must learn it reached itself.
    if (this.switchboardId && cameFrom(req.headers[VIA_HEADER], this.switchboardId))
      return replyError(res, LOOP_STATUS, SELF_REQUEST, {}, -32600);
    const path = target.split('?', 1)[0] ?? '';
    const resourceServer = this.resourceServer;
    // A team gateway checks users' access tokens, the gateway's own token guarding /metrics only.
    const tokenChecked = !resourceServer || (path === '/metrics' && this.metrics);
    const verdict = tokenChecked
      ? this.guard.check(req.headers, req.socket.remoteAddress)
      : this.guard.checkHeaders(req.headers, req.socket.remoteAddress);
    if (!verdict.ok) {
      const client = this.guard.clientAddress(req.headers, req.socket.remoteAddress) ?? '?';
      this.logger.debug(`rejected ${req.method ?? '?'} ${req.url ?? ''} from ${client} with ${verdict.status}: ${verdict.message}`);
      const headers: Record<string, string> = verdict.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="mcp-switchboard"' } : {};
      return replyError(res, verdict.status, verdict.message, headers);
    }
    if (path === '/metrics' && this.metrics) return this.answerMetrics(this.metrics, req, res);
    // A per-user sign-in's pages: the user's browser opens them, with no MCP token (userSignIns.ts).
    const pages = this.upstreamTokens?.pages;
    if (resourceServer && pages?.handles(path)) return pages.answer(req, res);
    let principal: Principal | undefined;
    if (resourceServer) {
      if (resourceServer.isMetadataPath(path)) return resourceServer.answerMetadata(req, res);
      const authentication = await resourceServer.authenticate(req, res);
      if (!authentication.ok) return;
      principal = authentication.principal;
      // The SDK's pass-through for a verified token: its handler gives it to the server factory (modernEndpoints.ts).
      (req as http.IncomingMessage & { auth?: AuthInfo }).auth = authentication.authInfo;
    }
    if (path === SERVER_LISTING_PATH) return answerListing(this.accessOf(principal).source.snapshot(), req, res);
    // Origin-form only ("/mcp/x?y"); an absolute-form target names no endpoint of ours.
    const endpoint = target.startsWith('/') ? parseEndpointPath(path) : undefined;
    if (!endpoint) return replyError(res, 404, 'Not found');
    const access = this.accessOf(principal);

    const sessionId = req.headers['mcp-session-id'];
    const readBody = () => takeJsonBody(req, res, (body) => this.accessLog?.asked(req, body));
    if (typeof sessionId === 'string') return this.legacy.serveNamed(sessionId, endpoint, req, res, { access, principal, readBody });
    if (!hasEndpoint(access.source.snapshot(), endpoint)) return replyError(res, 404, 'Not found');
    if (req.method === 'GET' || req.method === 'DELETE') return replyError(res, 400, 'Bad Request: Mcp-Session-Id header is required');
    if (req.method !== 'POST') return replyError(res, 405, 'Method not allowed', { Allow: 'GET, POST, DELETE' });
    const body = await readBody();
    if (!body.read) return;
    // A 2026-07-28 request about another replica's task or round goes there.
    const holder = holderOf(this.replicas, req, heldIds(req, body.value));
    if (holder && this.replicas) {
      if (await this.replicas.forward(req, res, body.value, holder)) return;
      return answerForGoneReplica(res, body.value, principal, this.replicas.tasks, this.logger);
    }
    // Without a session id: a 2025-era initialize (or a stray request the SDK refuses), or any
    // 2026-07-28 request, which never has a session.
    if (await isLegacyPost(req, body.value)) return this.legacy.open(endpoint, req, res, body.value, access);
    if (principal && (body.value as { method?: unknown } | undefined)?.method === 'subscriptions/listen')
      endWithToken(res, principal, this.clock);
    return this.modern.serve(endpoint, req, res, body.value, access);
  }

  /** What a request may see: the whole catalog, or on a team gateway its user's view under the policy. */
  private accessOf(principal: Principal | undefined): SessionAccess {
    if (!this.resourceServer) return fullAccess(this.source, this.offers);
    return viewAccess(this.resourceServer.catalogFor(principal), principal);
  }

  /**
   * `/healthz` (the process answers) and `/readyz` (it takes requests: started, not draining), for
   * a load balancer's or Kubernetes' probes. Without the token, which probes do not carry; the
   * Host check still applies, and the answer says nothing but the verdict.
   */
  private answerProbe(probe: 'live' | 'ready', req: http.IncomingMessage, res: http.ServerResponse): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') return replyError(res, 405, 'Method not allowed', { Allow: 'GET, HEAD' });
    const verdict = this.guard?.checkHeaders(req.headers, req.socket.remoteAddress);
    if (verdict?.ok !== true) return replyError(res, 403, verdict?.message ?? 'Forbidden');
    const ok = probe === 'live' || !this.unready;
    res.writeHead(ok ? 200 : 503, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : JSON.stringify({ status: ok ? 'ok' : 'draining' }));
  }

  private async answerMetrics(metrics: MetricsEndpoint, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (req.method !== 'GET') return replyError(res, 405, 'Method not allowed', { Allow: 'GET' });
    const text = await metrics.render();
    res.writeHead(200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' });
    res.end(text);
  }

  /** Sends tools/list_changed to every session and listener whose endpoint now lists something else in its own view. */
  private noticeChanges(): void {
    try {
      // Each endpoint's list is hashed once per change and view, however many sessions and listeners it has.
      const fingerprints = new Map<string, string>();
      const fingerprintOf = (access: SessionAccess, endpoint: EndpointId): string => {
        const key = `${access.grant}\u0000${endpointKey(endpoint)}`;
        let fingerprint = fingerprints.get(key);
        if (fingerprint === undefined) {
          fingerprint = listFingerprint(listedTools(access.source.snapshot(), endpoint));
          fingerprints.set(key, fingerprint);
        }
        return fingerprint;
      };
      this.modern.noticeChanges(fingerprintOf);
      this.legacy.noticeChanges(fingerprintOf);
      this.resourceServer?.catalogChanged();
    } catch (error) {
      // Runs inside the catalog's event; a failure here must not reach the catalog.
      this.logger.error(`sending tools/list_changed failed: ${errorMessage(error)}`);
    }
  }

  /** Stops taking connections; resolves once the last one has closed. Once, whoever asks first (drain or dispose). */
  private closePort(): Promise<void> {
    this.portClosed ??= new Promise<void>((resolve) => (this.httpServer.listening ? this.httpServer.close(() => resolve()) : resolve()));
    return this.portClosed;
  }

  private async shutdown(): Promise<void> {
    this.subscription?.dispose();
    this.storing?.dispose();
    this.notifier?.dispose();
    const listening = this.boundPort !== undefined;
    const closed = this.closePort();
    // Unfinished tasks of 2026-07-28 clients end with the gateway (their calls are cancelled upstream).
    this.modernTasks.tasks.dispose();
    this.bridge.dispose();
    const closing = [...this.legacy.closeAll(), this.modern.close()];
    for (const result of await Promise.allSettled(closing)) {
      if (result.status === 'rejected') this.logger.warn(`closing a session failed: ${errorMessage(result.reason)}`);
    }
    this.httpServer.closeAllConnections();
    await closed;
    if (listening) this.logger.info('stopped');
  }
}
