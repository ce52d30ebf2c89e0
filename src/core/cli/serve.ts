// `mcp-switchboard serve`: the manager, the catalog and the gateway without the editor, until the
// signal aborts (the CLI aborts on SIGINT/SIGTERM). stdout carries exactly one JSON line saying
// where to connect; everything else goes to stderr.
import fs from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { FolderToolCacheStorage, type SettledCall } from '../catalog';
import { loadFolderConfiguration, USER_SETTINGS_ENV, type ConfigDiagnostic, type LoadedConfiguration } from '../config';
import { LOG_LEVELS, type Logger, type LogLevel } from '../base/logging';
import { isInvalid, type ConfiguredServer, type ServerManager } from '../manager';
import { HostLink, hostLauncher, hostPlace, type HostCommand, type HostPlace } from '../machine';
import { ServerSharing, SHARE_SETTING, sharesNothing, sharingPolicyFrom } from '../sharing';
import { PRODUCT_VERSION } from '../base/version';
import { defaultCredentialsFile, FileSecretStore } from '../auth';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { createGatewayMetrics, createRuntime, LAUNCHED_BY_ENV, type SwitchboardRuntime } from '../runtime';
import { cliAnswers, readCatalogSettings, readUserSetting, serveCacheDir, thisCliLaunchers } from './folder';
import { readGatewayTokenSecret, readOrCreateGatewayToken } from '../share';
import { parseServeArgs, type LogFormat, type ServeOAuth } from './serveArgs';
import { loadTeamIdentity } from './serveIdentity';
import { startCluster, type ServeCluster } from './serveCluster';
import { startTracing } from './serveTracing';
import type { DeniedCall, UpstreamTokens } from '../identity';
import { displayLines } from '../base/displayText';
import { errorMessage } from '../base/errorMessage';
import { settleWorkspaceConsent, type Confirm, type ConsentedServers, type ConsentFile } from '../consent';
import { terminalConfirm } from './terminalQuestion';
import type { AccessEntry, CallTracer, GatewayReach, IdentityFactory, ReplicaRouter } from '../gateway';

export interface ServeOptions {
  readonly folder: string;
  /** 0 or absent: an ephemeral port. */
  readonly port?: number;
  /**
   * Default true: the ready line waits until every enabled server has finished its first connect
   * attempt (running, failed, or retrying), bounded by the longest connect timeout.
   */
  readonly wait?: boolean;
  /** Reads (or creates, 0600) the gateway's token here, so it is the same on every run. */
  readonly tokenFile?: string;
  /** Reads the gateway's token from a mounted Secret (read only, never created). */
  readonly tokenSecret?: string;
  /**
   * A settings file in the editor's format (`mcpSwitchboard.servers`, `.tools`, `.sandbox`…), read
   * as the editor reads its user settings: a team gateway's configuration. Default:
   * $MCP_SWITCHBOARD_USER_SETTINGS.
   */
  readonly configFile?: string;
  /** Where the gateway listens and who may reach it; absent: 127.0.0.1 only. */
  readonly reach?: GatewayReach;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** Aborting it shuts everything down (after the drain); runServe then resolves. */
  readonly signal: AbortSignal;
  /** Aborting it ends the drain at once (a second SIGTERM or Ctrl+C). */
  readonly force?: AbortSignal;
  /** How long the gateway waits for calls in flight once stopped. Default 25 s (Kubernetes gives 30). */
  readonly drainMs?: number;
  /**
   * Once stopped, how long it still serves new requests while /readyz answers 503, so that a load
   * balancer probing it stops sending first. Default 0.
   */
  readonly unreadyMs?: number;
  /** stderr's lines: `text` (`[level] message`, default) or `json` (one object per line, for a log collector). */
  readonly logFormat?: LogFormat;
  /** One line per gateway request (method, path, status, ms, client, JSON-RPC method). */
  readonly accessLog?: boolean;
  /** Prometheus metrics at /metrics (with the token). */
  readonly metrics?: boolean;
  /** One line per tool call: who (as the client names itself), which tool, outcome, time; never the arguments. */
  readonly auditLog?: boolean;
  /** A team gateway: users' OAuth access tokens instead of the static token, and a policy. */
  readonly oauth?: ServeOAuth;
  /** One replica of a team gateway among several (forwarding, and Redis for finished tasks). */
  readonly cluster?: ServeCluster;
  /** OpenTelemetry traces of the tool calls, sent to this OTLP/HTTP endpoint. */
  readonly otlpEndpoint?: string;
  /** For `${env:...}`, `${input:...}` (MCP_SWITCHBOARD_INPUT_*) and the servers' environment. Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Default os.homedir(); locates the Cursor and Claude Desktop files. */
  readonly userHome?: string;
  /** Lowest level written to stderr. Default info. */
  readonly logLevel?: LogLevel;
  /** Run the folder's own stdio servers without asking (and without remembering). */
  readonly trustWorkspace?: boolean;
  /** Asks on the terminal; absent: the folder's servers need --trust-workspace or an earlier answer. */
  readonly ask?: Confirm;
  /** Where consent is kept; defaults to the file the editor shares. */
  readonly consent?: ConsentFile;
  /**
   * Serve one client on `stdin`/`stdout` (the MCP stdio transport) instead of HTTP: no ready line,
   * and it ends when the client closes stdin. Every server starts when first used unless `eager`.
   */
  readonly stdio?: boolean;
  readonly eager?: boolean;
  /** Default process.stdin; read only with `stdio`. */
  readonly stdin?: Readable;
  /**
   * With `stdio`: how to start the machine host when there is none (this CLI, as it was run). The
   * user-level servers are then shared with every window and agent (`mcpSwitchboard.shareServers`);
   * absent, this serve runs them itself.
   */
  readonly hostCommand?: HostCommand;
}

