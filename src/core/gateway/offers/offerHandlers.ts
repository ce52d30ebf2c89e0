// The gateway's handlers for everything but tools: resources (list, templates, read, subscribe),
// prompts (list, get), skills (list, get, directory read), completion and logging/setLevel. Lists come from the offer catalog (kept
// while a server reconnects); requests go through its gate to the upstream server with the
// client's cancellation and progress, and errors keep the upstream's code.
import type { InputRequiredResult, Server, ServerContext } from '@modelcontextprotocol/server';
import type { ClientInputRound, ForwardedResult } from '../../connection';
import { signInRound, type OpenRound, type RelayedRun, clientRequestOptions } from '../rounds';
import type { OfferCapabilities, OfferSource } from '../../catalog';
import type { Logger } from '../../base/logging';
import { offerError } from '../exposure';
import type { EndpointId } from '../http';
import {
  listedPrompts,
  listedResources,
  listedSkills,
  listedTemplates,
  routePrompt,
  routeResource,
  routeSkill,
  routeTemplate,
  type Routed,
} from './offerIndex';
import {
  GetSkillRequestParamsSchema,
  ListSkillsRequestParamsSchema,
  ReadResourceDirectoryRequestParamsSchema,
} from '@modelcontextprotocol/core/ext/skills';

/** A session's resource subscriptions, so that closing it unsubscribes upstream. */
export interface SubscriptionLedger {
  add(server: string, uri: string): boolean;
  remove(server: string, uri: string): boolean;
}

/** The params as sent, minus `_meta` (the gateway's upstream client adds its own). */
function upstreamParams(params: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _ignored, ...rest } = params;
  return rest;
}

/** What a session's handlers keep besides the catalog: its subscriptions, and a 2026-07-28 client's rounds. */
export interface HandlerExtras {
  /** A 2025 session's subscriptions; a 2026-07-28 request has none to keep. */
  readonly ledger?: SubscriptionLedger;
  /** What a client's request carries for its upstream (clientRounds.ts), and how its outcome reaches the client. */
  readonly openRound: (ctx: ServerContext, method: string, target: string) => OpenRound;
  /** A 2025 session's log level, which logging/setLevel records. */
  readonly session: { logLevel?: string };
  /**
   * Resolves once the endpoint's servers that are starting with nothing known have listed what
   * they offer (the wait tools/list has): a client that lists prompts or resources first sees them.
   */
  readonly whenListed: (ctx: ServerContext) => Promise<void>;
  /** A list as this gateway serves it to the request's client (base/selfLoop.ts: a Switchboard gets trails). */
  readonly listed: <T extends object>(items: T[], ctx: ServerContext) => T[];
}

/** What every handler of one session's server needs. */
interface HandlerContext {
  readonly whenListed: HandlerExtras['whenListed'];
  readonly listed: HandlerExtras['listed'];
  readonly server: Server;
  readonly endpoint: EndpointId;
  readonly offers: OfferSource;
  readonly logger: Logger;
  readonly ledger: SubscriptionLedger | undefined;
  /** Runs a forwarded request, translating its failure for the client. */
  forward<T>(target: Routed, what: string, run: () => Promise<T>): Promise<T>;
  /**
   * A read or a get: through the gate, with the client's options, relaying what the server asks
   * (a 2025 client) or giving its rounds back (a 2026-07-28 client that declared what they ask).
   */
  forwardRelayed<M extends 'resources/read' | 'prompts/get'>(
    target: Routed,
    what: string,
    method: M,
    params: Record<string, unknown>,
    ctx: ServerContext,
    sent: Record<string, unknown>,
  ): Promise<ForwardedResult<M> | InputRequiredResult>;
}

