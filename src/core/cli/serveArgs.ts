// `serve [--folder DIR] [--port N] ...` and `serve --stdio`: the headless gateway's command line.
import path from 'node:path';
import { LOOPBACK_REACH, validateReach, type GatewayReach } from '../gateway';

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
}

export const SERVE_USAGE =
  'usage: mcp-switchboard serve [--folder DIR] [--port N] [--token-file FILE | --token-secret FILE] [--wait | --no-wait]\n' +
  '                             [--trust-workspace]\n' +
  '                             [--host ADDRESS] [--allowed-host NAME]... [--trusted-proxy CIDR]... [--allowed-origin ORIGIN]...\n' +
  '                             [--drain-seconds N]\n' +
  '       mcp-switchboard serve --stdio [--folder DIR] [--eager] [--trust-workspace]';

/** Throws an Error whose message says what is wrong and how the command is used. */
export function parseServeArgs(argv: readonly string[], cwd: string): ServeArgs {
  let folder = cwd;
  let port = 0;
  let wait = true;
  let tokenFile: string | undefined;
  let tokenSecret: string | undefined;
  let trustWorkspace = false;
  let stdio = false;
  let eager = false;
  let host = LOOPBACK_REACH.host;
  let drainMs: number | undefined;
  const allowedHosts: string[] = [];
  const trustedProxies: string[] = [];
  const allowedOrigins: string[] = [];
  const httpOnly: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] = arg.startsWith('--') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = (): string => {
      const next = inline ?? argv[++i];
      if (next === undefined || next === '') throw new Error(`${flag} needs a value\n${SERVE_USAGE}`);
      return next;
    };
    if (flag === '--folder') {
      folder = path.resolve(cwd, value());
    } else if (flag === '--port') {
      httpOnly.push('--port');
      const raw = value();
      port = Number(raw);
      if (!/^\d+$/.test(raw) || port > 65535) throw new Error(`--port must be an integer from 0 to 65535, got "${raw}"\n${SERVE_USAGE}`);
    } else if (flag === '--token-file') {
      httpOnly.push('--token-file');
      tokenFile = path.resolve(cwd, value());
    } else if (flag === '--token-secret') {
      httpOnly.push('--token-secret');
      tokenSecret = path.resolve(cwd, value());
    } else if (flag === '--host') {
      httpOnly.push('--host');
      host = value();
    } else if (flag === '--allowed-host') {
      httpOnly.push('--allowed-host');
      allowedHosts.push(...value().split(','));
    } else if (flag === '--trusted-proxy') {
      httpOnly.push('--trusted-proxy');
      trustedProxies.push(...value().split(','));
    } else if (flag === '--allowed-origin') {
      httpOnly.push('--allowed-origin');
      allowedOrigins.push(...value().split(','));
    } else if (flag === '--drain-seconds') {
      httpOnly.push('--drain-seconds');
      const raw = value();
      if (!/^\d{1,4}$/.test(raw) || Number(raw) > 3600)
        throw new Error(`--drain-seconds must be an integer from 0 to 3600, got "${raw}"\n${SERVE_USAGE}`);
      drainMs = Number(raw) * 1000;
    } else if (flag === '--wait' && inline === undefined) {
      wait = true;
    } else if (flag === '--no-wait' && inline === undefined) {
      wait = false;
    } else if (flag === '--trust-workspace' && inline === undefined) {
      trustWorkspace = true;
    } else if (flag === '--stdio' && inline === undefined) {
      stdio = true;
    } else if (flag === '--eager' && inline === undefined) {
      eager = true;
    } else {
      throw new Error(`unknown argument "${arg}"\n${SERVE_USAGE}`);
    }
  }
  if (stdio && httpOnly.length > 0)
    throw new Error(`--stdio serves on stdin/stdout: ${[...new Set(httpOnly)].join(' and ')} apply to HTTP only\n${SERVE_USAGE}`);
  if (tokenFile && tokenSecret) throw new Error(`--token-file and --token-secret: one token, from one place\n${SERVE_USAGE}`);
  let reach: GatewayReach;
  try {
    reach = validateReach({ host, allowedHosts, trustedProxies, allowedOrigins });
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${SERVE_USAGE}`);
  }
  if (eager && !stdio) throw new Error(`--eager applies to --stdio only (HTTP serve starts servers as configured)\n${SERVE_USAGE}`);
  return {
    folder,
    port,
    wait,
    trustWorkspace,
    stdio,
    eager,
    reach,
    ...(tokenFile ? { tokenFile } : {}),
    ...(tokenSecret ? { tokenSecret } : {}),
    ...(drainMs === undefined ? {} : { drainMs }),
  };
}
