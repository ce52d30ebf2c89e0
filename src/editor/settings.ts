// The one place that reads and writes the `mcpSwitchboard` settings. Everything else asks here, so
// the section name, the keys and the write targets are declared once.
//
// A write is an edit of the settings file where the value lives, in place (jsonc-parser): only the
// characters of the changed value change, so that the user's comments, order and formatting stay,
// and a choice undone leaves the file as it was. VS Code's own `update()` rewrites the whole value
// of the key (every comment inside `mcpSwitchboard.servers` lost); it is used only where the file
// cannot be found or does not hold what the editor reads (a settings profile's own file).
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import * as vscode from 'vscode';
import type { JSONPath } from 'jsonc-parser';
import { editJsonText, jsonValueAt, readConfigText, writeConfigText, type JsonEdit } from '../core/base/jsoncFile';
import {
  type CatalogSettings,
  catalogSettingsFrom,
  SETTINGS_SECTION,
  TOOLS_DISABLED,
  toolSetsFrom,
  type ToolSetDefinition,
} from '../core/catalog';
import { DEFAULT_REGISTRY_URL } from '../core/registry';
import { SHARE_SETTING, sharingPolicyFrom, type SharingPolicy } from '../core/sharing';

export const SECTION = SETTINGS_SECTION;
export const SERVERS_KEY = 'servers';
export const SOURCES_KEY = 'sources';
export const DEFAULT_LIFECYCLE_KEY = 'defaultLifecycle';
export const DEFAULT_IDLE_STOP_KEY = 'defaultIdleStopMinutes';
export const SANDBOX_ENABLED_KEY = 'sandbox.enabled';
export const SANDBOX_RULES_KEY = 'sandbox.rules';
export const SANDBOX_WORKSPACE_KEY = 'sandbox.workspaceServers';
export const REGISTRY_URL_KEY = 'registry.url';
export const SHARE_SERVERS_KEY = SHARE_SETTING;

/**
 * Every setting the servers are built from: the configuration reader reads them only through
 * inspectServerSetting, which takes no other key, and a change to any of them reloads the servers
 * (settingsChange). One list, so a setting the reader starts to read cannot be missing from it.
 */
export const SERVER_SETTING_KEYS = [
  SERVERS_KEY,
  SOURCES_KEY,
  DEFAULT_LIFECYCLE_KEY,
  DEFAULT_IDLE_STOP_KEY,
  SANDBOX_ENABLED_KEY,
  SANDBOX_RULES_KEY,
  SANDBOX_WORKSPACE_KEY,
  SHARE_SERVERS_KEY,
] as const;
export type ServerSettingKey = (typeof SERVER_SETTING_KEYS)[number];

/** A setting the servers are built from, as each scope has it. */
export function inspectServerSetting<T>(key: ServerSettingKey, folder?: vscode.WorkspaceFolder) {
  return inspectSetting<T>(key, folder);
}

/** The registry Add Server from Registry searches: the user's own setting only (application scope). */
export function registryUrl(): string {
  const value = inspectSetting<unknown>(REGISTRY_URL_KEY)?.globalValue;
  return typeof value === 'string' && /^https?:\/\//.test(value) ? value : DEFAULT_REGISTRY_URL;
}

/** `ask`: the consent dialog offers Allow and Run Sandboxed; `sandboxed`: only Run Sandboxed. */
export type WorkspaceSandboxMode = 'ask' | 'sandboxed';

/**
 * Only the user's own value counts (the settings are application-scoped): a workspace must not be
 * able to turn off what protects the user from it.
 */
export function workspaceSandboxMode(): WorkspaceSandboxMode {
  return inspectServerSetting<unknown>(SANDBOX_WORKSPACE_KEY)?.globalValue === 'sandboxed' ? 'sandboxed' : 'ask';
}

/** `mcpSwitchboard.<key>` as each scope has it (not merged): scope decides trust and consent. */
export function inspectSetting<T>(key: string, folder?: vscode.WorkspaceFolder) {
  return vscode.workspace.getConfiguration(SECTION, folder?.uri).inspect<T>(key);
}

let userDir: string | undefined;

/**
 * The editor's `User` folder (its settings.json and user mcp.json), from where it keeps this
 * extension's global storage: `<User>/globalStorage/<extension id>`. Set once at activation.
 */
export function rememberEditorUserDir(globalStorage: vscode.Uri): void {
  if (globalStorage.scheme === 'file') userDir = path.dirname(path.dirname(globalStorage.fsPath));
}

export function editorUserDir(): string | undefined {
  return userDir;
}

/** One change of `mcpSwitchboard.<key>`: at `location` inside its value (`[]`: the whole value). */
export interface SettingEdit {
  readonly location: JSONPath;
  /** Undefined removes it. */
  readonly value: unknown;
  /** `location` ends with an array index: the value is inserted there. */
  readonly insert?: boolean;
}

