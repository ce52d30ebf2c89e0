import * as vscode from 'vscode';
import { countWhere, readyCount, type HealthSummary, type ServerView } from '../core/manager';
import { hasFailed, isInTrouble, waitsForUser } from '../core/state';
import { describeState, type StateContext } from '../core/presentation';
import { COMMANDS } from './commandIds';

/** `$(plug) 3/4`, spinning while anything starts; warning or error background when servers fail. */
export class HealthStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor() {
    this.item = vscode.window.createStatusBarItem('mcpSwitchboard.health', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'MCP Switchboard';
    this.item.command = COMMANDS.showServerActions;
  }

  /** `counts`: a server's tools (an idle one's from the cache) and how many chat is offered, as its row counts them. */
  update(health: HealthSummary, servers: readonly ServerView[], counts: (server: string) => StateContext): void {
    if (health.total === 0) {
      this.item.hide();
      return;
    }
    const busy = health.starting > 0;
    // Idle servers (lazy, or stopped while unused) are healthy: they start when a request needs them.
    const ready = readyCount(health);
    this.item.text = `$(${busy ? 'loading~spin' : 'plug'}) ${ready}/${health.total}`;
    const failing = countWhere(health, isInTrouble);
    // Blocked servers and those waiting for a sign-in wait on the user; they have not failed.
    const couldRun = health.total - countWhere(health, waitsForUser);
    const failed = countWhere(health, hasFailed);
    const allFailed = couldRun > 0 && failed === couldRun;
    this.item.backgroundColor = allFailed
      ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : failing > 0
        ? new vscode.ThemeColor('statusBarItem.warningBackground')
        : undefined;
    const tooltip = new vscode.MarkdownString('**MCP Switchboard**\n\n| Server | State |\n|---|---|\n');
    for (const server of servers) {
      tooltip.appendMarkdown(
        `| ${server.name.replace(/\|/g, '\\|')} | ${describeState(server.state, Date.now(), counts(server.name)).replace(/\|/g, '\\|')} |\n`,
      );
    }
    tooltip.appendMarkdown('\nClick for server actions.');
    this.item.tooltip = tooltip;
    if (health.needsSignIn > 0) tooltip.appendMarkdown(`\n\n${health.needsSignIn} waiting for you to sign in.`);
    const idle = health.idle > 0 ? ` (${health.idle} of them idle until used)` : '';
    this.item.accessibilityInformation = { label: `MCP Switchboard: ${ready} of ${health.total} servers ready${idle}` };
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
