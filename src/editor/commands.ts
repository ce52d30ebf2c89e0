import * as vscode from 'vscode';
import { isActive } from '../core/connection/state';
import type { ServerManager, ServerView } from '../core/manager';
import { describeState } from '../core/presentation/stateText';
import { addServerInteractively } from './addServer';
import { COMMANDS } from './commandIds';
import type { ConfigurationSync } from './configurationSync';
import type { ConsentStore } from './consent';
import { importServersInteractively } from './importServers';
import type { SecretInputResolver } from './inputPrompts';
import type { LogChannels } from './logChannels';
import { rawEntry, revealEntry, setServerEnabled } from './settingsEntry';
import type { TreeNode } from './serversView';

export { COMMANDS } from './commandIds';

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
  runTool(qualifiedName?: string): Promise<unknown>;
}

/** Commands accept a server name (keybindings, other extensions), a tree node, or nothing (quick pick). */
type ServerArgument = string | TreeNode | undefined;

function nameFrom(argument: unknown): string | undefined {
  if (typeof argument === 'string') return argument;
  if (argument && typeof argument === 'object' && 'kind' in argument) {
    const node = argument as TreeNode;
    return node.kind === 'server' ? node.view.name : node.row.server;
  }
  return undefined;
}

async function pickServer(manager: ServerManager, title: string, filter: (view: ServerView) => boolean = () => true): Promise<string | undefined> {
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

async function serverName(services: CommandServices, argument: ServerArgument, title: string, filter?: (view: ServerView) => boolean): Promise<string | undefined> {
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

async function reconnect(services: CommandServices, name: string): Promise<void> {
  await services.sync.confirmAgain(name);
  await services.manager.reconnect(name);
}

export function registerCommands(services: CommandServices): vscode.Disposable[] {
  const { manager, logs } = services;
  const register = (id: string, handler: (...args: unknown[]) => unknown) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await handler(...args);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        logs.main.error(`${id} failed: ${message}`);
        void vscode.window.showErrorMessage(`MCP Switchboard: ${message}`);
        return undefined;
      }
    });

  return [
    register(COMMANDS.reconnectServer, async (argument) => {
      const name = await serverName(services, argument as ServerArgument, 'Reconnect which server?');
      if (name) await reconnect(services, name);
    }),
    register(COMMANDS.reconnectFailed, async () => {
      const failed = manager.servers().filter((view) => view.state.kind === 'error');
      await Promise.all(failed.map((view) => reconnect(services, view.name)));
    }),
    register(COMMANDS.reconnectAll, async () => {
      await Promise.all(manager.servers().map((view) => services.sync.confirmAgain(view.name)));
      await manager.reconnectAll();
    }),
    register(COMMANDS.startServer, async (argument) => {
      const name = await serverName(services, argument as ServerArgument, 'Start which server?', (view) => !isActive(view.state.kind));
      if (!name) return;
      await services.sync.confirmAgain(name);
      await manager.startServer(name);
    }),
    register(COMMANDS.stopServer, async (argument) => {
      const name = await serverName(services, argument as ServerArgument, 'Stop which server?', (view) => isActive(view.state.kind));
      if (name) await manager.stopServer(name);
    }),
    register(COMMANDS.invalidateToolCache, async (argument) => {
      let name = nameFrom(argument);
      if (name === undefined && manager.servers().length > 1) {
        const choice = await vscode.window.showQuickPick(
          [{ label: 'All servers', all: true }, ...manager.servers().map((view) => ({ label: view.name, description: describeState(view.state), all: false }))],
          { title: 'Invalidate the tool cache of' },
        );
        if (!choice) return;
        name = choice.all ? undefined : choice.label;
      }
      await services.invalidateToolCache(name);
    }),
    register(COMMANDS.showLogs, async (argument) => {
      let name = nameFrom(argument);
      if (name === undefined) {
        const choice = await vscode.window.showQuickPick(
          [{ label: 'MCP Switchboard', description: 'main log' }, ...manager.servers().map((view) => ({ label: view.name, description: describeState(view.state) }))],
          { title: 'Show logs of' },
        );
        if (!choice) return;
        name = choice.label === 'MCP Switchboard' && choice.description === 'main log' ? undefined : choice.label;
      }
      if (name === undefined) logs.main.show(true);
      else logs.server(name).show(true);
    }),
    register(COMMANDS.openSettings, () => vscode.commands.executeCommand('workbench.action.openSettings', '@ext:switchboard-labs.mcp-switchboard')),
    register(COMMANDS.addServer, () => addServerInteractively()),
    register(COMMANDS.importServers, () => importServersInteractively()),
    register(COMMANDS.showToolCatalog, () => services.showToolCatalog()),
    register(COMMANDS.runTool, (argument) => services.runTool(typeof argument === 'string' ? argument : undefined)),
    register(COMMANDS.clearStoredInputs, async () => {
      const count = await services.inputs.clear();
      void vscode.window.showInformationMessage(`MCP Switchboard: cleared ${count} stored input value(s). Servers that use them will ask again.`);
      await services.sync.reload();
    }),
    register(COMMANDS.resetConsent, async () => {
      await services.consent.reset();
      void vscode.window.showInformationMessage('MCP Switchboard: forgot every consent answer. Workspace servers will ask again.');
      await services.sync.reload();
    }),
    register(COMMANDS.openSettingsEntry, async (argument) => {
      const name = await serverName(services, argument as ServerArgument, 'Open the settings entry of');
      const view = name ? manager.server(name) : undefined;
      if (view) await revealEntry(view.name, view.source);
    }),
    register(COMMANDS.copyServerJson, async (argument) => {
      const name = await serverName(services, argument as ServerArgument, 'Copy the JSON of');
      const view = name ? manager.server(name) : undefined;
      if (!view) return;
      const raw = rawEntry(view.name, view.source);
      // The entry as written: variables stay unresolved, so no secret value reaches the clipboard.
      await vscode.env.clipboard.writeText(JSON.stringify({ [view.name]: raw ?? null }, null, 2));
      void vscode.window.setStatusBarMessage(`Copied the entry of "${view.name}"`, 3000);
    }),
    register(COMMANDS.enableServer, async (argument) => {
      const name = await serverName(services, argument as ServerArgument, 'Enable which server?', (view) => view.state.kind === 'disabled');
      const view = name ? manager.server(name) : undefined;
      if (view && !(await setServerEnabled(view.name, view.source, true))) await revealEntry(view.name, view.source);
    }),
    register(COMMANDS.disableServer, async (argument) => {
      const name = await serverName(services, argument as ServerArgument, 'Disable which server?', (view) => view.state.kind !== 'disabled');
      const view = name ? manager.server(name) : undefined;
      if (view && !(await setServerEnabled(view.name, view.source, false))) await revealEntry(view.name, view.source);
    }),
    register(COMMANDS.showServerActions, async () => {
      const name = await pickServer(manager, 'MCP Switchboard servers');
      if (!name) return;
      const view = manager.server(name);
      const running = view !== undefined && isActive(view.state.kind);
      const actions = [
        { label: '$(debug-restart) Reconnect', command: COMMANDS.reconnectServer },
        running ? { label: '$(debug-stop) Stop', command: COMMANDS.stopServer } : { label: '$(play) Start', command: COMMANDS.startServer },
        { label: '$(output) Show Logs', command: COMMANDS.showLogs },
        { label: '$(go-to-file) Open Settings Entry', command: COMMANDS.openSettingsEntry },
        { label: '$(refresh) Invalidate Tool Cache', command: COMMANDS.invalidateToolCache },
      ];
      const action = await vscode.window.showQuickPick(actions, { title: `${name}: ${view ? describeState(view.state) : ''}` });
      if (action) await vscode.commands.executeCommand(action.command, name);
    }),
  ];
}
