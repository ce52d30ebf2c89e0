// The gateway's HTTP edge: the checks every request passes before the MCP SDK sees it, the
// bounded body, SEP-2243 parameter headers, the access log, the OAuth resource server of a team
// gateway, and the endpoints' addresses. Nothing here knows of sessions or servers.
export { LOOPBACK_REACH, RequestGuard, createToken, isLoopbackAddress, validateReach, type GatewayReach } from './requestGuard';
export { MAX_REQUEST_BYTES, replyError, takeJsonBody } from './requestBody';
export { HEADER_MISMATCH, paramHeaderMismatch } from './paramHeaderCheck';
export { AccessLog, type AccessEntry } from './accessLog';
export { oauthIdentity, type GatewayIdentity, type IdentityFactory, type RequestIdentity } from './resourceServer';
export {
  AGGREGATED,
  describeEndpoint,
  endpointKey,
  endpointPath,
  parseEndpointPath,
  serverEndpoint,
  type CallTarget,
  type EndpointId,
} from './endpoint';
