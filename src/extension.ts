// Wiring only: build the parts, connect them, and hand every disposable to the context.
import * as vscode from 'vscode';
import { registerCommands } from './editor/commands';
import { SERVERS_VIEW_ID, ServersTreeProvider } from './editor/serversView';
import { configuredServerNames, onDidChangeSwitchboardSettings } from './editor/settings';
import { SwitchboardContext } from './editor/switchboardContext';

let active: SwitchboardContext | undefined;

export interface SwitchboardApi {
  /** For tests and other extensions: the names the Servers view currently shows. */
  serverNames(): readonly string[];
}

export function activate(extension: vscode.ExtensionContext): SwitchboardApi {
  const context = new SwitchboardContext(extension);
  active = context;
  extension.subscriptions.push(context);

  const mainLog = context.own(vscode.window.createOutputChannel('MCP Switchboard', { log: true }));
  mainLog.info(`MCP Switchboard ${extension.extension.packageJSON.version} activated`);

  const rows = () => configuredServerNames().map((name) => ({ name, description: 'configured' }));
  const tree = context.own(new ServersTreeProvider(rows));
  context.own(vscode.window.createTreeView(SERVERS_VIEW_ID, { treeDataProvider: tree, showCollapseAll: false }));
  context.own(onDidChangeSwitchboardSettings(() => tree.refresh()));

  for (const command of registerCommands({ mainLog })) context.own(command);

  return { serverNames: () => rows().map((row) => row.name) };
}

export function deactivate(): void {
  active?.dispose();
  active = undefined;
}
