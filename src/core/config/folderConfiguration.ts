// One workspace folder's configuration, read the way the CLI sees it: DIR/.vscode/settings.json plus
// the extra sources it turns on, with DIR as the only workspace folder. Shared by `doctor` and `serve`.
import path from 'node:path';
import type { LoadedConfiguration } from './load';
import { loadConfiguration } from './load';
import { createEnvInputResolver } from './inputs';
import { nodeFileSystem, type ConfigFileSystem } from './fileSystem';
import { readWorkspaceSettingsFile, settingsEntries } from './settingsFile';
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

export interface FolderConfigurationOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly userHome?: string;
  readonly fs?: ConfigFileSystem;
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
  const fromSettings = settingsEntries(settings.servers, settings.source);
  const loaded = await loadConfiguration(
    {
      entries: fromSettings.entries,
      sources: settings.sources,
      sourcesOrigin: settings.source,
      ...(settings.lifecycleDefaults ? { lifecycleDefaults: { ...settings.lifecycleDefaults, origin: settings.source } } : {}),
      ...(settings.sandboxDefaults ? { sandboxDefaults: { ...settings.sandboxDefaults, origin: settings.source } } : {}),
      workspaceFolders: [{ name: path.basename(folder), path: folder }],
      env,
      ...(options.userHome === undefined ? {} : { userHome: options.userHome }),
      ...(options.fs === undefined ? {} : { fs: options.fs }),
    },
    createEnvInputResolver(env),
  );
  return {
    kind: 'loaded',
    settingsFile,
    settingsFound,
    servers: loaded.servers,
    diagnostics: [...settings.diagnostics, ...fromSettings.diagnostics, ...loaded.diagnostics],
    files: loaded.files,
  };
}
