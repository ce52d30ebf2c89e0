// Remove Server: deletes a server's entry where it is defined (a settings scope, or the file it was
// read from: an mcp.json, another client's file), after a confirmation that says where.
import fs from 'node:fs/promises';
import { editJsonText } from '../core/base/jsoncFile';
import * as vscode from 'vscode';
import { describeSource, type ServerSource } from '../core/config';
import { entryPath, removeSettingsEntry, revealEntry } from './settingsEntry';

/** `installedSkills`: the names of its skills installed here, which go with it. */
export async function removeServerInteractively(
  name: string,
  source: ServerSource,
  installedSkills: readonly string[] = [],
): Promise<boolean> {
  if (source.kind === 'team') {
    // The gateway decides what it serves; here only the gateway as a whole can go.
    await revealEntry(name, source);
    void vscode.window.showInformationMessage(
      `MCP Switchboard: "${name}" is served by ${describeSource(source)}, which lists it for you. To stop using that gateway, remove its URL from mcpSwitchboard.sources.`,
    );
    return false;
  }
  if (source.file?.endsWith('.toml')) {
    // No TOML editor here keeps a hand-written file's comments and layout: the user removes it.
    await revealEntry(name, source);
    void vscode.window.showInformationMessage(
      `MCP Switchboard does not edit ${describeSource(source)}: remove the [mcp_servers.${name}] table there, and the server goes away.`,
    );
    return false;
  }
  const remove = 'Remove';
  const choice = await vscode.window.showWarningMessage(
    `Remove the MCP server "${name}"?`,
    {
      modal: true,
      detail:
        `Its entry is deleted from ${describeSource(source)}. The server is stopped, and chat loses its tools.` +
        (installedSkills.length > 0
          ? `\n\nThe skills installed from it (${installedSkills.join(', ')}) are removed too, from every place they were put.`
          : ''),
    },
    remove,
  );
  if (choice !== remove) return false;
  const removed = await removeEntry(name, source);
  if (!removed)
    void vscode.window.showWarningMessage(
      `MCP Switchboard: "${name}" was not found in ${describeSource(source)}; it may have been removed already.`,
    );
  return removed;
}

async function removeEntry(name: string, source: ServerSource): Promise<boolean> {
  if (source.kind === 'user' || source.kind === 'workspace' || source.kind === 'folder') return removeSettingsEntry(name, source);
  if (!source.file) return false;
  const text = await fs.readFile(source.file, 'utf8');
  const path = entryPath(text, name, source);
  if (!path) return false;
  // In place: the entry and its own lines go; comments and formatting of the rest of the file stay.
  const next = editJsonText(source.file, text, [{ location: path, value: undefined }]);
  if (next === text) return false;
  await fs.writeFile(source.file, next);
  return true;
}
