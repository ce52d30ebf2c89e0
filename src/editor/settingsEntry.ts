// Reading and writing one server's entry where it lives: user, workspace or folder settings, or
// one of the extra source files.
import * as vscode from 'vscode';
import { findNodeAtLocation, parseTree, type JSONPath } from 'jsonc-parser';
import type { SandboxRules, ServerSource } from '../core/config';
import { editSetting, inspectSetting, SANDBOX_ENABLED_KEY, SECTION, SERVERS_KEY, type SettingEdit } from './settings';

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
  await editSetting(SERVERS_KEY, [{ location: [name], value: entry }], target);
}

export function entryExists(name: string, scope: WritableScope): boolean {
  return name in serversAt(scope === 'user' ? vscode.ConfigurationTarget.Global : vscode.ConfigurationTarget.Workspace);
}

/**
 * Changes the entry in its own settings scope by the edits `change` makes of it (paths inside the
 * entry), each in place; false when it is not in settings (a file's entry is edited in its file:
 * the caller opens it).
 */
async function editEntry(name: string, source: ServerSource, change: (entry: Record<string, unknown>) => SettingEdit[]): Promise<boolean> {
  const target = targetFor(source);
  if (target === undefined) return false;
  const folder = folderFor(source);
  const entry = serversAt(target, folder)[name];
  if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return false;
  const edits = change(entry as Record<string, unknown>).map((edit) => ({ ...edit, location: [name, ...edit.location] }));
  if (edits.length > 0) await editSetting(SERVERS_KEY, edits, target, folder);
  return true;
}

/** Sets `enabled` on the entry in its own scope. Entries from files are edited in their file. */
export function setServerEnabled(name: string, source: ServerSource, enabled: boolean): Promise<boolean> {
  return editEntry(name, source, (entry) => {
    if (enabled) return 'enabled' in entry ? [{ location: ['enabled'], value: undefined }] : [];
    return entry.enabled === false ? [] : [{ location: ['enabled'], value: false }];
  });
}

/**
 * Runs the server in a sandbox, or not. The entry says only what differs from what it would do
 * without saying: `sandboxEnabled` is written when the choice is not the default (the entry's own
 * rules, else the user's `sandbox.enabled`), and removed when it is, so that a choice undone leaves
 * the entry as it was. Rules of its own, if any, stay for next time.
 */
export function setServerSandboxed(name: string, source: ServerSource, sandboxed: boolean): Promise<boolean> {
  return editEntry(name, source, (entry) => {
    const edits: SettingEdit[] = [];
    // The old boolean spelling of the switch: replaced by sandboxEnabled.
    if (typeof entry.sandbox === 'boolean') edits.push({ location: ['sandbox'], value: undefined });
    const ownRules = typeof entry.sandbox === 'object' && entry.sandbox !== null;
    const byDefault = ownRules || inspectSetting<unknown>(SANDBOX_ENABLED_KEY)?.globalValue === true;
    if (sandboxed === byDefault) {
      if ('sandboxEnabled' in entry) edits.push({ location: ['sandboxEnabled'], value: undefined });
    } else if (entry.sandboxEnabled !== sandboxed) {
      edits.push({ location: ['sandboxEnabled'], value: sandboxed });
    }
    return edits;
  });
}

/**
 * Lets the sandboxed server reach `host`: added to the `network.allowedDomains` of the entry's own
 * rules; an entry without rules of its own gets the rules it runs with now (`current`), plus the host.
 */
export function allowHostInSandbox(name: string, source: ServerSource, host: string, current: SandboxRules): Promise<boolean> {
  return editEntry(name, source, (entry) => {
    const own = typeof entry.sandbox === 'object' && entry.sandbox !== null ? (entry.sandbox as Record<string, unknown>) : undefined;
    const network = typeof own?.network === 'object' && own.network !== null ? (own.network as Record<string, unknown>) : undefined;
    const allowed = Array.isArray(network?.allowedDomains) ? (network.allowedDomains as unknown[]) : undefined;
    const edits: SettingEdit[] = [];
    if (!own)
      edits.push({
        location: ['sandbox'],
        value: {
          filesystem: current.filesystem,
          network: { ...current.network, allowedDomains: [...current.network.allowedDomains, host] },
        },
      });
    else if (!network) edits.push({ location: ['sandbox', 'network'], value: { allowedDomains: [host] } });
    else if (!allowed) edits.push({ location: ['sandbox', 'network', 'allowedDomains'], value: [host] });
    else if (!allowed.includes(host))
      edits.push({ location: ['sandbox', 'network', 'allowedDomains', allowed.length], value: host, insert: true });
    // Rules of its own make it sandboxed; only an entry that said otherwise says so again.
    if (entry.sandboxEnabled === false) edits.push({ location: ['sandboxEnabled'], value: true });
    return edits;
  });
}

/** Deletes the entry from its settings scope; false when it is not there (or not in settings). */
export async function removeSettingsEntry(name: string, source: ServerSource): Promise<boolean> {
  const target = targetFor(source);
  if (target === undefined) return false;
  const folder = folderFor(source);
  if (!(name in serversAt(target, folder))) return false;
  await editSetting(SERVERS_KEY, [{ location: [name], value: undefined }], target, folder);
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
