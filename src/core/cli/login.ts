// `mcp-switchboard login <server>`: the editor's Sign In, from a terminal. The redirect comes back
// to a loopback server on 127.0.0.1; the URL to open is printed (a terminal may be on a machine
// without a browser). Tokens go to the credentials file (0600) that `doctor` and `serve` read.
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CallbackRouter, defaultCredentialsFile, FileSecretStore, type SignInBrowser } from '../auth';
import { MemoryToolCacheStorage } from '../catalog';
import { systemClock } from '../base/clock';
import { describeState } from '../presentation';
import { createRuntime, type SwitchboardRuntime } from '../runtime';
import type { HttpServerDefinition } from '../config';
import { loadWorkspace } from './folder';
import { errorMessage } from '../base/errorMessage';

export const LOGIN_USAGE = `Usage: mcp-switchboard login <server> [--folder DIR] [--port N]

Signs in to a remote MCP server that asks for OAuth, as the editor's Sign In does: prints the URL
of the authorization page, waits for the redirect on http://127.0.0.1:<port>/callback (--port:
a fixed port, for an authorization server that only accepts a registered one; default: any free
port), and saves the tokens for doctor and serve in a file only you can read
($MCP_SWITCHBOARD_CREDENTIALS, default ~/.config/mcp-switchboard/credentials.json).

  mcp-switchboard logout <server> [--folder DIR]   forgets that server's tokens and registration
`;

export interface LoginIo {
  out(text: string): void;
  err(text: string): void;
}

export interface LoginEnvironment {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  readonly signal?: AbortSignal;
  /** Told the authorization URL, instead of (only) printing it: tests play the browser here. */
  readonly onAuthorizationUrl?: (url: URL) => void;
}

/** The page the browser lands on; nothing from the query is echoed into it. */
const DONE_PAGE =
  '<!doctype html><meta charset="utf-8"><title>MCP Switchboard</title><p>Sign-in received. You can close this tab and return to the terminal.</p>';

/** A loopback server that hands `/callback` to the router and answers everything else 404. */
async function listenForRedirect(router: CallbackRouter, port: number): Promise<http.Server & { url: string }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/callback') return void res.writeHead(404).end();
    const delivered = router.deliver(url.searchParams);
    res
      .writeHead(delivered ? 200 : 400, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      .end(delivered ? DONE_PAGE : '<p>No sign-in is waiting for this redirect.</p>');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return Object.assign(server, { url: `http://127.0.0.1:${bound}/callback` });
}

type LoginTarget = { readonly name: string; readonly port: number; readonly logout: boolean; readonly folder: string | undefined };

