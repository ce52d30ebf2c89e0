import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import {
  isWorkspaceDefinedSource,
  readWorkspaceSettingsFile,
  settingsEntries,
  type ConfigDiagnostic,
  type ConfigurationInput,
  type LocationContext,
  type ServerSource,
  type SettingsEntry,
} from '../core/config';
import {
  editorUserDir,
  DEFAULT_IDLE_STOP_KEY,
  DEFAULT_LIFECYCLE_KEY,
  inspectServerSetting,
  SANDBOX_ENABLED_KEY,
  SANDBOX_RULES_KEY,
  SERVERS_KEY,
  SOURCES_KEY,
} from './settings';

function settingsFile(kind: 'user' | 'workspace' | 'folder', folder?: vscode.WorkspaceFolder): string | undefined {
  if (kind === 'folder' && folder) return vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json').fsPath;
  if (kind === 'workspace') {
    const file = vscode.workspace.workspaceFile;
    if (file && file.scheme === 'file') return file.fsPath;
    const first = vscode.workspace.workspaceFolders?.[0];
    return first ? vscode.Uri.joinPath(first.uri, '.vscode', 'settings.json').fsPath : undefined;
  }
  return undefined;
}

function source(kind: 'user' | 'workspace' | 'folder', folder?: vscode.WorkspaceFolder): ServerSource {
  const file = settingsFile(kind, folder);
  return file ? { kind, file } : { kind };
}

/**
 * Reads `mcpSwitchboard.servers` from every scope separately (not the merged value), so that each
 * entry keeps the scope it came from: trust and consent depend on it. Restricted Mode hides
 * workspace values from `get()`, but `inspect()` still shows them, which is what lets us show those
 * servers as blocked instead of pretending they do not exist.
 */
export async function readConfigurationInput(): Promise<{ input: ConfigurationInput; diagnostics: ConfigDiagnostic[] }> {
  const entries: SettingsEntry[] = [];
  const diagnostics: ConfigDiagnostic[] = [];
  const add = (value: unknown, from: ServerSource) => {
    if (value === undefined) return;
    const result = settingsEntries(value, from);
    entries.push(...result.entries);
    diagnostics.push(...result.diagnostics);
  };

  const root = inspectServerSetting<unknown>(SERVERS_KEY);
  add(root?.globalValue, source('user'));
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (!vscode.workspace.isTrusted) {
    // Restricted Mode hides workspace values of restricted settings even from inspect(). Read the
    // folders' settings files directly, only so those servers can be shown as blocked.
    for (const folder of folders) {
      if (folder.uri.scheme !== 'file') continue;
      const read = await readWorkspaceSettingsFile(folder.uri.fsPath);
      diagnostics.push(...read.diagnostics);
      add(read.servers, source('folder', folder));
    }
  } else {
    // In a single-folder window the folder settings are the workspace settings.
    add(root?.workspaceValue, source(folders.length > 1 || vscode.workspace.workspaceFile ? 'workspace' : 'folder', folders[0]));
  }
  if (folders.length > 1 && vscode.workspace.isTrusted) {
    for (const folder of folders) {
      add(inspectServerSetting<unknown>(SERVERS_KEY, folder)?.workspaceFolderValue, source('folder', folder));
    }
  }

  const sources = inspectServerSetting<unknown>(SOURCES_KEY);
  const sourcesValue = sources?.workspaceValue ?? sources?.globalValue;
  const sourcesOrigin = sources?.workspaceValue !== undefined ? source('workspace') : source('user');

  return {
    input: {
      entries,
      sources: sourcesValue,
      sourcesOrigin,
      lifecycleDefaults: readLifecycleDefaults(),
      sandboxDefaults: readSandboxDefaults(),
      workspaceFolders: folders.map((folder) => ({ name: folder.name, path: folder.uri.fsPath })),
      ...(editorUserDir() ? { editorUserDir: editorUserDir() } : {}),
    },
    diagnostics,
  };
}

/** Effective values (folder over workspace over user): they only say when servers start. */
function readLifecycleDefaults(): ConfigurationInput['lifecycleDefaults'] {
  const lifecycle = inspectServerSetting<unknown>(DEFAULT_LIFECYCLE_KEY);
  const idleStop = inspectServerSetting<unknown>(DEFAULT_IDLE_STOP_KEY);
  return {
    lifecycle: lifecycle?.workspaceValue ?? lifecycle?.globalValue,
    idleStopMinutes: idleStop?.workspaceValue ?? idleStop?.globalValue,
    origin: lifecycle?.workspaceValue !== undefined || idleStop?.workspaceValue !== undefined ? source('workspace') : source('user'),
  };
}

/** The user's own values only (application scope): a workspace cannot turn sandboxing off. */
function readSandboxDefaults(): ConfigurationInput['sandboxDefaults'] {
  return {
    enabled: inspectServerSetting<unknown>(SANDBOX_ENABLED_KEY)?.globalValue,
    rules: inspectServerSetting<unknown>(SANDBOX_RULES_KEY)?.globalValue,
    origin: source('user'),
  };
}

/** Servers from these places can run commands chosen by whoever wrote the repository. */
export function isWorkspaceDefined(from: ServerSource): boolean {
  return isWorkspaceDefinedSource(
    from,
    (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath),
    path,
  );
}

/** Where this window's source files are, for Import Servers and the file watchers. */
export function editorLocations(): LocationContext {
  return {
    workspaceFolders: (vscode.workspace.workspaceFolders ?? [])
      .filter((folder) => folder.uri.scheme === 'file')
      .map((folder) => ({ name: folder.name, path: folder.uri.fsPath })),
    userHome: os.homedir(),
    platform: process.platform,
    paths: path,
    env: process.env,
    ...(editorUserDir() ? { editorUserDir: editorUserDir() } : {}),
  };
}
