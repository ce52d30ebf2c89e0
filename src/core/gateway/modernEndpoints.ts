// The gateway's 2026-07-28 side: sessionless requests that carry the `_meta` envelope, served by
// the SDK's per-request handler (a fresh Server per request) with change notifications on
// `subscriptions/listen` streams. One handler per endpoint and view: on a team gateway, users whose
// grants differ listen on different handlers, so a change is told only to listeners whose view it
// changed, and nothing a server announces reaches a listener who may not see it. The 2025 side
// keeps its sessions in gateway.ts; the request guard runs before either.
import type http from 'node:http';
import type { NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, isLegacyRequest, type AuthInfo, type McpHttpHandler, type McpServerFactory } from '@modelcontextprotocol/server';
import { fullAccess, type SessionAccess, listedTools, listFingerprint } from './exposure';
import type { OfferChange, OfferSource, ToolSource } from '../catalog';
import type { Logger } from '../base/logging';
import { endpointKey, type EndpointId, MAX_REQUEST_BYTES, HEADER_MISMATCH, paramHeaderMismatch } from './http';
import { offerFingerprint, type OfferFingerprint } from './offers';
import { createSessionServer, type SessionExtras } from './sessionServer';
import { paramHeaders, type ParamHeader } from '../connection';
import { errorMessage } from '../base/errorMessage';

/** Open `subscriptions/listen` streams per endpoint and view; more are refused by the SDK. */
export const MAX_SUBSCRIPTIONS_PER_ENDPOINT = 64;
/**
 * Handlers kept (endpoints × the views of users who called them); past it the least recently used
 * one is closed, its listeners' streams with it (they listen again).
 */
export const MAX_MODERN_HANDLERS = 512;

interface ModernEndpoint {
  readonly endpoint: EndpointId;
  /** The view every request of this handler is served from. */
  readonly access: SessionAccess;
  readonly handler: McpHttpHandler;
  readonly serve: NodeMcpRequestHandler;
  fingerprint: string;
  offerPrint?: OfferFingerprint;
  /** The endpoint's tools that mirror parameters into headers, by name; read again after a list change. */
  paramHeaders?: ReadonlyMap<string, readonly ParamHeader[]>;
}

/**
 * The SDK's Node adapter, loaded when an HTTP gateway gets its first POST: it loads
 * @hono/node-server, whose evaluation loads node:http2 and the runtime's fetch, 32 ms of the
 * machine host's 160 ms start (bench/RESULTS.md), and of every agent's `serve --stdio`, which serve
 * no HTTP at all.
 */
type NodeAdapter = typeof import('@modelcontextprotocol/node', { with: { 'resolution-mode': 'import' } });
let nodeAdapter: Promise<NodeAdapter> | undefined;
const loadNodeAdapter = () => (nodeAdapter ??= import('@modelcontextprotocol/node'));

/** Whether a POST body (already read and parsed) is a 2025-era message. */
export async function isLegacyPost(req: http.IncomingMessage, body: unknown): Promise<boolean> {
  const { toWebRequest } = await loadNodeAdapter();
  return isLegacyRequest(await toWebRequest(req, body, { maxRequestBodySize: MAX_REQUEST_BYTES }), body, {
    maxRequestBodySize: MAX_REQUEST_BYTES,
  });
}

export class ModernEndpoints {
  /** By view and endpoint, least recently used first. */
  private readonly endpoints = new Map<string, ModernEndpoint>();

  private readonly offers: OfferSource | undefined;

  /**
   * `extras`: what every request's server serves besides tools, and the rounds of its client.
   * `accessOf`: what a request's user may see (a team gateway's view per user, from the token the
   * gateway verified and passed as the request's `auth`); the whole catalog when absent.
   */
  constructor(
    private readonly source: ToolSource,
    private readonly logger: Logger,
    private readonly extras: Pick<
      SessionExtras,
      'offers' | 'relays' | 'rounds' | 'modernTasks' | 'bridge' | 'tracer' | 'upstreamTokens' | 'switchboardId'
    >,
    private readonly accessOf?: (authInfo: AuthInfo | undefined) => SessionAccess,
  ) {
    this.offers = extras.offers;
  }

  /** Answers one modern request; the body was read (and bounded) by the gateway. `access`: the request's own. */
  async serve(
    endpoint: EndpointId,
    req: http.IncomingMessage,
    res: http.ServerResponse,
    body: unknown,
    access?: SessionAccess,
  ): Promise<void> {
    const { toNodeHandler } = await loadNodeAdapter();
    const entry = this.endpointFor(endpoint, access ?? fullAccess(this.source, this.offers), toNodeHandler);
    if (this.refusedParamHeaders(entry, req, res, body)) return;
    return entry.serve(req, res, body);
  }

