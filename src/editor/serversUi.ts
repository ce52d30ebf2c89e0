// What the user sees of the servers: the tree (with tool switches), the status bar, the notices
// of failures and of the tool budget. It follows the manager and the catalog; the owner calls
// render() when something else changed what is shown (settings, a reload).
import * as vscode from 'vscode';
import type { ServerSharing } from '../core/sharing';
import { isSettling, type OfferCatalog, type ToolCatalog } from '../core/catalog';
import { COMMANDS } from './commandIds';
import type { ServerStateChangeEvent } from '../core/state';
import type { ServerManager } from '../core/manager';
import type { DevRestart } from './devWatchers';
import { FailureNotices } from './failureNotices';
import type { LogChannels } from './logChannels';
import { SERVERS_VIEW_ID, ServersTreeProvider, serverToolCounts, snapshotTree, toolRows, type TreeSnapshot } from './serversView';
import type { StateContext } from '../core/presentation';
import { openToolSettings, setToolEnabled } from './settings';
import { HealthStatusBar } from './statusBar';
import type { SkillInstalls } from './skillInstalls';
import { ToolSetStatus } from './toolSetStatus';

export class ServersUi implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly tree: ServersTreeProvider;
  private readonly statusBar: HealthStatusBar;
  private readonly toolSetStatus: ToolSetStatus;
  private readonly notices = new FailureNotices();
  /** Each budget warning is shown once per session. */
  private readonly budgetWarnings = new Set<string>();
  private readonly stateEvents = new vscode.EventEmitter<ServerStateChangeEvent>();
  /** Every server state change, after the UI has shown it. */
  readonly onDidChangeState = this.stateEvents.event;

  constructor(
    private readonly manager: ServerManager,
    private readonly catalog: ToolCatalog,
    private readonly logs: LogChannels,
    offers: OfferCatalog,
    devRestart: (server: string) => DevRestart | undefined = () => undefined,
    skills?: SkillInstalls,
    sharing?: ServerSharing,
  ) {
    this.tree = this.own(
      new ServersTreeProvider({
        servers: () => manager.servers(),
        tools: (server) => toolRows(catalog.snapshot(), server, catalog.knownTools(server)),
        offer: (server) => offers.offer(server),
        devRestart,
        sharedClients: (server) => sharing?.clientsOf(server),
        ...(skills
          ? {
              skillStanding: (server, skill) => ({
                places: skills.installsOf(server, skill.uri).map(({ place, folder }) => ({ place, folder })),
                changed: skills.hasChanged(server, skill),
              }),
            }
          : {}),
      }),
    );
    if (skills) this.own(skills.onDidChange(() => this.tree.refresh()));
    if (sharing) this.own(sharing.onDidChangeClients(() => this.tree.refreshShared()));
    const view = this.own(
      vscode.window.createTreeView(SERVERS_VIEW_ID, {
        treeDataProvider: this.tree,
        showCollapseAll: true,
        manageCheckboxStateManually: true,
      }),
    );
    this.own(view.onDidChangeCheckboxState((event) => this.switchTools(event)));
    this.statusBar = this.own(new HealthStatusBar());
    this.toolSetStatus = this.own(new ToolSetStatus());
    this.own(this.stateEvents);
    this.own(manager.onDidChangeState((event) => this.showState(event)));
    this.own(manager.onDidChangeTools(() => this.render()));
    this.own(manager.onDidChangeTasks(() => this.tree.refresh()));
    this.own(offers.onDidChange(() => this.render()));
    this.own(
      catalog.onDidChange((snapshot) => {
        this.render();
        // One toast with the final counts, not one per server as they come up.
        if (!isSettling(snapshot)) this.warnOverBudget(snapshot);
      }),
    );
  }

  render(): void {
    this.tree.refresh();
    const snapshot = this.catalog.snapshot();
    this.toolSetStatus.update(snapshot);
    this.statusBar.update(this.manager.health(), this.manager.servers(), (name) => this.toolCounts(name, snapshot));
  }

  /** A server's tools as its row counts them: every surface shows this figure. */
  toolCounts(name: string, snapshot = this.catalog.snapshot()): StateContext {
    return serverToolCounts(this.catalog, name, snapshot);
  }

  /** The tree as rendered, for tests and other extensions. */
  snapshot(): TreeSnapshot[] {
    return snapshotTree(this.tree);
  }

  dispose(): void {
    for (const disposable of this.disposables.splice(0).reverse()) disposable.dispose();
  }

  private own<T extends vscode.Disposable>(disposable: T): T {
    this.disposables.push(disposable);
    return disposable;
  }

  private showState(event: ServerStateChangeEvent): void {
    this.logs.server(event.server).info(`state: ${event.previous.kind} → ${event.state.kind}`);
    this.notices.onStateChange(event);
    this.render();
    this.stateEvents.fire(event);
  }

  private async switchTools(event: vscode.TreeCheckboxChangeEvent<Parameters<ServersTreeProvider['getTreeItem']>[0]>): Promise<void> {
    for (const [node, state] of event.items) {
      if (node.kind === 'tool') await setToolEnabled(node.row.server, node.row.name, state === vscode.TreeItemCheckboxState.Checked);
    }
  }

  private warnOverBudget(snapshot: ReturnType<ToolCatalog['snapshot']>): void {
    for (const warning of snapshot.warnings) {
      if (warning.kind !== 'budgetExceeded' || this.budgetWarnings.has(warning.message)) continue;
      this.budgetWarnings.add(warning.message);
      // Short: the log and the Tool Catalog have the whole warning, with every way to choose.
      const past = snapshot.eligible - snapshot.maxExposed;
      const find = 'Find Tools…';
      const settings = 'Open Filter Settings';
      void vscode.window
        .showWarningMessage(
          `MCP Switchboard: chat is offered ${snapshot.maxExposed} of ${snapshot.eligible} tools (mcpSwitchboard.tools.maxExposed); search finds the other ${past}.`,
          find,
          settings,
        )
        .then((choice) => {
          if (choice === settings) void openToolSettings();
          if (choice === find) void vscode.commands.executeCommand(COMMANDS.findTools);
        });
    }
  }
}
