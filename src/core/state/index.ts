// The state module's surface: what the rest of Switchboard uses of it.
export type { ConnectionErrorCode } from './errorCodes';
export { SwitchboardError, isConnectionFailure, isRefusal, isSwitchboardError, unknownServer } from './errors';
export type { ConnectionFailure, ErrorCode, FilterRule, RefusalCode, SignInNeed, SwitchboardErrorOptions } from './errors';
export {
  MAX_INSTRUCTIONS,
  STATE_KINDS,
  boundedInstructions,
  frozenState,
  hasFailed,
  identityOf,
  isActive,
  isConnecting,
  isInTrouble,
  isReady,
  isServed,
  isSettled,
  startsOnDemand,
  waitsForUser,
} from './serverState';
export type {
  BlockedReason,
  ErrorState,
  InvalidState,
  IdleState,
  ServerIcon,
  ServerInfo,
  ServerState,
  RunningState,
  ServerStateChangeEvent,
  ServerStateKind,
  SignInReason,
} from './serverState';
