// The runtime module's surface: what the rest of Switchboard uses of it.
export { LAUNCHED_BY_ENV, SwitchboardRuntime, createRuntime } from './runtime';
export { createGatewayMetrics, type GatewayMetrics } from './metrics';
