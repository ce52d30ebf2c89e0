// Public surface of the MCP gateway. See gateway.ts for the endpoints and requestGuard.ts for the
// security rules.
export { AGGREGATED, endpointPath, parseEndpointPath, serverEndpoint, type EndpointId } from './endpoint';
export { LOOPBACK_HOST, McpGateway, type GatewayAddress, type GatewayOptions } from './gateway';
export { GATEWAY_INFO } from './sessionServer';
export {
  runServe,
  serveCommand,
  type ServeCommandOptions,
  type ServeOptions,
  type ServeReady,
  type ServeToolSource,
  type ToolSourceContext,
  type ToolSourceFactory,
} from './serve';
export { createServeCatalog, readCatalogSettings } from './serveCatalog';
export { parseServeArgs, SERVE_USAGE, type ServeArgs } from './serveArgs';
