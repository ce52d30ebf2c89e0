export { HostedServers, type HostedServer, type HostedServersOptions } from './hostedServers';
export { sharedLaunchOf, type SharedLaunch } from './sharedLaunch';
export {
  SHARE_ALL,
  SHARE_SETTING,
  ServerSharing,
  sharingPolicyFrom,
  whyNotShared,
  type ServerSharingOptions,
  type SharingPolicy,
} from './serverSharing';
