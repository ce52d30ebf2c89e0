// The registry module's surface: what the rest of Switchboard uses of it.
export { DEFAULT_REGISTRY_URL, RegistryClient, RegistryError } from './registryClient';
export type { Fetch, RegistryServer } from './registryClient';
export { describeEntryLaunch, entryFromRegistry, installOptions, registryServerName } from './registryEntry';
export type { InstallOption } from './registryEntry';
export type { ServerJson } from './serverJson';
