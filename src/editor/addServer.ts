import * as vscode from 'vscode';
import { CommandLineError, entryFromCommandLine, suggestServerName, type NewEntry } from '../core/config/commandLine';
import { entryExists, writeEntry, type WritableScope } from './settingsEntry';

const NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;

function existingScopes(name: string): string[] {
  const scopes: WritableScope[] = vscode.workspace.workspaceFolders?.length ? ['user', 'workspace'] : ['user'];
  return scopes.filter((scope) => entryExists(name, scope)).map((scope) => (scope === 'user' ? 'your user settings' : 'the workspace settings'));
}

/** Command line or URL → name → scope; writes an entry that validates. Returns the name, if added. */
export async function addServerInteractively(): Promise<string | undefined> {
  let entry: NewEntry | undefined;
  const line = await vscode.window.showInputBox({
    title: 'Add MCP Server (1/3): command line or URL',
    // Short enough for the box at its default width; the prompt below it says the rest.
    placeHolder: 'npx -y @modelcontextprotocol/server-memory',
    prompt: 'The command that starts a local server (npx, uvx, node, docker…), or the http(s) URL of a remote one.',
    ignoreFocusOut: true,
    validateInput: (value) => {
      try {
        entry = entryFromCommandLine(value);
        return undefined;
      } catch (error) {
        return error instanceof CommandLineError ? error.message : String(error);
      }
    },
  });
  if (line === undefined) return undefined;
  entry = entryFromCommandLine(line);

  const scopes: Array<vscode.QuickPickItem & { scope: WritableScope }> = [
    { label: 'User settings', description: 'available in every workspace', scope: 'user' },
  ];
  if (vscode.workspace.workspaceFolders?.length) {
    scopes.push({ label: 'Workspace settings', description: 'shared with everyone who opens this workspace', scope: 'workspace' });
  }

  const name = await vscode.window.showInputBox({
    title: 'Add MCP Server (2/3): name',
    value: suggestServerName(entry),
    ignoreFocusOut: true,
    prompt: 'Chat shows it in every tool name (mcp_<name>_<tool>).',
    validateInput: (value) => {
      if (!NAME_PATTERN.test(value)) return 'Use letters, digits, "_", "-" and "." only.';
      // Said now, not after the last step; keeping the name replaces the entry (asked again then).
      const where = existingScopes(value);
      return where.length > 0 ? { message: `A server named "${value}" already exists in ${where.join(' and ')}: keep the name to replace it.`, severity: vscode.InputBoxValidationSeverity.Warning } : undefined;
    },
  });
  if (name === undefined) return undefined;

  const picked = scopes.length === 1 ? scopes[0] : await vscode.window.showQuickPick(scopes, {
    title: 'Add MCP Server (3/3): where to save it',
    ignoreFocusOut: true,
  });
  if (!picked) return undefined;

  if (entryExists(name, picked.scope)) {
    const replace = await vscode.window.showWarningMessage(`A server named "${name}" already exists in ${picked.label}. Replace it?`, { modal: true }, 'Replace');
    if (replace !== 'Replace') return undefined;
  }
  await writeEntry(name, entry, picked.scope);
  void vscode.window.showInformationMessage(`Added MCP server "${name}" to ${picked.label}.`);
  return name;
}
