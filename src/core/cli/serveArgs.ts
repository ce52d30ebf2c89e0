// `serve [--folder DIR] [--port N] ...` and `serve --stdio`: the headless gateway's command line.
import path from 'node:path';
import { LOOPBACK_REACH, validateReach, type GatewayReach } from '../gateway';
import type { ServeCluster } from './serveCluster';

export interface ServeArgs {
  /** Absolute; the folder whose .vscode/settings.json (and mcp.json, ...) configure the servers. */
  readonly folder: string;
  /** 0: an ephemeral port. */
  readonly port: number;
  /** Print the ready line only once every enabled server has finished its first connect attempt. */
  readonly wait: boolean;
  /** A token kept across runs, for agents that have the gateway in their configs. */
  readonly tokenFile?: string;
  /** The token from a mounted Secret (Kubernetes, Docker), read only. */
  readonly tokenSecret?: string;
  /** --config: the settings file (the editor's format) a team gateway is configured by. */
  readonly configFile?: string;
  /** Run the folder's own stdio servers without asking. */
  readonly trustWorkspace: boolean;
  /** Serve one client on stdin/stdout instead of HTTP (an agent launches it as a stdio server). */
  readonly stdio: boolean;
  /** With --stdio: start servers as configured; without, every server starts when first used. */
  readonly eager: boolean;
  /** --host, --allowed-host, --trusted-proxy, --allowed-origin: 127.0.0.1 only unless given. */
  readonly reach: GatewayReach;
  /** --drain-seconds: how long a stop waits for the calls in flight; absent: serve's default. */
  readonly drainMs?: number;
  /** --unready-seconds: how long a stop still serves while /readyz answers 503 (default 0). */
  readonly unreadyMs?: number;
  /** --log-format: `text` (default) or `json`, one object per line. */
  readonly logFormat: LogFormat;
  /** --access-log: one line per HTTP request. */
  readonly accessLog: boolean;
  /** --metrics: Prometheus metrics at /metrics, with the token. */
  readonly metrics: boolean;
  /** --audit-log: one line per tool call (who, which tool, outcome, time; never its arguments). */
  readonly auditLog: boolean;
  /** --oauth-issuer and the rest: a team gateway that takes its users' access tokens. */
  readonly oauth?: ServeOAuth;
  /** --replica-url, --cluster-key-secret, --redis: one replica of several behind a load balancer. */
  readonly cluster?: ServeCluster;
  /** --otlp-endpoint: OpenTelemetry traces of the tool calls, sent there (OTLP over HTTP). */
  readonly otlpEndpoint?: string;
}

/** A team gateway's identity: whose tokens it takes, for what, and what each user may use. */
export interface ServeOAuth {
  /** The identity provider's issuer URL, as its tokens' `iss` says it. */
  readonly issuer: string;
  /** The gateway's `/mcp` as clients reach it; absent: as it listens. */
  readonly resource?: URL;
  /** What the tokens' `aud` must contain, when not the resource URL. */
  readonly audience?: string;
  /** Scopes every token must carry. */
  readonly scopes: readonly string[];
  /** --policy: the JSON file of rules (who may see and call which servers and tools). */
  readonly policyFile?: string;
}

export type LogFormat = 'text' | 'json';

export const SERVE_USAGE =
  'usage: mcp-switchboard serve [--folder DIR] [--port N] [--token-file FILE | --token-secret FILE] [--wait | --no-wait]\n' +
  '                             [--config FILE] [--trust-workspace]\n' +
  '                             [--host ADDRESS] [--allowed-host NAME]... [--trusted-proxy CIDR]... [--allowed-origin ORIGIN]...\n' +
  '                             [--drain-seconds N] [--unready-seconds N] [--log-format text|json] [--access-log] [--audit-log] [--metrics]\n' +
  '                             [--oauth-issuer URL [--oauth-resource URL] [--oauth-audience AUD] [--oauth-scope S]... [--policy FILE]]\n' +
  '                             [--replica-url URL --cluster-key-secret FILE [--redis URL]] [--otlp-endpoint URL]\n' +
  '       mcp-switchboard serve --stdio [--folder DIR] [--config FILE] [--eager] [--trust-workspace]\n' +
  'Each flag of HTTP serve can come from MCP_SWITCHBOARD_<FLAG> (MCP_SWITCHBOARD_ALLOWED_HOST=a,b); the command line wins.';

/** What the flags set, before the checks across flags. */
interface Parsed {
  folder: string;
  port: number;
  wait: boolean;
  tokenFile?: string;
  tokenSecret?: string;
  configFile?: string;
  trustWorkspace: boolean;
  stdio: boolean;
  eager: boolean;
  host: string;
  allowedHosts: string[];
  trustedProxies: string[];
  allowedOrigins: string[];
  drainMs?: number;
  unreadyMs?: number;
  logFormat: LogFormat;
  accessLog: boolean;
  metrics: boolean;
  auditLog: boolean;
  oauthIssuer?: string;
  oauthResource?: string;
  oauthAudience?: string;
  oauthScopes: string[];
  policyFile?: string;
  replicaUrl?: string;
  clusterKeyFile?: string;
  redisUrl?: string;
  otlpEndpoint?: string;
}

