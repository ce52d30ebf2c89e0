export { ConcurrencyLimit } from './concurrencyLimit';
export { ManagerError, type ManagerErrorCode } from './errors';
export { readyCount, summarizeHealth, type HealthSummary } from './health';
export {
  DEFAULT_CONCURRENCY,
  DEFAULT_STARTUP_GATE_MS,
  ServerManager,
  type ConfiguredServer,
  type ManagerOptions,
  type ServerBlock,
  type ServerView,
} from './serverManager';
export { waitForState, type StateSource, type WaitOptions, type WaitOutcome } from './waitForState';
