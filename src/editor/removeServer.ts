// Remove Server: deletes a server's entry where it is defined (a settings scope, or the file it was
// read from: .vscode/mcp.json, Cursor's or Claude Desktop's), after a confirmation that says where.
import fs from 'node:fs/promises';
import { applyEdits, modify } from 'jsonc-parser';
import * as vscode from 'vscode';
import { describeSource, type ServerSource } from '../core/config';
import { removeSettingsEntry } from './settingsEntry';

/** The top-level key that holds the servers of each kind of file. */
const FILE_KEYS: Partial<Record<ServerSource['kind'], string>> = { mcpJson: 'servers', cursor: 'mcpServers', claudeDesktop: 'mcpServers' };

export async function removeServerInteractively(name: string, source: ServerSource): Promise<boolean> {
  const remove = 'Remove';
  const choice = await vscode.window.showWarningMessage(
    `Remove the MCP server "${name}"?`,
    { modal: true, detail: `Its entry is deleted from ${describeSource(source)}. The server is stopped, and chat loses its tools.` },
    remove,
  );
  if (choice !== remove) return false;
  const removed = await removeEntry(name, source);
  if (!removed) void vscode.window.showWarningMessage(`MCP Switchboard: "${name}" was not found in ${describeSource(source)}; it may have been removed already.`);
  return removed;
}

async function removeEntry(name: string, source: ServerSource): Promise<boolean> {
  const key = FILE_KEYS[source.kind];
  if (key === undefined) return removeSettingsEntry(name, source);
  if (!source.file) return false;
  const text = await fs.readFile(source.file, 'utf8');
  // jsonc-parser edits in place: comments and formatting of the rest of the file are kept.
  const edits = modify(text, [key, name], undefined, { formattingOptions: { insertSpaces: true, tabSize: 2 } });
  if (edits.length === 0) return false;
  await fs.writeFile(source.file, applyEdits(text, edits));
  return true;
}
