// The MCP server behind one client session of one endpoint (2025 era), or behind one request
// (2026-07-28 era, which has no sessions). The low-level SDK Server (not McpServer) because tools
// are served as raw JSON Schema exactly as the upstream sent them.
import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolErrorCode,
  Server,
  type CallToolRequestParams,
  type CallToolResult,
  type CreateTaskResult,
  type Implementation,
  type InputRequiredResult,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  type ClientInputRound,
  type CallerOptions,
  type OnBehalfOf,
  isSwitchboardError,
  type RelayRouter,
  SKILLS_EXTENSION,
} from '../connection';
import {
  clientNameOf,
  sessionRound,
  signInRound,
  type GatewayRounds,
  type OpenRound,
  sessionRelayedRun,
  type RelayedRun,
  type CallBridge,
  clientRequestOptions,
} from './rounds';
import type { CallReach, OfferedServer, OfferSource, ToolSource } from '../catalog';
import type { Logger } from '../base/logging';
import { TaskReceivingServer, taskHandlePast } from '../sdk';
import { jsonSchemaValidator } from '../base/jsonSchemaValidator';
import { rpcError, toProtocolError, upstreamError, CALL_TOOL, FIND_TOOLS, listedTools, offersSearchTools, taskSupportOf } from './exposure';
import { describeEndpoint, endpointKey, endpointPath, type EndpointId, type CallTarget } from './http';
import {
  callOrEscalate,
  registerModernTaskHandlers,
  TASKS_EXTENSION,
  type ModernTasks,
  drivesTasks,
  GATEWAY_TASKS,
  noTaskSupport,
  registerTaskHandlers,
  startToolTask,
  type GatewayTasks,
} from './tasks';
import { registerOfferHandlers, type SubscriptionLedger, endpointCapabilities, endpointInstructions, servedOffers } from './offers';
import { principalOf, type Principal, type UpstreamTokens } from '../identity';
import { traceContextOf, type CallTracer, type TraceContext } from './callTracing';
import { SWITCHBOARD_CLIENT, withTrail } from '../base/selfLoop';

export const GATEWAY_INFO: Implementation = { name: 'mcp-switchboard', title: 'MCP Switchboard', version: '0.1.0' };

/**
 * A per-server endpoint introduces itself with the upstream server's configured name: the editor
 * prefixes chat tool names with the name a server reports (`mcp_<name>_<tool>`), and users know
 * their servers by the names they configured.
 */
export function endpointInfo(endpoint: EndpointId, served: readonly OfferedServer[] = []): Implementation {
  if (endpoint.kind !== 'server') return GATEWAY_INFO;
  // The rest of the upstream's identity passes through: its version, website and icons (bounded
  // when the connection read them). Not its title: the editor prefers the title over the name when
  // it builds the prefix, so it stays the configured name too.
  const upstream = served[0]?.serverInfo;
  // The machine host's endpoint for a window (asItself): the upstream as it names itself.
  const identity =
    endpoint.asItself && upstream
      ? { name: upstream.name, ...(upstream.title === undefined ? {} : { title: upstream.title }) }
      : { name: endpoint.server, title: endpoint.server };
  return {
    ...identity,
    version: upstream?.version ?? GATEWAY_INFO.version,
    ...(upstream?.websiteUrl ? { websiteUrl: upstream.websiteUrl } : {}),
    ...(upstream?.icons
      ? { icons: upstream.icons.map(({ sizes, ...icon }) => ({ ...icon, ...(sizes ? { sizes: [...sizes] } : {}) })) }
      : {}),
  };
}

function endpointServers(endpoint: EndpointId): string[] | undefined {
  return endpoint.kind === 'server' ? [endpoint.server] : undefined;
}

/**
 * Where a tools/call of an endpoint goes. A server's endpoint names its tool directly; a qualified
 * name is found by the catalog (ToolSource.readyTool), which waits, once, for a name that no server
 * lists yet while servers start. Whether the tool may be called is the catalog's decision too.
 */
