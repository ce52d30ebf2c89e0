import * as vscode from 'vscode';
import type { ServerStateChangeEvent } from '../core/state/serverState';
import { noticeReason } from '../core/presentation/notices';
import { COMMANDS } from './commandIds';

/**
 * One non-modal warning per server per session when it lands in `error` (after its reconnect
 * attempts). A server that fails again later does not add another notification.
 */
export class FailureNotices {
  private readonly notified = new Set<string>();
  private readonly askedToSignIn = new Set<string>();

  onStateChange(event: ServerStateChangeEvent): void {
    if (event.state.kind === 'needsSignIn') return this.askToSignIn(event.server, event.state.reason === 'scope');
    if (event.state.kind !== 'error' || this.notified.has(event.server)) return;
    this.notified.add(event.server);
    const reason = noticeReason(event.state.message);
    void vscode.window.showWarningMessage(`MCP server "${event.server}" failed: ${reason}`, 'Reconnect', 'Show Logs').then((choice) => {
      if (choice === 'Reconnect') void vscode.commands.executeCommand(COMMANDS.reconnectServer, event.server);
      if (choice === 'Show Logs') void vscode.commands.executeCommand(COMMANDS.showLogs, event.server);
    });
  }

  /**
   * One notice per server per window that it waits for a sign-in; the row keeps saying so. The
   * browser opens only when the user picks Sign In.
   */
  private askToSignIn(server: string, moreAccess: boolean): void {
    if (this.askedToSignIn.has(server)) return;
    this.askedToSignIn.add(server);
    const message = moreAccess ? `MCP server "${server}" asks for more access: sign in again to grant it.` : `MCP server "${server}" needs you to sign in.`;
    void vscode.window.showWarningMessage(message, 'Sign In').then((choice) => {
      if (choice === 'Sign In') void vscode.commands.executeCommand(COMMANDS.signIn, server);
    });
  }
}

