// Reading and writing one server's entry where it lives: user, workspace or folder settings, or
// one of the extra source files.
import * as vscode from 'vscode';
import { findNodeAtLocation, parseTree, type JSONPath } from 'jsonc-parser';
import type { SandboxRules, ServerSource } from '../core/config';
import { inspectSetting, SECTION, SERVERS_KEY, updateSetting } from './settings';

export type WritableScope = 'user' | 'workspace';

function targetFor(source: ServerSource): vscode.ConfigurationTarget | undefined {
  if (source.kind === 'user') return vscode.ConfigurationTarget.Global;
  if (source.kind === 'workspace') return vscode.ConfigurationTarget.Workspace;
  if (source.kind === 'folder')
    return vscode.workspace.workspaceFolders?.length === 1
      ? vscode.ConfigurationTarget.Workspace
      : vscode.ConfigurationTarget.WorkspaceFolder;
  return undefined;
}

function folderFor(source: ServerSource): vscode.WorkspaceFolder | undefined {
  if (source.kind !== 'folder' || !source.file) return undefined;
  return vscode.workspace.workspaceFolders?.find((folder) => source.file?.startsWith(folder.uri.fsPath));
}

function serversAt(target: vscode.ConfigurationTarget, folder?: vscode.WorkspaceFolder): Record<string, unknown> {
  const inspected = inspectSetting<Record<string, unknown>>(SERVERS_KEY, folder);
  const value =
    target === vscode.ConfigurationTarget.Global
      ? inspected?.globalValue
      : target === vscode.ConfigurationTarget.Workspace
        ? inspected?.workspaceValue
        : inspected?.workspaceFolderValue;
  return value && typeof value === 'object' ? { ...value } : {};
}

/** The entry exactly as written (variables unresolved, so no secret values). */
export function rawEntry(name: string, source: ServerSource): unknown {
  const target = targetFor(source);
  if (target === undefined) return undefined;
  return serversAt(target, folderFor(source))[name];
}

export async function writeEntry(name: string, entry: unknown, scope: WritableScope): Promise<void> {
  const target = scope === 'user' ? vscode.ConfigurationTarget.Global : vscode.ConfigurationTarget.Workspace;
  const servers = serversAt(target);
  servers[name] = entry;
  await updateSetting(SERVERS_KEY, servers, target);
}

export function entryExists(name: string, scope: WritableScope): boolean {
  return name in serversAt(scope === 'user' ? vscode.ConfigurationTarget.Global : vscode.ConfigurationTarget.Workspace);
}

/**
 * Rewrites the entry in its own settings scope with `edit`; false when it is not in settings (a
 * file's entry is edited in its file: the caller opens it).
 */
async function editEntry(name: string, source: ServerSource, edit: (entry: Record<string, unknown>) => void): Promise<boolean> {
  const target = targetFor(source);
  if (target === undefined) return false;
  const folder = folderFor(source);
  const servers = serversAt(target, folder);
  const entry = servers[name];
  if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return false;
  const updated: Record<string, unknown> = { ...(entry as Record<string, unknown>) };
  edit(updated);
  servers[name] = updated;
  await updateSetting(SERVERS_KEY, servers, target, folder);
  return true;
}

/** Sets `enabled` on the entry in its own scope. Entries from files are edited in their file. */
export function setServerEnabled(name: string, source: ServerSource, enabled: boolean): Promise<boolean> {
  return editEntry(name, source, (entry) => {
    if (enabled) delete entry.enabled;
    else entry.enabled = false;
  });
}

/** Runs the server in a sandbox, or not (`sandboxEnabled`); rules of its own, if any, stay for next time. */
export function setServerSandboxed(name: string, source: ServerSource, sandboxed: boolean): Promise<boolean> {
  return editEntry(name, source, (entry) => {
    if (typeof entry.sandbox === 'boolean') delete entry.sandbox;
    entry.sandboxEnabled = sandboxed;
  });
}

