// Switchboard's own folder of the user's, in the lowest layer: the extension's entry (src/boot.ts)
// keeps its code cache there before anything else of the bundle is loaded.
import os from 'node:os';
import path from 'node:path';

export function pathModuleFor(platform: NodeJS.Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

/**
 * Switchboard's own folder of the user's: credentials, the gateway token, the consent shared by the
 * editor and the CLI, the code cache. `$XDG_CONFIG_HOME/mcp-switchboard` (default ~/.config),
 * Application Support on macOS, %APPDATA% on Windows.
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