async function targetOf(
  source: ToolSource,
  endpoint: EndpointId,
  name: string,
  options: { readonly signal: AbortSignal; readonly reach: CallReach; readonly caller: string },
): Promise<CallTarget> {
  if (endpoint.kind === 'server') return { server: endpoint.server, name };
  try {
    const ready = await source.readyTool({ qualifiedName: name }, options);
    return { server: ready.server, name: ready.tool, qualified: true, readyBy: ready.readyBy };
  } catch (error) {
    if (isSwitchboardError(error, 'NOT_READY')) throw upstreamError(error, error.server ?? describeEndpoint(endpoint));
    throw toProtocolError(error, { server: describeEndpoint(endpoint), name, qualified: true });
  }
}

/** What a session server serves besides tools, and how it relays what servers ask. */
export interface SessionExtras {
  /** Resources, prompts, completion and logging; without it, tools only. */
  readonly offers?: OfferSource;
  /** A 2025 session's subscriptions; a 2026-07-28 request has none to keep. */
  readonly ledger?: SubscriptionLedger;
  /** Sends a server's elicitation, sampling and roots requests back to the client that caused them. */
  readonly relays: RelayRouter;
  /** Gives a 2026-07-28 client the upstream's input_required rounds (one per gateway: it holds the key). */
  readonly rounds?: GatewayRounds;
  /** A 2025 session's tasks, for a client that drives them itself (taskHandlers.ts). */
  readonly tasks?: GatewayTasks;
  /** The gateway's tasks for 2026-07-28 clients that declare the tasks extension (modernTasks.ts). */
  readonly modernTasks?: ModernTasks;
  /** Gives a 2026-07-28 client what a 2025 upstream asks mid-call, as rounds (callBridge.ts). */
  readonly bridge?: CallBridge;
  /** The user a team gateway's request comes from (`source` and `offers` are then their view). */
  readonly principal?: Principal;
  /** Spans of tool calls, and the trace context passed upstream (serve --otlp-endpoint). */
  readonly tracer?: CallTracer;
  /** A team gateway's users' own tokens, for upstreams that take them (`oauth.perUser`). */
  readonly upstreamTokens?: UpstreamTokens;
  /** This Switchboard's id: what the endpoint lists carries it in its trail (base/selfLoop.ts). */
  readonly switchboardId?: string;
}

/**
 * Whether the request's client is a Switchboard (it declares so, base/selfLoop.ts): its lists are
 * answered with what is known now, as waiting for servers still starting could be waiting for it.
 */
function fromSwitchboard(server: Server, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = (envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities()) as
    { experimental?: Record<string, unknown> } | undefined;
  return declared?.experimental?.[SWITCHBOARD_CLIENT] !== undefined;
}

/**
 * A list as this gateway serves it: to a Switchboard, each item with this one in its trail; to any
 * other client, exactly as the servers listed it.
 */
function trailed<T extends object>(items: T[], server: Server, ctx: ServerContext, id: string | undefined): T[] {
  return id === undefined || !fromSwitchboard(server, ctx) ? items : items.map((item) => withTrail(item, id));
}