/** The one line printed on stdout once the gateway listens. */
export interface ServeReady {
  /** The aggregated endpoint: every exposed tool under its qualified name. */
  readonly url: string;
  readonly token: string;
  /** Server name -> its own endpoint. */
  readonly servers: Readonly<Record<string, string>>;
}

/**
 * Resolves with the exit code: 0 after a clean shutdown, 1 when serving failed, 2 when the folder
 * or its settings file cannot be read.
 */
export async function runServe(options: ServeOptions): Promise<number> {
  const logger = streamLogger(options.stderr, options.logLevel ?? 'info', options.logFormat ?? 'text');
  if (!isDirectory(options.folder)) {
    logger.error(`folder not found: ${options.folder}`);
    return 2;
  }
  const env = options.env ?? process.env;
  if (env[LAUNCHED_BY_ENV]) {
    // An entry that launches Switchboard (Share writes one) read by Switchboard itself: serving
    // the folder's servers again inside it would run them twice, or launch serve within serve.
    logger.error(
      'this serve was started by Switchboard itself, through a server entry that launches Switchboard (such as the one Share writes): it does not serve the same servers again inside it',
    );
    return 2;
  }
  let token: string | undefined;
  try {
    if (options.tokenSecret) token = readGatewayTokenSecret(options.tokenSecret);
    else if (options.tokenFile) token = readOrCreateGatewayToken(options.tokenFile);
  } catch (error) {
    logger.error(`${options.tokenSecret ? '--token-secret' : '--token-file'}: ${errorMessage(error)}`);
    return 2;
  }
  // --config names the settings file a team's gateway is configured by; else the editor's user
  // settings when the Share launcher names them.
  const userSettingsFile = options.configFile ?? (env[USER_SETTINGS_ENV] || undefined);
  if (options.configFile !== undefined && !fs.existsSync(options.configFile)) {
    logger.error(`--config: ${options.configFile} does not exist`);
    return 2;
  }
  const shared = options.stdio ? await startSharing(hostPlace(env), options, userSettingsFile, logger) : undefined;
  try {
    return await serveFolder(options, env, token, userSettingsFile, shared, logger);
  } finally {
    shared?.dispose();
  }
}

