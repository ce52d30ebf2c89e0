// `mcp-switchboard`: argv in, exit code out. The work is in src/core/doctor and src/core/gateway;
// this file only parses the command line, turns signals into an abort, and makes sure the process
// ends with the right code.
// (esbuild adds the shebang; one here as well would be a syntax error in the bundle.)
import { parseArgs } from 'node:util';
import {
  EXIT_UNUSABLE,
  exitCodeForSignal,
  LOGIN_USAGE,
  parseDoctorOptions,
  REGISTRY_USAGE,
  runDoctor,
  runLogin,
  runRegistry,
  runShare,
  serveCommand,
  SHARE_USAGE,
  type ExitCode,
  guardStdio,
  watchParent,
  terminalConfirm,
  HOST_USAGE,
  runHost,
} from './core/cli';
import { setListenerErrorSink } from './core/base/events';
import { displayJson, displayLines } from './core/base/displayText';

/**
 * Aborted when this process has nobody left to answer: its stdout or stderr pipe broke, or the
 * process that started it with piped stdio ended. serve then stops its servers and exits by
 * itself, as a language server does when its client goes; doctor and login stop as on SIGTERM.
 */
const lifetime = new AbortController();
const stdio = guardStdio([process.stdout, process.stderr], (reason) => lifetime.abort(new Error(`the output pipe broke (${reason})`)));
if (!process.stdout.isTTY && !process.stderr.isTTY) watchParent(() => lifetime.abort(new Error('the parent process ended')));
// Everything the CLI prints passes here: text from servers, registries and config files is shown
// inert (escape codes and bidi overrides visible, not acted on), whatever path it took.
const out = (text: string): void => stdio.write(process.stdout, displayLines(text));
const err = (text: string): void => stdio.write(process.stderr, displayLines(text));
// JSON is inert its own way: escaped, never cut short, so that it still parses (doctor --json).
const json = (value: unknown): void => stdio.write(process.stdout, `${displayJson(JSON.stringify(value, null, 2))}\n`);

const OVERVIEW = `Usage: mcp-switchboard <command> [options]

MCP Switchboard's runtime from a terminal: the same configuration, servers and gateway as the
editor extension.

Commands:
  doctor [--folder DIR] [--json] [--call SERVER/TOOL]
                        check a workspace's MCP servers: connect each, report, stop them again
  serve [--folder DIR] [--port N] [--token-file FILE]
                        run the servers and the MCP gateway headless (HTTP), for other agents
  serve --stdio [--folder DIR]
                        the same for one agent that starts it as a stdio MCP server
  registry search <text> | registry add <name>
                        the MCP Registry
  share <portable|claude-code|codex|gemini> [--folder DIR] [--port N | --stdio]
                        serve's gateway in another agent's config
  login <server> | logout <server>
                        sign in to a remote server (OAuth), or forget the sign-in

mcp-switchboard <command> --help shows a command's options.
`;

const DOCTOR_USAGE = `Usage: mcp-switchboard doctor [options]

doctor connects every MCP server configured for a workspace, exactly as the extension would,
reports their state and tools (and which tools the catalog exposes), and stops them again.

Doctor options:
  --folder DIR          workspace folder whose .vscode/settings.json is read (default: .)
  --json                print the report as JSON
  --timeout MS          stop waiting for servers after MS milliseconds
                        (default: the longest connect timeout plus 2 s)
  --call SERVER/TOOL    after connecting, call one tool and print its result
  --args JSON           arguments for --call, as a JSON object (default: {})
  --trust-workspace     run the folder's own stdio servers without asking (see below)
  -h, --help            show this help

Servers defined by the folder's own files (.vscode/settings.json, .mcp.json, .cursor/mcp.json, ...)
are whoever wrote the repository's commands: doctor and serve ask before running each one on a
terminal, and remember the answer for that command line (in $XDG_CONFIG_HOME/mcp-switchboard, shared
with the editor). Without a terminal they are not started unless --trust-workspace is given.

\${input:ID} values are read from MCP_SWITCHBOARD_INPUT_<ID> (upper case, other characters as _).

Doctor exit codes: 0 every enabled server is running (or the --call succeeded)
                   1 a server is not running, the configuration has errors, or the --call failed
                   2 the settings cannot be read, or the command line is wrong

With MCP_SWITCHBOARD_USER_SETTINGS=<the editor's User/settings.json>, doctor, serve and login also
read the editor's user settings as the editor does: its servers (under the folder's), its sources,
and the sandbox settings from it alone. The launcher that Share with Other Agents writes sets it.
`;