/** The command line, or the exit code after saying what is wrong with it (or printing the help). */
function parseLoginArgs(argv: readonly string[], io: LoginIo): LoginTarget | number {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: { folder: { type: 'string' }, port: { type: 'string' }, help: { type: 'boolean', short: 'h' }, logout: { type: 'boolean' } },
    });
  } catch (error) {
    io.err(`mcp-switchboard login: ${errorMessage(error)}\n\n${LOGIN_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(LOGIN_USAGE);
    return 0;
  }
  const [name, ...extra] = positionals;
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!name || extra.length > 0 || !Number.isInteger(port) || port < 0 || port > 65_535) {
    io.err(
      `mcp-switchboard login: ${!name ? 'name the server to sign in to' : extra.length > 0 ? `unexpected argument "${extra[0]}"` : `--port must be a port number, got "${values.port}"`}\n\n${LOGIN_USAGE}`,
    );
    return 2;
  }
  return { name, port, logout: values.logout === true, folder: values.folder };
}

/** The named remote server of the folder, or the exit code after saying why it cannot sign in. */
async function findRemoteServer(
  target: LoginTarget,
  folder: string,
  env: NodeJS.ProcessEnv | Readonly<Record<string, string | undefined>>,
  io: LoginIo,
): Promise<HttpServerDefinition | number> {
  const { name } = target;
  const workspace = await loadWorkspace(folder, env);
  if (workspace.kind === 'unreadable') {
    io.err(
      `mcp-switchboard login: cannot read the settings of ${folder}\n${workspace.problems.map((problem) => `  ${problem}\n`).join('')}`,
    );
    return 2;
  }
  const definition = workspace.servers.find((server) => server.name === name);
  if (!definition || !('transport' in definition)) {
    io.err(
      `mcp-switchboard login: ${definition ? `"${name}" is not valid: ${definition.diagnostics[0]?.message ?? 'see doctor'}` : `no server named "${name}" is configured in ${folder}`}\n`,
    );
    return 1;
  }
  if (definition.transport === 'stdio' || !definition.oauth.enabled) {
    io.err(
      `mcp-switchboard login: "${name}" ${definition.transport === 'stdio' ? 'is a stdio server; only remote servers sign in' : 'has "oauth": false'}\n`,
    );
    return 1;
  }
  return definition;
}

export async function runLogin(argv: readonly string[], io: LoginIo, environment: LoginEnvironment = {}): Promise<number> {
  const target = parseLoginArgs(argv, io);
  if (typeof target === 'number') return target;
  const env = environment.env ?? process.env;
  const folder = path.resolve(environment.cwd ?? process.cwd(), target.folder ?? '.');
  const definition = await findRemoteServer(target, folder, env, io);
  if (typeof definition === 'number') return definition;
  const file = defaultCredentialsFile(env as NodeJS.ProcessEnv);
  const runtime = createRuntime({
    storage: new MemoryToolCacheStorage(),
    settings: {},
    secrets: new FileSecretStore(file),
    startupGateMs: 0,
  });
  const router = new CallbackRouter(systemClock);
  const abort = () => router.cancelAll('cancelled');
  environment.signal?.addEventListener('abort', abort, { once: true });
  let loopback: (http.Server & { url: string }) | undefined;
  try {
    if (target.logout) {
      await runtime.oauth.providerFor(definition)?.signOut();
      io.err(`Signed out of "${target.name}"; its tokens and client registration are forgotten (${file}).\n`);
      return 0;
    }
    loopback = await listenForRedirect(router, target.port);
    return await signInAt(runtime, definition, loopback.url, router, io, environment, file);
  } catch (error) {
    io.err(`mcp-switchboard login: ${errorMessage(error)}\n`);
    return 1;
  } finally {
    environment.signal?.removeEventListener('abort', abort);
    loopback?.closeAllConnections();
    loopback?.close();
    await runtime.dispose();
  }
}

/** Starts the server, signs in through the printed URL and the loopback redirect, and says how it went. */
async function signInAt(
  runtime: SwitchboardRuntime,
  definition: HttpServerDefinition,
  redirectUrl: string,
  router: CallbackRouter,
  io: LoginIo,
  environment: LoginEnvironment,
  file: string,
): Promise<number> {
  const name = definition.name;
  const browser: SignInBrowser = {
    redirectUrl,
    open: async (url) => {
      io.err(`Open this URL in a browser to sign in to "${name}":\n\n  ${url.href}\n\nWaiting for the redirect to ${redirectUrl} ...\n`);
      environment.onAuthorizationUrl?.(url);
    },
    waitForCallback: (state) => router.waitFor(state),
  };
  await runtime.manager.start([{ ...definition, lifecycle: { ...definition.lifecycle, start: 'eager' } }]);
  const result = await runtime.signIns.signIn(name, browser);
  const state = result.state;
  if (state.kind !== 'running') {
    io.err(`Signed in, but "${name}" is ${describeState(state)}.\n`);
    return 1;
  }
  io.err(
    `${result.signedIn === 'refreshed' ? 'The saved sign-in was refreshed' : 'Signed in'}: "${name}" is running (${state.toolCount} tools). Tokens are saved in ${file}.\n`,
  );
  return 0;
}
