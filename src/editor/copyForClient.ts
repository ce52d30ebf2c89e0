// Copy Server for Another Client…: a server's entry, as written, in Claude Code's, Copilot CLI's,
// Codex's or Gemini CLI's format, to the clipboard, with what the user must still do.
import os from 'node:os';
import * as vscode from 'vscode';
import { nodeFileSystem, readSourceFile, sourceFiles, type ServerSource, EXPORT_FORMATS, EXPORT_TITLES, exportEntry } from '../core/config';
import { editorLocations } from './configurationReader';
import { rawEntry } from './settingsEntry';

/** The entry with its variables unresolved, so no secret value: from settings or from its file. */
export async function entryAsWritten(name: string, source: ServerSource): Promise<unknown> {
  if (source.kind === 'user' || source.kind === 'workspace' || source.kind === 'folder') return rawEntry(name, source);
  for (const file of sourceFiles(new Set([source.kind]), editorLocations()).filter((candidate) => candidate.file === source.file)) {
    const found = (await readSourceFile(file, nodeFileSystem)).candidates.find((candidate) => candidate.name === name);
    if (found) return found.raw;
  }
  return undefined;
}

export async function copyForClientInteractively(name: string, source: ServerSource): Promise<void> {
  const raw = await entryAsWritten(name, source);
  if (raw === undefined) {
    void vscode.window.showWarningMessage(
      `MCP Switchboard: the entry of "${name}" was not found where it was read from; it may have changed.`,
    );
    return;
  }
  const picked = await vscode.window.showQuickPick(
    EXPORT_FORMATS.map((format) => ({ label: EXPORT_TITLES[format], format })),
    { title: `Copy "${name}" for which client?` },
  );
  if (!picked) return;
  const folder = vscode.workspace.workspaceFolders?.[0];
  const exported = exportEntry(name, raw, picked.format, {
    userHome: os.homedir(),
    ...(folder?.uri.scheme === 'file' ? { workspaceFolder: folder.uri.fsPath } : {}),
  });
  await vscode.env.clipboard.writeText(exported.text);
  const notes = exported.notes.length > 0 ? ` Note: ${exported.notes.join('; ')}.` : '';
  void vscode.window.showInformationMessage(`Copied "${name}" for ${picked.label}: paste it into that file.${notes}`);
}
