// Relative `cwd` and `envFile` paths, and the default `cwd`, are anchored at the workspace folder
// that owns the entry (a folder's settings.json or .vscode/mcp.json), else the first folder.

import path from 'node:path';
import type { WorkspaceFolder } from './configurationInput';
import type { ServerSource } from './types';

export { pathModuleFor, userConfigFolder } from '../base/userFolder';

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
