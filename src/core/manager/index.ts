export { countWhere, readyCount, type HealthSummary } from './health';
export {
  DEFAULT_CONCURRENCY,
  ServerManager,
  type ConfiguredServer,
  type ManagerOptions,
  type ServerBlock,
  type ServersChange,
  type ServerView,
} from './serverManager';
export { isInvalid } from './managedServer';
export { waitForState } from './waitForState';
