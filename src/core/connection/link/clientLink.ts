// One SDK Client connected over one transport, in whichever protocol era the server speaks. The
// v2 client negotiates the era itself (`server/discover` first, the 2025 `initialize` handshake as
// the fallback); this module picks the transport, bounds the wait and describes failures.
import {
  Client,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SseError,
  StreamableHTTPClientTransport,
  type CreateMessageRequest,
  type CreateMessageResult,
  type DiscoverResult,
  type ElicitRequest,
  type ElicitResult,
  type FetchLike,
  type Implementation,
  type ListRootsResult,
  type AuthProvider,
  type Transport,
} from '@modelcontextprotocol/client';
import { sandboxOf, type ServerDefinition, type StdioServerDefinition, type TransportType } from '../../config';
import type { SandboxPlacement, StdioSandboxOptions } from './stdioLaunch';
import type { Logger } from '../../base/logging';
import { jsonSchemaValidator } from '../../base/jsonSchemaValidator';
import { LOOP_STATUS, SWITCHBOARD_CLIENT } from '../../base/selfLoop';
import { RESTART_HEADER, SocketTransport } from './socketTransport';
import { SwitchboardError } from './errors';
import { createSseTransport, createStreamableHttpTransport, describeFetchFailure, httpStatus, isUnreachable } from './httpTransport';
import { signInFailure, translateRequestError } from './requestErrors';
import { StdioProcessTransport } from './stdioTransport';
import { reissueOnBrokenStream } from './streamReissue';
import { SKILLS_EXTENSION } from './serverSkills';
import { clientTasksCapability, loadReceiver, receiveClientTasks } from './clientTasks';
import { RawRequests } from './rawRequests';
import { resultTypeMend, tapTransport } from '../../sdk';
import { errorMessage } from '../../base/errorMessage';

/** The 2025 revisions open with `initialize`; 2026-07-28 and later with `server/discover`. */
export type ProtocolEra = 'legacy' | 'modern';

/**
 * What an earlier connection learned about the server's era, so that the next one skips the
 * probe. The modern verdict carries the server's whole advertisement.
 */
export type EraVerdict = { readonly kind: 'legacy' } | { readonly kind: 'modern'; readonly discover: DiscoverResult };

/** What a connect attempt is waiting for, to say so when it times out. */
export type ConnectPhase = 'spawn' | 'connect' | 'initialize' | 'tools/list';

export interface StdioLaunch {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly platform: NodeJS.Platform;
  readonly killGraceMs?: number;
  readonly onStderrLine: (line: string) => void;
  readonly onGarbageLine?: (line: string) => void;
  readonly onSpawn?: (pid: number) => void;
  /** The user's Reconnect: a server shared through the machine host has its process there restarted too. */
  readonly restartShared?: boolean;
  /** The process is started again (it exited on the era probe): what the last one wrote is moot. */
  readonly onRestart?: () => void;
  /** A network access the server's sandbox refused, as a readable line. */
  readonly onSandboxDenial?: (text: string) => void;
  /** Where sandboxes come from, for a sandboxed server. */
  readonly sandboxPlacement?: SandboxPlacement;
}

/**
 * What a server may ask of Switchboard: in the 2025 era as requests of its own, in the 2026-07-28
 * era as `input_required` rounds of a call. The SDK routes both to the same handler. A capability
 * is declared only for a handler that is given; without one, a server that asks anyway gets an
 * error naming what it asked for (the full-MCP issue fills these in).
 */
export interface ServerRequestHandlers {
  /** `signal` ends when the server withdraws the request, or the task it belongs to ends. */
  readonly elicit?: (params: ElicitRequest['params'], signal?: AbortSignal) => Promise<ElicitResult>;
  readonly sample?: (params: CreateMessageRequest['params']) => Promise<CreateMessageResult>;
  readonly listRoots?: () => Promise<ListRootsResult>;
}

export interface LinkOptions {
  readonly definition: ServerDefinition;
  readonly logger: Logger;
  readonly clientInfo: Implementation;
  readonly signal: AbortSignal;
  /** Per request while connecting (the probe, initialize). 0 disables. */
  readonly requestTimeoutMs: number;
  readonly stdio: StdioLaunch;
  readonly fetch?: FetchLike;
  /** Signs in to a server that answers 401 (HTTP transports). */
  readonly authProvider?: AuthProvider;
  readonly onPhase: (phase: ConnectPhase) => void;
  /** Skips the era probe; absent, the client probes (and falls back to `initialize`). */
  readonly prior?: EraVerdict;
  /** The probe waits as long as any request (the server is known to answer it, only slowly). */
  readonly patientProbe?: boolean;
  readonly serverRequests?: ServerRequestHandlers;
}

