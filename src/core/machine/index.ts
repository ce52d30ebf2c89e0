export { checkOwn, ensurePrivateFolder, HOST_DIR_ENV, hostPlace, HostPlaceError, type HostPlace } from './hostPlace';
export {
  askHost,
  CLIENT_HEADER,
  HEARTBEAT_MS,
  HOST_NAME,
  HOST_PATHS,
  HOST_PROTOCOL,
  hostInfo,
  readHostToken,
  refuseUpgrade,
  type HostInfo,
} from './hostProtocol';
export { HOST_MARKER, isHostProcess, MachineHost, type HostServices, type MachineHostOptions, type NotHost } from './machineHost';
export { HostLink, HUNG_AFTER_MS, type HostLinkOptions, type HostLinkState } from './hostLink';
export { CLI_NODE_FLAGS, hostLauncher, type HostCommand } from './hostLaunch';