/** Sets (or, with undefined, removes) the whole `mcpSwitchboard.<key>` in `target`. */
export function updateSetting(
  key: string,
  value: unknown,
  target: vscode.ConfigurationTarget,
  folder?: vscode.WorkspaceFolder,
): Promise<void> {
  return editSetting(key, [{ location: [], value }], target, folder);
}

/**
 * Changes `mcpSwitchboard.<key>` in `target` by `edits`, each in place in its settings file. A file
 * with unsaved changes in an editor is not written behind the user's back: it says so, and nothing
 * changes. Resolves once the editor's configuration has the new value.
 */
export async function editSetting(
  key: string,
  edits: readonly SettingEdit[],
  target: vscode.ConfigurationTarget,
  folder?: vscode.WorkspaceFolder,
): Promise<void> {
  const configuration = vscode.workspace.getConfiguration(SECTION, folder?.uri);
  const inspected = configuration.inspect(key);
  const current =
    target === vscode.ConfigurationTarget.Global
      ? inspected?.globalValue
      : target === vscode.ConfigurationTarget.Workspace
        ? inspected?.workspaceValue
        : inspected?.workspaceFolderValue;
  const file = settingsFileOf(target, folder);
  const location = file && [...file.prefix, `${SECTION}.${key}`];
  const text = file ? readConfigText(file.path) : '';
  // Only a file that holds exactly what the editor reads is edited in place (not one a profile shadows).
  if (file && location && inPlaceFor(target) && sameJson(jsonValueAt(text, location), current)) {
    const open = vscode.workspace.textDocuments.find((document) => document.uri.scheme === 'file' && document.uri.fsPath === file.path);
    if (open?.isDirty) throw new Error(`${file.path} has changes that are not saved: save it, then try again. Nothing was changed`);
    const jsonEdits: JsonEdit[] = edits.map((edit) => ({ ...edit, location: [...location, ...edit.location] }));
    const next = editJsonText(file.path, text, jsonEdits);
    if (next === text) return;
    const changed = configurationChanged(`${SECTION}.${key}`);
    writeConfigText(file.path, next);
    if (await changed) return;
    // The editor did not notice the file (it watches it from elsewhere): it writes the value itself.
    await configuration.update(key, jsonValueAt(next, location), target);
    return;
  }
  let value = current;
  for (const edit of edits) value = withEdit(value, edit);
  await configuration.update(key, value, target);
}

/**
 * Whether the editor reads `target`'s file where this extension host can write it and watches it
 * there. Workspace files are the host's own. User settings are only on a local desktop: in a
 * browser (code-server) the editor does not notice a change made to them here, and with a remote
 * extension host they are on the other machine.
 */
function inPlaceFor(target: vscode.ConfigurationTarget): boolean {
  return (
    target !== vscode.ConfigurationTarget.Global || (vscode.env.uiKind === vscode.UIKind.Desktop && vscode.env.remoteName === undefined)
  );
}

/** Equal as JSON (the parser's objects have no prototype; the editor's do). */
function sameJson(a: unknown, b: unknown): boolean {
  const plain = (value: unknown): unknown => (value === undefined ? null : JSON.parse(JSON.stringify(value)));
  return isDeepStrictEqual(plain(a), plain(b));
}

/** The settings file of a target, and where in it the settings are (a .code-workspace file has them under `settings`). */
function settingsFileOf(
  target: vscode.ConfigurationTarget,
  folder?: vscode.WorkspaceFolder,
): { path: string; prefix: JSONPath } | undefined {
  if (target === vscode.ConfigurationTarget.Global) return userDir ? { path: path.join(userDir, 'settings.json'), prefix: [] } : undefined;
  if (target === vscode.ConfigurationTarget.WorkspaceFolder) {
    const uri = folder?.uri;
    return uri?.scheme === 'file' ? { path: path.join(uri.fsPath, '.vscode', 'settings.json'), prefix: [] } : undefined;
  }
  const workspaceFile = vscode.workspace.workspaceFile;
  if (workspaceFile) return workspaceFile.scheme === 'file' ? { path: workspaceFile.fsPath, prefix: ['settings'] } : undefined;
  const first = vscode.workspace.workspaceFolders?.[0]?.uri;
  return first?.scheme === 'file' ? { path: path.join(first.fsPath, '.vscode', 'settings.json'), prefix: [] } : undefined;
}

/** Whether the editor's configuration of `section` changed (it watches its files) within 5 s. */
function configurationChanged(section: string): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(false), 5_000);
    const subscription = vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(section)) done(true);
    });
    function done(noticed: boolean): void {
      clearTimeout(timer);
      subscription.dispose();
      resolve(noticed);
    }
  });
}

