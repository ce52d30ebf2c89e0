export { DEFAULT_MAX_EXPOSED } from './budget';
export { MemoryToolCacheStorage, type ToolCacheStorage } from './cache';
export { compileGlob, describeFilterRule, shortFilterRule, type GlobPattern } from './filters';
export { FolderToolCacheStorage } from './folderStorage';
export { OfferCatalog } from './offerCatalog';
export { buildSnapshot, isSettling } from './snapshot';
export { prepareToolList } from './preparedList';
export { type CatalogSettings } from './settings';
export { ToolCatalog, type CallSettlement, type SearchIndexing, type SettledCall } from './toolCatalog';
export type * from './types';
export { MAX_EXPOSED_SETTING } from './filters';
export { sanitizeNamePart } from './naming';
export {
  SETTINGS_SECTION,
  TOOLS_DISABLED,
  catalogSettingsFrom,
  settingsFileLookup,
  toolSetsFrom,
  type ToolSetDefinition,
} from './settings';
export type { PreparedTool } from './preparedList';
export { isForModel } from './modelVisibility';
export { ToolSearch, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from './toolSearch';
