export { backoffDelay } from './backoff';
export { systemClock, type Clock, type TimerHandle } from '../base/clock';
export { ConnectionError, isConnectionError, type ConnectionErrorCode } from './errors';
export { LineRingBuffer } from './lineRingBuffer';
export { isProcessAlive, killProcessTree } from './processTree';
export {
  MAX_TOTAL_TIMEOUT_FACTOR,
  ServerConnection,
  type CallToolOptions,
  type ConnectionDiagnostics,
  type ConnectionOptions,
  type ToolsChangeEvent,
} from './serverConnection';
export type { ActiveTransport } from './session';
export { buildSpawnCommand, type SpawnCommand } from './spawnCommand';
export * from '../state/serverState';
export { checkToolArguments } from './toolArguments';
export type { OfferChangeEvent, ServerNotice } from './offerKeeper';
export { EMPTY_OFFER, type ForwardedMethod, type ForwardedResult, type ServerOffer } from './serverOffer';