const SERVE_USAGE = `Usage: mcp-switchboard serve [--folder DIR] [--port N] [--token-file FILE] [--no-wait]
                                            run the gateway headless; prints {"url","token","servers"}
       mcp-switchboard serve --stdio [--folder DIR] [--eager]
                                            the same, for one agent on stdin/stdout (a stdio server)

serve runs the servers and the MCP gateway on 127.0.0.1 (for other machines: --host, below) until
SIGINT/SIGTERM/SIGHUP. It prints its line once every enabled server has finished its first connect
attempt (--no-wait: at once; a client's tools/list then waits for starting servers that have
nothing cached). Clients send "Authorization: Bearer <token>" to <url> (every tool) or to
servers[<name>] (one server). Tool lists are cached in $XDG_CACHE_HOME/mcp-switchboard (default
~/.cache/mcp-switchboard). It exits 0 after the signal, 1 when serving fails, 2 when the folder or
its settings cannot be read.

For a team, serve can listen on another address of this machine (--host 0.0.0.0 for all of them).
The token is still required, and each name clients reach it by is listed: --allowed-host
mcp.example.com (any port; name:port for one, *.example.com for every name below). A Host that is
an IP address is accepted once serve listens beyond loopback (no page can rebind to one). Behind a proxy,
--trusted-proxy 10.0.0.0/8 believes that proxy's X-Forwarded-Host and X-Forwarded-For (nobody
else's); --allowed-origin https://app.example.com admits a browser page. Each flag repeats, or
takes a comma-separated list. serve speaks plain HTTP: put a TLS-terminating proxy in front.
--token-secret FILE reads the token from a mounted Secret (read only, symlinks followed, 0644 allowed).
--log-format json writes one JSON object per stderr line; --access-log adds one per request and
--audit-log one per tool call (who, which tool, outcome; never the arguments);
--metrics serves Prometheus metrics at /metrics (with the token). --config FILE is a settings file
in the editor's format, read as user settings. Each flag can come from MCP_SWITCHBOARD_<FLAG>.
GET /healthz and /readyz answer probes without the token. A stop signal drains: no new
connections, the calls in flight answered within --drain-seconds (default 25); a second one cuts it.
--unready-seconds N first keeps serving for N seconds while /readyz says 503 (for a load balancer).
--otlp-endpoint URL sends OpenTelemetry traces of the tool calls (OTLP over HTTP).

Users instead of one token: --oauth-issuer URL takes the access tokens (JWTs) of that identity
provider, for --oauth-resource URL (the gateway's /mcp as clients reach it; default: as it listens)
or --oauth-audience AUD, with every --oauth-scope S; a client without one is pointed to the provider.
--policy FILE (JSON rules on subjects, groups, scopes and claims) says which servers and tools each
user sees; without it, everyone signed in sees everything. The static token then guards /metrics only.
Several replicas behind a load balancer: --replica-url URL (how the others reach this one) and
--cluster-key-secret FILE (a key they all share); requests about another replica's session, task or
round go to it. --redis URL keeps finished tasks for when their replica is gone.

serve --stdio is what an agent launches as one stdio MCP server: every exposed tool of the folder's
servers under its qualified name, nothing on stdout but the protocol. Servers start when first used
(--eager: as configured), and everything stops when the agent closes the pipes.

With MCP_SWITCHBOARD_USER_SETTINGS=<the editor's User/settings.json>, doctor, serve and login also
read the editor's user settings as the editor does: its servers (under the folder's), its sources,
and the sandbox settings from it alone. The launcher that Share with Other Agents writes sets it.
`;

const HANDLED_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** The commands, each with its own flags and signal handling: doctor's parser must not see serve's. */
async function main(argv: readonly string[]): Promise<ExitCode> {
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  if (argv[0] === 'login' || argv[0] === 'logout') return wantsHelp ? printed(LOGIN_USAGE) : loginCommand(argv);
  if (argv[0] === 'serve') {
    if (wantsHelp) return printed(SERVE_USAGE);
    // The machine host is this same CLI, run as this one was (the editor's runtime included).
    const hostCommand = { command: process.execPath, args: [...process.execArgv, process.argv[1] ?? ''], env: process.env };
    return serveCommand(argv.slice(1), { signal: lifetime.signal, hostCommand });
  }
  if (argv[0] === 'host') return wantsHelp ? printed(HOST_USAGE) : hostCommand(argv.slice(1));
  if (argv[0] === 'share') return wantsHelp ? printed(SHARE_USAGE) : runShare(argv.slice(1), { out, err });
  if (argv[0] === 'registry') {
    if (wantsHelp) return printed(REGISTRY_USAGE);
    const confirm = terminalConfirm();
    return (await runRegistry(argv.slice(1), { out, err, confirm })) as ExitCode;
  }
  return doctorCommand(argv);
}

