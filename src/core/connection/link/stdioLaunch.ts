// What a stdio transport actually spawns: the configured command, or for a sandboxed server the
// sandbox runtime around it. A sandbox that was asked for and cannot run fails the start with
// SANDBOX_UNAVAILABLE; the server never runs without it.
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { describeSandboxRules, protectedPlaces, type SandboxRules } from '../../config';
import {
  checkIsolation,
  checkSandbox,
  defaultSandboxRuntime,
  hiddenPaths,
  isolatedCommand,
  missingSeccompHelper,
  prepareSandboxedCommand,
  sandboxStderrFilter,
  type SandboxRuntime,
} from '../../sandbox';
import { errorMessage } from '../../base/errorMessage';
import { SwitchboardError } from './errors';

/** Where this host's sandboxes come from. Every field has a default; tests and the editor set some. */
export interface SandboxPlacement {
  /** Defaults to the bundled runtime (or the package, in development). */
  readonly runtime?: SandboxRuntime;
  /** Parent of the per-server folders; defaults to the OS temp folder. */
  readonly stateRoot?: string;
  /**
   * Folders searched after PATH for the sandbox's tools: the editor ships its own ripgrep, so a
   * user needs to install only bubblewrap and socat.
   */
  readonly toolDirs?: readonly string[];
  /**
   * The host's own secret files (a team gateway's cluster key, its token, its upstreams'
   * credentials): no stdio server may read them. An unsandboxed server then runs kept apart from
   * the host (its own PID namespace, these files hidden: sandbox/isolation.ts); a sandboxed one
   * has them in its denyRead.
   */
  readonly hostSecrets?: readonly string[];
  /**
   * The host's open folders and files, read at each start: their configuration is read-only inside
   * every sandbox (config/sourceLocations.ts, protectedPlaces), as are the server's own writable
   * folders' and the home folder's, which need nothing from here.
   */
  readonly hostPlaces?: () => HostPlaces;
}

export interface HostPlaces {
  readonly workspaceFolders: readonly string[];
  /** The editor's `User` folder; the CLI leaves VS Code's default. */
  readonly editorUserDir?: string;
  /** The open `.code-workspace` file, if any. */
  readonly workspaceFile?: string;
  /** Defaults to os.homedir(); tests point it elsewhere. */
  readonly userHome?: string;
}

export interface StdioSandboxOptions {
  /** The configured server name: the key of its private folder. */
  readonly server: string;
  readonly rules: SandboxRules;
  readonly placement?: SandboxPlacement;
  /** Each network access the sandbox refused, as a readable line. */
  readonly onDenial?: (text: string) => void;
}

export interface LaunchRequest {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
  readonly onStderrLine?: (line: string) => void;
  readonly sandbox?: StdioSandboxOptions;
  /** An unsandboxed server of a host with secret files: kept apart from them (SandboxPlacement.hostSecrets). */
  readonly isolation?: { readonly hidden: readonly string[] };
}

export interface ResolvedLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly onStderrLine?: (line: string) => void;
  /** For the start log line: what the sandbox allows, or nothing. */
  readonly note: string;
}

/** The command as configured: no await, so that an unsandboxed server is spawned synchronously with start(). */
export function plainLaunch(request: Omit<LaunchRequest, 'platform' | 'sandbox'>): ResolvedLaunch {
  return {
    command: request.command,
    args: request.args,
    env: request.env,
    onStderrLine: request.onStderrLine,
    note: '',
  };
}

/** The command inside its own PID namespace, the host's secret files hidden; fails closed where that cannot run. */
export async function resolveIsolatedLaunch(
  request: LaunchRequest & { readonly isolation: { readonly hidden: readonly string[] } },
): Promise<ResolvedLaunch> {
  const check = await checkIsolation(request.platform, searchPath(request.env));
  if (!check.ok)
    throw new SwitchboardError(
      'SANDBOX_UNAVAILABLE',
      `this gateway keeps secrets a stdio server must not read (its cluster key, its token, its servers' credentials), and ${check.reason}. Install bubblewrap and allow it user namespaces, or run this server sandboxed ("sandboxEnabled": true) or over HTTP`,
    );
  const isolated = isolatedCommand(check.bwrap, request.command, request.args, request.isolation.hidden);
  return {
    command: isolated.command,
    args: isolated.args,
    env: request.env,
    onStderrLine: request.onStderrLine,
    note: ", kept apart from the gateway's secrets",
  };
}

