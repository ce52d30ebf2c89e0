// The doctor's exit codes are its contract with scripts and CI; they live in one place so that the
// CLI, the docs and the tests agree.

/** Every enabled server is running (or there is nothing to run); with --call, the call succeeded. */
export const EXIT_OK = 0;
/** A server is not running, the configuration has errors, or the --call failed. */
export const EXIT_FAILED = 1;
/** The settings could not be read, or the command line is wrong: nothing was checked. */
export const EXIT_UNUSABLE = 2;

export type ExitCode = number;

/** Shell convention (128 + signal number), so that a wrapper script can tell Ctrl-C from a failure. */
export function exitCodeForSignal(signal: NodeJS.Signals): ExitCode {
  const signals: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 };
  return 128 + (signals[signal] ?? 0);
}
