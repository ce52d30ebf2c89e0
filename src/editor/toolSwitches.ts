import * as vscode from 'vscode';

const SECTION = 'mcpSwitchboard';
const KEY = 'tools.disabled';

/**
 * Writes a switch where the team can review it: the workspace settings when a folder is open,
 * otherwise the user settings. The list stays sorted so diffs stay small.
 */
export async function setToolEnabled(server: string, tool: string, enabled: boolean): Promise<void> {
  const configuration = vscode.workspace.getConfiguration(SECTION);
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  const inspected = configuration.inspect<string[]>(KEY);
  const current = new Set(target === vscode.ConfigurationTarget.Workspace ? inspected?.workspaceValue ?? [] : inspected?.globalValue ?? []);
  const id = `${server}/${tool}`;
  if (enabled) current.delete(id);
  else current.add(id);
  await configuration.update(KEY, current.size > 0 ? [...current].sort() : undefined, target);
}
