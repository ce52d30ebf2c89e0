import * as vscode from 'vscode';

export const SERVERS_VIEW_ID = 'mcpSwitchboard.servers';

export interface ServerRow {
  readonly name: string;
  readonly description: string;
}

/**
 * The Servers tree. It shows what it is given and re-renders on `refresh()`; the owner decides when
 * (on manager events), so the view never polls.
 */
export class ServersTreeProvider implements vscode.TreeDataProvider<ServerRow>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ServerRow | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly rows: () => readonly ServerRow[]) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(row: ServerRow): vscode.TreeItem {
    const item = new vscode.TreeItem(row.name, vscode.TreeItemCollapsibleState.None);
    item.id = `server:${row.name}`;
    item.description = row.description;
    item.contextValue = 'server';
    item.iconPath = new vscode.ThemeIcon('server');
    return item;
  }

  getChildren(row?: ServerRow): ServerRow[] {
    return row ? [] : [...this.rows()];
  }

  dispose(): void {
    this.changed.dispose();
  }
}
