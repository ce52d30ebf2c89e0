// Public surface of the doctor: the CLI needs only runDoctor and the option parser; the rest is
// exported for tests and for anything else that wants the same report (the editor, later).
export { formatCallResult } from './callResult';
export { parseCallArgs, parseCallRequest, splitCallTarget, type CallRequest, type Parsed } from './callTarget';
export { runDoctor, type DoctorEnvironment, type DoctorIo } from './doctor';
export { EXIT_FAILED, EXIT_OK, EXIT_UNUSABLE, exitCodeForSignal, type ExitCode } from './exitCodes';
export { formatJsonReport, toJsonReport, type JsonDiagnostic, type JsonReport, type JsonServer, type JsonTool } from './jsonReport';
export { parseDoctorOptions, type DoctorFlags, type DoctorOptions } from './options';
export { buildReport, exitCodeFor, isFailing, type DoctorReport, type ServerReport, type ToolReport } from './report';
export { defaultTimeoutMs, waitUntilSettled, type SettleOutcome } from './settle';
export { formatTableReport } from './tableReport';
export { loadWorkspace, type LoadedWorkspace, type UnreadableWorkspace } from '../folder/workspace';