  /** SEP-2243: a tools/call whose `Mcp-Param-*` headers disagree with its arguments gets 400 (paramHeaderCheck.ts). */
  private refusedParamHeaders(entry: ModernEndpoint, req: http.IncomingMessage, res: http.ServerResponse, body: unknown): boolean {
    const message = body as { method?: unknown; id?: unknown; params?: { name?: unknown; arguments?: unknown } } | null;
    if (message === null || typeof message !== 'object' || message.method !== 'tools/call' || typeof message.params?.name !== 'string')
      return false;
    entry.paramHeaders ??= new Map(
      listedTools(entry.access.source.snapshot(), entry.endpoint).flatMap((tool) => {
        const declared = paramHeaders(tool.inputSchema);
        return declared && declared.length > 0 ? [[tool.name, declared] as const] : [];
      }),
    );
    const declarations = entry.paramHeaders.get(message.params.name);
    const refusal = declarations && paramHeaderMismatch(declarations, message.params.arguments, req.headers);
    if (!refusal) return false;
    const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
    res
      .writeHead(400, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: HEADER_MISMATCH, ...refusal } }));
    return true;
  }

  /** Tells listeners of every endpoint whose list changed in their view. */
  noticeChanges(fingerprintOf: (access: SessionAccess, endpoint: EndpointId) => string): void {
    for (const entry of this.endpoints.values()) {
      const fingerprint = fingerprintOf(entry.access, entry.endpoint);
      if (fingerprint === entry.fingerprint) continue;
      entry.fingerprint = fingerprint;
      entry.paramHeaders = undefined;
      entry.handler.notify.toolsChanged();
    }
  }

  /**
   * Tells listeners of the endpoints and views `affects` selects: of a resource update, or of the
   * lists (resources, prompts) that changed on each endpoint in each view.
   */
  notifyOffer(
    affects: (endpoint: EndpointId, access: SessionAccess) => boolean,
    what: { readonly announced: OfferChange['announced'] } | { readonly updated: string },
    printOf?: (access: SessionAccess, endpoint: EndpointId) => OfferFingerprint,
  ): void {
    const offers = this.offers;
    if (!offers) return;
    const fingerprint = printOf ?? ((access: SessionAccess, endpoint: EndpointId) => offerFingerprint(access.offers ?? offers, endpoint));
    for (const entry of this.endpoints.values()) {
      if (!affects(entry.endpoint, entry.access)) continue;
      if ('updated' in what) {
        entry.handler.notify.resourceUpdated(what.updated);
        continue;
      }
      const print = fingerprint(entry.access, entry.endpoint);
      const before = entry.offerPrint;
      entry.offerPrint = print;
      if (print.resources !== before?.resources || what.announced.includes('resources')) entry.handler.notify.resourcesChanged();
      if (print.prompts !== before?.prompts || what.announced.includes('prompts')) entry.handler.notify.promptsChanged();
    }
  }

  async close(): Promise<void> {
    const handlers = [...this.endpoints.values()].map((entry) => entry.handler);
    this.endpoints.clear();
    for (const result of await Promise.allSettled(handlers.map((handler) => handler.close()))) {
      if (result.status === 'rejected') this.logger.warn(`closing a modern endpoint failed: ${errorMessage(result.reason)}`);
    }
  }

  private endpointFor(endpoint: EndpointId, access: SessionAccess, toNodeHandler: NodeAdapter['toNodeHandler']): ModernEndpoint {
    const key = `${access.grant}\u0000${endpointKey(endpoint)}`;
    const existing = this.endpoints.get(key);
    if (existing) {
      this.endpoints.delete(key);
      this.endpoints.set(key, existing);
      return existing;
    }
    const onerror = (error: Error) => this.logger.debug(`modern request on ${endpointKey(endpoint)}: ${errorMessage(error)}`);
    const accessOf = this.accessOf;
    // Per request still: the principal (rounds are bound to the user, upstreams act for them) is the request's own.
    const factory: McpServerFactory = accessOf
      ? (ctx) => {
          const own = accessOf(ctx.authInfo);
          return createSessionServer(endpoint, own.source, this.logger, {
            ...this.extras,
            ...(own.offers ? { offers: own.offers } : {}),
            principal: own.principal,
          });
        }
      : () => createSessionServer(endpoint, this.source, this.logger, this.extras);
    const handler = createMcpHandler(factory, {
      legacy: 'reject',
      onerror,
      maxSubscriptions: MAX_SUBSCRIPTIONS_PER_ENDPOINT,
      maxRequestBodySize: MAX_REQUEST_BYTES,
    });
    const entry: ModernEndpoint = {
      endpoint,
      access,
      handler,
      serve: toNodeHandler(handler, { onerror, maxRequestBodySize: MAX_REQUEST_BYTES }),
      fingerprint: listFingerprint(listedTools(access.source.snapshot(), endpoint)),
      ...(this.offers ? { offerPrint: offerFingerprint(access.offers ?? this.offers, endpoint) } : {}),
    };
    this.endpoints.set(key, entry);
    while (this.endpoints.size > MAX_MODERN_HANDLERS) {
      const [oldestKey, oldest] = this.endpoints.entries().next().value as [string, ModernEndpoint];
      this.endpoints.delete(oldestKey);
      oldest.handler.close().catch((error: unknown) => this.logger.warn(`closing a modern endpoint failed: ${errorMessage(error)}`));
    }
    return entry;
  }
}
