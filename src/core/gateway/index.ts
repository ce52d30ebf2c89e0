// Public surface of the MCP gateway. See gateway.ts for the endpoints and requestGuard.ts for the
// security rules.
export { AGGREGATED, endpointPath, parseEndpointPath, serverEndpoint, type EndpointId } from './endpoint';
export { LOOPBACK_HOST, McpGateway, type GatewayAddress, type GatewayOptions } from './gateway';
export { GATEWAY_INFO } from './sessionServer';