export function registerOfferHandlers(
  server: Server,
  endpoint: EndpointId,
  offers: OfferSource,
  capabilities: OfferCapabilities,
  logger: Logger,
  relayed: RelayedRun,
  extras: HandlerExtras,
): void {
  const { ledger } = extras;
  const forward = async <T>(target: Routed, what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw offerError(error, target.server, what);
    }
  };
  const context: HandlerContext = {
    whenListed: extras.whenListed,
    listed: extras.listed,
    server,
    endpoint,
    offers,
    logger,
    ledger,
    forward,
    forwardRelayed: (target, what, method, params, ctx, sent) => {
      const round = extras.openRound(ctx, method, String(sent.name ?? sent.uri ?? ''));
      const options = clientRequestOptions(ctx, sent, logger, `${method} on ${target.server}`, round);
      return forward(target, what, async () =>
        round.reply(
          await relayed(
            target.server,
            ctx,
            (sent): Promise<ForwardedResult<typeof method> | ClientInputRound> =>
              offers.forwardRequest(target.server, method, params, sent),
            options,
          ),
        ),
      ).catch((error: unknown) => signInRound(error, ctx) ?? Promise.reject(error));
    },
  };
  if (capabilities.resources) registerResourceHandlers(context, capabilities.resources.subscribe === true);
  if (capabilities.prompts) registerPromptHandlers(context);
  if (capabilities.skills) registerSkillHandlers(context, capabilities.skills.directoryRead === true);
  if (capabilities.completions) registerCompletionHandler(context, extras.openRound);
  if (capabilities.logging) registerLoggingHandler(context, extras.session);
}

function registerResourceHandlers(
  { server, endpoint, offers, ledger, forward, forwardRelayed, whenListed, listed }: HandlerContext,
  subscribe: boolean,
): void {
  server.setRequestHandler('resources/list', async (_request, ctx) => {
    await whenListed(ctx);
    return { resources: listed(listedResources(offers, endpoint), ctx) };
  });
  server.setRequestHandler('resources/templates/list', async (_request, ctx) => {
    await whenListed(ctx);
    return { resourceTemplates: listed(listedTemplates(offers, endpoint), ctx) };
  });
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const target = routeResource(offers, endpoint, request.params.uri);
    return forwardRelayed(
      target,
      `Reading "${request.params.uri.slice(0, 200)}"`,
      'resources/read',
      { ...upstreamParams(request.params), uri: target.upstream },
      ctx,
      request.params,
    );
  });
  if (!subscribe) return;
  server.setRequestHandler('resources/subscribe', async (request) => {
    const target = routeResource(offers, endpoint, request.params.uri);
    // A session subscribes once per URI, however often it asks.
    if (ledger && !ledger.add(target.server, target.upstream)) return {};
    await forward(target, `Subscribing to "${request.params.uri.slice(0, 200)}"`, () =>
      offers.subscribeResource(target.server, target.upstream),
    ).catch((error: unknown) => {
      ledger?.remove(target.server, target.upstream);
      throw error;
    });
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', async (request) => {
    const target = routeResource(offers, endpoint, request.params.uri);
    if (!ledger || ledger.remove(target.server, target.upstream)) await offers.unsubscribeResource(target.server, target.upstream);
    return {};
  });
}

/**
 * The skills extension (SEP-2640): the listing is the servers' as their connections last listed it
 * (one page; `private`, as a team gateway's listing depends on who asks), a listed skill is
 * answered from it and any other is asked of its server, and its files are read through
 * resources/read like any resource. Entries pass through as the server sent them: a client checks
 * them against the files it reads, as it would from the server itself.
 */
