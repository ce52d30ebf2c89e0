// Where each source keeps its servers, and in which format. One table: the loader, Import Servers,
// the file watchers and the docs all read it, so a new client is one entry here.
//
// Precedence (a name defined twice): the earlier source in SOURCE_ORDER wins; within one source the
// earlier file (first workspace folder first, a workspace file before the home one).

import type path from 'node:path';
import { codexEntry, geminiEntry, portableEntry, sameShape, windsurfEntry, type EntryAdapter } from './clientEntries';
import type { WorkspaceFolder } from './configurationInput';
import { MAX_FILE_BYTES } from './limits';
import { pathModuleFor, userConfigFolder } from './paths';
import { FILE_SOURCES, type FileSourceKind, type ServerSource } from './types';

export interface SourceFile {
  readonly kind: FileSourceKind;
  readonly file: string;
  readonly syntax: 'jsonc' | 'toml';
  /**
   * Where the servers are, as keys from the top of the document; the first that exists is used.
   * `[]` is the document itself (a `.mcp.json` may be a bare map of servers).
   */
  readonly serversAt: readonly (readonly string[])[];
  readonly adapt: EntryAdapter;
  /** The editor's mcp.json: it has `inputs` and a `sandbox` block. */
  readonly editorFile: boolean;
  readonly maxBytes: number;
}

export interface LocationContext {
  readonly workspaceFolders: readonly WorkspaceFolder[];
  readonly userHome: string;
  readonly platform: NodeJS.Platform;
  readonly paths: path.PlatformPath;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The editor's `User` folder (its user mcp.json); without it, VS Code's default for the platform. */
  readonly editorUserDir?: string;
}

/** Claude Code's ~/.claude.json also holds history; it may grow past the usual 4 MiB. */
const CLAUDE_CODE_MAX_BYTES = 32 * 1024 * 1024;

function file(
  kind: FileSourceKind,
  location: string,
  serversAt: readonly (readonly string[])[],
  adapt: EntryAdapter,
  extra: Partial<SourceFile> = {},
): SourceFile {
  return { kind, file: location, syntax: 'jsonc', serversAt, adapt, editorFile: false, maxBytes: MAX_FILE_BYTES, ...extra };
}

type Locator = (context: LocationContext) => SourceFile[];

const LOCATORS: Readonly<Record<FileSourceKind, Locator>> = {
  mcpJson: ({ workspaceFolders, paths }) =>
    workspaceFolders.map((folder) =>
      file('mcpJson', paths.join(folder.path, '.vscode', 'mcp.json'), [['servers']], sameShape, { editorFile: true }),
    ),
  mcpJsonPortable: ({ workspaceFolders, paths }) =>
    workspaceFolders.map((folder) =>
      file('mcpJsonPortable', paths.join(folder.path, '.mcp.json'), [['mcpServers'], []], portableEntry('.mcp.json')),
    ),
  vscodeUserMcpJson: (context) => [
    file('vscodeUserMcpJson', context.paths.join(context.editorUserDir ?? vscodeUserDir(context), 'mcp.json'), [['servers']], sameShape, {
      editorFile: true,
    }),
  ],
  cursor: ({ workspaceFolders, paths, userHome }) => [
    ...workspaceFolders.map((folder) => file('cursor', paths.join(folder.path, '.cursor', 'mcp.json'), [['mcpServers']], sameShape)),
    file('cursor', paths.join(userHome, '.cursor', 'mcp.json'), [['mcpServers']], sameShape),
  ],
  // The open folders' own blocks (Claude Code's "local" scope) before the user-wide one.
  claudeCode: ({ workspaceFolders, paths, userHome, env }) => {
    const location = paths.join(env.CLAUDE_CONFIG_DIR ?? userHome, '.claude.json');
    const adapt = portableEntry('Claude Code');
    return [
      ...workspaceFolders.map((folder) =>
        file('claudeCode', location, [['projects', folder.path, 'mcpServers']], adapt, { maxBytes: CLAUDE_CODE_MAX_BYTES }),
      ),
      file('claudeCode', location, [['mcpServers']], adapt, { maxBytes: CLAUDE_CODE_MAX_BYTES }),
    ];
  },
  copilotCli: ({ paths, userHome, env }) => [
    file(
      'copilotCli',
      paths.join(env.COPILOT_HOME ?? paths.join(userHome, '.copilot'), 'mcp-config.json'),
      [['mcpServers']],
      portableEntry('Copilot CLI'),
    ),
  ],
  codex: ({ paths, userHome, env }) => [
    file('codex', paths.join(env.CODEX_HOME ?? paths.join(userHome, '.codex'), 'config.toml'), [['mcp_servers']], codexEntry, {
      syntax: 'toml',
    }),
  ],
  gemini: ({ workspaceFolders, paths, userHome }) => [
    ...workspaceFolders.map((folder) => file('gemini', paths.join(folder.path, '.gemini', 'settings.json'), [['mcpServers']], geminiEntry)),
    file('gemini', paths.join(userHome, '.gemini', 'settings.json'), [['mcpServers']], geminiEntry),
  ],
  windsurf: ({ paths, userHome }) => [
    file('windsurf', paths.join(userHome, '.codeium', 'windsurf', 'mcp_config.json'), [['mcpServers']], windsurfEntry),
  ],
  claudeDesktop: (context) => [file('claudeDesktop', claudeDesktopConfigPath(context), [['mcpServers']], sameShape)],
};

