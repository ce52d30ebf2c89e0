import type { TaskNode } from './taskRows';
import * as vscode from 'vscode';
import { isActive, isSwitchboardError } from '../core/state';
import type { ServerManager, ServerView } from '../core/manager';
import { describeState, sandboxDeniedHost, type StateContext } from '../core/presentation';
import { launchOf, sandboxOf } from '../core/config';
import { addServerInteractively } from './addServer';
import { addServerFromRegistry } from './registryPicker';
import { shareWithAgentsInteractively } from './shareWithAgents';
import { COMMANDS } from './commandIds';
import type { ConfigurationSync } from './configurationSync';
import type { ConsentStore } from './consent';
import { importServersInteractively } from './importServers';
import type { SecretInputResolver } from './inputPrompts';
import type { LogChannels } from './logChannels';
import { removeServerInteractively } from './removeServer';
import { allowHostInSandbox, revealEntry, setServerEnabled, setServerSandboxed } from './settingsEntry';
import { copyForClientInteractively, entryAsWritten } from './copyForClient';
import type { TreeNode } from './serversView';
import type { ToolToRun } from './runTool';
import { errorMessage } from '../core/base/errorMessage';
import type { SkillInstalls } from './skillInstalls';
import { switchToolSetInteractively } from './toolSetStatus';
import { displayText } from '../core/base/displayText';

export interface CommandServices {
  readonly manager: ServerManager;
  readonly sync: ConfigurationSync;
  readonly logs: LogChannels;
  readonly inputs: SecretInputResolver;
  readonly consent: ConsentStore;
  /** Drops cached tool lists (one server or all) and refetches. */
  invalidateToolCache(server?: string): Promise<void>;
  /** Opens a read-only view of what chat sees and what is filtered out, and why; returns its URI. */
  showToolCatalog(): Promise<vscode.Uri>;
  /** Asks for a tool and its arguments and calls it the way chat would. */
  runTool(tool?: ToolToRun): Promise<unknown>;
  /** Searches the tools as chat's #mcpTools does, lists what it found, and runs the one picked. */
  findTools(): Promise<unknown>;
  /** Reads a resource and opens it read-only (text) or as a preview (images). */
  openResource(server: string, uri: string): Promise<unknown>;
  /** OAuth: sign in to a remote server in the browser; forget one server's sign-in, or all. */
  signIn(server: string): Promise<void>;
  signOut(server: string): Promise<void>;
  signOutAll(): Promise<void>;
  /** Whether a server is remote with OAuth on (it can sign in and out). */
  canSignIn(server: string): boolean;
  /** Writes (again) the command other agents start Switchboard with (cliLauncher.ts); its path. */
  cliLauncher(): string;
  /** Servers' skills where agents read them. */
  readonly skills: SkillInstalls;
  /** A server's tools as its row counts them (`1 of 17 offered`): the same figure everywhere. */
  toolCounts(server: string): StateContext;
}

/** Commands accept a server name (keybindings, other extensions), a tree node, or nothing (quick pick). */
type ServerArgument = string | TreeNode | undefined;

function nameFrom(argument: unknown): string | undefined {
  if (typeof argument === 'string') return argument;
  if (argument && typeof argument === 'object' && 'kind' in argument) {
    const node = argument as TreeNode;
    if (node.kind === 'server') return node.view.name;
    return node.kind === 'tool' ? node.row.server : node.server;
  }
  return undefined;
}

