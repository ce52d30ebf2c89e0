import * as vscode from 'vscode';

export const COMMANDS = {
  openSettings: 'mcpSwitchboard.openSettings',
  showLogs: 'mcpSwitchboard.showLogs',
} as const;

export interface CommandTargets {
  readonly mainLog: vscode.LogOutputChannel;
}

export function registerCommands(targets: CommandTargets): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(COMMANDS.openSettings, () =>
      vscode.commands.executeCommand('workbench.action.openSettings', '@ext:switchboard-labs.mcp-switchboard')),
    vscode.commands.registerCommand(COMMANDS.showLogs, () => targets.mainLog.show(true)),
  ];
}
