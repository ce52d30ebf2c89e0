import * as vscode from 'vscode';
import { isActive, type ServerStateKind } from '../core/state';
import {
  describeFilterRule,
  shortFilterRule,
  type CatalogSnapshot,
  type OfferedServer,
  type PreparedTool,
  type ToolCatalog,
} from '../core/catalog';
import { launchOf, sandboxOf, signsInWithOAuth } from '../core/config';
import type { ServerView } from '../core/manager';
import { describeRow, rowPrimaryAction, pickRowIcon, sandboxDeniedHost } from '../core/presentation';
import { offerChildren, offerGroups, offerItem, type OfferNode, type SkillStandingOf } from './offerRows';
import type { DevRestart } from './devWatchers';
import { serverTooltip } from './serverTooltip';
import { taskItem, taskNodes, type TaskNode } from './taskRows';

export const SERVERS_VIEW_ID = 'mcpSwitchboard.servers';

/** A tool under its server: what chat sees, and why not when it is filtered out. */
export interface ToolRow {
  readonly server: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly readOnly: boolean;
  /** Unchecked means the tool is switched off in `mcpSwitchboard.tools.disabled`. */
  readonly enabled: boolean;
  /** Why the tool is not exposed (a rule other than the switch), if it is not: in the row's few words. */
  readonly filteredBy?: string;
  /** The same in full, for the tooltip. */
  readonly filterReason?: string;
  /** Set on the last known tools of a server chat is not offered now (`server stopped`). */
  readonly notOffered?: string;
  /** Only the budget keeps it from chat: search finds it. */
  readonly pastBudget?: boolean;
}

/** The catalog's view of one server's tools, as rows: the one projection the editor uses. */
export function toolRows(snapshot: CatalogSnapshot, server: string, known: readonly PreparedTool[] = []): ToolRow[] {
  const entry = snapshot.servers.find((candidate) => candidate.name === server);
  if (!entry?.tools?.length && known.length > 0) {
    // Chat is not offered them while the server cannot run; the tree still shows what it has.
    const notOffered = `server ${entry?.state ?? 'not running'}`;
    return known.map((tool) => ({
      server,
      name: tool.name,
      title: tool.tool.title ?? tool.tool.annotations?.title,
      description: tool.tool.description,
      readOnly: tool.readOnly,
      enabled: true,
      notOffered,
    }));
  }
  return (entry?.tools ?? []).map((tool) => ({
    server,
    name: tool.name,
    title: tool.tool.title ?? tool.tool.annotations?.title,
    description: tool.tool.description,
    readOnly: tool.readOnly,
    enabled: tool.filteredBy?.kind !== 'disabledSetting',
    ...(tool.filteredBy && tool.filteredBy.kind !== 'disabledSetting'
      ? { filteredBy: shortFilterRule(tool.filteredBy), filterReason: describeFilterRule(tool.filteredBy, server) }
      : {}),
    ...(tool.filteredBy?.kind === 'budget' ? { pastBudget: true } : {}),
  }));
}

/**
 * Whether chat is offered the tool whenever its server is: no rule filters it and its switch is on.
 * Not whether the server runs now: an idle lazy server's cached tools are offered (and start it),
 * and a stopped server's row shows no count.
 */
export function isOffered(row: ToolRow): boolean {
  return row.enabled && !row.filteredBy;
}

/** A server's tools as every surface counts them (the row, its tooltip, the status bar, its actions). */
export function toolCounts(rows: readonly ToolRow[]): ToolCounts {
  return {
    tools: rows.length,
    offered: rows.filter(isOffered).length,
    bySearch: rows.filter((row) => row.enabled && row.pastBudget).length,
  };
}

export interface ToolCounts {
  readonly tools: number;
  readonly offered: number;
  readonly bySearch: number;
}

/** The counts of one server, from the catalog as its row reads it. */
export function serverToolCounts(
  catalog: Pick<ToolCatalog, 'snapshot' | 'knownTools'>,
  server: string,
  snapshot: CatalogSnapshot = catalog.snapshot(),
): ToolCounts {
  return toolCounts(toolRows(snapshot, server, catalog.knownTools(server)));
}