/** What Import Servers and the docs call each source. */
export const SOURCE_TITLES: Readonly<Record<FileSourceKind, string>> = {
  mcpJson: '.vscode/mcp.json',
  mcpJsonPortable: '.mcp.json (portable: the editor since 1.140, Claude Code projects)',
  vscodeUserMcpJson: "The editor's user mcp.json",
  cursor: 'Cursor',
  claudeCode: 'Claude Code (~/.claude.json)',
  copilotCli: 'Copilot CLI',
  codex: 'Codex (config.toml)',
  gemini: 'Gemini CLI',
  windsurf: 'Windsurf',
  claudeDesktop: 'Claude Desktop',
};

/** Files to read for the enabled sources, in precedence order. */
export function sourceFiles(sources: ReadonlySet<string>, context: LocationContext): SourceFile[] {
  const files = FILE_SOURCES.filter((kind) => sources.has(kind)).flatMap((kind) => LOCATORS[kind](context));
  // A workspace folder that is the home directory would otherwise be read twice.
  const seen = new Set<string>();
  return files.filter((entry) => {
    const key = `${entry.file}\0${JSON.stringify(entry.serversAt)}`;
    return !seen.has(key) && seen.add(key);
  });
}

/** VS Code's `User` folder (settings.json, mcp.json) for the default profile. */
export function vscodeUserDir(context: Pick<LocationContext, 'platform' | 'userHome' | 'env'>): string {
  const paths = pathModuleFor(context.platform);
  if (context.platform === 'darwin') return paths.join(context.userHome, 'Library', 'Application Support', 'Code', 'User');
  if (context.platform === 'win32')
    return paths.join(context.env.APPDATA ?? paths.join(context.userHome, 'AppData', 'Roaming'), 'Code', 'User');
  return paths.join(context.env.XDG_CONFIG_HOME ?? paths.join(context.userHome, '.config'), 'Code', 'User');
}

