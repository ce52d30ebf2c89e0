import fs from 'node:fs';
import * as vscode from 'vscode';
import {
  FILE_SOURCES,
  launchOf,
  nodeFileSystem,
  readSourceFiles,
  sameLaunchAs,
  SOURCE_TITLES,
  sourceFiles,
  switchboardItself,
  type ServerDefinition,
  type SourceFile,
} from '../core/config';
import { editorLocations } from './configurationReader';
import { entryExists, writeEntry, type WritableScope } from './settingsEntry';
import { displayText } from '../core/base/displayText';

interface SourceChoice extends vscode.QuickPickItem {
  readonly files: SourceFile[];
}

/** Every file source of the core's table, in precedence order. */
function sourceChoices(): SourceChoice[] {
  const locations = editorLocations();
  return FILE_SOURCES.map((kind) => ({ label: SOURCE_TITLES[kind], files: sourceFiles(new Set([kind]), locations) }));
}

interface Candidate extends vscode.QuickPickItem {
  readonly name: string;
  readonly raw: unknown;
}

interface ReadSource {
  readonly candidates: Candidate[];
  readonly problems: string[];
}

/** The servers Switchboard has now, with what each runs: an import that runs the same is said to. */
export type ConfiguredServers = ReadonlyArray<{ readonly name: string; readonly definition?: ServerDefinition }>;

/** Only the sources whose files exist here, each with what it holds, so no pick leads nowhere. */
async function availableSources(configured: ConfiguredServers): Promise<Array<SourceChoice & { read: ReadSource }>> {
  const available: Array<SourceChoice & { read: ReadSource }> = [];
  for (const choice of sourceChoices()) {
    const files = choice.files.filter((file) => fs.existsSync(file.file));
    if (files.length === 0) continue;
    const read = await readSources(files, configured);
    const count = read.candidates.length;
    // A file that holds no server (an empty one a sandbox left as a placeholder, say) is nothing to import from.
    if (count === 0 && read.problems.length === 0) continue;
    const what = count > 0 ? `${count} server${count === 1 ? '' : 's'}` : read.problems.length > 0 ? 'cannot be read' : 'no servers';
    // Claude Code's one file holds several blocks (the folder's, the user's): named once.
    available.push({
      ...choice,
      files,
      read,
      label: choice.label,
      description: `${what} · ${[...new Set(files.map((file) => file.file))].join(', ')}`,
    });
  }
  return available;
}

/** Pick a source, preview its servers (as JSON), choose which to copy and where. Returns the names added. */
export async function importServersInteractively(configured: ConfiguredServers = []): Promise<string[]> {
  const sources = await availableSources(configured);
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
    void vscode.window.showInformationMessage(`No MCP servers in ${[...new Set(source.files.map((file) => file.file))].join(', ')}.`);
    return [];
  }
  return chooseAndWrite(source.label, candidates);
}

async function readSources(files: readonly SourceFile[], configured: ConfiguredServers): Promise<ReadSource> {
  const candidates: Candidate[] = [];
  const problems: string[] = [];
  // Each file read once, however many blocks of it the source names.
  const reads = await readSourceFiles(files, nodeFileSystem);
  for (const [index, read] of reads.entries()) {
    const file = files[index]?.file ?? '';
    // A field the other client has and Switchboard does not is named on its server, not as a problem.
    problems.push(
      ...read.diagnostics.filter((diagnostic) => diagnostic.severity === 'error').map((diagnostic) => `${file}: ${diagnostic.message}`),
    );
    for (const candidate of read.candidates) {
      if (candidates.some((existing) => existing.name === candidate.name)) continue;
      // Switchboard itself (an entry Share wrote for that agent): nothing to import.
      if (switchboardItself(candidate.raw) !== undefined) continue;
      const ignored = read.diagnostics
        .filter((diagnostic) => diagnostic.server === candidate.name && diagnostic.severity === 'warning')
        .map((diagnostic) => diagnostic.path.split('.').pop() ?? diagnostic.path);
      const taken = (['user', 'workspace'] as const).filter(
        (scope) => (scope === 'user' || vscode.workspace.workspaceFolders?.length) && entryExists(candidate.name, scope),
      );
      // The same server under another name (`memory2` beside `memory`): shown, not picked.
      const twin = sameLaunchAs(
        candidate.raw,
        candidate.name,
        configured.map((server) => ({ name: server.name, definition: launchOf(server.definition) })),
      );
      candidates.push({
        name: candidate.name,
        raw: candidate.raw,
        label: candidate.name,
        // What matters to the choice first: a long file path would cut it off at the default width.
        description: [
          ...(taken.length > 0 ? [`"${candidate.name}" is already in your ${taken.join(' and ')} settings: skipped there`] : []),
          ...(twin !== undefined ? [`runs the same as "${twin}", which you have`] : []),
          ...(ignored.length > 0 ? [`not carried over: ${ignored.join(', ')}`] : []),
          file,
        ].join(' · '),
        detail: preview(candidate.raw),
        picked: taken.length === 0 && twin === undefined,
      });
    }
  }
  return { candidates, problems };
}

/** What the entry runs, as a person reads it: the command line or the URL, then anything else it sets. */
function preview(raw: unknown): string {
  const entry = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const env = typeof entry.env === 'object' && entry.env !== null ? Object.keys(entry.env) : [];
  const line =
    typeof entry.url === 'string'
      ? entry.url
      : [entry.command, ...(Array.isArray(entry.args) ? entry.args : [])].filter((word) => typeof word === 'string').join(' ');
  const rest = Object.entries(entry)
    .filter(([key]) => !['command', 'args', 'url', 'env', 'type'].includes(key))
    .map(([key, value]) => `${key} ${JSON.stringify(value)}`);
  const text = [`${line}${env.length > 0 ? `  (with ${env.join(', ')})` : ''}`, ...rest].join(' · ');
  return displayText(text.length > 200 ? `${text.slice(0, 199)}…` : text);
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
  const scope =
    scopes.length === 1
      ? scopes[0]
      : await vscode.window.showQuickPick(scopes, { title: 'Import MCP Servers (3/3): save to', ignoreFocusOut: true });
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