export interface ClientLink {
  readonly client: Client;
  readonly transport: Transport;
  readonly kind: TransportType;
  readonly era: ProtocolEra;
  readonly protocolVersion: string;
  /** The era verdict to remember for the next connect. */
  readonly verdict: EraVerdict;
  /** Requests the SDK client refuses to carry (2026-07-28 tasks), on the same transport. */
  readonly raw: RawRequests;
}

/**
 * The capability Switchboard declares for each kind of request it can answer (to its servers, and
 * for the host on a gateway client's behalf).
 */
export const CAPABILITY_OF = {
  elicitation: { form: {}, url: {} },
  sampling: {},
  roots: { listChanged: true },
} satisfies Record<'elicitation' | 'sampling' | 'roots', object>;

/** The 2026-07-28 tasks extension (SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The MCP Apps extension (SEP-1865) and the one kind of view it defines. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** setTimeout's maximum; the SDK applies a 60 s default when no timeout is given. */
export const NO_TIMEOUT = 2_147_483_647;

export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export function createTransport(kind: TransportType, options: LinkOptions): Transport {
  const { definition, logger } = options;
  if (definition.transport === 'stdio') {
    const { stdio } = options;
    return new StdioProcessTransport({
      command: definition.command,
      args: definition.args,
      env: stdio.env,
      cwd: stdio.cwd,
      platform: stdio.platform,
      logger,
      onStderrLine: stdio.onStderrLine,
      onGarbageLine: stdio.onGarbageLine,
      onSpawn: stdio.onSpawn,
      killGraceMs: stdio.killGraceMs,
      ...sandboxOptions(definition, stdio),
    });
  }
  if (definition.hosted) {
    // The machine host's copy of a server: its socket, not the network (sharing/).
    const { command, args } = definition.hosted.definition;
    logger.info(`connecting to the machine host's ${definition.hosted.name}, which runs ${[command, ...args].join(' ')}`);
    return SocketTransport.upgrading({
      socketPath: definition.hosted.socket,
      path: new URL(definition.url).pathname,
      headers: {
        ...definition.headers,
        host: new URL(definition.url).host,
        ...(options.stdio.restartShared ? { [RESTART_HEADER]: '1' } : {}),
      },
      onStderrLine: options.stdio.onStderrLine,
    });
  }
  const http = { url: definition.url, headers: definition.headers, fetch: options.fetch, authProvider: options.authProvider };
  logger.info(`connecting to ${definition.url} (${kind === 'sse' ? 'legacy SSE' : 'streamable HTTP'})`);
  return kind === 'sse' ? createSseTransport(http) : createStreamableHttpTransport(http);
}

function sandboxOptions(
  definition: StdioServerDefinition,
  stdio: StdioLaunch,
): { sandbox?: StdioSandboxOptions; isolation?: { hidden: readonly string[] } } {
  const sandbox = sandboxOf(definition);
  const secrets = stdio.sandboxPlacement?.hostSecrets ?? [];
  if (!sandbox) return secrets.length > 0 ? { isolation: { hidden: secrets } } : {};
  // A client's server in the machine host protects that client's places, not the host's (it has none).
  const places = sandbox.places;
  const placement = places
    ? {
        ...stdio.sandboxPlacement,
        hostPlaces: () => places,
        toolDirs: [...(stdio.sandboxPlacement?.toolDirs ?? []), ...(places.toolDirs ?? [])],
      }
    : stdio.sandboxPlacement;
  return {
    sandbox: {
      server: definition.name,
      rules: sandbox.rules,
      placement,
      onDenial: stdio.onSandboxDenial,
    },
  };
}

/**
 * What Switchboard's client declares to its servers, given what it answers. `asSwitchboard`
 * (default true) says it is a Switchboard, whose lists a gateway of Switchboard's answers without
 * waiting; not said to the machine host, whose servers (processes it started) can never be waiting
 * on this client, so that a window's first list waits for the shared server to start.
 */
export function clientCapabilities(handlers: ServerRequestHandlers, asSwitchboard = true) {
  const tasks = clientTasksCapability(handlers);
  return {
    // MCP Apps: the editor renders a tool's `ui://` view, and the gateway passes views through
    // unchanged; a server that offers views only to hosts that say so offers them here too.
    // Skills (SEP-2640): listed and checked by the connection (serverSkills.ts); said, so that a
    // server that serves skills only to hosts that take them serves them here too.
    extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] }, [SKILLS_EXTENSION]: {} },
    // A gateway of Switchboard's answers a Switchboard's lists without waiting (base/selfLoop.ts).
    ...(asSwitchboard ? { experimental: { [SWITCHBOARD_CLIENT]: {} } } : {}),
    ...(handlers.elicit ? { elicitation: CAPABILITY_OF.elicitation } : {}),
    ...(handlers.sample ? { sampling: CAPABILITY_OF.sampling } : {}),
    ...(handlers.listRoots ? { roots: CAPABILITY_OF.roots } : {}),
    // Task-augmented sampling and elicitation (2025-11-25), answered by clientTasks.ts. A
    // 2026-07-28 server reads no `tasks` here (its tasks are an extension), and ignores it.
    tasks,
  };
}