export function createSessionServer(endpoint: EndpointId, source: ToolSource, logger: Logger, extras: SessionExtras): Server {
  const { offers } = extras;
  // What the endpoint's servers offer besides tools, as of now: a 2025 session keeps what it was
  // told at initialize, as the protocol has no way to change capabilities later.
  // Read once: a 2026-07-28 request builds its server anew, so this is on every request's path.
  const served = offers ? servedOffers(offers, endpoint) : [];
  const offerCapabilities = offers ? endpointCapabilities(served) : {};
  const { tasks, modernTasks } = extras;
  const { skills, ...standardCapabilities } = offerCapabilities;
  const extensions: Record<string, Record<string, boolean>> = {
    ...(skills ? { [SKILLS_EXTENSION]: skills.directoryRead ? { directoryRead: true } : {} } : {}),
    ...(modernTasks ? { [TASKS_EXTENSION]: {} } : {}),
  };
  // The upstream's instructions, in initialize (2025) and server/discover (2026-07-28) alike.
  const instructions = endpointInstructions(served, endpoint);
  const server = new (tasks || modernTasks ? TaskReceivingServer : Server)(endpointInfo(endpoint, served), {
    // Capabilities copied from upstream servers: JSON objects, typed loosely in the catalog.
    capabilities: {
      tools: { listChanged: true },
      ...(standardCapabilities as ServerCapabilities),
      ...(tasks ? { tasks: GATEWAY_TASKS } : {}),
      ...(Object.keys(extensions).length > 0 ? { extensions } : {}),
    },
    ...(instructions ? { instructions } : {}),
    ...(extras.rounds ? { requestState: { verify: extras.rounds.verify } } : {}),
    jsonSchemaValidator,
  });
  const relayed = sessionRelayedRun(server, extras.relays, extras.bridge);
  // A 2025 session's log level (logging/setLevel), for a 2026-07-28 upstream that takes it per request.
  const session: { logLevel?: string } = {};
  // A round's state is bound to the user too: another user's request cannot spend it.
  const key = extras.principal ? `${endpointKey(endpoint)}\u0000${extras.principal.key}` : endpointKey(endpoint);
  const openRound = (ctx: ServerContext, method: string, target: string): OpenRound => {
    const round = extras.rounds?.open(ctx, key, method, target) ?? sessionRound(session.logLevel);
    // The user this request is made for: an upstream that takes each user's own token gets theirs.
    const user = onBehalfOf(extras.upstreamTokens, ctx);
    return user ? { ...round, options: { ...round.options, onBehalfOf: user } } : round;
  };
  if (tasks) registerTaskHandlers(server, tasks, logger);
  if (modernTasks) registerModernTaskHandlers(server, modernTasks);
  if (offers)
    registerOfferHandlers(server, endpoint, offers, offerCapabilities, logger, relayed, {
      openRound,
      session,
      whenListed: async (ctx) => {
        if (!fromSwitchboard(server, ctx)) await source.whenToolsKnown?.(endpointServers(endpoint), ctx.mcpReq.signal);
      },
      listed: (items, ctx) => trailed(items, server, ctx, extras.switchboardId),
      ledger: extras.ledger,
    });

  registerToolHandlers({ server, endpoint, source, logger, extras, openRound, relayed });
  return server;
}

/** What the tool handlers of one session server need. */
interface ToolHandlerContext {
  readonly server: Server;
  readonly endpoint: EndpointId;
  readonly source: ToolSource;
  readonly logger: Logger;
  readonly extras: SessionExtras;
  readonly openRound: (ctx: ServerContext, method: string, target: string) => OpenRound;
  readonly relayed: RelayedRun;
}

