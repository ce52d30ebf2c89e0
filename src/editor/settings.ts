import * as vscode from 'vscode';

export const SETTINGS_SECTION = 'mcpSwitchboard';

/** Names of the configured servers across all scopes, in configuration order. */
export function configuredServerNames(): string[] {
  const servers = vscode.workspace.getConfiguration(SETTINGS_SECTION).get<unknown>('servers');
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) return [];
  return Object.keys(servers);
}

export function onDidChangeSwitchboardSettings(listener: () => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((event) => {
    if (event.affectsConfiguration(SETTINGS_SECTION)) listener();
  });
}
