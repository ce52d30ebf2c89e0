// Public surface of the configuration layer. See README.md in this folder for the rules.

export { isInvalidServer } from './buildServer';
export type { ConfigurationInput, SettingsEntry, WorkspaceFolder } from './configurationInput';
export { nodeFileSystem, type ConfigFileSystem, type ReadTextResult } from './fileSystem';
export { hashServerConnection } from './hash';
export {
  createEnvInputResolver,
  INPUT_ENV_PREFIX,
  inputEnvVarName,
  type InputRequest,
  type InputResolver,
} from './inputs';
export * as limits from './limits';
export { loadConfiguration, type LoadedConfiguration } from './load';
export { describeSource } from './precedence';
export {
  readWorkspaceSettingsFile,
  settingsEntries,
  SERVERS_SETTING,
  SOURCES_SETTING,
  type SettingsEntries,
  type WorkspaceSettings,
} from './settingsFile';
export { claudeDesktopConfigPath, DEFAULT_SOURCES, SOURCE_NAMES, type SourceName } from './sources';
export * from './types';
export { loadFolderConfiguration, type FolderConfiguration, type FolderConfigurationOptions } from './folderConfiguration';