function registerToolHandlers({ server, endpoint, source, logger, extras, openRound, relayed }: ToolHandlerContext): void {
  const { tasks, modernTasks } = extras;
  server.setRequestHandler('tools/list', async (_request, ctx) => {
    // A client that connects while servers are still starting (serve was just launched) would
    // otherwise get an empty or partial list; starting servers with nothing cached are awaited.
    if (!fromSwitchboard(server, ctx)) await source.whenToolsKnown?.(endpointServers(endpoint), ctx.mcpReq.signal);
    const tools = listedTools(source.snapshot(), endpoint, { execution: tasks !== undefined && drivesTasks(server) });
    return { tools: trailed(tools, server, ctx, extras.switchboardId) };
  });

  server.setRequestHandler('tools/call', async (incoming, ctx): Promise<CallToolResult | InputRequiredResult> => {
    const search = endpoint.kind === 'aggregated' && offersSearchTools(source.snapshot()) ? incoming.params.name : undefined;
    if (search === FIND_TOOLS) return findTools(source, incoming.params.arguments ?? {});
    // A found tool is called as if by its own name, through the same mapping, gate and relays;
    // only the budget's cut does not stop it (reach 'eligible').
    const request = search === CALL_TOOL ? { ...incoming, params: foundToolCall(incoming.params) } : incoming;
    const reach: CallReach = search === CALL_TOOL ? 'eligible' : 'exposed';
    const user = onBehalfOf(extras.upstreamTokens, ctx);
    const caller = callerOf(server, ctx, extras.principal);
    const mapped: CallerTarget = {
      ...(await targetOf(source, endpoint, request.params.name, { signal: ctx.mcpReq.signal, reach, caller })),
      reach,
      caller,
      onBehalfOf: user,
    };
    const parent = extras.tracer ? traceContextOf(request.params._meta) : undefined;
    const traced = extras.tracer?.startCall({
      endpoint: endpointPath(endpoint),
      server: mapped.server,
      tool: mapped.name,
      caller: mapped.caller,
      parent,
    });
    const target = traced ? { ...mapped, trace: traced.upstream } : mapped;
    let answer: CallToolResult | InputRequiredResult;
    try {
      if (tasks && request.params.task !== undefined) {
        // The SDK types this handler's answer as a CallToolResult; TaskReceivingServer lets the task's through.
        answer = taskCall(server, tasks, extras.relays, source, logger, target, request.params) as unknown as CallToolResult;
      } else {
        const round = openRound(ctx, 'tools/call', request.params.name);
        // Server-directed (2026-07-28 tasks): any call still running after a moment becomes a task, for a client that declared them.
        if (modernTasks && round.options.clientTasks?.declared === true) {
          answer = await callOrEscalate(modernTasks, ctx, round, (options, relay) =>
            extras.relays.run(target.server, relay, callFor, options, source, target, request.params),
          );
        } else {
          const options = clientRequestOptions(ctx, request.params, logger, `${target.server}/${target.name}`, round);
          logger.debug(`${describeEndpoint(endpoint)}: tools/call ${target.server}/${target.name}`);
          // callFor gives the client the JSON-RPC error; what the relay and the round throw already is one.
          answer = (await round.reply(await relayed(target.server, ctx, callFor, options, source, target, request.params))) as
            CallToolResult | InputRequiredResult;
        }
      }
    } catch (error) {
      const signIn = signInRound(error, ctx);
      traced?.end(signIn ? outcomeOf(signIn) : String((error as { code?: unknown }).code ?? 'error'));
      if (signIn) return signIn;
      throw error;
    }
    traced?.end(outcomeOf(answer));
    return taskHandlePast(answer);
  });
}

/** How a tools/call answered, for its span: `ok`, `toolError`, or a round or a task for the client. */
function outcomeOf(result: CallToolResult | InputRequiredResult): string {
  const kind = (result as { resultType?: unknown }).resultType;
  if (kind === 'input_required' || kind === 'task') return kind;
  return (result as CallToolResult).isError === true ? 'toolError' : 'ok';
}

/** The tool a request calls, who asked (for the audit log), and the trace context for the upstream. */
type CallerTarget = CallTarget & {
  readonly caller?: string;
  readonly trace?: TraceContext;
  readonly onBehalfOf?: OnBehalfOf;
  readonly reach?: CallReach;
};

/** switchboard__find_tools: the source's search, as the tool's text (JSON). */
function findTools(source: ToolSource, args: Record<string, unknown>): CallToolResult {
  const query = typeof args.query === 'string' ? args.query : '';
  if (!query.trim() || !source.searchTools)
    return { isError: true, content: [{ type: 'text', text: 'Give "query": what you want to do, in a few words.' }] };
  const limit = typeof args.limit === 'number' ? args.limit : undefined;
  const tools = source.searchTools(query, limit === undefined ? {} : { limit }).map((hit) => ({
    qualifiedName: hit.qualifiedName,
    ...(hit.title ? { title: hit.title } : {}),
    description: hit.description,
    inputSchema: hit.inputSchema,
    readOnly: hit.readOnly,
    why: hit.why,
  }));
  return { content: [{ type: 'text', text: JSON.stringify({ tools }) }] };
}