export type TreeNode =
  { readonly kind: 'server'; readonly view: ServerView } | { readonly kind: 'tool'; readonly row: ToolRow } | OfferNode | TaskNode;

export interface ServersTreeSource {
  servers(): readonly ServerView[];
  tools(server: string): readonly ToolRow[];
  /** Resources, templates, prompts and skills; undefined for a server without an endpoint. */
  offer(server: string): OfferedServer | undefined;
  /** Where a server's skill is installed, and whether it changed since. */
  skillStanding?: SkillStandingOf;
  /** The last restart dev.watch made of the server. */
  devRestart?(server: string): DevRestart | undefined;
  /** How many windows and agents use the machine host's copy of the server; undefined when it is not shared. */
  sharedClients?(server: string): number | undefined;
}

/** How long after a dev.watch restart the row's icon says so. */
const RESTART_NOTE_MS = 60_000;

/** Whether the server runs because dev.watch restarted it (the row's icon says so for a minute). */
function restartedByWatch(view: ServerView, restart: DevRestart | undefined): boolean {
  return (
    restart !== undefined &&
    view.state.kind === 'running' &&
    restart.at <= view.state.since &&
    view.state.since - restart.at < RESTART_NOTE_MS
  );
}

/** A running server's marks: its state word stays "running", the icon tells these apart. */
const RUNNING_MARKS = {
  restarted: new vscode.ThemeIcon('debug-restart', new vscode.ThemeColor('testing.iconPassed')),
  sandboxed: new vscode.ThemeIcon('lock', new vscode.ThemeColor('testing.iconPassed')),
};

const ICONS: Record<ServerStateKind, vscode.ThemeIcon> = {
  running: new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('testing.iconPassed')),
  idle: new vscode.ThemeIcon('pass', new vscode.ThemeColor('descriptionForeground')),
  starting: new vscode.ThemeIcon('loading~spin'),
  reconnecting: new vscode.ThemeIcon('sync~spin', new vscode.ThemeColor('problemsWarningIcon.foreground')),
  error: new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground')),
  disabled: new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground')),
  invalid: new vscode.ThemeIcon('bracket-error', new vscode.ThemeColor('problemsErrorIcon.foreground')),
  blocked: new vscode.ThemeIcon('shield', new vscode.ThemeColor('problemsWarningIcon.foreground')),
  needsSignIn: new vscode.ThemeIcon('account', new vscode.ThemeColor('problemsWarningIcon.foreground')),
  stopped: new vscode.ThemeIcon('debug-stop', new vscode.ThemeColor('disabledForeground')),
};

/**
 * The Servers tree. Its owner calls `refresh()` on manager and catalog events; the view never
 * polls. Rows keep configuration order.
 */