/** `value` with one edit made to a copy (the fallback that writes the whole value). */
function withEdit(value: unknown, edit: SettingEdit): unknown {
  if (edit.location.length === 0) return edit.value;
  const [head, ...rest] = edit.location;
  if (typeof head === 'number') {
    const list = Array.isArray(value) ? [...(value as unknown[])] : [];
    if (rest.length === 0 && edit.insert) list.splice(head, 0, edit.value);
    else if (rest.length === 0 && edit.value === undefined) list.splice(head, 1);
    else list[head] = withEdit(list[head], { ...edit, location: rest });
    return list;
  }
  const key = String(head);
  const object = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const next = withEdit(object[key], { ...edit, location: rest });
  return Object.fromEntries([...Object.entries(object).filter(([name]) => name !== key), ...(next === undefined ? [] : [[key, next]])]);
}

/** `mcpSwitchboard.tools.*`, merged over all scopes, read by the same rules as the CLI's. */
export function readCatalogSettings(): CatalogSettings {
  const configuration = vscode.workspace.getConfiguration(SECTION);
  return catalogSettingsFrom((key) => configuration.get(key));
}

/**
 * Writes a tool switch where the team can review it: the workspace settings when a folder is open,
 * otherwise the user settings. The list stays sorted so diffs stay small.
 */
export async function setToolEnabled(server: string, tool: string, enabled: boolean): Promise<void> {
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  const inspected = inspectSetting<string[]>(TOOLS_DISABLED);
  const written: unknown = target === vscode.ConfigurationTarget.Workspace ? inspected?.workspaceValue : inspected?.globalValue;
  const list = Array.isArray(written) ? (written as unknown[]) : [];
  const id = `${server}/${tool}`;
  const at = list.indexOf(id);
  if (enabled) {
    // The switch back removes exactly what the switch off added; a list left empty goes too.
    if (at < 0) return;
    await editSetting(TOOLS_DISABLED, [{ location: list.length === 1 ? [] : [at], value: undefined }], target);
    return;
  }
  if (at >= 0) return;
  if (!Array.isArray(written)) return editSetting(TOOLS_DISABLED, [{ location: [], value: [id] }], target);
  // In order, so that a reviewed list stays sorted and its diff small.
  const before = list.findIndex((item) => typeof item === 'string' && item > id);
  await editSetting(TOOLS_DISABLED, [{ location: [before < 0 ? list.length : before], value: id, insert: true }], target);
}

export interface SettingsChange {
  /** `mcpSwitchboard.tools.*`: the catalog's filters and budget. */
  readonly tools: boolean;
  /** One of SERVER_SETTING_KEYS (servers, sources, defaults, the sandbox): the configuration is read again. */
  readonly servers: boolean;
}

/** What a configuration change means for Switchboard; undefined when it does not concern it. */
export function settingsChange(event: vscode.ConfigurationChangeEvent): SettingsChange | undefined {
  if (!event.affectsConfiguration(SECTION)) return undefined;
  return {
    tools:
      event.affectsConfiguration(`${SECTION}.tools`) ||
      event.affectsConfiguration(`${SECTION}.${TOOL_SET_KEY}`) ||
      event.affectsConfiguration(`${SECTION}.${TOOL_SETS_KEY}`),
    servers: SERVER_SETTING_KEYS.some((key) => event.affectsConfiguration(`${SECTION}.${key}`)),
  };
}

/**
 * `mcpSwitchboard.shareServers` as the user set it: only their own settings count (a workspace must
 * not move its servers into the machine host, nor keep the user's out of it).
 */
export function sharingPolicy(): SharingPolicy {
  const inspected = vscode.workspace.getConfiguration(SECTION).inspect<unknown>(SHARE_SERVERS_KEY);
  return sharingPolicyFrom(inspected?.globalValue ?? inspected?.defaultValue);
}

export const TOOL_SET_KEY = 'toolSet';
export const TOOL_SETS_KEY = 'toolSets';

/** The tool sets a workspace defines (`mcpSwitchboard.toolSets`), and the one in use. */
export function toolSets(): { readonly sets: Record<string, ToolSetDefinition>; readonly active: string } {
  const configuration = vscode.workspace.getConfiguration(SECTION);
  const active = configuration.get<unknown>(TOOL_SET_KEY);
  return { sets: toolSetsFrom(configuration.get<unknown>(TOOL_SETS_KEY)), active: typeof active === 'string' ? active : '' };
}

/**
 * Switches the tool set in use: written where the sets are (the workspace settings when a folder is
 * open, so the repository's choice is the one its agents see), otherwise the user settings.
 */
export async function useToolSet(name: string): Promise<void> {
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await updateSetting(TOOL_SET_KEY, name === '' ? undefined : name, target);
}

/** Opens the Settings editor on Switchboard's tool filters. */
export function openToolSettings(): Thenable<unknown> {
  return vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.tools`);
}

export type SamplingPolicy = 'allow' | 'ask' | 'deny';
const SAMPLING_KEY = 'sampling';

/** `mcpSwitchboard.sampling[server]`: may the server use a language model; `ask` unless set. */
export function samplingPolicy(server: string): SamplingPolicy {
  const value = vscode.workspace.getConfiguration(SECTION).get<Record<string, unknown>>(SAMPLING_KEY)?.[server];
  return value === 'allow' || value === 'deny' ? value : 'ask';
}
