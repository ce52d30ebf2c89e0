import fs from 'node:fs';
import os from 'node:os';
import * as vscode from 'vscode';
import { claudeDesktopConfigPath, nodeFileSystem } from '../core/config';
import { readSourceFile, type SourceFile } from '../core/config/sources';
import { entryExists, writeEntry, type WritableScope } from './settingsEntry';

interface SourceChoice extends vscode.QuickPickItem {
  readonly files: SourceFile[];
}

function sourceChoices(): SourceChoice[] {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const home = os.homedir();
  return [
    {
      label: '.vscode/mcp.json',
      description: 'the editor\'s own MCP configuration in this workspace',
      files: folders.map((folder) => ({ kind: 'mcpJson', file: vscode.Uri.joinPath(folder.uri, '.vscode', 'mcp.json').fsPath, key: 'servers' })),
    },
    {
      label: 'Claude Desktop',
      description: claudeDesktopConfigPath({ platform: process.platform, userHome: home, env: process.env }),
      files: [{ kind: 'claudeDesktop', file: claudeDesktopConfigPath({ platform: process.platform, userHome: home, env: process.env }), key: 'mcpServers' }],
    },
    {
      label: 'Cursor',
      description: '~/.cursor/mcp.json and .cursor/mcp.json',
      files: [
        ...folders.map((folder): SourceFile => ({ kind: 'cursor', file: vscode.Uri.joinPath(folder.uri, '.cursor', 'mcp.json').fsPath, key: 'mcpServers' })),
        { kind: 'cursor', file: `${home}/.cursor/mcp.json`, key: 'mcpServers' },
      ],
    },
  ];
}

interface Candidate extends vscode.QuickPickItem {
  readonly name: string;
  readonly raw: unknown;
}

interface ReadSource {
  readonly candidates: Candidate[];
  readonly problems: string[];
}

/** Only the sources whose files exist here, each with what it holds, so no pick leads nowhere. */
async function availableSources(): Promise<Array<SourceChoice & { read: ReadSource }>> {
  const available: Array<SourceChoice & { read: ReadSource }> = [];
  for (const choice of sourceChoices()) {
    const files = choice.files.filter((file) => fs.existsSync(file.file));
    if (files.length === 0) continue;
    const read = await readSources(files);
    const count = read.candidates.length;
    const what = count > 0 ? `${count} server${count === 1 ? '' : 's'}` : read.problems.length > 0 ? 'cannot be read' : 'no servers';
    available.push({ ...choice, files, read, label: choice.label, description: `${what} · ${files.map((file) => file.file).join(', ')}` });
  }
  return available;
}

/** Pick a source, preview its servers (as JSON), choose which to copy and where. Returns the names added. */
export async function importServersInteractively(): Promise<string[]> {
  const sources = await availableSources();
  if (sources.length === 0) {
    const looked = sourceChoices().flatMap((choice) => choice.files.map((file) => file.file));
    void vscode.window.showInformationMessage(`Nothing to import: none of these files exists here: ${looked.join(', ')}.`);
    return [];
  }
  const source = await vscode.window.showQuickPick(sources, { title: 'Import MCP Servers (1/3): from where?', ignoreFocusOut: true });
  if (!source) return [];
  const { candidates, problems } = source.read;
  if (problems.length > 0) void vscode.window.showWarningMessage(`Some files could not be read: ${problems.join('; ')}`);
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(`No MCP servers in ${source.files.map((file) => file.file).join(', ')}.`);
    return [];
  }
  return chooseAndWrite(source.label, candidates);
}

async function readSources(files: readonly SourceFile[]): Promise<ReadSource> {
  const candidates: Candidate[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const read = await readSourceFile(file, nodeFileSystem);
    problems.push(...read.diagnostics.map((diagnostic) => `${file.file}: ${diagnostic.message}`));
    for (const candidate of read.candidates) {
      if (candidates.some((existing) => existing.name === candidate.name)) continue;
      const json = JSON.stringify(candidate.raw);
      candidates.push({
        name: candidate.name,
        raw: candidate.raw,
        label: candidate.name,
        description: file.file,
        detail: json.length > 160 ? `${json.slice(0, 159)}…` : json,
        picked: true,
      });
    }
  }
  return { candidates, problems };
}

async function chooseAndWrite(label: string, candidates: Candidate[]): Promise<string[]> {
  const chosen = await vscode.window.showQuickPick(candidates, {
    title: `Import MCP Servers (2/3): ${candidates.length} found in ${label}; these will be added`,
    canPickMany: true,
    ignoreFocusOut: true,
  });
  if (!chosen || chosen.length === 0) return [];

  const scopes: Array<vscode.QuickPickItem & { scope: WritableScope }> = [{ label: 'User settings', scope: 'user' }];
  if (vscode.workspace.workspaceFolders?.length) scopes.push({ label: 'Workspace settings', scope: 'workspace' });
  const scope = scopes.length === 1 ? scopes[0] : await vscode.window.showQuickPick(scopes, { title: 'Import MCP Servers (3/3): save to', ignoreFocusOut: true });
  if (!scope) return [];

  const added: string[] = [];
  const skipped: string[] = [];
  for (const candidate of chosen) {
    if (entryExists(candidate.name, scope.scope)) {
      skipped.push(candidate.name);
      continue;
    }
    await writeEntry(candidate.name, candidate.raw, scope.scope);
    added.push(candidate.name);
  }
  const skippedNote = skipped.length ? ` Skipped (already there): ${skipped.join(', ')}.` : '';
  void vscode.window.showInformationMessage(`Imported ${added.length} server(s) into ${scope.label}.${skippedNote}`);
  return added;
}
