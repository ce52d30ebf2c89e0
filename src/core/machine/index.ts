export { checkOwn, ensurePrivateFolder, HOST_DIR_ENV, hostPlace, HostPlaceError, type HostPlace } from './hostPlace';
export { HEARTBEAT_MS, HOST_PROTOCOL, hostInfo, readHostToken, type HostInfo } from './hostProtocol';
export { HOST_MARKER, isHostProcess, MachineHost, type MachineHostOptions, type NotHost } from './machineHost';
export { HostLink, HUNG_AFTER_MS, type HostLinkOptions, type HostLinkState } from './hostLink';
