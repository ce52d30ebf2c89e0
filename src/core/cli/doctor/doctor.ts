// `mcp-switchboard doctor`: load the workspace's configuration, connect every server through the
// same manager the extension uses, wait for them to settle, report, optionally call one tool, and
// stop everything — on every path, including Ctrl-C (the caller aborts `signal`).
import { hostPlace } from '../../machine';
import { reportMachineHost } from '../../sharing';
import type { CallToolResult, Progress } from '@modelcontextprotocol/client';
import { defaultCredentialsFile, FileSecretStore } from '../../auth';
import { MemoryToolCacheStorage } from '../../catalog';
import { USER_SETTINGS_ENV } from '../../config';
import { isSwitchboardError } from '../../connection';
import { isSettled, type ServerState } from '../../state';
import type { ManagerOptions } from '../../manager';
import { createRuntime, type SwitchboardRuntime } from '../../runtime';
import { cliAnswers, readCatalogSettings, loadWorkspace, type LoadedWorkspace } from '../folder';
import { formatCallResult } from './callResult';
import { splitCallTarget, type CallRequest } from './callTarget';
import { EXIT_FAILED, EXIT_OK, EXIT_UNUSABLE, type ExitCode } from './exitCodes';
import { toJsonReport } from './jsonReport';
import type { DoctorOptions } from './options';
import { buildReport, exitCodeFor, type DoctorReport } from './report';
import { defaultTimeoutMs, waitUntilSettled } from './settle';
import { describeDiagnostic, formatTableReport } from './tableReport';
import { errorMessage } from '../../base/errorMessage';
import { settleWorkspaceConsent, type Confirm, type ConsentedServers, type ConsentFile } from '../../consent';

/** stdout carries the report (or the call result) only; everything else goes to stderr. */
export interface DoctorIo {
  out(text: string): void;
  err(text: string): void;
  /** The --json output: a value, written as JSON that parses whatever it holds (base/displayText.ts). */
  json(value: unknown): void;
}

export interface DoctorEnvironment {
  /** For `${env:...}` and `MCP_SWITCHBOARD_INPUT_*`. Defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Aborting stops waiting (and any call) and disposes everything; the exit code is then moot. */
  readonly signal?: AbortSignal;
  /** For tests; the CLI uses the extension's defaults. */
  readonly manager?: Omit<ManagerOptions, 'startupGateMs'>;
  /** Where consent is kept; defaults to the file the editor shares (defaultConsentFile). */
  readonly consent?: ConsentFile;
  /** Asks on the terminal; absent: nobody to ask, and the folder's servers need --trust-workspace or an earlier answer. */
  readonly ask?: Confirm;
}

export async function runDoctor(options: DoctorOptions, io: DoctorIo, environment: DoctorEnvironment = {}): Promise<ExitCode> {
  const { signal } = environment;
  const workspace = await loadWorkspace(options.folder, environment.env ?? process.env);
  if (workspace.kind === 'unreadable') {
    io.err(`mcp-switchboard doctor: cannot read the settings of ${workspace.folder}\n`);
    for (const problem of workspace.problems) io.err(`  ${problem}\n`);
    return EXIT_UNUSABLE;
  }
  if (signal?.aborted) return EXIT_FAILED;

  const names = workspace.servers.map((server) => server.name);
  const target = options.call && splitCallTarget(options.call.target, names);
  if (target && !names.includes(target.server)) {
    io.err(`--call: no server named "${target.server}" is configured${names.length > 0 ? `; configured: ${names.join(', ')}` : ''}\n`);
    return EXIT_FAILED;
  }

  const consented = await askConsent(workspace, options, environment);
  if (signal?.aborted) return EXIT_FAILED;
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs(workspace.servers);
  // The same runtime as serve and the editor, so that exposed/filteredBy are exactly what chat would
  // get. Its cache is in memory: the doctor reports what the servers say now, and must neither lean
  // on nor rewrite a cache that serve keeps warm. The startup gate only decides when start()
  // returns; the doctor does its own waiting, by events.
  const runtime = createRuntime({
    ...environment.manager,
    connection: {
      ...environment.manager?.connection,
      sandbox: { ...environment.manager?.connection?.sandbox, hostPlaces: () => ({ workspaceFolders: [workspace.folder] }) },
    },
    startupGateMs: 0,
    storage: new MemoryToolCacheStorage(),
    settings: await readCatalogSettings(workspace.folder, (environment.env ?? process.env)[USER_SETTINGS_ENV] || undefined),
    hostAnswers: cliAnswers(workspace.folder, 'doctor'),
    // Signed in with `mcp-switchboard login`; the doctor refreshes but never signs in.
    secrets: new FileSecretStore(defaultCredentialsFile(environment.env ?? process.env)),
  });
  const { manager, catalog } = runtime;
  try {
    announce(consented, workspace.folder, timeoutMs, io);
    manager.onDidChangeState(({ server, state, previous }) => {
      if (!isSettled(previous) && isSettled(state)) io.err(`  ${server}: ${progressLine(state)}\n`);
    });
    // The doctor checks every server: a lazy one starts now too (its report still says lazy).
    await manager.start(
      consented.servers.map((server) =>
        'transport' in server ? { ...server, lifecycle: { ...server.lifecycle, start: 'eager' as const } } : server,
      ),
      consented.blocks,
    );
    const outcome = await waitUntilSettled(manager, timeoutMs, signal);
    if (outcome === 'aborted') return EXIT_FAILED;
    await catalog.settled();
    const report = {
      ...buildReport(workspace, manager.servers(), catalog.snapshot(), outcome, timeoutMs, (name) => runtime.offers.offer(name)),
      machineHost: await reportMachineHost(hostPlace(environment.env ?? process.env)),
    };

    if (options.call && target) {
      // The result is what a script wants on stdout; the report is context.
      io.err(`\n${formatTableReport(report)}\n`);
      return await callTool(runtime, report, options.call, target, options.json, io, signal);
    }
    if (options.json) io.json(toJsonReport(report));
    else io.out(formatTableReport(report));
    if (options.json) reportGeneralDiagnostics(report, io);
    return exitCodeFor(report);
  } finally {
    await runtime.dispose();
  }
}

