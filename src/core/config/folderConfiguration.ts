// One workspace folder's configuration, read the way the CLI sees it: DIR/.vscode/settings.json plus
// the extra sources it turns on, with DIR as the only workspace folder. Shared by `doctor` and `serve`.
import path from 'node:path';
import type { LoadedConfiguration } from './load';
import { loadConfiguration } from './load';
import { createEnvInputResolver } from './inputs';
import { nodeFileSystem, type ConfigFileSystem } from './fileSystem';
import { readUserSettingsFile, readWorkspaceSettingsFile, settingsEntries } from './settingsFile';
import type { ConfigDiagnostic } from './types';

export type FolderConfiguration =
  | ({
      readonly kind: 'loaded';
      readonly settingsFile: string;
      /** False when the settings file does not exist: a valid folder with no servers. */
      readonly settingsFound: boolean;
    } & LoadedConfiguration)
  | {
      /** The settings file exists but cannot be read or parsed; nothing was loaded. */
      readonly kind: 'unreadable';
      readonly settingsFile: string;
      readonly diagnostics: readonly ConfigDiagnostic[];
    };

/** Names the editor's user settings file for the CLI (its launcher for other agents sets it). */
export const USER_SETTINGS_ENV = 'MCP_SWITCHBOARD_USER_SETTINGS';

export interface FolderConfigurationOptions {
  /**
   * The editor's user settings file, read as the editor reads its user scope: its servers (under
   * the folder's), its sources and lifecycle defaults where the folder sets none, and the sandbox
   * settings from it alone (a workspace cannot turn sandboxing off). Its folder is the editor's
   * `User` folder (its own mcp.json). What `serve --stdio` gets when the editor's Share starts it.
   * Default: $MCP_SWITCHBOARD_USER_SETTINGS.
   */
  readonly userSettingsFile?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly userHome?: string;
  readonly fs?: ConfigFileSystem;
  /** The scripts this CLI starts from (ConfigurationInput.launchers). */
  readonly launchers?: readonly string[];
}

export async function loadFolderConfiguration(folder: string, options: FolderConfigurationOptions = {}): Promise<FolderConfiguration> {
  const env = options.env ?? process.env;
  const baseFs = options.fs ?? nodeFileSystem;
  const settingsFile = path.join(folder, '.vscode', 'settings.json');
  // readWorkspaceSettingsFile treats a missing file like an empty one; callers want to say which.
  let settingsFound = true;
  const recording: ConfigFileSystem = {
    async readText(file, maxBytes) {
      const result = await baseFs.readText(file, maxBytes);
      if (file === settingsFile && result.kind === 'missing') settingsFound = false;
      return result;
    },
  };
  const settings = await readWorkspaceSettingsFile(folder, recording);
  if (settings.unreadable) {
    return { kind: 'unreadable', settingsFile, diagnostics: settings.diagnostics };
  }
  const userSettingsFile = options.userSettingsFile ?? (env[USER_SETTINGS_ENV] || undefined);
  const user = userSettingsFile === undefined ? undefined : await readUserSettingsFile(userSettingsFile, baseFs);
  const fromSettings = settingsEntries(settings.servers, settings.source);
  const fromUser = user && !user.unreadable ? settingsEntries(user.servers, user.source) : { entries: [], diagnostics: [] };
  const sourcesFrom = settings.sources === undefined && user?.sources !== undefined ? user : settings;
  const lifecycle = {
    lifecycle: settings.lifecycleDefaults?.lifecycle ?? user?.lifecycleDefaults?.lifecycle,
    idleStopMinutes: settings.lifecycleDefaults?.idleStopMinutes ?? user?.lifecycleDefaults?.idleStopMinutes,
  };
  const lifecycleOrigin =
    settings.lifecycleDefaults?.lifecycle !== undefined || settings.lifecycleDefaults?.idleStopMinutes !== undefined || !user
      ? settings.source
      : user.source;
  // With the editor's user settings, sandboxing is the user's alone, as in the editor.
  const sandbox = user ? user.sandboxDefaults : settings.sandboxDefaults;
  const loaded = await loadConfiguration(
    {
      entries: [...fromUser.entries, ...fromSettings.entries],
      sources: sourcesFrom.sources,
      sourcesOrigin: sourcesFrom.source,
      lifecycleDefaults: { ...lifecycle, origin: lifecycleOrigin },
      ...(sandbox ? { sandboxDefaults: { ...sandbox, origin: (user ?? settings).source } } : {}),
      ...(userSettingsFile === undefined ? {} : { editorUserDir: path.dirname(userSettingsFile) }),
      workspaceFolders: [{ name: path.basename(folder), path: folder }],
      env,
      userHome: options.userHome,
      fs: options.fs,
      launchers: options.launchers,
    },
    createEnvInputResolver(env),
  );
  return {
    kind: 'loaded',
    settingsFile,
    settingsFound,
    teams: loaded.teams,
    servers: loaded.servers,
    diagnostics: [
      ...(user?.diagnostics ?? []),
      ...settings.diagnostics,
      ...fromUser.diagnostics,
      ...fromSettings.diagnostics,
      ...loaded.diagnostics,
    ],
    files: loaded.files,
  };
}
