// Public surface of the configuration layer. See README.md in this folder for the rules.

export { isInvalidServer } from './buildServer';
export type { ConfigurationInput, SettingsEntry, TeamLister, TeamListing } from './configurationInput';
export { nodeFileSystem, type ConfigFileSystem } from './fileSystem';
export { hashServerConnection } from './hash';
export { createEnvInputResolver, inputEnvVarName, type InputRequest, type InputResolver } from './inputs';
export * as limits from './limits';
export { loadConfiguration, type LoadedConfiguration } from './load';
export { describeSource, sourceLabel } from './precedence';
export { readWorkspaceSettingsFile, settingsEntries } from './settingsFile';
export {
  claudeDesktopConfigPath,
  isInsideFolders,
  isWorkspaceDefinedSource,
  protectedPlaces,
  SOURCE_TITLES,
  sourceFiles,
  vscodeUserDir,
  type LocationContext,
  type ProtectedPlaces,
  type SourceFile,
} from './sourceLocations';
export { readSourceFile, readSourceFiles, SOURCE_NAMES, type SourceName } from './sources';
export { teamSignInUrl } from './teamSources';
export { launchKey, sameLaunchAs } from './sameLaunch';
export { GATEWAY_TOKEN_ENV, switchboardItself } from './switchboardEntries';
export {
  DEFAULT_OAUTH,
  DEFAULT_RECONNECT,
  DEFAULT_TIMEOUTS,
  FILE_SOURCES,
  NO_SANDBOX_RULES,
  launchOf,
  sandboxOf,
  signsInWithOAuth,
  type ConfigDiagnostic,
  type EnterpriseIdp,
  type FileSourceKind,
  type HostedServerRef,
  type HttpServerDefinition,
  type InvalidServer,
  type LifecycleSettings,
  type OAuthSettings,
  type ReconnectSettings,
  type SandboxPlaces,
  type SandboxRules,
  type SandboxRulesOrigin,
  type ServerDefinition,
  type ServerSource,
  type StdioServerDefinition,
  type ToolFilterSettings,
  type TransportType,
} from './types';
export { loadFolderConfiguration, USER_SETTINGS_ENV } from './folderConfiguration';
export { describeSandboxRules, workspaceConsentSandbox } from './sandboxSetting';
export { userConfigFolder } from './paths';
export { canonicalJson } from './hash';
export { parseJsonc } from './jsonc';
export { isSecretName } from './secrets';
export { EXPORT_FORMATS, EXPORT_TITLES, exportEntry } from './exportEntry';
export type { ExportFormat } from './exportEntry';
export {
  CommandLineError,
  entryFromCommandLine,
  freeServerName,
  readableCommandLine,
  readablePath,
  suggestServerName,
} from './commandLine';
export type { NewEntry } from './commandLine';
