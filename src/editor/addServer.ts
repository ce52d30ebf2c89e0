import * as vscode from 'vscode';
import { CommandLineError, entryFromCommandLine, freeServerName, suggestServerName, type NewEntry } from '../core/config';
import { commandExists } from '../core/connection';
import { portableEntryExists, portableFile, writePortableEntry } from './portableFile';
import { entryExists, writeEntry, type WritableScope } from './settingsEntry';

/** Settings scopes, or the portable `.mcp.json` every agent on the machine can read. */
type Destination = WritableScope | 'portable';

const NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;

function existingScopes(name: string): string[] {
  const scopes: WritableScope[] = vscode.workspace.workspaceFolders?.length ? ['user', 'workspace'] : ['user'];
  const found = scopes
    .filter((scope) => entryExists(name, scope))
    .map((scope) => (scope === 'user' ? 'your user settings' : 'the workspace settings'));
  return portableEntryExists(name) ? [...found, '.mcp.json'] : found;
}

function exists(name: string, destination: Destination): boolean {
  return destination === 'portable' ? portableEntryExists(name) : entryExists(name, destination);
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
      } catch (error) {
        return error instanceof CommandLineError ? error.message : String(error);
      }
      // Said now, while it can be fixed: a command the server's spawn will not find.
      if (
        'command' in entry &&
        !commandExists(entry.command, process.env, vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd())
      )
        return {
          message: `\`${entry.command}\` is not on the editor's PATH: the server will not start until it is installed, or give its full path.`,
          severity: vscode.InputBoxValidationSeverity.Warning,
        };
      return undefined;
    },
  });
  if (line === undefined) return undefined;
  entry = entryFromCommandLine(line);
  return nameAndSave(entry, suggestServerName(entry), 'Add MCP Server');
}

/**
 * The steps every way of adding a server ends with: its name (said at once when taken), then where
 * to save it. `title` prefixes the steps (`Add MCP Server (2/3): name`).
 */
export async function nameAndSave(
  entry: NewEntry | Record<string, unknown>,
  suggested: string,
  title: string,
  launch?: string,
): Promise<string | undefined> {
  const free = freeServerName(suggested, (name) => existingScopes(name).length > 0);
  const takenNote = free === suggested ? '' : `"${suggested}" is taken, so "${free}" is suggested. `;
  const name = await vscode.window.showInputBox({
    title: `${title} (2/3): name`,
    value: free,
    ignoreFocusOut: true,
    prompt: `${launch ? `It ${launch}. ` : ''}${takenNote}Chat shows it in every tool name (mcp_<name>_<tool>).`,
    validateInput: (value) => {
      if (!NAME_PATTERN.test(value)) return 'Use letters, digits, "_", "-" and "." only.';
      // Said now, not after the last step; keeping the name replaces the entry (asked again then).
      const where = existingScopes(value);
      return where.length > 0
        ? {
            message: `A server named "${value}" already exists in ${where.join(' and ')}: keep the name to replace it.`,
            severity: vscode.InputBoxValidationSeverity.Warning,
          }
        : undefined;
    },
  });
  if (name === undefined) return undefined;
  const picked = await pickDestination(title);
  if (!picked) return undefined;
  return (await save(name, entry, picked)) ? name : undefined;
}

type DestinationItem = vscode.QuickPickItem & { scope: Destination };

async function pickDestination(title: string): Promise<DestinationItem | undefined> {
  const scopes: DestinationItem[] = [{ label: 'User settings', description: 'available in every workspace', scope: 'user' }];
  if (vscode.workspace.workspaceFolders?.length) {
    scopes.push({ label: 'Workspace settings', description: 'shared with everyone who opens this workspace', scope: 'workspace' });
  }
  if (portableFile()) {
    scopes.push({
      label: '.mcp.json',
      description: "this folder's portable file: the editor, Claude Code and Copilot CLI read it too",
      scope: 'portable',
    });
  }
  return scopes.length === 1
    ? scopes[0]
    : vscode.window.showQuickPick(scopes, { title: `${title} (3/3): where to save it`, ignoreFocusOut: true });
}

/** Writes the entry where the user chose (asking before replacing one); false when they declined. */
async function save(name: string, entry: NewEntry | Record<string, unknown>, picked: DestinationItem): Promise<boolean> {
  if (exists(name, picked.scope)) {
    const replace = await vscode.window.showWarningMessage(
      `A server named "${name}" already exists in ${picked.label}. Replace it?`,
      { modal: true },
      'Replace',
    );
    if (replace !== 'Replace') return false;
  }
  if (picked.scope === 'portable') {
    const written = await writePortableEntry(name, entry);
    const turnedOn = written.sourceTurnedOn
      ? ' Switchboard now reads that file in this workspace ("mcpJsonPortable" added to mcpSwitchboard.sources).'
      : '';
    void vscode.window.showInformationMessage(`Added MCP server "${name}" to ${written.file}.${turnedOn}`);
    return true;
  }
  await writeEntry(name, entry, picked.scope);
  void vscode.window.showInformationMessage(`Added MCP server "${name}" to ${picked.label}.`);
  return true;
}