export async function resolveSandboxedLaunch(request: LaunchRequest & { readonly sandbox: StdioSandboxOptions }): Promise<ResolvedLaunch> {
  const { sandbox } = request;
  const placement = sandbox.placement ?? {};
  const env = withToolDirs(request.env, placement.toolDirs ?? []);
  const check = await checkSandbox({ platform: request.platform, searchPath: searchPath(env) });
  if (!check.ok) throw new SwitchboardError('SANDBOX_UNAVAILABLE', `sandbox unavailable: ${check.reason}. ${check.fix}`);
  const runtime = placement.runtime ?? defaultSandboxRuntime();
  if (!runtime || !fs.existsSync(runtime.cliPath))
    throw new SwitchboardError(
      'SANDBOX_UNAVAILABLE',
      'sandbox unavailable: the sandbox runtime is missing from this installation. Reinstall MCP Switchboard, or turn the sandbox off for this server ("sandboxEnabled": false)',
    );
  if (request.platform === 'linux' && !(runtime.seccompHelper && fs.existsSync(runtime.seccompHelper)))
    throw new SwitchboardError('SANDBOX_UNAVAILABLE', missingSeccompHelper(process.arch));
  let prepared;
  try {
    const rules = withProtectedPlaces(sandbox.rules, placement, process.env, request.platform);
    prepared = prepareSandboxedCommand(
      {
        server: sandbox.server,
        command: request.command,
        args: request.args,
        env,
        rules,
        ...(placement.stateRoot ? { stateRoot: placement.stateRoot } : {}),
      },
      runtime,
    );
  } catch (error) {
    throw new SwitchboardError('SANDBOX_UNAVAILABLE', `sandbox unavailable: cannot prepare its folder: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  const onLine = request.onStderrLine ?? (() => undefined);
  const onDenial = sandbox.onDenial ?? onLine;
  return {
    command: prepared.command,
    args: prepared.args,
    env: prepared.env,
    onStderrLine: sandboxStderrFilter(onLine, onDenial),
    note: `, sandboxed: ${describeSandboxRules(sandbox.rules)}`,
  };
}

/**
 * The rules with every place that decides what runs next made read-only, and credentials unreadable:
 * the configuration of each folder the server may write and of each open folder, and the home
 * folder's. A sandboxed server can then never plant an entry that a later start runs unsandboxed.
 */
export function withProtectedPlaces(
  rules: SandboxRules,
  placement: SandboxPlacement,
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
): SandboxRules {
  const host = placement.hostPlaces?.() ?? { workspaceFolders: [] };
  const folders = [...new Set([...host.workspaceFolders, ...rules.filesystem.allowWrite])];
  const workspaceFiles = [...(host.workspaceFile ? [host.workspaceFile] : []), ...folders.flatMap(codeWorkspaceFiles)];
  const places = protectedPlaces(
    {
      workspaceFolders: folders.map((folder) => ({ name: path.basename(folder), path: folder })),
      userHome: host.userHome ?? os.homedir(),
      platform,
      paths: path,
      env,
      ...(host.editorUserDir ? { editorUserDir: host.editorUserDir } : {}),
    },
    workspaceFiles,
  );
  const unique = (values: readonly string[]) => [...new Set(values)];
  return {
    filesystem: {
      allowWrite: writableWithoutPlaceholders(rules.filesystem.allowWrite, places.denyWrite, host.workspaceFolders),
      denyRead: unique([...rules.filesystem.denyRead, ...places.denyRead, ...hiddenPaths(placement.hostSecrets ?? [])]),
      denyWrite: unique([...rules.filesystem.denyWrite, ...places.denyWrite]),
    },
    network: rules.network,
  };
}

/** What the sandbox runtime itself keeps from writes in a server's working folder (its DANGEROUS_FILES and directories). */
const RUNTIME_PROTECTED = [
  '.gitconfig',
  '.gitmodules',
  '.bashrc',
  '.bash_profile',
  '.zshrc',
  '.zprofile',
  '.profile',
  '.ripgreprc',
  '.mcp.json',
  '.vscode',
  '.idea',
  '.claude/commands',
  '.claude/agents',
  '.git/hooks',
  '.git/config',
];

/** Entries of one folder the expansion below looks at, at most: a folder of more stays writable whole. */
const MAX_EXPANDED_ENTRIES = 4_096;

/**
 * The writable folders, where a workspace folder is given as its entries when a protected place
 * inside it does not exist. A place the server may not make must otherwise be kept from it by a
 * placeholder the sandbox creates in the user's folder while the server runs (an empty `.mcp.json`,
 * `.bashrc`, `.claude/`, seen in the editor and in git, and read as a source). Instead that
 * folder's own top level is left read-only: no new entry can be made there, a protected one or any
 * other, while every entry in it that is not protected stays writable (files written, folders
 * written into and added to), the same way down where a protected place is missing deeper. What
 * exists is protected by mounting over it, as before; nothing is created. Other writable folders
 * (a temp folder, one the entry names) are given whole.
 */
export function writableWithoutPlaceholders(
  allowWrite: readonly string[],
  denyWrite: readonly string[],
  workspaceFolders: readonly string[],
): string[] {
  const workspaces = new Set(workspaceFolders.map((folder) => path.resolve(folder)));
  // The sandbox runtime protects these in the folder a server runs in (a workspace folder), by the same placeholders.
  const runtimes = [...workspaces].flatMap((folder) => RUNTIME_PROTECTED.map((name) => path.join(folder, ...name.split('/'))));
  const denied = new Set([...denyWrite, ...runtimes].map((place) => path.resolve(place)));
  const absent = [...denied].filter((place) => !fs.existsSync(place));
  const inside = (place: string, folder: string) => place.startsWith(`${folder}${path.sep}`);
  const expand = (folder: string, depth: number): string[] => {
    if (depth > 8 || !absent.some((place) => inside(place, folder))) return [folder];
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch {
      return [folder];
    }
    if (entries.length > MAX_EXPANDED_ENTRIES) return [folder];
    return entries.flatMap((entry) => {
      const child = path.join(folder, entry.name);
      if (denied.has(child)) return [];
      return entry.isDirectory() && !entry.isSymbolicLink() ? expand(child, depth + 1) : [child];
    });
  };
  return [
    ...new Set(
      allowWrite.flatMap((folder) =>
        workspaces.has(path.resolve(folder)) && fs.existsSync(folder) ? expand(path.resolve(folder), 0) : [folder],
      ),
    ),
  ];
}

/** The `.code-workspace` files at a folder's top: the editor reads their settings, tasks and servers. */
function codeWorkspaceFiles(folder: string): string[] {
  try {
    return fs
      .readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.name.endsWith('.code-workspace'))
      .slice(0, 64)
      .map((entry) => path.join(folder, entry.name));
  } catch {
    return [];
  }
}

/** The environment with `dirs` after its PATH (Windows spells the key `Path`; we never sandbox there). */
function withToolDirs(
  env: Readonly<Record<string, string | undefined>>,
  dirs: readonly string[],
): Readonly<Record<string, string | undefined>> {
  if (dirs.length === 0) return env;
  const current = env.PATH ?? '';
  return { ...env, PATH: [current, ...dirs].filter((part) => part !== '').join(path.delimiter) };
}

/** PATH as the child will see it; Windows spells the key `Path`. */
export function searchPath(env: Readonly<Record<string, string | undefined>>): string {
  const key = Object.keys(env).find((name) => name.toUpperCase() === 'PATH');
  return (key === undefined ? undefined : env[key]) ?? '';
}

/**
 * Whether `command` would be found as a server's command: a path (with a separator) that exists,
 * or a name in one of PATH's folders (with one of PATHEXT's extensions on Windows). What is asked
 * before an entry is written; the spawn itself says what it searched when it fails.
 */
export function commandExists(
  command: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  platform: NodeJS.Platform = process.platform,
): boolean {
  const windows = platform === 'win32';
  if (command.includes('/') || (windows && command.includes('\\'))) return fs.existsSync(path.resolve(cwd, command));
  const extensions = windows ? ['', ...(env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)] : [''];
  return searchPath(env)
    .split(path.delimiter)
    .filter((folder) => folder !== '')
    .some((folder) =>
      extensions.some((extension) => {
        try {
          const stat = fs.statSync(path.join(folder, `${command}${extension}`));
          return stat.isFile() && (windows || (stat.mode & 0o111) !== 0);
        } catch {
          return false;
        }
      }),
    );
}