export function newClient(
  options: Pick<LinkOptions, 'clientInfo' | 'requestTimeoutMs' | 'serverRequests' | 'patientProbe' | 'definition'>,
  kind: TransportType,
): Client {
  const handlers = options.serverRequests ?? {};
  const hosted = options.definition.transport !== 'stdio' && options.definition.hosted !== undefined;
  const client = new Client(options.clientInfo, {
    capabilities: clientCapabilities(handlers, !hosted),
    // The legacy SSE transport predates 2026-07-28: there is nothing to probe for. The hop to the
    // machine host is a session of its own (socketTransport.ts): it speaks 2025, whatever the
    // server behind it speaks, and the host's gateway bridges.
    versionNegotiation:
      kind === 'sse' || hosted
        ? { mode: 'legacy' }
        : {
            mode: 'auto',
            probe: { timeoutMs: options.patientProbe ? patientTimeout(options.requestTimeoutMs) : probeTimeout(options.requestTimeoutMs) },
          },
    // input_required rounds are answered by the same handlers as 2025-era server requests.
    inputRequired: { autoFulfill: true },
    jsonSchemaValidator,
  });
  const { elicit, sample, listRoots } = handlers;
  if (elicit) client.setRequestHandler('elicitation/create', (request, ctx) => elicit(request.params, ctx.mcpReq.signal));
  if (sample) client.setRequestHandler('sampling/createMessage', (request) => sample(request.params));
  if (listRoots) client.setRequestHandler('roots/list', () => listRoots());
  return client;
}

/**
 * A stdio server that ignores an unknown request before `initialize` is legacy; waiting the whole
 * connect timeout for it would leave no time for the handshake after it. At most half of it, and
 * at most 5 s: enough for a cold `npx` start to answer its first message. A modern server slower
 * than that still works, in the legacy era (modern servers answer `initialize` too).
 */
function probeTimeout(requestTimeoutMs: number): number {
  return requestTimeoutMs > 0 ? Math.min(Math.floor(requestTimeoutMs / 2), MAX_PROBE_MS) : MAX_PROBE_MS;
}

const MAX_PROBE_MS = 5_000;

const patientTimeout = (requestTimeoutMs: number) => (requestTimeoutMs > 0 ? requestTimeoutMs : NO_TIMEOUT);

/**
 * The server refused the 2025 `initialize` that followed a probe it did not answer in time: a
 * 2026-07-28-only server slow to start (a cold `npx`, a busy machine). It answers
 * `server/discover`, late; the next try waits for that answer.
 */
export function refusedLegacyHandshake(error: unknown): boolean {
  const cause = error instanceof SwitchboardError ? error.cause : error;
  return cause instanceof ProtocolError && cause.code === ProtocolErrorCode.UnsupportedProtocolVersion;
}

/**
 * The server closed the connection while it was asked `server/discover`: some 2025 servers (those
 * built on rmcp, for one) exit on any request before initialize. Such a server is legacy; the
 * process is gone, so the next attempt starts it again, straight into initialize.
 */
export function closedDuringProbe(error: unknown): boolean {
  const cause = error instanceof SwitchboardError ? error.cause : error;
  return (
    cause instanceof SdkError &&
    cause.code === SdkErrorCode.EraNegotiationFailed &&
    /closed during the server\/discover probe/.test(cause.message)
  );
}

/**
 * Connects a new client: spawn or reach the server, negotiate the era, and (legacy) initialize.
 * On failure the transport is closed (the process tree is gone) before it rejects.
 */