function printed(text: string): ExitCode {
  out(text);
  return 0;
}

async function loginCommand(argv: readonly string[]): Promise<ExitCode> {
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  for (const signal of HANDLED_SIGNALS) process.once(signal, onSignal);
  const code = await runLogin(
    argv[0] === 'logout' ? [...argv.slice(1), '--logout'] : argv.slice(1),
    { out, err },
    { signal: AbortSignal.any([abort.signal, lifetime.signal]) },
  );
  return code as ExitCode;
}

/** The machine host outlives the window or agent that started it: only a signal or its own idleness ends it, not its parent's end. */
async function hostCommand(argv: readonly string[]): Promise<ExitCode> {
  const abort = new AbortController();
  for (const signal of HANDLED_SIGNALS) process.once(signal, () => abort.abort());
  return (await runHost(argv, { err, stderr: process.stderr }, { signal: abort.signal })) as ExitCode;
}

async function doctorCommand(argv: readonly string[]): Promise<ExitCode> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        folder: { type: 'string' },
        json: { type: 'boolean' },
        timeout: { type: 'string' },
        call: { type: 'string' },
        args: { type: 'string' },
        'trust-workspace': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    return usageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return printed(positionals[0] === 'doctor' ? DOCTOR_USAGE : OVERVIEW);
  const [command, ...extra] = positionals;
  if (command === undefined) return usageError('no command given');
  if (command !== 'doctor') return usageError(`unknown command "${command}"`);
  if (extra.length > 0) return usageError(`unexpected argument "${extra[0]}"`);
  const options = parseDoctorOptions(values);
  if (!options.ok) return usageError(options.message, false);
  const ask = terminalConfirm();
  return runUntilSignal((signal) => runDoctor(options.value, { out, err, json }, { signal, ask }));
}

/** Runs `work` with a signal that SIGINT/SIGTERM/SIGHUP abort; a second signal only says it is still stopping. */
async function runUntilSignal(work: (signal: AbortSignal) => Promise<ExitCode>): Promise<ExitCode> {
  const abort = new AbortController();
  let received: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (received) {
      // Leaving now could orphan servers; stopping is bounded by the kill grace period anyway.
      err('mcp-switchboard: still stopping servers...\n');
      return;
    }
    received = signal;
    err(`\nmcp-switchboard: ${signal}, stopping servers...\n`);
    abort.abort();
  };
  for (const signal of HANDLED_SIGNALS) process.on(signal, onSignal);
  try {
    const code = await work(AbortSignal.any([abort.signal, lifetime.signal]));
    return received ? exitCodeForSignal(received) : code;
  } finally {
    for (const signal of HANDLED_SIGNALS) process.off(signal, onSignal);
  }
}

/** A wrong flag value gets a pointer to the help; a wrong command line gets the help itself. */
function usageError(message: string, withUsage = true): ExitCode {
  err(`mcp-switchboard: ${message}\n${withUsage ? `\n${OVERVIEW}` : 'Run "mcp-switchboard --help" for usage.\n'}`);
  return EXIT_UNUSABLE;
}

/**
 * Waits until everything written so far has been handed to the OS (pipes are async on macOS), at
 * most a moment: a stream whose reader is gone never drains, and must not hold the exit.
 */
function flush(stream: NodeJS.WriteStream): Promise<void> {
  if (stdio.broken() || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, FLUSH_LIMIT_MS);
    stream.write('', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const FLUSH_LIMIT_MS = 2_000;

/**
 * Exits explicitly: an idle keep-alive socket or a timer inside a dependency must not keep the
 * doctor alive once every server has been stopped.
 */
async function exit(code: ExitCode): Promise<never> {
  await Promise.all([flush(process.stdout), flush(process.stderr)]);
  process.exit(code);
}

/**
 * The last resort: a bug or a hostile peer that slips an exception past every handler must not end
 * `serve` (and with it every server and client). It is logged and the process keeps serving.
 */
function keepRunningOnStrayErrors(): void {
  const report = (kind: string) => (error: unknown) => {
    // Through the guard: a report about a broken pipe must not fail on that pipe and loop.
    err(`[error] mcp-switchboard: ${kind} (kept running): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  };
  process.on('uncaughtException', report('uncaught exception'));
  process.on('unhandledRejection', report('unhandled rejection'));
  setListenerErrorSink(report('an event listener failed'));
}

keepRunningOnStrayErrors();
main(process.argv.slice(2)).then(exit, async (error: unknown) => {
  err(`mcp-switchboard: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await exit(EXIT_UNUSABLE);
});