function announce(consented: ConsentedServers, folder: string, timeoutMs: number, io: DoctorIo): void {
  const connecting = consented.servers.filter(
    (server) => 'transport' in server && server.enabled && !consented.blocks.has(server.name),
  ).length;
  if (connecting > 0)
    io.err(`Connecting ${connecting} server${connecting === 1 ? '' : 's'} in ${folder} (waiting up to ${timeoutMs} ms)\n`);
}

/** Before anything runs: the folder's own stdio servers need the user's word (asked here, on a terminal). */
function askConsent(workspace: LoadedWorkspace, options: DoctorOptions, environment: DoctorEnvironment): Promise<ConsentedServers> {
  return settleWorkspaceConsent(workspace.servers, {
    folders: [workspace.folder],
    store: environment.consent,
    env: environment.env,
    trustWorkspace: options.trustWorkspace,
    ask: environment.ask,
    app: 'doctor',
  });
}

function progressLine(state: ServerState): string {
  switch (state.kind) {
    case 'running':
      return `running (${state.toolCount} tool${state.toolCount === 1 ? '' : 's'}, ${state.connectMs} ms)`;
    case 'error':
      return `error: ${state.message.split('\n', 1)[0] ?? ''}`;
    case 'needsSignIn':
      return 'needs sign-in';
    case 'idle':
    case 'starting':
    case 'reconnecting':
    case 'stopped':
    case 'disabled':
    case 'invalid':
    case 'blocked':
      return state.kind;
  }
}

/** The JSON shape has no place for problems that belong to no server, nor for catalog warnings; they must not be lost. */
function reportGeneralDiagnostics(report: DoctorReport, io: DoctorIo): void {
  if (report.diagnostics.length > 0) {
    io.err('Configuration:\n');
    for (const diagnostic of report.diagnostics) io.err(`  ${describeDiagnostic(diagnostic, true)}\n`);
  }
  const warnings = [...report.servers.flatMap((server) => server.catalogWarnings), ...report.catalogWarnings];
  if (warnings.length > 0) {
    io.err('Catalog:\n');
    for (const message of warnings) io.err(`  warning  ${message}\n`);
  }
}

async function callTool(
  { manager, catalog }: Pick<SwitchboardRuntime, 'manager' | 'catalog'>,
  report: DoctorReport,
  call: CallRequest,
  target: { server: string; tool: string },
  json: boolean,
  io: DoctorIo,
  signal: AbortSignal | undefined,
): Promise<ExitCode> {
  // The manager would wait (up to requestMs) for a server still starting; --timeout already said
  // how long the user is willing to wait, so a server that is not running now fails the call.
  const server = report.servers.find((candidate) => candidate.name === target.server);
  if (server && server.state !== 'running') {
    io.err(`${target.server}/${target.tool} not called: ${target.server} is ${server.state}${server.error ? ` (${server.error})` : ''}\n`);
    return EXIT_FAILED;
  }
  let result: CallToolResult;
  try {
    // The one path every call takes: the catalog's gate, so a tool hidden from chat is refused here too.
    // What a long call (a task) reports goes to stderr as it comes, so a terminal shows it working.
    const onProgress = (progress: Progress) => {
      if (progress.message) io.err(`  ${target.server}/${target.tool}: ${progress.message.split('\n', 1)[0]?.slice(0, 200) ?? ''}\n`);
    };
    result = await catalog.callExposedTool(target.server, target.tool, call.args, { onProgress, signal });
  } catch (error) {
    io.err(`${target.server}/${target.tool} failed: ${errorMessage(error)}\n`);
    if (isSwitchboardError(error, 'UNKNOWN_TOOL') || isSwitchboardError(error, 'UNKNOWN_SERVER')) {
      const tools = manager.server(target.server)?.tools.map((tool) => tool.name) ?? [];
      if (tools.length > 0) io.err(`  tools of ${target.server}: ${tools.join(', ')}\n`);
    }
    return EXIT_FAILED;
  }
  if (json) io.json(result);
  else io.out(formatCallResult(result));
  if (result.isError) {
    io.err(`${target.server}/${target.tool} returned an error result (isError)\n`);
    return EXIT_FAILED;
  }
  return EXIT_OK;
}
