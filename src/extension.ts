// Wiring only: build the parts, connect them, and hand every disposable to the context.
import * as vscode from 'vscode';
import type { ServerStateChangeEvent } from './core/connection/state';
import { ServerManager, type ServerView } from './core/manager';
import { registerCommands } from './editor/commands';
import { ConfigurationSync } from './editor/configurationSync';
import { ConsentStore } from './editor/consent';
import { FailureNotices } from './editor/failureNotices';
import { SecretInputResolver } from './editor/inputPrompts';
import { LogChannels } from './editor/logChannels';
import { SERVERS_VIEW_ID, ServersTreeProvider, snapshotTree, type TreeSnapshot, type ToolRow } from './editor/serversView';
import { HealthStatusBar } from './editor/statusBar';
import { SwitchboardContext } from './editor/switchboardContext';
import { disabledTools, setToolEnabled } from './editor/toolSwitches';

let active: SwitchboardContext | undefined;
/** Ends every server process; deactivate() waits for it so nothing outlives the extension host. */
let shutdown: (() => Promise<void>) | undefined;

/** What the extension returns from activate(): for tests and for other extensions. */
export interface SwitchboardApi {
  servers(): readonly ServerView[];
  readonly onDidChangeState: vscode.Event<ServerStateChangeEvent>;
  /** Resolves once the configuration has been read and every server has settled or passed the startup gate. */
  whenLoaded(): Promise<void>;
  reload(): Promise<void>;
  /** The Servers view as rendered: labels, descriptions, icons, tooltips and tool rows. */
  tree(): TreeSnapshot[];
  /** Where this extension's log channels are written. */
  readonly logFolder: string;
}

export function activate(extension: vscode.ExtensionContext): SwitchboardApi {
  const context = new SwitchboardContext(extension);
  active = context;
  extension.subscriptions.push(context);

  const logs = context.own(new LogChannels());
  logs.main.info(`MCP Switchboard ${extension.extension.packageJSON.version} activated`);

  const defaultCwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const manager = new ServerManager({
    logger: logs.mainLogger,
    serverLogger: (name) => logs.serverLogger(name),
    connection: defaultCwd ? { defaultCwd } : {},
  });
  shutdown = () => manager.dispose();

  const inputs = new SecretInputResolver(extension.secrets, extension.globalState);
  const consent = new ConsentStore(extension.globalState);
  const sync = context.own(new ConfigurationSync(manager, inputs, consent, logs));

  const toolRows = (server: string): ToolRow[] => {
    const disabled = disabledTools();
    return (manager.server(server)?.tools ?? []).map((tool) => ({
      server,
      name: tool.name,
      title: tool.title ?? tool.annotations?.title,
      description: tool.description,
      readOnly: tool.annotations?.readOnlyHint === true,
      enabled: !disabled.has(`${server}/${tool.name}`),
    }));
  };
  const tree = context.own(new ServersTreeProvider({ servers: () => manager.servers(), tools: toolRows }));
  const treeView = context.own(vscode.window.createTreeView(SERVERS_VIEW_ID, { treeDataProvider: tree, showCollapseAll: true, manageCheckboxStateManually: true }));
  context.own(treeView.onDidChangeCheckboxState(async (event) => {
    for (const [node, state] of event.items) {
      if (node.kind === 'tool') await setToolEnabled(node.row.server, node.row.name, state === vscode.TreeItemCheckboxState.Checked);
    }
  }));

  const statusBar = context.own(new HealthStatusBar());
  const notices = new FailureNotices();
  const render = () => {
    tree.refresh();
    statusBar.update(manager.health(), manager.servers());
  };
  context.own(manager.onDidChangeState((event) => {
    logs.server(event.server).info(`state: ${event.previous.kind} → ${event.state.kind}`);
    notices.onStateChange(event);
    render();
  }));
  context.own(manager.onDidChangeTools(() => render()));
  context.own(sync.onDidLoad(() => render()));

  const invalidateToolCache = async (server?: string) => {
    const names = server ? [server] : manager.servers().map((view) => view.name);
    await Promise.all(names.map((name) => manager.connection(name)?.listTools().catch((error: unknown) => logs.server(name).warn(`refetching tools failed: ${String(error)}`))));
    render();
  };
  for (const command of registerCommands({
    manager, sync, logs, inputs, consent,
    invalidateToolCache,
    showToolCatalog: async () => {
      await vscode.window.showInformationMessage('The tool catalog arrives with the catalog layer.');
    },
  })) context.own(command);

  context.own(vscode.workspace.onDidChangeConfiguration((event) => {
    if (!event.affectsConfiguration('mcpSwitchboard')) return;
    render();
    sync.scheduleReload();
  }));
  context.own(vscode.workspace.onDidGrantWorkspaceTrust(() => void sync.reload()));
  context.own(vscode.workspace.onDidChangeWorkspaceFolders(() => sync.scheduleReload()));

  const stateEvents = context.own(new vscode.EventEmitter<ServerStateChangeEvent>());
  context.own(manager.onDidChangeState((event) => stateEvents.fire(event)));
  const loaded = sync.reload();
  return {
    servers: () => manager.servers(),
    onDidChangeState: stateEvents.event,
    whenLoaded: () => loaded,
    reload: () => sync.reload(),
    tree: () => snapshotTree(tree),
    logFolder: extension.logUri.fsPath,
  };
}

export async function deactivate(): Promise<void> {
  const stopping = shutdown?.();
  shutdown = undefined;
  active?.dispose();
  active = undefined;
  await stopping;
}
