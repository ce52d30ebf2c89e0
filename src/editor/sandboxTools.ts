// The editor ships ripgrep, which the sandbox runtime needs; offering its folder after PATH spares a
// user one install (bubblewrap and socat remain on Linux). Where it lives differs between builds.
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { HostPlaces } from '../core/connection';
import { editorLocations } from './configurationReader';

export function editorToolDirs(appRoot: string = vscode.env.appRoot): string[] {
  const arch = `${process.platform}-${process.arch}`;
  const candidates = [
    path.join(appRoot, 'node_modules', '@vscode', 'ripgrep', 'bin'),
    path.join(appRoot, 'node_modules.asar.unpacked', '@vscode', 'ripgrep', 'bin'),
    path.join(appRoot, 'node_modules', '@vscode', 'ripgrep-universal', 'bin', arch),
  ];
  return candidates.filter((dir) => fs.existsSync(path.join(dir, process.platform === 'win32' ? 'rg.exe' : 'rg'))).slice(0, 1);
}

/** This window's folders, user folder and workspace file, read at each sandboxed start: read-only inside every sandbox. */
export function editorHostPlaces(): HostPlaces {
  const locations = editorLocations();
  const workspaceFile = vscode.workspace.workspaceFile;
  return {
    workspaceFolders: locations.workspaceFolders.map((folder) => folder.path),
    ...(locations.editorUserDir ? { editorUserDir: locations.editorUserDir } : {}),
    ...(workspaceFile?.scheme === 'file' ? { workspaceFile: workspaceFile.fsPath } : {}),
  };
}