/**
 * Lets the sandboxed server reach `host`: added to the `network.allowedDomains` of the entry's own
 * rules; an entry without rules of its own gets the rules it runs with now (`current`), plus the host.
 */
export function allowHostInSandbox(name: string, source: ServerSource, host: string, current: SandboxRules): Promise<boolean> {
  return editEntry(name, source, (entry) => {
    const own = typeof entry.sandbox === 'object' && entry.sandbox !== null ? (entry.sandbox as Record<string, unknown>) : undefined;
    const rules: Record<string, unknown> = own ?? { filesystem: current.filesystem, network: current.network };
    const network = typeof rules.network === 'object' && rules.network !== null ? (rules.network as Record<string, unknown>) : {};
    const allowed = Array.isArray(network.allowedDomains) ? (network.allowedDomains as unknown[]) : [];
    entry.sandbox = { ...rules, network: { ...network, allowedDomains: allowed.includes(host) ? allowed : [...allowed, host] } };
    entry.sandboxEnabled = true;
  });
}

/** Deletes the entry from its settings scope; false when it is not there (or not in settings). */
export async function removeSettingsEntry(name: string, source: ServerSource): Promise<boolean> {
  const target = targetFor(source);
  if (target === undefined) return false;
  const folder = folderFor(source);
  const servers = serversAt(target, folder);
  if (!(name in servers)) return false;
  const rest = Object.fromEntries(Object.entries(servers).filter(([key]) => key !== name));
  await updateSetting(SERVERS_KEY, Object.keys(rest).length > 0 ? rest : undefined, target, folder);
  return true;
}

/** Opens the file that defines the server with the cursor on its entry. */
export async function revealEntry(name: string, source: ServerSource): Promise<void> {
  let editor: vscode.TextEditor;
  if (source.kind === 'team') {
    // A team gateway's server has no entry here: what the user decides is whether the gateway is a source.
    await vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.sources`);
    return;
  }
  if (source.kind === 'user' && !source.file) {
    // The user settings file's location depends on the profile; let the editor open it.
    await vscode.commands.executeCommand('workbench.action.openSettingsJson');
    const active = vscode.window.activeTextEditor;
    if (!active) return;
    editor = active;
  } else if (source.file) {
    editor = await vscode.window.showTextDocument(vscode.Uri.file(source.file));
  } else {
    return;
  }
  const document = editor.document;
  const position = document.positionAt(entryOffset(document.getText(), name, source));
  editor.selection = new vscode.Selection(position, position);
  editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

/** Where a server's entry starts in its file: a JSONC path of any source's shape, or a TOML table. */
function entryOffset(text: string, name: string, source: ServerSource): number {
  if (source.file?.endsWith('.toml')) {
    const quoted = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`^[ \\t]*\\[mcp_servers\\.(?:${quoted}|"${quoted}")\\]`, 'm').exec(text)?.index ?? 0;
  }
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  const path = tree ? entryPath(text, name, source) : undefined;
  const node = tree && path ? findNodeAtLocation(tree, path) : undefined;
  return node?.parent?.offset ?? node?.offset ?? 0;
}

/**
 * The JSON path of a server's entry in a JSONC file of any source's shape: the setting, `servers`
 * (the editor's mcp.json), `mcpServers` (most clients), a project block of ~/.claude.json, or the
 * bare map of a `.mcp.json`.
 */
export function entryPath(text: string, name: string, source: ServerSource): JSONPath | undefined {
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  if (!tree) return undefined;
  if (source.kind === 'user' || source.kind === 'workspace' || source.kind === 'folder') return [`${SECTION}.${SERVERS_KEY}`, name];
  const projects = findNodeAtLocation(tree, ['projects'])?.children ?? [];
  const paths: JSONPath[] = [
    ['servers', name],
    ['mcpServers', name],
    ...projects.map((project) => ['projects', String(project.children?.[0]?.value ?? ''), 'mcpServers', name]),
    [name],
  ];
  return paths.find((path) => findNodeAtLocation(tree, path) !== undefined);
}
