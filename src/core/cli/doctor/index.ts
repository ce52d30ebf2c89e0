// Public surface of the doctor: the CLI needs only runDoctor and the option parser; the rest is
// exported for tests and for anything else that wants the same report (the editor, later).
export { formatCallResult } from './callResult';
export { parseCallArgs, splitCallTarget } from './callTarget';
export { runDoctor } from './doctor';
export { EXIT_UNUSABLE, exitCodeForSignal, type ExitCode } from './exitCodes';
export { toJsonReport } from './jsonReport';
export { parseDoctorOptions } from './options';
export { buildReport, exitCodeFor } from './report';
export { defaultTimeoutMs } from './settle';
export { formatTableReport } from './tableReport';
export { type LoadedWorkspace } from '../folder';