/** The folder's configuration, consent and runtime; then the gateway (HTTP) or the one agent (stdio). */
async function serveFolder(
  options: ServeOptions,
  env: Readonly<Record<string, string | undefined>>,
  token: string | undefined,
  userSettingsFile: string | undefined,
  shared: SharedServers | undefined,
  logger: Logger,
): Promise<number> {
  const loaded = await loadFolderConfiguration(options.folder, {
    env,
    launchers: thisCliLaunchers(),
    userSettingsFile,
    userHome: options.userHome,
  });
  if (loaded.kind === 'unreadable') {
    // Serving without the file's filters could expose tools the user denied: refuse instead.
    for (const diagnostic of loaded.diagnostics) logger.error(formatDiagnostic(diagnostic));
    return 2;
  }
  const configuration: LoadedConfiguration = {
    servers: loaded.servers,
    diagnostics: loaded.diagnostics,
    files: loaded.files,
    teams: loaded.teams,
  };
  for (const diagnostic of configuration.diagnostics) {
    logger[diagnostic.severity === 'error' ? 'error' : 'warn'](formatDiagnostic(diagnostic));
  }
  // An agent's serve with servers to share starts the machine host now: it loads while consent is
  // settled and the runtime built, and runs nothing until share() hands it servers.
  void shared?.sharing.warmFor(configuration.servers);
  const consented = await askConsent(configuration, options, env, logger);
  // The tool cache on disk lets a restarted serve list every server's tools at once, before the
  // slow ones have connected (the editor gets the same from its storage).
  const cacheDir = serveCacheDir(options.folder, env);
  logger.debug(`tool cache: ${cacheDir}`);
  // A team gateway's own secrets (the key its replicas share, its token, its upstreams' credentials):
  // no stdio upstream may read them (sandbox/isolation.ts). One person's serve runs their own servers.
  const hostSecrets =
    options.oauth || options.cluster
      ? [options.cluster?.keyFile, options.tokenSecret, options.tokenFile, defaultCredentialsFile(env)].filter(
          (file): file is string => file !== undefined,
        )
      : [];
  const runtime = createRuntime({
    logger,
    connection: {
      defaultCwd: options.folder,
      baseEnv: env,
      sandbox: { hostPlaces: () => ({ workspaceFolders: [options.folder] }), ...(hostSecrets.length > 0 ? { hostSecrets } : {}) },
    },
    storage: new FolderToolCacheStorage(cacheDir),
    settings: await readCatalogSettings(options.folder, userSettingsFile),
    hostAnswers: cliAnswers(options.folder, 'serve'),
    // Signed in with `mcp-switchboard login`; serve refreshes but never signs in (nobody to ask).
    secrets: new FileSecretStore(defaultCredentialsFile(env)),
  });
  try {
    if (options.stdio) return await serveStdio(runtime, consented, options, logger, shared);
    return await serveHttp(runtime, consented, options, token, logger);
  } catch (error) {
    logger.error(`serve failed: ${errorMessage(error)}`);
    return 1;
  } finally {
    await runtime.dispose();
  }
}

/** HTTP serve: the servers, then the gateway on its port until the signal, then the drain. */
async function serveHttp(
  runtime: SwitchboardRuntime,
  consented: ConsentedServers,
  options: ServeOptions,
  token: string | undefined,
  logger: Logger,
): Promise<number> {
  const cluster = options.cluster ? await startCluster(options.cluster, logger) : undefined;
  try {
    // Before any server starts: an issuer that cannot be read or a broken policy stops serve here.
    const team = options.oauth
      ? await loadTeamIdentity(
          options.oauth,
          options.auditLog ? deniedAuditLogger(options.stderr, options.logFormat ?? 'text') : undefined,
          logger,
          {
            // Where users' browsers reach the gateway: the resource it names, else where it listens.
            publicBase: () => String(options.oauth?.resource ?? runtime.gateway().url).replace(/\/mcp\/?$/, ''),
            server: (name) => {
              const definition = runtime.manager.server(name)?.definition;
              return definition && definition.transport !== 'stdio' ? definition : undefined;
            },
            ...(cluster ? { sealer: cluster.sealerFor('mcp-switchboard user sign-in') } : {}),
            ...(cluster?.values ? { values: cluster.values } : {}),
          },
        )
      : undefined;
    const tracing = options.otlpEndpoint ? await startTracing(options.otlpEndpoint) : undefined;
    try {
      return await serveUntilStopped(runtime, consented, options, token, logger, {
        identity: team?.identity,
        upstreamTokens: team?.upstreamTokens,
        replicas: cluster?.router,
        tracer: tracing?.tracer,
      });
    } finally {
      await tracing?.shutdown();
    }
  } finally {
    await cluster?.dispose();
  }
}

