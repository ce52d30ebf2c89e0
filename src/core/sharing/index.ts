export { HostedServers, type HostedServer, type HostedServerListing, type HostedServersOptions } from './hostedServers';
export { reportMachineHost, type MachineHostReport } from './hostReport';
export { sharedLaunchOf, type SharedLaunch } from './sharedLaunch';
export {
  SHARE_ALL,
  SHARE_NONE,
  SHARE_SETTING,
  ServerSharing,
  sharesNothing,
  sharingPolicyFrom,
  whyNotShared,
  type ServerSharingOptions,
  type SharingPolicy,
} from './serverSharing';
