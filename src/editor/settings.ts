// The one place that reads and writes the `mcpSwitchboard` settings. Everything else asks here, so
// the section name, the keys and the write targets are declared once.
import * as vscode from 'vscode';
import {
  type CatalogSettings,
  catalogSettingsFrom,
  SETTINGS_SECTION,
  TOOLS_DISABLED,
  toolSetsFrom,
  type ToolSetDefinition,
} from '../core/catalog';
import { DEFAULT_REGISTRY_URL } from '../core/registry';

export const SECTION = SETTINGS_SECTION;
export const SERVERS_KEY = 'servers';
export const SOURCES_KEY = 'sources';
export const DEFAULT_LIFECYCLE_KEY = 'defaultLifecycle';
export const DEFAULT_IDLE_STOP_KEY = 'defaultIdleStopMinutes';
export const SANDBOX_ENABLED_KEY = 'sandbox.enabled';
export const SANDBOX_RULES_KEY = 'sandbox.rules';
export const SANDBOX_WORKSPACE_KEY = 'sandbox.workspaceServers';
export const REGISTRY_URL_KEY = 'registry.url';

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

export async function updateSetting(
  key: string,
  value: unknown,
  target: vscode.ConfigurationTarget,
  folder?: vscode.WorkspaceFolder,
): Promise<void> {
  await vscode.workspace.getConfiguration(SECTION, folder?.uri).update(key, value, target);
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
  const current = new Set(Array.isArray(written) ? written.filter((item): item is string => typeof item === 'string') : []);
  const id = `${server}/${tool}`;
  if (enabled) current.delete(id);
  else current.add(id);
  await updateSetting(TOOLS_DISABLED, current.size > 0 ? [...current].sort() : undefined, target);
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