/** What a team gateway adds to the gateway, each absent unless asked for. */
interface TeamParts {
  readonly identity: IdentityFactory | undefined;
  readonly upstreamTokens: UpstreamTokens | undefined;
  readonly replicas: ReplicaRouter | undefined;
  readonly tracer: CallTracer | undefined;
}

async function serveUntilStopped(
  runtime: SwitchboardRuntime,
  consented: ConsentedServers,
  options: ServeOptions,
  token: string | undefined,
  logger: Logger,
  { identity, upstreamTokens, replicas, tracer }: TeamParts,
): Promise<number> {
  await runtime.manager.start(consented.servers, consented.blocks);
  if (options.wait !== false)
    await firstAttemptsDone(
      runtime.manager,
      consented.servers.filter((server) => !consented.blocks.has(server.name)),
      options.signal,
    );
  if (options.signal.aborted) return 0;
  // The gateway, created just below, is the one runtime.gateway() returns from then on.
  const metrics = options.metrics
    ? await createGatewayMetrics({ catalog: runtime.catalog, manager: runtime.manager, sessions: () => runtime.gateway().sessionCount })
    : undefined;
  const audit = options.auditLog ? runtime.catalog.onDidSettleCall(auditLogger(options.stderr, options.logFormat ?? 'text')) : undefined;
  try {
    const logAccess = options.accessLog ? accessLogger(options.stderr, options.logFormat ?? 'text') : undefined;
    const onAccess = [logAccess, metrics?.access].filter((sink) => sink !== undefined);
    const gateway = runtime.gateway({
      port: options.port ?? 0,
      reach: options.reach,
      ...(onAccess.length > 0 ? { onAccess: (entry: AccessEntry) => onAccess.forEach((sink) => sink(entry)) } : {}),
      metrics,
      ...(token ? { token } : {}),
      identity,
      upstreamTokens,
      replicas,
      tracer,
    });
    await gateway.start();
    const ready: ServeReady = {
      url: gateway.aggregatedUrl,
      token: gateway.token,
      servers: Object.fromEntries(gateway.servers().map((name) => [name, gateway.endpointUrl(name)])),
    };
    options.stdout.write(`${displayLines(JSON.stringify(ready))}\n`);
    await aborted(options.signal);
    logger.info('shutting down');
    const drained = await gateway.drain(options.drainMs ?? DEFAULT_DRAIN_MS, options.force, options.unreadyMs ?? 0);
    if (drained.left === 0) logger.info('every call in flight was answered');
    return 0;
  } finally {
    audit?.dispose();
    metrics?.dispose();
  }
}

/** This agent's side of the machine host: its servers shared with every window and agent once it attaches. */
interface SharedServers {
  readonly sharing: ServerSharing;
  /** Detaches from the host; again is nothing. */
  dispose(): void;
}

/** This agent's side of the machine host (when run as the CLI, and the user's settings share); not attached yet. */
async function startSharing(
  place: HostPlace,
  options: ServeOptions,
  userSettingsFile: string | undefined,
  logger: Logger,
): Promise<SharedServers | undefined> {
  const command = options.hostCommand;
  const policy = sharingPolicyFrom(await readUserSetting(userSettingsFile, SHARE_SETTING));
  if (!command || sharesNothing(policy)) return undefined;
  const link = new HostLink({ place, version: PRODUCT_VERSION, logger, launch: hostLauncher(place, command, logger) });
  const sharing = new ServerSharing({ link, policy: () => policy, workspaceFolders: () => [options.folder], logger });
  let disposed = false;
  return {
    sharing,
    dispose: () => {
      if (disposed) return;
      disposed = true;
      sharing.dispose();
      link.dispose();
    },
  };
}

/**
 * `serve --stdio`: the agent that launched us is the one client. Lazy by default, so a server costs
 * nothing until a call needs it (one with nothing cached still starts once to list its tools).
 */
async function serveStdio(
  runtime: SwitchboardRuntime,
  consented: ConsentedServers,
  options: ServeOptions,
  logger: Logger,
  shared: SharedServers | undefined,
): Promise<number> {
  try {
    // Before the runtime's end: no change of the host may reach a manager that is stopping.
    return await serveSharedStdio(runtime, consented, options, logger, shared);
  } finally {
    shared?.dispose();
  }
}

