// Relative `cwd` and `envFile` paths, and the default `cwd`, are anchored at the workspace folder
// that owns the entry (a folder's settings.json or .vscode/mcp.json), else the first folder.

import os from 'node:os';
import path from 'node:path';
import type { WorkspaceFolder } from './configurationInput';
import type { ServerSource } from './types';

/**
 * Switchboard's own folder of the user's: credentials, the gateway token, the consent shared by the
 * editor and the CLI. `$XDG_CONFIG_HOME/mcp-switchboard` (default ~/.config), Application Support
 * on macOS, %APPDATA% on Windows.
 */
export function userConfigFolder(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = os.homedir(),
): string {
  const paths = pathModuleFor(platform);
  if (platform === 'win32') return paths.join(env.APPDATA ?? paths.join(home, 'AppData', 'Roaming'), 'mcp-switchboard');
  if (platform === 'darwin') return paths.join(home, 'Library', 'Application Support', 'mcp-switchboard');
  return paths.join(env.XDG_CONFIG_HOME || paths.join(home, '.config'), 'mcp-switchboard');
}

export function pathModuleFor(platform: NodeJS.Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

export function baseFolderFor(source: ServerSource, folders: readonly WorkspaceFolder[], paths: path.PlatformPath): string | undefined {
  const file = source.file;
  if (file !== undefined) {
    const owners = folders.filter((folder) => isInside(folder.path, file, paths));
    owners.sort((a, b) => b.path.length - a.path.length);
    if (owners[0]) return owners[0].path;
  }
  return folders[0]?.path;
}

function isInside(folder: string, file: string, paths: path.PlatformPath): boolean {
  const relative = paths.relative(folder, file);
  return relative !== '' && !relative.startsWith('..') && !paths.isAbsolute(relative);
}
