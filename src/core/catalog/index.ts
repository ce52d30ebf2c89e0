export { applyBudget, budgetWarning, compareBudgetOrder, DEFAULT_MAX_EXPOSED, normalizeMaxExposed, type BudgetCandidate } from './budget';
export {
  DEFAULT_CACHE_TTL_MS,
  isExpired,
  MemoryToolCacheStorage,
  parseToolCacheEntry,
  TOOL_CACHE_FORMAT,
  toolCacheKey,
  type CachedOffer,
  type ToolCacheEntry,
  type ToolCacheStorage,
} from './cache';
export { CatalogError, isCatalogError, type CatalogErrorCode } from './errors';
export {
  compileGlob,
  describeFilterRule,
  DISABLED_SETTING,
  evaluateFilters,
  FILTER_STEPS,
  GLOBAL_DENY_SETTING,
  MAX_EXPOSED_SETTING,
  type FilterStep,
} from './filters';
export { FolderToolCacheStorage } from './folderStorage';
export { MAX_QUALIFIED_NAME_LENGTH, qualifyToolNames, sanitizeNamePart, type QualifiedNames, type ToolRef } from './naming';
export { DEFAULT_REFRESH_DEBOUNCE_MS } from './refreshScheduler';
export { OfferCatalog, type OfferManager, type OfferStore } from './offerCatalog';
export { normalizeTool } from './schema';
export { buildSnapshot } from './snapshot';
export { prepareToolList } from './preparedList';
export { catalogSettingsFrom, DEFAULT_CATALOG_SETTINGS, type CatalogSettings } from './settings';
export { ToolCatalog, type CatalogDiagnostics, type ToolCatalogOptions } from './toolCatalog';
export type { CatalogConnection, CatalogManager } from './catalogManager';
export type * from './types';
