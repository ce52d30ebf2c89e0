// The share module's surface: what the rest of Switchboard uses of it.
export { readGatewayTokenSecret, readOrCreateGatewayToken } from './gatewayToken';
export { DEFAULT_SHARE_PORT, SHARE_TARGETS, SHARE_TITLES, shareGateway } from './shareGateway';
export type { ShareTarget } from './shareGateway';