export function claudeDesktopConfigPath(context: Pick<LocationContext, 'platform' | 'userHome' | 'env'>): string {
  const paths = pathModuleFor(context.platform);
  const { userHome } = context;
  if (context.platform === 'darwin') {
    return paths.join(userHome, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
  }
  if (context.platform === 'win32') {
    const appData = context.env.APPDATA ?? paths.join(userHome, 'AppData', 'Roaming');
    return paths.join(appData, 'Claude', 'claude_desktop_config.json');
  }
  return paths.join(userHome, '.config', 'Claude', 'claude_desktop_config.json');
}

/**
 * A file inside an open folder was written by whoever wrote the repository: its commands need a
 * trusted workspace and the user's consent, as workspace settings do.
 */
export function isInsideFolders(file: string, folders: readonly string[], paths: path.PlatformPath): boolean {
  return folders.some((folder) => {
    const relative = paths.relative(folder, file);
    return relative !== '' && !relative.startsWith('..') && !paths.isAbsolute(relative);
  });
}

/**
 * Whether whoever wrote the repository chose this entry: workspace and folder settings, the
 * editor's and the portable mcp.json of a folder, and any other client's file inside an open folder
 * (a workspace `.cursor/mcp.json`, `.gemini/settings.json`). Those need trust and consent.
 */
export function isWorkspaceDefinedSource(source: ServerSource, folders: readonly string[], paths: path.PlatformPath): boolean {
  switch (source.kind) {
    case 'workspace':
    case 'folder':
    case 'mcpJson':
    case 'mcpJsonPortable':
      return true;
    case 'user':
      return false;
    default:
      return source.file !== undefined && isInsideFolders(source.file, folders, paths);
  }
}

/** What a sandboxed server may never write (and, for credentials, never read), whatever its rules say. */
export interface ProtectedPlaces {
  readonly denyWrite: readonly string[];
  readonly denyRead: readonly string[];
}

/**
 * Per folder, besides the source files: what other agents and the editor read to decide what runs
 * (Claude Code's project settings hold hooks; git runs its hooks and config's commands).
 */
const FOLDER_CONTROL = ['.vscode', '.claude', '.git/hooks', '.git/config'];

/** In the home folder, besides the source files: what runs at login or in a shell, agents' own folders, and the editors' extensions. */
const HOME_CONTROL = [
  '.claude',
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zprofile',
  '.zshenv',
  '.zlogin',
  '.config/fish',
  '.gitconfig',
  '.config/git',
  '.npmrc',
  '.yarnrc',
  '.pypirc',
  '.local/bin',
  '.config/systemd/user',
  '.config/autostart',
  // The editors' extensions (Switchboard's own among them): code the next window runs.
  '.vscode/extensions',
  '.vscode-insiders/extensions',
  '.vscode-server/extensions',
  '.vscode-oss/extensions',
  '.cursor/extensions',
  '.windsurf/extensions',
  '.local/share/code-server/extensions',
];

/** Credentials: neither read nor written from inside a sandbox. */
const HOME_CREDENTIALS = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.netrc',
  '.git-credentials',
  '.docker/config.json',
  '.config/gh',
];

/**
 * Every file that any source reads (enabled or not: turning a source on must not trust what a
 * sandbox wrote before), with the folder that holds it unless that folder is a workspace folder or
 * the home folder, so that a sibling file or a link in its place is refused too; the editor's user
 * folder and each folder's workspace files; and the rest of FOLDER_CONTROL, HOME_CONTROL and
 * HOME_CREDENTIALS. `workspaceFolders` should include every folder the server may write: a new
 * source in LOCATORS is protected by construction.
 */
export function protectedPlaces(context: LocationContext, workspaceFiles: readonly string[] = []): ProtectedPlaces {
  const { paths, userHome } = context;
  const roots = new Set([userHome, ...context.workspaceFolders.map((folder) => folder.path)]);
  const denyWrite = new Set<string>();
  for (const entry of FILE_SOURCES.flatMap((kind) => LOCATORS[kind](context))) {
    denyWrite.add(entry.file);
    const holder = paths.dirname(entry.file);
    if (!roots.has(holder)) denyWrite.add(holder);
  }
  denyWrite.add(context.editorUserDir ?? vscodeUserDir(context));
  for (const folder of context.workspaceFolders)
    for (const place of FOLDER_CONTROL) denyWrite.add(paths.join(folder.path, ...place.split('/')));
  for (const place of HOME_CONTROL) denyWrite.add(paths.join(userHome, ...place.split('/')));
  for (const file of workspaceFiles) denyWrite.add(file);
  // Switchboard's own folder (consent, credentials, the gateway token): a server that wrote it could
  // approve itself, and one that read it would have the user's tokens.
  const own = [
    userConfigFolder(context.env, context.platform, userHome),
    ...(context.env.MCP_SWITCHBOARD_CREDENTIALS ? [context.env.MCP_SWITCHBOARD_CREDENTIALS] : []),
  ];
  const denyRead = [...HOME_CREDENTIALS.map((place) => paths.join(userHome, ...place.split('/'))), ...own];
  for (const place of denyRead) denyWrite.add(place);
  return { denyWrite: [...denyWrite], denyRead };
}
