// Public surface of the MCP gateway. See gateway.ts for the endpoints and requestGuard.ts for the
// security rules.
export { definitionVersion, type EndpointFacts } from './definitionVersion';
export { AGGREGATED, endpointPath, parseEndpointPath, serverEndpoint } from './endpoint';
export { LOOPBACK_HOST, McpGateway, type AccessEntry, type GatewayOptions, type MetricsEndpoint } from './gateway';
export { LOOPBACK_REACH, validateReach, type GatewayReach } from './requestGuard';
export { oauthIdentity, type GatewayIdentity, type IdentityFactory } from './resourceServer';
export { serveStdioSession, type StdioSession } from './stdioSession';
export { FORWARDED_HEADER, STOPPING_HEADER, type ReplicaRouter, type SharedTaskStore, type StoredTask } from './replicas';
export type { CallTracer, TraceContext, TracedCall, TracedCallInfo } from './callTracing';
export { SERVER_LISTING_PATH, type ListedServer, type ServerListing } from './serverListing';
