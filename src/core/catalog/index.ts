export { DEFAULT_MAX_EXPOSED } from './budget';
export {
  MemoryToolCacheStorage,
  type ToolCacheStorage,
} from './cache';
export { isCatalogError } from './errors';
export {
  describeFilterRule,
} from './filters';
export { FolderToolCacheStorage } from './folderStorage';
export { OfferCatalog } from './offerCatalog';
export { buildSnapshot } from './snapshot';
export { prepareToolList } from './preparedList';
export { type CatalogSettings } from './settings';
export { ToolCatalog } from './toolCatalog';
export type * from './types';