function registerSkillHandlers(
  { server, endpoint, offers, logger, forward, whenListed, listed }: HandlerContext,
  directoryRead: boolean,
): void {
  const cache = { ttlMs: 0, cacheScope: 'private' as const };
  server.setRequestHandler('skills/list', { params: ListSkillsRequestParamsSchema.optional() }, async (_params, ctx) => {
    await whenListed(ctx);
    return { resultType: 'complete', skills: listed(listedSkills(offers, endpoint), ctx), ...cache };
  });
  server.setRequestHandler('skills/get', { params: GetSkillRequestParamsSchema }, async (params, ctx) => {
    const listed = listedSkills(offers, endpoint).find((skill) => skill.uri === params.uri);
    if (listed) return { resultType: 'complete', skill: listed, ...cache };
    const target = routeSkill(offers, endpoint, params.uri);
    const options = clientRequestOptions(ctx, params, logger, `skills/get on ${target.server}`);
    const got = await forward(target, `Skill "${params.uri.slice(0, 200)}"`, () =>
      offers.forwardRequest(target.server, 'skills/get', { uri: target.upstream }, options),
    );
    return { ...got, resultType: 'complete', ...cache };
  });
  if (!directoryRead) return;
  server.setRequestHandler('resources/directory/read', { params: ReadResourceDirectoryRequestParamsSchema }, async (params, ctx) => {
    const target = routeSkill(offers, endpoint, params.uri);
    const options = clientRequestOptions(ctx, params, logger, `resources/directory/read on ${target.server}`);
    return forward(target, `Directory "${params.uri.slice(0, 200)}"`, () =>
      offers.forwardRequest(target.server, 'resources/directory/read', { ...upstreamParams(params), uri: target.upstream }, options),
    );
  });
}

function registerPromptHandlers({ server, endpoint, offers, forwardRelayed, whenListed, listed }: HandlerContext): void {
  server.setRequestHandler('prompts/list', async (_request, ctx) => {
    await whenListed(ctx);
    return { prompts: listed(listedPrompts(offers, endpoint), ctx) };
  });
  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const target = routePrompt(offers, endpoint, request.params.name);
    return forwardRelayed(
      target,
      `Prompt "${request.params.name.slice(0, 200)}"`,
      'prompts/get',
      { ...upstreamParams(request.params), name: target.upstream },
      ctx,
      request.params,
    );
  });
}

function registerCompletionHandler(
  { server, endpoint, offers, logger, forward }: HandlerContext,
  openRound: HandlerExtras['openRound'],
): void {
  server.setRequestHandler('completion/complete', async (request, ctx) => {
    const { ref } = request.params;
    const target = ref.type === 'ref/prompt' ? routePrompt(offers, endpoint, ref.name) : routeTemplate(offers, endpoint, ref.uri);
    const upstreamRef = ref.type === 'ref/prompt' ? { ...ref, name: target.upstream } : { ...ref, uri: target.upstream };
    const params = { ...upstreamParams(request.params), ref: upstreamRef };
    const options = clientRequestOptions(
      ctx,
      request.params,
      logger,
      target.server,
      openRound(ctx, 'completion/complete', target.upstream),
    );
    return forward(target, 'Completion', () => offers.forwardRequest(target.server, 'completion/complete', params, options));
  });
}

function registerLoggingHandler({ server, endpoint, offers, logger, forward }: HandlerContext, session: { logLevel?: string }): void {
  server.setRequestHandler('logging/setLevel', async (request, ctx) => {
    session.logLevel = request.params.level;
    const servers =
      endpoint.kind === 'server'
        ? [endpoint.server]
        : offers
            .offers()
            .filter((offer) => offer.capabilities?.logging)
            .map((offer) => offer.name);
    // The SDK's own handler would also record the level for this session, which filters what
    // the gateway relays; the upstream servers filter at the source.
    await Promise.all(
      servers.map((name) =>
        forward({ server: name, upstream: '' }, 'logging/setLevel', () =>
          offers.forwardRequest(
            name,
            'logging/setLevel',
            upstreamParams(request.params),
            clientRequestOptions(ctx, request.params, logger, name),
          ),
        ),
      ),
    ).catch((error: unknown) => {
      if (endpoint.kind === 'server') throw error;
      logger.debug(`logging/setLevel on the aggregated endpoint: ${String(error)}`);
    });
    return {};
  });
}