async function serveSharedStdio(
  runtime: SwitchboardRuntime,
  consented: ConsentedServers,
  options: ServeOptions,
  logger: Logger,
  shared: { readonly sharing: ServerSharing } | undefined,
): Promise<number> {
  const configured = options.eager
    ? consented.servers
    : consented.servers.map((server) =>
        isInvalid(server) ? server : { ...server, lifecycle: { ...server.lifecycle, start: 'lazy' as const } },
      );
  const share = (servers: readonly ConfiguredServer[]) => (shared ? shared.sharing.share(servers) : Promise.resolve([...servers]));
  const servers = await share(configured);
  await runtime.manager.start(servers, consented.blocks);
  // A new host (the last one ended) or none at all: the servers are shared again, or run here.
  shared?.sharing.onDidChange(() => void share(configured).then((again) => runtime.manager.update(again, consented.blocks)));
  if (options.signal.aborted) return 0;
  const session = await runtime.stdioSession(
    // The CLI hands in process.stdout, a Writable; the option's type is the wider one every caller has.
    new StdioServerTransport(options.stdin ?? process.stdin, options.stdout as Writable),
  );
  logger.info(`serving ${servers.length} server(s) on stdio`);
  await Promise.race([session.closed, aborted(options.signal)]);
  logger.info(options.signal.aborted ? 'shutting down' : 'the client closed stdio: shutting down');
  await session.close();
  return 0;
}

export interface ServeCommandOptions {
  /** Stops serve like a signal does: the CLI aborts it when its pipes break or its parent ends. */
  readonly signal?: AbortSignal;
  readonly stdout?: NodeJS.WritableStream;
  readonly stderr?: NodeJS.WritableStream;
  readonly cwd?: string;
  /** MCP_SWITCHBOARD_<FLAG> variables and the servers' environment. Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** How this CLI is run, to start the machine host as (ServeOptions.hostCommand). */
  readonly hostCommand?: HostCommand;
}

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
export const DEFAULT_DRAIN_MS = 25_000;

/** The CLI entry: parses `[--folder DIR] [--port N]` and serves until SIGINT, SIGTERM or SIGHUP. */
export async function serveCommand(argv: readonly string[], options: ServeCommandOptions = {}): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  let args;
  try {
    args = parseServeArgs(argv, options.cwd ?? process.cwd(), options.env ?? process.env);
  } catch (error) {
    stderr.write(`${errorMessage(error)}\n`);
    return 2;
  }
  const controller = new AbortController();
  const force = new AbortController();
  // The first signal stops taking requests and drains the calls in flight; a second cuts them.
  const stop = (): void => (controller.signal.aborted ? force.abort() : controller.abort());
  // SIGHUP too: a closed terminal must stop the servers rather than kill serve and orphan them.
  for (const signal of STOP_SIGNALS) process.on(signal, stop);
  const signal = options.signal ? AbortSignal.any([controller.signal, options.signal]) : controller.signal;
  try {
    // With --stdio, stdin carries the protocol: nobody can be asked on it.
    const ask = args.stdio ? undefined : terminalConfirm();
    return await runServe({
      ...args,
      stdout,
      stderr,
      signal,
      force: force.signal,
      env: options.env,
      ask,
      hostCommand: options.hostCommand,
    });
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, stop);
  }
}

/** Before anything runs: the folder's own stdio servers need the user's word (asked on a terminal). */
async function askConsent(
  configuration: LoadedConfiguration,
  options: ServeOptions,
  env: Readonly<Record<string, string | undefined>>,
  logger: Logger,
): Promise<ConsentedServers> {
  const consented = await settleWorkspaceConsent(configuration.servers, {
    folders: [options.folder],
    store: options.consent,
    env,
    trustWorkspace: options.trustWorkspace ?? false,
    ask: options.ask,
    app: 'serve',
  });
  for (const [name, block] of consented.blocks) logger.warn(`${name}: not started: ${block.detail}`);
  return consented;
}

function formatDiagnostic(diagnostic: ConfigDiagnostic): string {
  const where = [diagnostic.source.file, diagnostic.path].filter((part) => part !== undefined && part !== '').join(' ');
  return `${where ? `${where}: ` : ''}${diagnostic.message}`;
}

