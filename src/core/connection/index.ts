// Public surface of a connection to one MCP server (README.md): the connection itself and what its
// users need of its modules: the link (the SDK client, its transports and the error vocabulary),
// the offer, tasks, what a server asks back (rounds) and the credential a request is made with.
export { ServerConnection } from './serverConnection';
export type { CallerOptions, CallOutcome, ConnectionOptions } from './connectionOptions';
export { LineRingBuffer } from './lineRingBuffer';
export { backoffDelay, DEFAULT_SLOW_RETRY_MS } from './reconnectPolicy';
export { MAX_TOTAL_TIMEOUT_FACTOR } from './requestGate';
export {
  isSwitchboardError,
  notReadyError,
  SwitchboardError,
  SignInRequiredError,
  stripRpcPrefix,
  isProcessAlive,
  killProcessTree,
  buildSpawnCommand,
  type SpawnCommand,
  commandExists,
  type HostPlaces,
  type SandboxPlacement,
  CAPABILITY_OF,
  TASKS_EXTENSION,
  type ServerRequestHandlers,
  SKILLS_EXTENSION,
  declaresSkills,
  type Skill,
  type SkillFile,
  SocketTransport,
  SOCKET_UPGRADE,
  RESTART_HEADER,
  SERVER_FAILED_STATUS,
  type HostedFailure,
} from './link';
export {
  checkToolArguments,
  paramHeaders,
  type ParamHeader,
  type ForwardedMethod,
  type ForwardedResult,
  type ServerOffer,
  type OfferChangeEvent,
  type ToolsChangeEvent,
  type ServerNotice,
} from './offer';
export { isTaskOver, type RunningTask } from './tasks';
export {
  INPUT_METHOD,
  isInputRound,
  type ClientInputRound,
  type InputKind,
  RelayRouter,
  askingRelay,
  type HostAnswers,
  type Relay,
} from './rounds';
export { takesUserCredential, type OnBehalfOf } from './credentials';