export async function linkClient(
  kind: TransportType,
  options: LinkOptions,
  wire: (client: Client, transport: Transport) => void,
): Promise<ClientLink> {
  const { signal } = options;
  const handlers = options.serverRequests ?? {};
  // Loaded before the transport starts: nothing below may wait once the server can speak.
  const receiver = clientTasksCapability(handlers) ? await loadReceiver() : undefined;
  const transport = createTransport(kind, options);
  const client = newClient(options, kind);
  let phase: ConnectPhase = kind === 'stdio' ? 'spawn' : 'connect';
  const enter = (next: ConnectPhase) => {
    phase = next;
    options.onPhase(next);
  };
  enter(phase);
  wire(client, transport);
  if (receiver) receiveClientTasks(receiver, client, handlers, options.logger);
  const timeout = options.requestTimeoutMs > 0 ? options.requestTimeoutMs : NO_TIMEOUT;
  try {
    // start() runs synchronously inside connect() up to its first await: by then the stdio process
    // is spawned and the HTTP transport is ready, so the next wait is for the handshake. (SSE
    // first waits for its endpoint event, still 'connect'.)
    const { prior } = options;
    const reissue = kind === 'http' ? reissueOnBrokenStream(transport, options.logger) : undefined;
    const raw = new RawRequests(transport);
    let mended = false;
    const mend = resultTypeMend(
      () => client.getProtocolEra() === 'modern',
      () => {
        if (mended) return;
        mended = true;
        options.logger.warn('the server leaves resultType out of its results, which 2026-07-28 requires; they are read as complete');
      },
    );
    const connecting = client.connect(tapTransport(transport, options.logger, { ...reissue, mend, take: raw.take }), {
      signal,
      timeout,
      prior,
    });
    if (kind !== 'sse') enter('initialize');
    await abortable(connecting, signal);
    if (transport instanceof StdioProcessTransport) transport.markEstablished();
    const discover = client.getDiscoverResult();
    const era: ProtocolEra = client.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
    return {
      client,
      transport,
      kind,
      era,
      protocolVersion: client.getNegotiatedProtocolVersion() ?? '',
      verdict: era === 'modern' && discover ? { kind: 'modern', discover } : { kind: 'legacy' },
      raw,
    };
  } catch (error) {
    // Described before closing: afterwards the process has exited because we ended it.
    const failure = signal.aborted ? signal.reason : connectFailure(error, kind, transport, phase, options);
    await transport.close().catch(() => undefined);
    throw failure;
  }
}

function connectFailure(
  error: unknown,
  kind: TransportType,
  transport: Transport,
  phase: ConnectPhase,
  options: LinkOptions,
): SwitchboardError {
  const { definition } = options;
  if (transport instanceof StdioProcessTransport && transport.exitStatus) {
    const { code, signal } = transport.exitStatus;
    return new SwitchboardError(
      'PROCESS_EXITED',
      `server process exited with ${signal ? `signal ${signal}` : `code ${code}`} during ${phase}`,
      { cause: error },
    );
  }
  if (error instanceof SwitchboardError) return error;
  // The state says it is the connect that needs the sign-in.
  const signIn = signInFailure(error);
  if (signIn) return signIn;
  const where = definition.transport === 'stdio' ? definition.command : definition.url;
  const status = httpStatus(error);
  if (status === LOOP_STATUS)
    return new SwitchboardError(
      'LOOP',
      `${where} is this Switchboard's own gateway (it refused a request from itself): serving it here would serve every tool back to itself; not connected`,
      { cause: error, status },
    );
  if (status !== undefined) {
    return new SwitchboardError(
      'HTTP_ERROR',
      `${kind === 'sse' ? 'SSE' : 'streamable HTTP'} ${phase} at ${where} failed with HTTP ${status}: ${errorMessage(error)}`,
      {
        cause: error,
        status,
      },
    );
  }
  if (isUnreachable(error) || (error instanceof TypeError && error.message === 'fetch failed')) {
    return new SwitchboardError('CONNECT_FAILED', `cannot reach ${where}: ${describeFetchFailure(error)}`, { cause: error, notSent: true });
  }
  if (error instanceof SseError)
    return new SwitchboardError('CONNECT_FAILED', `cannot open SSE stream at ${where}: ${error.message}`, { cause: error });
  if (error instanceof Error && /protocol version is not supported|negotiation failed/i.test(error.message)) {
    return new SwitchboardError('PROTOCOL_ERROR', error.message, { cause: error });
  }
  return translateRequestError(error, { what: phase, timeoutMs: options.requestTimeoutMs, maxTotalMs: 0, closing: false });
}

/** Ends a streamable-HTTP session with DELETE (bounded), then closes the client. Never throws. */
export async function closeLink(
  link: Pick<ClientLink, 'client' | 'transport' | 'raw'>,
  logger: Logger,
  terminateTimeoutMs: number,
): Promise<void> {
  const { transport } = link;
  link.raw.close();
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, terminateTimeoutMs)));
    await Promise.race([
      transport.terminateSession().catch((error: unknown) => logger.debug(`terminate session: ${errorMessage(error)}`)),
      timedOut,
    ]);
    clearTimeout(timer);
  }
  await link.client.close().catch((error: unknown) => logger.debug(`close: ${errorMessage(error)}`));
}