const usageError = (message: string): Error => new Error(`${message}\n${SERVE_USAGE}`);

function httpUrl(flag: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`${flag} must be a URL, got "${raw.slice(0, 80)}"`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.hash !== '' || url.search !== '')
    throw usageError(`${flag} must be an http(s) URL without credentials, query or fragment, got "${raw.slice(0, 80)}"`);
  return url;
}

function integer(flag: string, raw: string, max: number): number {
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > max)
    throw usageError(`${flag} must be an integer from 0 to ${max}, got "${raw.slice(0, 40)}"`);
  return Number(raw);
}

/** Flags that take a value: what each sets, and whether it applies to HTTP only. */
const VALUE_FLAGS: Readonly<Record<string, { readonly http: boolean; readonly set: (parsed: Parsed, raw: string, cwd: string) => void }>> =
  {
    '--folder': { http: false, set: (p, raw, cwd) => (p.folder = path.resolve(cwd, raw)) },
    '--port': { http: true, set: (p, raw) => (p.port = integer('--port', raw, 65535)) },
    '--token-file': { http: true, set: (p, raw, cwd) => (p.tokenFile = path.resolve(cwd, raw)) },
    '--token-secret': { http: true, set: (p, raw, cwd) => (p.tokenSecret = path.resolve(cwd, raw)) },
    '--config': { http: false, set: (p, raw, cwd) => (p.configFile = path.resolve(cwd, raw)) },
    '--host': { http: true, set: (p, raw) => (p.host = raw) },
    '--allowed-host': { http: true, set: (p, raw) => p.allowedHosts.push(...raw.split(',')) },
    '--trusted-proxy': { http: true, set: (p, raw) => p.trustedProxies.push(...raw.split(',')) },
    '--allowed-origin': { http: true, set: (p, raw) => p.allowedOrigins.push(...raw.split(',')) },
    '--drain-seconds': { http: true, set: (p, raw) => (p.drainMs = integer('--drain-seconds', raw, 3600) * 1000) },
    '--unready-seconds': { http: true, set: (p, raw) => (p.unreadyMs = integer('--unready-seconds', raw, 600) * 1000) },
    // Kept as written: a token's `iss` is compared with it character for character.
    '--oauth-issuer': { http: true, set: (p, raw) => (p.oauthIssuer = httpUrl('--oauth-issuer', raw) && raw) },
    '--oauth-resource': { http: true, set: (p, raw) => (p.oauthResource = httpUrl('--oauth-resource', raw).href) },
    '--oauth-audience': { http: true, set: (p, raw) => (p.oauthAudience = raw) },
    '--oauth-scope': { http: true, set: (p, raw) => p.oauthScopes.push(...raw.split(/[ ,]+/).filter(Boolean)) },
    '--policy': { http: true, set: (p, raw, cwd) => (p.policyFile = path.resolve(cwd, raw)) },
    '--otlp-endpoint': { http: true, set: (p, raw) => (p.otlpEndpoint = httpUrl('--otlp-endpoint', raw).href) },
    '--replica-url': { http: true, set: (p, raw) => (p.replicaUrl = httpUrl('--replica-url', raw).origin) },
    '--cluster-key-secret': { http: true, set: (p, raw, cwd) => (p.clusterKeyFile = path.resolve(cwd, raw)) },
    '--redis': {
      http: true,
      set: (p, raw) => {
        if (!/^rediss?:\/\//.test(raw)) throw usageError('--redis is a redis:// or rediss:// URL');
        p.redisUrl = raw;
      },
    },
    '--log-format': {
      http: false,
      set: (p, raw) => {
        if (raw !== 'text' && raw !== 'json') throw usageError(`--log-format is text or json, got "${raw.slice(0, 40)}"`);
        p.logFormat = raw;
      },
    },
  };

/** Flags without a value. */
const SWITCHES: Readonly<Record<string, { readonly http: boolean; readonly set: (parsed: Parsed) => void }>> = {
  '--wait': { http: false, set: (p) => (p.wait = true) },
  '--no-wait': { http: false, set: (p) => (p.wait = false) },
  '--trust-workspace': { http: false, set: (p) => (p.trustWorkspace = true) },
  '--stdio': { http: false, set: (p) => (p.stdio = true) },
  '--eager': { http: false, set: (p) => (p.eager = true) },
  '--access-log': { http: true, set: (p) => (p.accessLog = true) },
  '--metrics': { http: true, set: (p) => (p.metrics = true) },
  '--audit-log': { http: true, set: (p) => (p.auditLog = true) },
};

/** `--allowed-host` → `MCP_SWITCHBOARD_ALLOWED_HOST`. */
export function serveFlagEnvName(flag: string): string {
  return `MCP_SWITCHBOARD_${flag.slice(2).toUpperCase().replaceAll('-', '_')}`;
}

/** Flags a container sets through its environment: not --stdio's (an agent launches that one). */
const NOT_FROM_ENV = new Set(['--stdio', '--eager']);

/** The flags the environment gives, as arguments before the command line's. */
function flagsFromEnv(env: Readonly<Record<string, string | undefined>>): string[] {
  const args: string[] = [];
  for (const flag of Object.keys(VALUE_FLAGS)) {
    const value = env[serveFlagEnvName(flag)];
    if (value !== undefined && value !== '') args.push(`${flag}=${value}`);
  }
  for (const flag of Object.keys(SWITCHES)) {
    const value = env[serveFlagEnvName(flag)]?.toLowerCase();
    if (NOT_FROM_ENV.has(flag) || value === undefined || value === '' || value === '0' || value === 'false') continue;
    if (value !== '1' && value !== 'true')
      throw usageError(`${serveFlagEnvName(flag)} is 1, true, 0 or false, got "${value.slice(0, 20)}"`);
    args.push(flag);
  }
  return args;
}

/**
 * Throws an Error whose message says what is wrong and how the command is used. `env`: the flags
 * of HTTP serve from MCP_SWITCHBOARD_<FLAG> variables, before the command line's (which win; lists
 * add up). `serve --stdio` ignores them.
 */
export function parseServeArgs(argv: readonly string[], cwd: string, env: Readonly<Record<string, string | undefined>> = {}): ServeArgs {
  if (!argv.includes('--stdio')) argv = [...flagsFromEnv(env), ...argv];
  const p: Parsed = {
    folder: cwd,
    port: 0,
    wait: true,
    trustWorkspace: false,
    stdio: false,
    eager: false,
    host: LOOPBACK_REACH.host,
    allowedHosts: [],
    trustedProxies: [],
    allowedOrigins: [],
    logFormat: 'text',
    accessLog: false,
    metrics: false,
    auditLog: false,
    oauthScopes: [],
  };
  const httpOnly = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag = '', inline] = arg.startsWith('--') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const valued = Object.hasOwn(VALUE_FLAGS, flag) ? VALUE_FLAGS[flag] : undefined;
    const toggle = inline === undefined && Object.hasOwn(SWITCHES, flag) ? SWITCHES[flag] : undefined;
    if (valued) {
      const raw = inline ?? argv[++i];
      if (raw === undefined || raw === '') throw usageError(`${flag} needs a value`);
      valued.set(p, raw, cwd);
    } else if (toggle) toggle.set(p);
    else throw usageError(`unknown argument "${arg}"`);
    if ((valued ?? toggle)?.http) httpOnly.add(flag);
  }
  if (p.stdio && httpOnly.size > 0) throw usageError(`--stdio serves on stdin/stdout: ${[...httpOnly].join(' and ')} apply to HTTP only`);
  if (p.tokenFile && p.tokenSecret) throw usageError('--token-file and --token-secret: one token, from one place');
  if (p.oauthIssuer === undefined && (p.oauthResource ?? p.oauthAudience ?? p.policyFile ?? p.oauthScopes[0]) !== undefined)
    throw usageError('--oauth-resource, --oauth-audience, --oauth-scope and --policy need --oauth-issuer');
  if ((p.replicaUrl === undefined) !== (p.clusterKeyFile === undefined))
    throw usageError('--replica-url and --cluster-key-secret go together: a replica needs its address and the key its peers share');
  if (p.redisUrl !== undefined && p.replicaUrl === undefined)
    throw usageError('--redis needs --replica-url: one replica keeps its tasks itself');
  if (p.eager && !p.stdio) throw usageError('--eager applies to --stdio only (HTTP serve starts servers as configured)');
  let reach: GatewayReach;
  try {
    reach = validateReach({
      host: p.host,
      allowedHosts: p.allowedHosts,
      trustedProxies: p.trustedProxies,
      allowedOrigins: p.allowedOrigins,
    });
  } catch (error) {
    throw usageError((error as Error).message);
  }
  const {
    host: _host,
    allowedHosts: _hosts,
    trustedProxies: _proxies,
    allowedOrigins: _origins,
    tokenFile,
    tokenSecret,
    configFile,
    drainMs,
    oauthIssuer,
    oauthResource,
    oauthAudience,
    oauthScopes,
    policyFile,
    replicaUrl,
    clusterKeyFile,
    redisUrl,
    ...plain
  } = p;
  const cluster: ServeCluster | undefined =
    replicaUrl && clusterKeyFile ? { replicaUrl, keyFile: clusterKeyFile, ...(redisUrl ? { redisUrl } : {}) } : undefined;
  const oauth: ServeOAuth | undefined = oauthIssuer
    ? {
        issuer: oauthIssuer,
        scopes: oauthScopes,
        ...(oauthResource ? { resource: new URL(oauthResource) } : {}),
        ...(oauthAudience ? { audience: oauthAudience } : {}),
        ...(policyFile ? { policyFile } : {}),
      }
    : undefined;
  return {
    ...plain,
    reach,
    ...(tokenFile ? { tokenFile } : {}),
    ...(tokenSecret ? { tokenSecret } : {}),
    ...(configFile ? { configFile } : {}),
    ...(drainMs === undefined ? {} : { drainMs }),
    ...(oauth ? { oauth } : {}),
    ...(cluster ? { cluster } : {}),
  };
}