async function pickServer(
  manager: ServerManager,
  title: string,
  filter: (view: ServerView) => boolean = () => true,
): Promise<string | undefined> {
  const servers = manager.servers().filter(filter);
  if (servers.length === 0) {
    void vscode.window.showInformationMessage('MCP Switchboard: no matching servers.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    servers.map((view) => ({ label: view.name, description: describeState(view.state) })),
    { title },
  );
  return picked?.label;
}

async function serverName(
  services: CommandServices,
  argument: ServerArgument,
  title: string,
  filter?: (view: ServerView) => boolean,
): Promise<string | undefined> {
  const name = nameFrom(argument);
  if (name !== undefined) {
    if (!services.manager.server(name)) {
      void vscode.window.showErrorMessage(`MCP Switchboard: no server named "${name}" is configured.`);
      return undefined;
    }
    return name;
  }
  return pickServer(services.manager, title, filter);
}

/** One server the user acts on: a denied workspace server is asked about again. */
async function reconnect(services: CommandServices, name: string, reaskDenied = true): Promise<void> {
  if (await askInputsAgain(services, name)) return;
  await services.sync.confirmAgain(name, { reaskDenied });
  await services.manager.reconnect(name);
}

/**
 * A server blocked on an `${input:}` the user dismissed: loading the settings again asks for it
 * (and starts the server once it is given). True when that was the case.
 */
async function askInputsAgain(services: CommandServices, name: string): Promise<boolean> {
  const state = services.manager.server(name)?.state;
  if (state?.kind !== 'blocked' || state.reason !== 'needsInput') return false;
  await services.sync.reload();
  return true;
}

/** A command's implementation, given the services; it receives the command's arguments. */
type Command = (services: CommandServices) => (...args: unknown[]) => unknown;

const reconnectServer: Command = (services) => async (argument) => {
  const name = await serverName(services, argument as ServerArgument, 'Reconnect which server?');
  if (name) await reconnect(services, name);
};

const reconnectFailed: Command = (services) => async () => {
  const failed = services.manager.servers().filter((view) => view.state.kind === 'error');
  await Promise.all(failed.map((view) => reconnect(services, view.name, false)));
};

const reconnectAll: Command = (services) => async () => {
  await Promise.all(services.manager.servers().map((view) => services.sync.confirmAgain(view.name)));
  await services.manager.reconnectAll();
};

const startServer: Command = (services) => async (argument) => {
  const name = await serverName(services, argument as ServerArgument, 'Start which server?', (view) => !isActive(view.state.kind));
  if (!name || (await askInputsAgain(services, name))) return;
  await services.sync.confirmAgain(name, { reaskDenied: true });
  await services.manager.startServer(name);
};

/** *Allow…* on a blocked workspace server: its consent dialog again, for it alone. */
const allowServer: Command = (services) => async (argument) => {
  const name = await serverName(
    services,
    argument as ServerArgument,
    'Allow which server?',
    (view) => view.state.kind === 'blocked' && view.state.reason !== 'untrusted',
  );
  if (name) await services.sync.confirmAgain(name, { reaskDenied: true });
};

const stopServer: Command = (services) => async (argument) => {
  const name = await serverName(services, argument as ServerArgument, 'Stop which server?', (view) => isActive(view.state.kind));
  if (name) await services.manager.stopServer(name);
};

const invalidateToolCache: Command = (services) => async (argument) => {
  const { manager } = services;
  let name = nameFrom(argument);
  if (name === undefined && manager.servers().length > 1) {
    const choice = await vscode.window.showQuickPick(
      [
        { label: 'All servers', all: true },
        ...manager.servers().map((view) => ({ label: view.name, description: describeState(view.state), all: false })),
      ],
      { title: 'Invalidate the tool cache of' },
    );
    if (!choice) return;
    name = choice.all ? undefined : choice.label;
  }
  await services.invalidateToolCache(name);
};

const showLogs: Command = (services) => async (argument) => {
  let name = nameFrom(argument);
  if (name === undefined) {
    const choice = await vscode.window.showQuickPick(
      [
        { label: 'MCP Switchboard', description: 'main log' },
        ...services.manager.servers().map((view) => ({ label: view.name, description: describeState(view.state) })),
      ],
      { title: 'Show logs of' },
    );
    if (!choice) return;
    name = choice.label === 'MCP Switchboard' && choice.description === 'main log' ? undefined : choice.label;
  }
  if (name === undefined) services.logs.main.show(true);
  else services.logs.server(name).show(true);
};

const openSettings: Command = () => () =>
  vscode.commands.executeCommand('workbench.action.openSettings', '@ext:switchboard-labs.mcp-switchboard');

const clearStoredInputs: Command = (services) => async () => {
  const count = await services.inputs.clear();
  void vscode.window.showInformationMessage(
    `MCP Switchboard: cleared ${count} stored input value(s). Servers that use them will ask again.`,
  );
  await services.sync.reload();
};

const resetConsent: Command = (services) => async () => {
  await services.consent.reset();
  void vscode.window.showInformationMessage('MCP Switchboard: forgot every consent answer. Workspace servers will ask again.');
  await services.sync.reload();
};

const openSettingsEntry: Command = (services) => async (argument) => {
  const name = await serverName(services, argument as ServerArgument, 'Open the settings entry of');
  const view = name ? services.manager.server(name) : undefined;
  if (view) await revealEntry(view.name, view.source);
};

const removeServer: Command = (services) => async (argument) => {
  const name = await serverName(services, argument as ServerArgument, 'Remove which server?');
  const view = name ? services.manager.server(name) : undefined;
  const skills = [
    ...new Set(
      services.skills
        .all()
        .filter((skill) => skill.server === name)
        .map((skill) => skill.name),
    ),
  ];
  if (view && (await removeServerInteractively(view.name, view.source, skills))) await services.sync.reload();
};

const copyServerJson: Command = (services) => async (argument) => {
  const name = await serverName(services, argument as ServerArgument, 'Copy the JSON of');
  const view = name ? services.manager.server(name) : undefined;
  if (!view) return;
  const raw = await entryAsWritten(view.name, view.source);
  // The entry as written: variables stay unresolved, so no secret value reaches the clipboard.
  await vscode.env.clipboard.writeText(JSON.stringify({ [view.name]: raw ?? null }, null, 2));
  void vscode.window.setStatusBarMessage(`Copied the entry of "${view.name}"`, 3000);
};

const copyServerForClient: Command = (services) => async (argument) => {
  const name = await serverName(services, argument as ServerArgument, 'Copy which server for another client?');
  const view = name ? services.manager.server(name) : undefined;
  if (view) await copyForClientInteractively(view.name, view.source);
};

function switchServer(enabled: boolean): Command {
  return (services) => async (argument) => {
    const title = enabled ? 'Enable which server?' : 'Disable which server?';
    const name = await serverName(services, argument as ServerArgument, title, (view) => (view.state.kind === 'disabled') === enabled);
    const view = name ? services.manager.server(name) : undefined;
    if (view && !(await setServerEnabled(view.name, view.source, enabled))) await revealEntry(view.name, view.source);
  };
}

/** Run Sandboxed / Run Unsandboxed: a stdio server's `sandboxEnabled`, in its entry (which restarts it). */
function switchSandbox(sandboxed: boolean): Command {
  return (services) => async (argument) => {
    const title = sandboxed ? 'Run which server in a sandbox?' : 'Run which server without its sandbox?';
    const name = await serverName(
      services,
      argument as ServerArgument,
      title,
      (view) => launchOf(view.definition)?.transport === 'stdio' && (sandboxOf(view.definition) !== undefined) !== sandboxed,
    );
    const view = name ? services.manager.server(name) : undefined;
    if (!view) return;
    // The menu choice is the user's consent to the entry it makes, for a server they had allowed.
    services.sync.approveNextChange(view.name);
    if (!(await setServerSandboxed(view.name, view.source, sandboxed))) await revealEntry(view.name, view.source);
  };
}

/** The one host a failed server's sandbox refused it (its stderr says which), allowed in its entry's rules. */
const allowSandboxHost: Command = (services) => async (argument) => {
  const name = await serverName(
    services,
    argument as ServerArgument,
    'Allow a host for which server?',
    (view) => sandboxDeniedHost(view.state) !== undefined,
  );
  const view = name ? services.manager.server(name) : undefined;
  const host = view ? sandboxDeniedHost(view.state) : undefined;
  const sandbox = sandboxOf(view?.definition);
  if (!view || !host || !sandbox) return;
  if (await allowHostInSandbox(view.name, view.source, host, sandbox.rules)) return;
  // Not in settings (a file of another agent, the workspace's mcp.json): the user edits it there.
  await revealEntry(view.name, view.source);
  void vscode.window.showInformationMessage(`Add "${host}" to the "sandbox.network.allowedDomains" of "${view.name}" in this file.`);
};

const signIn: Command = (services) => async (argument) => {
  const name = await serverName(services, argument as ServerArgument, 'Sign in to which server?', (view) => services.canSignIn(view.name));
  if (name) await services.signIn(name);
};

const signOut: Command = (services) => async (argument) => {
  const name = await serverName(services, argument as ServerArgument, 'Sign out of which server?', (view) => services.canSignIn(view.name));
  if (name) await services.signOut(name);
};

const showServerActions: Command = (services) => async () => {
  const name = await pickServer(services.manager, 'MCP Switchboard servers');
  if (!name) return;
  const view = services.manager.server(name);
  const running = view !== undefined && isActive(view.state.kind);
  const deniedHost = view ? sandboxDeniedHost(view.state) : undefined;
  const actions = [
    { label: '$(debug-restart) Reconnect', command: COMMANDS.reconnectServer },
    running ? { label: '$(debug-stop) Stop', command: COMMANDS.stopServer } : { label: '$(play) Start', command: COMMANDS.startServer },
    { label: '$(output) Show Logs', command: COMMANDS.showLogs },
    { label: '$(go-to-file) Open Settings Entry', command: COMMANDS.openSettingsEntry },
    { label: '$(trash) Remove Server…', command: COMMANDS.removeServer },
    { label: '$(refresh) Invalidate Tool Cache', command: COMMANDS.invalidateToolCache },
    ...(launchOf(view?.definition)?.transport === 'stdio'
      ? [
          sandboxOf(view?.definition)
            ? { label: '$(unlock) Run Unsandboxed', command: COMMANDS.runUnsandboxed }
            : { label: '$(lock) Run Sandboxed', command: COMMANDS.runSandboxed },
        ]
      : []),
    ...(deniedHost ? [{ label: `$(globe) Allow ${deniedHost} in Its Sandbox`, command: COMMANDS.allowSandboxHost }] : []),
    ...(services.canSignIn(name)
      ? [
          { label: '$(account) Sign In', command: COMMANDS.signIn },
          { label: '$(sign-out) Sign Out', command: COMMANDS.signOut },
        ]
      : []),
  ];
  if (view?.state.kind === 'needsSignIn')
    actions.unshift(
      ...actions.splice(
        actions.findIndex((action) => action.command === COMMANDS.signIn),
        1,
      ),
    );
  const action = await vscode.window.showQuickPick(actions, {
    title: `${name}: ${view ? describeState(view.state, Date.now(), services.toolCounts(name)) : ''}`,
  });
  if (action) await vscode.commands.executeCommand(action.command, name);
};

/** A skill the command was run on: its row, (server, uri) from a caller, or one picked from every listed skill. */
async function skillArgument(
  services: CommandServices,
  args: unknown[],
  title: string,
  filter: (server: string, uri: string) => boolean = () => true,
  installedOnly = false,
): Promise<{ server: string; uri: string } | undefined> {
  const [first, second] = args;
  if (typeof first === 'string' && typeof second === 'string') return { server: first, uri: second };
  const node = first as Partial<TreeNode> | undefined;
  if (node?.kind === 'skill' && node.server && node.skill) return { server: node.server, uri: node.skill.uri };
  const listed = services.manager.servers().flatMap((view) =>
    (services.skills.listedBy(view.name) ?? [])
      .filter((skill) => filter(view.name, skill.uri))
      .map((skill) => ({
        label: displayText(String(skill.frontmatter.name), 80),
        description: view.name,
        detail: displayText(String(skill.frontmatter.description), 200),
        server: view.name,
        uri: skill.uri,
      })),
  );
  // What is installed, whether or not its server still lists it (a skill it dropped is removed too).
  const installed = installedOnly
    ? [...new Map(services.skills.all().map((placed) => [JSON.stringify([placed.server, placed.uri]), placed])).values()]
        .filter((placed) => !listed.some((item) => item.server === placed.server && item.uri === placed.uri))
        .map((placed) => ({
          label: displayText(placed.name, 80),
          description: `${placed.server} · no longer served`,
          detail: displayText(placed.uri, 200),
          server: placed.server,
          uri: placed.uri,
        }))
    : [];
  const items = [...listed, ...installed];
  if (items.length === 0) {
    void vscode.window.showInformationMessage('MCP Switchboard: no matching skills.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items, { title, matchOnDescription: true, matchOnDetail: true });
  return picked ? { server: picked.server, uri: picked.uri } : undefined;
}

const installSkill: Command =
  (services) =>
  async (...args) => {
    const target = await skillArgument(services, args, 'Install which skill?');
    if (!target) return;
    const installed = await services.skills.install(target.server, target.uri);
    if (installed) void vscode.window.setStatusBarMessage(`Installed the skill "${installed.name}" in ${installed.folder}`, 5000);
  };

const updateSkill: Command =
  (services) =>
  async (...args) => {
    const target = await skillArgument(
      services,
      args,
      'Update which skill?',
      (server, uri) => services.skills.installsOf(server, uri).length > 0,
    );
    if (target) await services.skills.update(target.server, target.uri);
  };

const removeSkill: Command =
  (services) =>
  async (...args) => {
    const target = await skillArgument(
      services,
      args,
      'Remove which skill?',
      (server, uri) => services.skills.installsOf(server, uri).length > 0,
      true,
    );
    if (!target) return;
    const count = await services.skills.remove(target.server, target.uri);
    void vscode.window.setStatusBarMessage(`Removed the skill from ${count} place${count === 1 ? '' : 's'}`, 5000);
  };

/**
 * Every command, by its name in COMMANDS (package.json contributes the same ids; the type makes a
 * missing implementation a compile error).
 */
const COMMAND_TABLE: Record<keyof typeof COMMANDS, Command> = {
  reconnectServer,
  reconnectFailed,
  reconnectAll,
  startServer,
  allowServer,
  stopServer,
  invalidateToolCache,
  showLogs,
  openSettings,
  addServer: () => () => addServerInteractively(),
  addServerFromRegistry: () => () => addServerFromRegistry(),
  shareWithAgents: (services) => () => shareWithAgentsInteractively(() => services.cliLauncher(), services.skills),
  importServers: (services) => () => importServersInteractively(services.manager.servers()),
  showToolCatalog: (services) => () => services.showToolCatalog(),
  // From the palette (nothing), a tool row (its node), or a caller that names the tool.
  runTool: (services) => (argument) => services.runTool(typeof argument === 'string' ? argument : toolOfRow(argument)),
  findTools: (services) => () => services.findTools(),
  clearStoredInputs,
  resetConsent,
  openSettingsEntry,
  removeServer,
  copyServerJson,
  copyServerForClient,
  enableServer: switchServer(true),
  disableServer: switchServer(false),
  showServerActions,
  runSandboxed: switchSandbox(true),
  runUnsandboxed: switchSandbox(false),
  allowSandboxHost,
  signIn,
  signOut,
  signOutAll: (services) => () => services.signOutAll(),
  cancelTask: (services) => (node) => {
    const task = node as Partial<TaskNode> | undefined;
    // The row's button hands over its task; a click that lands as the task ends (its row already
    // gone from the view) hands over nothing: by then there is nothing left to cancel.
    if (task === undefined) {
      void vscode.window.showInformationMessage('That task has already ended.');
      return;
    }
    if (task.kind !== 'task' || !task.server || !task.task) throw new Error('Cancel Task needs a task (use its row in the Servers view)');
    if (!services.manager.cancelTask(task.server, task.task.id))
      void vscode.window.showInformationMessage(`The ${task.task.tool} task of ${task.server} has already ended.`);
  },
  installSkill,
  updateSkill,
  removeSkill,
  switchToolSet: () => () => switchToolSetInteractively(),
  openResource: (services) => (server, uri) => {
    if (typeof server !== 'string' || typeof uri !== 'string')
      throw new Error('Open Resource needs a server and a resource URI (use the Servers view)');
    return services.openResource(server, uri);
  },
};

/** Registers the table; a failing command logs and shows its error instead of throwing. */
export function registerCommands(services: CommandServices): vscode.Disposable[] {
  return Object.entries(COMMAND_TABLE).map(([key, command]) => {
    const id = COMMANDS[key as keyof typeof COMMANDS];
    const handler = command(services);
    return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await handler(...args);
      } catch (error) {
        // The user said no (Cancel on a confirmation, Escape on a form): nothing failed.
        if (isCancellation(error)) {
          services.logs.main.info(`${id}: cancelled`);
          return undefined;
        }
        const message = errorMessage(error);
        services.logs.main.error(`${id} failed: ${message}`);
        void vscode.window.showErrorMessage(`MCP Switchboard: ${message}`);
        return undefined;
      }
    });
  });
}

/**
 * Whether an error is the user's own cancellation: the editor's CancellationError (a tool
 * confirmation answered Cancel), or a request of ours that was cancelled.
 */
export function isCancellation(error: unknown): boolean {
  if (error instanceof vscode.CancellationError) return true;
  if (isSwitchboardError(error, 'CANCELLED')) return true;
  return error instanceof Error && (error.name === 'Canceled' || error.message === 'Canceled');
}

/** The tool of a tool row the command was run from, if it was. */
function toolOfRow(argument: unknown): ToolToRun | undefined {
  const node = argument as Partial<TreeNode> | undefined;
  return node?.kind === 'tool' && node.row ? { server: node.row.server, name: node.row.name } : undefined;
}
