// Public surface of the MCP gateway. See gateway.ts for the endpoints, http/requestGuard.ts for the
// security rules, and README.md for the modules it is made of.
export { definitionVersion, type EndpointFacts } from './definitionVersion';
export { LOOPBACK_HOST, McpGateway, type AccessEntry, type GatewayOptions, type MetricsEndpoint } from './gateway';
export {
  AGGREGATED,
  endpointPath,
  parseEndpointPath,
  serverEndpoint,
  type EndpointId,
  LOOPBACK_REACH,
  validateReach,
  type GatewayReach,
  oauthIdentity,
  type GatewayIdentity,
  type IdentityFactory,
} from './http';
export { serveStdioSession, type StdioSession } from './stdioSession';
export { FORWARDED_HEADER, STOPPING_HEADER, type ReplicaRouter, type SharedTaskStore, type StoredTask } from './replicas';
export type { CallTracer, TraceContext, TracedCall, TracedCallInfo } from './callTracing';
export { SERVER_LISTING_PATH, type ListedServer, type ServerListing } from './exposure';
export { SETTLING_HOLD_MS } from './settledChanges';