export function streamLogger(stream: NodeJS.WritableStream, minimum: LogLevel, format: LogFormat): Logger {
  const threshold = LOG_LEVELS.indexOf(minimum);
  const at = (level: LogLevel) => (message: string) => {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    // Server names, errors and stderr lines are outside text: shown inert in a terminal, and
    // escaped by JSON.stringify in a JSON line (which no terminal interprets).
    if (format === 'json') stream.write(jsonLine({ time: new Date().toISOString(), level, ...splitComponent(message) }));
    else stream.write(`[${level}] ${displayLines(message)}\n`);
  };
  return {
    enabled: (level) => LOG_LEVELS.indexOf(level) >= threshold,
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  };
}

/**
 * One JSON object and a newline. JSON.stringify escapes C0 controls (ESC included); the characters
 * it leaves as they are but a terminal acts on (DEL and C1 controls, bidi overrides, line and
 * paragraph separators) are escaped too, for whoever reads the log with `kubectl logs`.
 */
function jsonLine(value: object): string {
  return `${JSON.stringify(value).replace(/[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}

/** `[gateway] listening…` → component `gateway`: what a log collector filters on. */
function splitComponent(message: string): { component?: string; message: string } {
  const match = /^\[([^\]\n]{1,80})\] /.exec(message);
  return match ? { component: match[1], message: message.slice(match[0].length) } : { message };
}

/** An access log line: text as a log line does, or one JSON object with the fields apart. */
function accessLogger(stream: NodeJS.WritableStream, format: LogFormat): (entry: AccessEntry) => void {
  return (entry) => {
    if (format === 'json') stream.write(jsonLine({ time: new Date().toISOString(), level: 'info', type: 'access', ...entry }));
    else {
      const rpc = entry.rpc === undefined ? '' : ` ${entry.rpc}`;
      stream.write(
        `[access] ${displayLines(`${entry.client ?? '-'} ${entry.method} ${entry.path}${rpc} ${entry.status} ${entry.ms} ms`)}\n`,
      );
    }
  };
}

/** An audit line per tool call: the arguments are never in it (they may hold anything). */
function auditLogger(stream: NodeJS.WritableStream, format: LogFormat): (call: SettledCall) => void {
  return (call) => {
    const entry = { caller: call.caller ?? '-', server: call.server, tool: call.tool, outcome: call.outcome, ms: call.ms };
    if (format === 'json') stream.write(jsonLine({ time: new Date().toISOString(), level: 'info', type: 'audit', ...entry }));
    else stream.write(`[audit] ${displayLines(`${entry.caller} ${entry.server}/${entry.tool} ${entry.outcome} ${entry.ms} ms`)}\n`);
  };
}

/** An audit line for a call a policy refused: the rule that refused it, never the arguments. */
function deniedAuditLogger(stream: NodeJS.WritableStream, format: LogFormat): (call: DeniedCall) => void {
  return (call) => {
    const entry = { caller: call.caller ?? '-', server: call.server, tool: call.tool, outcome: 'denied', rule: call.rule, ms: 0 };
    if (format === 'json') stream.write(jsonLine({ time: new Date().toISOString(), level: 'info', type: 'audit', ...entry }));
    else stream.write(`[audit] ${displayLines(`${entry.caller} ${entry.server}/${entry.tool} denied (${entry.rule})`)}\n`);
  };
}

function isDirectory(folder: string): boolean {
  try {
    return fs.statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

/** A connect timeout of 0 (no limit) still gets a ready line eventually. */
const MAX_READY_WAIT_MS = 120_000;

/** Resolves once no server is starting (or the longest connect timeout has passed, or the signal fired). */
async function firstAttemptsDone(manager: ServerManager, servers: LoadedConfiguration['servers'], signal: AbortSignal): Promise<void> {
  const limits = servers.map((server) => ('timeouts' in server ? server.timeouts.connectMs || MAX_READY_WAIT_MS : 0));
  const timeoutMs = Math.min(MAX_READY_WAIT_MS, Math.max(0, ...limits) + 1_000);
  await manager.waitForState((views) => !views.some((view) => view.state.kind === 'starting'), { timeoutMs, signal });
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
