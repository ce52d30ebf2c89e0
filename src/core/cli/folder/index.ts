// The cli/folder module's surface: what the rest of Switchboard uses of it.
export { loadWorkspace, thisCliLaunchers } from './workspace';
export type { LoadedWorkspace } from './workspace';
export { cliAnswers } from './cliAnswers';
export { readCatalogSettings, readUserSetting, serveCacheDir } from './folderSettings';
