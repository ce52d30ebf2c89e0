// The sandbox a stdio server may run in: whether one can run here, and how to start a server in it.
export { checkSandbox, missingSeccompHelper, type SandboxCheck } from './availability';
export { defaultSandboxRuntime, prepareSandboxedCommand, type SandboxRuntime, type SandboxedCommand } from './sandboxLaunch';
export {
  classifySandboxStderr,
  deniedTarget,
  downloadingLauncher,
  hostOfTarget,
  isTransientSandboxStart,
  sandboxStderrFilter,
} from './stderrFilter';
export { checkIsolation, hiddenPaths, isolatedCommand, type IsolationCheck } from './isolation';
