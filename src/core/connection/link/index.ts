// The link to one server: the SDK client on its transport (stdio, streamable HTTP, legacy SSE),
// the era probe, the requests' deadlines and their translation into the connection's one error
// (errors.ts), the process tree of a stdio server, and the skills read over it.
export {
  CAPABILITY_OF,
  NO_TIMEOUT,
  TASKS_EXTENSION,
  abortable,
  clientCapabilities,
  closeLink,
  closedDuringProbe,
  linkClient,
  refusedLegacyHandshake,
  type ClientLink,
  type ConnectPhase,
  type EraVerdict,
  type LinkOptions,
  type ProtocolEra,
  type ServerRequestHandlers,
  type StdioLaunch,
} from './clientLink';
export { httpStatus, isSessionRejected } from './httpTransport';
export { type RawRequests } from './rawRequests';
export { translateRequestError } from './requestErrors';
export { RequestDeadlines } from './requestDeadlines';
export { type RequestPolicy, type RetryBudget } from './requestPolicy';
export { SKILLS_EXTENSION, declaresSkills, listSkills, readSkillFile, type Skill, type SkillFile, type SkillListing } from './serverSkills';
export { commandExists, type HostPlaces, type SandboxPlacement } from './stdioLaunch';
export { StdioProcessTransport } from './stdioTransport';
export { isProcessAlive, killProcessTree } from './processTree';
export { buildSpawnCommand, type SpawnCommand } from './spawnCommand';
export {
  SignInRequiredError,
  SwitchboardError,
  isConnectionFailure,
  isSwitchboardError,
  isTransientRemoteFailure,
  notReadyError,
  stripRpcPrefix,
  type ConnectionErrorCode,
  type ConnectionFailure,
} from './errors';
export {
  SERVER_FAILED_STATUS,
  SocketTransport,
  SOCKET_UPGRADE,
  RESTART_HEADER,
  type HostedFailure,
  type UpstreamProtocol,
} from './socketTransport';