export class ServersTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  /** How many windows and agents each server's row said use it, when it was last rendered (sharedFigure). */
  private readonly sharedShown = new Map<string, number>();

  constructor(private readonly source: ServersTreeSource) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  /**
   * The machine host said how many clients use its servers: the tree is rendered again only when a
   * row would read differently. A render re-creates every row, and a row clicked while it is
   * re-created loses the click's target (its inline action then asks which item it was meant for).
   */
  refreshShared(): void {
    const differs = this.source
      .servers()
      .some((view) => sharedFigure(this.source.sharedClients?.(view.name)) !== this.sharedShown.get(view.name));
    if (differs) this.refresh();
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'server':
        return this.serverItem(node.view);
      case 'tool':
        return this.toolItem(node.row);
      case 'task':
        return taskItem(node, Date.now());
      case 'group':
      case 'resource':
      case 'prompt':
      case 'skill':
        return offerItem(node);
    }
  }

  getChildren(node?: TreeNode): TreeNode[] {
    if (!node) return this.source.servers().map((view) => ({ kind: 'server', view }));
    if (node.kind === 'server') return this.serverChildren(node.view);
    if (node.kind === 'group') {
      return node.group === 'tools'
        ? this.toolNodes(node.server)
        : offerChildren(node, this.source.offer(node.server), this.source.skillStanding);
    }
    return [];
  }

  getParent(node: TreeNode): TreeNode | undefined {
    if (node.kind === 'server') return undefined;
    const server = node.kind === 'tool' ? node.row.server : node.server;
    const view = this.source.servers().find((candidate) => candidate.name === server);
    if (!view) return undefined;
    const groups = offerGroups(server, this.source.tools(server).length, this.source.offer(server));
    if (node.kind === 'group' || node.kind === 'task' || !groups) return { kind: 'server', view };
    const group = node.kind === 'tool' ? 'tools' : node.kind === 'resource' ? 'resources' : node.kind === 'skill' ? 'skills' : 'prompts';
    return groups.find((candidate) => candidate.kind === 'group' && candidate.group === group);
  }

  /** Its running tasks first; then tools directly, or groups when the server offers resources or prompts too. */
  private serverChildren(view: ServerView, rows = this.source.tools(view.name), offer = this.source.offer(view.name)): TreeNode[] {
    const server = view.name;
    return [
      ...taskNodes(server, view.tasks),
      ...(offerGroups(server, rows.length, offer, rows.filter(isOffered).length) ?? rows.map((row): TreeNode => ({ kind: 'tool', row }))),
    ];
  }

  private toolNodes(server: string): TreeNode[] {
    return this.source.tools(server).map((row) => ({ kind: 'tool', row }));
  }

  private serverItem(view: ServerView): vscode.TreeItem {
    // The rows and the offer, once per item: the count, the children and the tooltip all use them.
    const rows = this.source.tools(view.name);
    const offer = this.source.offer(view.name);
    const hasChildren = this.serverChildren(view, rows, offer).length > 0;
    const item = new vscode.TreeItem(
      view.name,
      hasChildren ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `server/${view.name}`;
    // A few words that fit the default sidebar beside the name and two hover buttons; the tooltip
    // has the full message, the timing and the sandbox rules.
    const restart = this.source.devRestart?.(view.name);
    const counts = toolCounts(rows);
    const shared = sharedFigure(this.source.sharedClients?.(view.name));
    if (shared === undefined) this.sharedShown.delete(view.name);
    else this.sharedShown.set(view.name, shared);
    item.description = describeRow(view.state, Date.now(), { ...counts, tasks: view.tasks.length, shared });
    item.tooltip = serverTooltip(view, offer, counts, restart, shared);
    // A running server shows that dev.watch just restarted it, or that it is sandboxed, or its own
    // icon if it has one; any other state shows what is wrong.
    const mark =
      view.state.kind !== 'running'
        ? undefined
        : restartedByWatch(view, restart)
          ? 'restarted'
          : sandboxOf(view.definition) !== undefined
            ? 'sandboxed'
            : undefined;
    const own = view.state.kind === 'running' && !mark ? pickRowIcon(view.state.serverInfo.icons) : undefined;
    item.iconPath = mark
      ? RUNNING_MARKS[mark]
      : own
        ? { light: vscode.Uri.parse(own.light), dark: vscode.Uri.parse(own.dark) }
        : ICONS[view.state.kind];
    const enabled = view.state.kind !== 'disabled';
    const primary = rowPrimaryAction(view.state);
    // Menus in package.json match on these words.
    item.contextValue = [
      'server',
      `state-${view.state.kind}`,
      isActive(view.state.kind) ? 'stoppable' : 'startable',
      enabled ? 'enabled' : 'disabled',
      ...(view.state.kind === 'needsSignIn' ? ['signIn'] : []),
      // The one hover button beside Show Logs: two buttons leave the row's text room to be read.
      ...(primary ? [`primary-${primary}`] : []),
      // Waiting for, or refused, the user's consent: *Allow…* asks for this server alone.
      ...(view.state.kind === 'blocked' && view.state.reason !== 'untrusted' && view.state.reason !== 'needsInput' ? ['consent'] : []),
      ...(signsInWithOAuth(view.definition) ? ['oauth'] : []),
      // A stdio server can be run in a sandbox or out of it (Run Sandboxed / Run Unsandboxed).
      ...(launchOf(view.definition)?.transport === 'stdio' ? [sandboxOf(view.definition) ? 'sandboxed' : 'unsandboxed'] : []),
      ...(sandboxDeniedHost(view.state) !== undefined ? ['sandboxDenied'] : []),
    ].join(' ');
    item.accessibilityInformation = { label: `${view.name}, ${item.description}${mark ? `, ${mark}` : ''}` };
    return item;
  }

  private toolItem(row: ToolRow): vscode.TreeItem {
    const item = new vscode.TreeItem(row.name, vscode.TreeItemCollapsibleState.None);
    item.id = `tool/${row.server}/${row.name}`;
    const notes: string[] = [];
    if (row.notOffered) notes.push(`not offered: ${row.notOffered}`);
    if (row.filteredBy) notes.push(row.filteredBy);
    else if (!row.enabled) notes.push('switched off');
    if (row.readOnly) notes.push('read-only');
    item.description = notes.join(' · ');
    const tooltip = new vscode.MarkdownString();
    tooltip.appendMarkdown(`**${row.title ?? row.name}** (\`${row.server}/${row.name}\`)\n\n`);
    if (row.filterReason) {
      tooltip.appendText(`Not in chat's list: ${row.filterReason}.`);
      tooltip.appendMarkdown('\n\n');
    }
    if (row.description) tooltip.appendText(row.description);
    item.tooltip = tooltip;
    // The box is the switch (mcpSwitchboard.tools.disabled). A tool another rule keeps from chat has
    // none: checked, it looked offered; clickable, it could not be turned on from here.
    if (!row.filteredBy) item.checkboxState = row.enabled ? vscode.TreeItemCheckboxState.Checked : vscode.TreeItemCheckboxState.Unchecked;
    item.iconPath = new vscode.ThemeIcon(row.filteredBy ? 'circle-slash' : row.readOnly ? 'eye' : 'tools');
    // Chat may call it, so may the user, from the row (Run Tool…).
    item.contextValue = row.enabled && !row.filteredBy && !row.notOffered ? 'tool runnable' : 'tool';
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** A plain-data copy of what the view renders, for tests and for other extensions. */
export interface TreeSnapshot {
  readonly label: string;
  readonly description: string;
  readonly icon: string | undefined;
  readonly contextValue: string | undefined;
  readonly tooltip: string;
  readonly checked?: boolean;
  readonly children: TreeSnapshot[];
}

export function snapshotTree(provider: ServersTreeProvider, parent?: TreeNode): TreeSnapshot[] {
  return provider.getChildren(parent).map((node) => {
    const item = provider.getTreeItem(node);
    const tooltip = item.tooltip instanceof vscode.MarkdownString ? item.tooltip.value : (item.tooltip ?? '');
    return {
      label: typeof item.label === 'string' ? item.label : (item.label?.label ?? ''),
      description: typeof item.description === 'string' ? item.description : '',
      icon: item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : iconUri(item.iconPath),
      contextValue: item.contextValue,
      tooltip,
      ...(item.checkboxState === undefined ? {} : { checked: item.checkboxState === vscode.TreeItemCheckboxState.Checked }),
      children: node.kind === 'server' || node.kind === 'group' ? snapshotTree(provider, node) : [],
    };
  });
}

/** A server's own icon in a snapshot: `own:` and the scheme of its dark-theme source (`data`, `https`). */
function iconUri(icon: vscode.TreeItem['iconPath']): string | undefined {
  const dark = icon && typeof icon === 'object' && 'dark' in icon ? icon.dark : undefined;
  return dark instanceof vscode.Uri ? `own:${dark.scheme}` : undefined;
}

/** A shared server's client count as its row and tooltip say it: this window is always one of them, even before the host has said so. */
function sharedFigure(clients: number | undefined): number | undefined {
  return clients === undefined ? undefined : Math.max(1, clients);
}
