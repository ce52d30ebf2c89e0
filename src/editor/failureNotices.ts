import * as vscode from 'vscode';
import type { ServerStateChangeEvent } from '../core/state';
import { failureActions, noticeReason, sandboxDeniedHost, type FailureAction } from '../core/presentation';
import { COMMANDS } from './commandIds';

const ACTIONS: Record<FailureAction, { label: string; command: string }> = {
  // The label names the host (see onStateChange).
  allowSandboxHost: { label: 'Allow in Its Sandbox', command: COMMANDS.allowSandboxHost },
  openSettingsEntry: { label: 'Open Settings Entry', command: COMMANDS.openSettingsEntry },
  reconnect: { label: 'Reconnect', command: COMMANDS.reconnectServer },
  showLogs: { label: 'Show Logs', command: COMMANDS.showLogs },
};

/**
 * One non-modal warning per server when it lands in `error` (after its reconnect attempts), with the
 * action that fixes the cause first. A server that fails again adds no notice until it has run.
 */
export class FailureNotices {
  private readonly notified = new Set<string>();
  private readonly askedToSignIn = new Set<string>();

  onStateChange(event: ServerStateChangeEvent): void {
    if (event.state.kind === 'needsSignIn') return this.askToSignIn(event.server, event.state.reason === 'scope');
    if (event.state.kind === 'running' && this.notified.delete(event.server)) {
      // A notice cannot be taken back through the extension API, so the fix gets one of its own:
      // the failure notice still in the center is then visibly out of date. A later failure is a
      // new problem, worth a notice again.
      void vscode.window.showInformationMessage(
        `MCP server "${event.server}" is running again (${event.state.toolCount} tool${event.state.toolCount === 1 ? '' : 's'}): the failure reported earlier is fixed.`,
      );
      return;
    }
    if (event.state.kind !== 'error' || this.notified.has(event.server)) return;
    this.notified.add(event.server);
    const reason = noticeReason(event.state.message);
    const host = sandboxDeniedHost(event.state);
    const actions = failureActions(event.state.code, host).map((action) =>
      action === 'allowSandboxHost' ? { ...ACTIONS[action], label: `Allow ${host}` } : ACTIONS[action],
    );
    void vscode.window
      .showWarningMessage(`MCP server "${event.server}" failed: ${reason}`, ...actions.map((action) => action.label))
      .then((choice) => {
        const picked = actions.find((action) => action.label === choice);
        if (picked) void vscode.commands.executeCommand(picked.command, event.server);
      });
  }

  /**
   * One notice per server per window that it waits for a sign-in; the row keeps saying so. The
   * browser opens only when the user picks Sign In.
   */
  private askToSignIn(server: string, moreAccess: boolean): void {
    if (this.askedToSignIn.has(server)) return;
    this.askedToSignIn.add(server);
    const message = moreAccess
      ? `MCP server "${server}" asks for more access: sign in again to grant it.`
      : `MCP server "${server}" needs you to sign in.`;
    void vscode.window.showWarningMessage(message, 'Sign In').then((choice) => {
      if (choice === 'Sign In') void vscode.commands.executeCommand(COMMANDS.signIn, server);
    });
  }
}