/** switchboard__call_tool's arguments as the call of the tool they name. */
function foundToolCall(params: CallToolRequestParams): CallToolRequestParams {
  const args = params.arguments ?? {};
  if (typeof args.tool !== 'string' || args.tool === '')
    throw rpcError(ProtocolErrorCode.InvalidParams, `${CALL_TOOL} needs "tool": a qualified name from ${FIND_TOOLS}`);
  const toolArgs = args.arguments;
  if (toolArgs !== undefined && (typeof toolArgs !== 'object' || toolArgs === null || Array.isArray(toolArgs)))
    throw rpcError(ProtocolErrorCode.InvalidParams, `${CALL_TOOL}: "arguments" must be an object`);
  return { ...params, name: args.tool, arguments: (toolArgs ?? {}) as Record<string, unknown> };
}

/** The call a task runs: as a plain request makes it, failing with the JSON-RPC error its client should see. */
async function callFor(
  options: CallerOptions,
  source: ToolSource,
  target: CallerTarget,
  params: CallToolRequestParams,
): Promise<CallToolResult | ClientInputRound> {
  try {
    const sent = {
      ...options,
      ...(target.readyBy === undefined ? {} : { readyBy: target.readyBy }),
      ...(target.caller ? { caller: target.caller } : {}),
      ...(target.onBehalfOf ? { onBehalfOf: target.onBehalfOf } : {}),
      ...(target.trace ? { meta: { ...options.meta, ...target.trace } } : {}),
    };
    return (await source.callExposedTool(target.server, target.name, params.arguments ?? {}, sent, target.reach)) as
      CallToolResult | ClientInputRound;
  } catch (error) {
    throw toProtocolError(error, target, params.name);
  }
}

/** The signed-in user of a team gateway a request is made for, with the token they sent. */
function onBehalfOf(tokens: UpstreamTokens | undefined, ctx: ServerContext): OnBehalfOf | undefined {
  const authInfo = ctx.http?.authInfo;
  const principal = principalOf(authInfo);
  if (!tokens || !principal || !authInfo?.token) return undefined;
  const subjectToken = authInfo.token;
  return {
    user: principal.subject,
    tokenFor: (definition) => tokens.tokenFor(principal, subjectToken, definition),
    refused: (definition) => tokens.forget?.(principal, definition),
  };
}

/**
 * Who asked, for the audit log: the user's subject on a team gateway, and `name@version` as the
 * client gave them (per request for a 2026-07-28 client, from initialize for a 2025 session).
 */
function callerOf(server: Server, ctx: ServerContext, principal: Principal | undefined): string {
  const info = server.getClientVersion();
  const client =
    ctx.mcpReq.envelope !== undefined
      ? clientNameOf(ctx)
      : `${info?.name.slice(0, 200) ?? '(unnamed)'}@${info?.version.slice(0, 50) ?? ''}`;
  return principal ? `${principal.subject.slice(0, 255)} via ${client}` : client;
}

/** A task-augmented call (2025-11-25): the task is created and returned, the call runs in it. */
function taskCall(
  server: Server,
  tasks: GatewayTasks,
  relays: RelayRouter,
  source: ToolSource,
  logger: Logger,
  target: CallerTarget,
  params: CallToolRequestParams,
): CreateTaskResult {
  if (taskSupportOf(source.snapshot(), target) === 'forbidden') throw noTaskSupport(params.name);
  const run = (options: CallerOptions) => callFor(options, source, target, params) as Promise<CallToolResult>;
  const created = startToolTask({ server, tasks, relays, logger, upstream: target.server, run }, params);
  logger.info(`tools/call ${target.server}/${target.name} runs as task ${created.task.taskId}, which its client drives`);
  return created;
}
