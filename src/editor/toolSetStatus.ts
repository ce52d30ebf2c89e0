// The tool set in use, on the status bar (`$(tools) backend · 14 tools`), shown when the workspace
// defines tool sets (`mcpSwitchboard.toolSets`); a click switches it. What a set lets through is
// the catalog's filter (`toolSet`), so the tree, chat, the gateway and `serve` see the same tools.
import * as vscode from 'vscode';
import type { CatalogSnapshot } from '../core/catalog';
import { COMMANDS } from './commandIds';
import { toolSets, useToolSet } from './settings';
import { displayText } from '../core/base/displayText';

export class ToolSetStatus implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor() {
    this.item = vscode.window.createStatusBarItem('mcpSwitchboard.toolSet', vscode.StatusBarAlignment.Left, 9);
    this.item.name = 'MCP Switchboard Tool Set';
    this.item.command = COMMANDS.switchToolSet;
  }

  update(snapshot: CatalogSnapshot): void {
    const { sets, active } = toolSets();
    if (Object.keys(sets).length === 0 && !active) {
      this.item.hide();
      return;
    }
    const offered = snapshot.servers.reduce((sum, server) => sum + server.tools.filter((tool) => tool.exposed).length, 0);
    const known = active !== '' && sets[active] !== undefined;
    this.item.text = `$(tools) ${active === '' ? 'All tools' : displayText(active, 40)}${known || active === '' ? '' : ' (not defined)'} · ${offered}`;
    this.item.tooltip = new vscode.MarkdownString(
      `**Tool set:** ${active === '' ? 'all tools' : `\`${active.replace(/`/g, "'")}\``}\n\n${offered} tools offered to chat. Click to switch (\`mcpSwitchboard.toolSet\`).`,
    );
    // A screen reader reads this, not the icon's name and the tooltip's markdown.
    this.item.accessibilityInformation = {
      label: `Tool set ${active === '' ? 'all tools' : displayText(active, 40)}, ${offered} tools offered to chat. Switch tool set.`,
    };
    this.item.backgroundColor = known || active === '' ? undefined : new vscode.ThemeColor('statusBarItem.warningBackground');
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}

/** Switch Tool Set…: every set the workspace defines, and all tools. */
export async function switchToolSetInteractively(): Promise<void> {
  const { sets, active } = toolSets();
  const items = [
    { label: 'All tools', description: active === '' ? 'in use' : '', detail: 'Every tool the other filters let through', name: '' },
    ...Object.entries(sets).map(([name, set]) => ({
      label: displayText(name, 60),
      description: name === active ? 'in use' : '',
      detail: displayText(set.description ?? [...set.servers.map((server) => `${server}/*`), ...set.tools].join(', ') ?? '', 200),
      name,
    })),
  ];
  if (items.length === 1) {
    const define = 'Define Tool Sets';
    const choice = await vscode.window.showInformationMessage('MCP Switchboard: no tool sets are defined here.', define);
    // The setting's own page says what a set is (servers, server/tool globs) and opens settings.json.
    if (choice === define)
      await vscode.commands.executeCommand('workbench.action.openWorkspaceSettings', { query: 'mcpSwitchboard.toolSets' });
    return;
  }
  const picked = await vscode.window.showQuickPick(items, { title: 'Which tools do agents see here?' });
  if (picked) await useToolSet(picked.name);
}
