// The portable .mcp.json at the first folder's root, as a place Add Server can write to: the file
// the editor (since 1.140), Claude Code and Copilot CLI read too. Edited in place with jsonc-parser,
// so comments and the rest of the file are kept.
import path from 'node:path';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { hasJsonValue, readConfigText, writeJsonValue } from '../core/base/jsoncFile';
import * as vscode from 'vscode';
import { editSetting, inspectSetting, SOURCES_KEY } from './settings';

export function portableFile(): string | undefined {
  const folder = vscode.workspace.workspaceFolders?.find((candidate) => candidate.uri.scheme === 'file');
  return folder ? path.join(folder.uri.fsPath, '.mcp.json') : undefined;
}

/** `mcpServers` when the file has it (or is new); a bare map of servers otherwise. */
function serversKey(text: string): string[] {
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  if (!tree || findNodeAtLocation(tree, ['mcpServers'])) return ['mcpServers'];
  return tree.children && tree.children.length > 0 ? [] : ['mcpServers'];
}

export function portableEntryExists(name: string): boolean {
  const file = portableFile();
  if (!file) return false;
  const text = readConfigText(file);
  return hasJsonValue(text, [...serversKey(text), name]);
}

/**
 * Writes the entry, and turns the `mcpJsonPortable` source on for this workspace when it is off,
 * so the server shows up. Returns what it did, for the message.
 */
export async function writePortableEntry(name: string, entry: unknown): Promise<{ file: string; sourceTurnedOn: boolean }> {
  const file = portableFile();
  if (!file) throw new Error('no folder is open');
  writeJsonValue(file, [...serversKey(readConfigText(file)), name], entry);
  const sources = inspectSetting<unknown>(SOURCES_KEY);
  const current = sources?.workspaceValue ?? sources?.globalValue ?? ['settings'];
  const list = Array.isArray(current) ? current.filter((item): item is string => typeof item === 'string') : ['settings'];
  if (list.includes('mcpJsonPortable')) return { file, sourceTurnedOn: false };
  const own = sources?.workspaceValue;
  // Added to the workspace's own list where it has one, in place; else the list in use, with it.
  await editSetting(
    SOURCES_KEY,
    [
      Array.isArray(own)
        ? { location: [own.length], value: 'mcpJsonPortable', insert: true }
        : { location: [], value: [...list, 'mcpJsonPortable'] },
    ],
    vscode.ConfigurationTarget.Workspace,
  );
  return { file, sourceTurnedOn: true };
}
