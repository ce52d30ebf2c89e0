// How a stdio server's command line becomes the arguments of child_process.spawn. Pure, so that the
// Windows rules can be tested on any machine.

export interface SpawnCommand {
  readonly command: string;
  readonly args: readonly string[];
  /** Passed to spawn: the cmd.exe command line below is already quoted for cmd. */
  readonly windowsVerbatimArguments: boolean;
}

/** Windows can only CreateProcess real executables; everything else needs the shell. */
const DIRECT_WINDOWS_EXTENSIONS = /\.(?:exe|com)$/i;

// cmd.exe metacharacters, escaped with ^ (the same set cross-spawn uses).
const CMD_META = /([()\][%!^"`<>&|;, *?])/g;

/** Quotes one argument for CommandLineToArgvW, then escapes it for cmd.exe. */
function quoteWindowsArgument(arg: string): string {
  // Backslashes before a quote are doubled and the quote escaped; trailing backslashes are
  // doubled because the closing quote follows them.
  let quoted = arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\*)$/, '$1$1');
  quoted = `"${quoted}"`;
  return quoted.replace(CMD_META, '^$1');
}

function escapeWindowsCommand(command: string): string {
  return command.replace(CMD_META, '^$1');
}

/**
 * On Windows, `npx`, `uvx`, `npm`, `pnpm`, `yarn`, `bunx` and every other command that is not an
 * .exe/.com (they are .cmd/.bat shims, or scripts found through PATHEXT) run as
 * `cmd.exe /d /s /c "<command line>"`, because spawning them directly fails with ENOENT/EINVAL.
 * `/d` skips AutoRun macros, `/s` makes cmd strip exactly the outer quotes.
 */
export function buildSpawnCommand(command: string, args: readonly string[], platform: NodeJS.Platform): SpawnCommand {
  if (platform !== 'win32' || DIRECT_WINDOWS_EXTENSIONS.test(command)) {
    return { command, args: [...args], windowsVerbatimArguments: false };
  }
  const line = [escapeWindowsCommand(command), ...args.map(quoteWindowsArgument)].join(' ');
  return { command: 'cmd.exe', args: ['/d', '/s', '/c', `"${line}"`], windowsVerbatimArguments: true };
}
