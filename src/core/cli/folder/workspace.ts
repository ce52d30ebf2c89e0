// What the doctor checks: DIR/.vscode/settings.json plus whatever extra sources it turns on, loaded
// by the same configuration layer the extension uses, with DIR as the only workspace folder.
import { realpathSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { loadFolderConfiguration, type ConfigDiagnostic, type InvalidServer, type ServerDefinition } from '../../config';

export interface LoadedWorkspace {
  readonly kind: 'loaded';
  readonly folder: string;
  readonly settingsFile: string;
  /** False when DIR/.vscode/settings.json does not exist: a valid workspace with no servers. */
  readonly settingsFound: boolean;
  readonly servers: ReadonlyArray<ServerDefinition | InvalidServer>;
  readonly diagnostics: readonly ConfigDiagnostic[];
}

/** Nothing could be checked: the folder is missing, or the settings file is unreadable or not JSONC. */
export interface UnreadableWorkspace {
  readonly kind: 'unreadable';
  readonly folder: string;
  readonly settingsFile: string;
  readonly problems: readonly string[];
}

export async function loadWorkspace(
  folder: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<LoadedWorkspace | UnreadableWorkspace> {
  const settingsFile = path.join(folder, '.vscode', 'settings.json');
  const folderProblem = await checkFolder(folder);
  if (folderProblem) return { kind: 'unreadable', folder, settingsFile, problems: [folderProblem] };

  const loaded = await loadFolderConfiguration(folder, { env, launchers: thisCliLaunchers() });
  if (loaded.kind === 'unreadable') {
    // A file cut off mid-object reports one missing brace per open level, all at the same place.
    const problems = [...new Set(loaded.diagnostics.filter((d) => d.severity === 'error').map((d) => locate(settingsFile, d)))];
    return { kind: 'unreadable', folder, settingsFile, problems };
  }
  return {
    kind: 'loaded',
    folder,
    settingsFile,
    settingsFound: loaded.settingsFound,
    servers: loaded.servers,
    diagnostics: loaded.diagnostics,
  };
}

async function checkFolder(folder: string): Promise<string | undefined> {
  try {
    const stat = await fs.stat(folder);
    return stat.isDirectory() ? undefined : `${folder} is not a folder`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `the folder ${folder} does not exist` : `cannot read ${folder}: ${(error as Error).message}`;
  }
}

/** `file:line:column: message`, the form editors and terminals turn into a link. */
function locate(file: string, diagnostic: ConfigDiagnostic): string {
  const where = diagnostic.line === undefined ? file : `${file}:${diagnostic.line}:${diagnostic.column ?? 1}`;
  return `${where}: ${diagnostic.message}`;
}

/**
 * The script this CLI runs from, as an agent's entry names it (Share writes its real path): an entry
 * that runs it with `serve --stdio` is this Switchboard itself.
 */
export function thisCliLaunchers(argv: readonly string[] = process.argv): string[] {
  const script = argv[1];
  if (!script) return [];
  try {
    return [...new Set([script, realpathSync(script)])];
  } catch {
    return [script];
  }
}
