// A command for other agents to start Switchboard with (`serve --stdio`): a small script at a
// place that does not move, written again each time the extension starts. The extension's own
// folder carries its version in its name and changes with each update, so an agent's config must
// not name it; this script names it for them, and runs it on the editor's own runtime (no Node on
// PATH needed, and always the version the CLI was built for).
//
// The script lives in the extension's global storage, inside the editor's user folder, which no
// sandboxed server may write (it decides what runs next).
import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../core/base/errorMessage';
import { USER_SETTINGS_ENV } from '../core/config';
import { CLI_NODE_FLAGS } from '../core/machine';

/**
 * The command to put in an agent's config: `<global storage>/bin/mcp-switchboard` (`.cmd` on
 * Windows). `userSettings`: the editor's user settings file, which the CLI then reads as the editor
 * does (its servers, sources and sandbox settings): an agent gets the servers the editor has, not
 * only the folder's.
 */
export function writeCliLauncher(
  storageDir: string,
  cliPath: string,
  userSettings: string | undefined,
  runtime: string = process.execPath,
  platform = process.platform,
): string {
  const dir = path.join(storageDir, 'bin');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const windows = platform === 'win32';
  const file = path.join(dir, windows ? 'mcp-switchboard.cmd' : 'mcp-switchboard');
  const text = windows
    ? [
        '@echo off',
        'rem Written by MCP Switchboard each time the editor starts: the CLI of the installed extension.',
        'set ELECTRON_RUN_AS_NODE=1',
        ...(userSettings ? [`set "${USER_SETTINGS_ENV}=${userSettings}"`] : []),
        `"${runtime}" "${cliPath}" %*`,
        '',
      ].join('\r\n')
    : [
        '#!/bin/sh',
        '# Written by MCP Switchboard each time the editor starts: the CLI of the installed extension,',
        "# on the editor's own runtime, reading the editor's user settings.",
        ...(userSettings ? [`${USER_SETTINGS_ENV}=${shellQuote(userSettings)}`, `export ${USER_SETTINGS_ENV}`] : []),
        // The Node options of the CLI's own shebang.
        `ELECTRON_RUN_AS_NODE=1 exec ${shellQuote(runtime)} ${CLI_NODE_FLAGS.join(' ')} ${shellQuote(cliPath)} "$@"`,
        '',
      ].join('\n');
  // Written beside and renamed over: an agent starting it meanwhile never reads half a script.
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, text, { mode: 0o700 });
  fs.renameSync(temporary, file);
  return file;
}

/** At each start: a launcher written before (something was shared) now names this version of the CLI. */
export function refreshCliLauncher(
  storageDir: string,
  cliPath: string,
  userSettings: string | undefined,
  warn: (message: string) => void,
): void {
  const existing = ['mcp-switchboard', 'mcp-switchboard.cmd'].map((name) => path.join(storageDir, 'bin', name));
  if (!existing.some((file) => fs.existsSync(file))) return;
  try {
    writeCliLauncher(storageDir, cliPath, userSettings);
  } catch (error) {
    warn(`the launcher other agents start Switchboard with could not be updated: ${errorMessage(error)}`);
  }
}

/** One word for sh, whatever the path holds. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
