// What the editor (or the doctor CLI) hands to loadConfiguration. The editor has already merged the
// settings scopes; everything that needs the disk, the environment or the platform is injectable.

import type { ConfigFileSystem } from './fileSystem';
import type { ServerSource } from './types';

/** What a team gateway said of its servers: their names, or why they are not known. */
export type TeamListing =
  | { readonly kind: 'listed'; readonly servers: readonly string[] }
  | { readonly kind: 'unlisted'; readonly reason: 'signIn' | 'failed'; readonly message: string };

/** Reads a team gateway's listing (core/team's TeamDirectory); never rejects. */
export type TeamLister = (base: string) => Promise<TeamListing>;

/** One key of `mcpSwitchboard.servers`, with the scope it came from. */
export interface SettingsEntry {
  readonly name: string;
  /** The value exactly as stored; validation happens here, not in the editor. */
  readonly raw: unknown;
  readonly source: ServerSource;
}

export interface WorkspaceFolder {
  /** What `${workspaceFolder:<name>}` matches. */
  readonly name: string;
  /** Absolute file-system path. */
  readonly path: string;
}

export interface ConfigurationInput {
  /** `mcpSwitchboard.servers` entries in key order. See settingsEntries() to build them. */
  readonly entries: readonly SettingsEntry[];
  /** Raw `mcpSwitchboard.sources`; undefined means `["settings"]`. */
  readonly sources?: unknown;
  /** Where `sources` was set, for its diagnostics. Defaults to user settings. */
  readonly sourcesOrigin?: ServerSource;
  /**
   * Raw `mcpSwitchboard.defaultLifecycle` and `mcpSwitchboard.defaultIdleStopMinutes`: what an
   * entry without its own `lifecycle` or `idleStopMinutes` gets. Checked like entry fields.
   */
  readonly lifecycleDefaults?: { readonly lifecycle?: unknown; readonly idleStopMinutes?: unknown; readonly origin?: ServerSource };
  /**
   * Raw `mcpSwitchboard.sandbox.enabled` and `mcpSwitchboard.sandbox.rules`: whether a stdio server
   * whose entry does not decide runs sandboxed, and the rules of a sandboxed one without its own.
   */
  readonly sandboxDefaults?: { readonly enabled?: unknown; readonly rules?: unknown; readonly origin?: ServerSource };
  /** In editor order; the first one is `${workspaceFolder}` and the default `cwd`. */
  readonly workspaceFolders: readonly WorkspaceFolder[];
  /** Defaults to os.homedir(). Also locates the other clients' files. */
  readonly userHome?: string;
  /** The editor's `User` folder, where its user mcp.json is; the CLI uses VS Code's default. */
  readonly editorUserDir?: string;
  /** For `${env:...}` and `%APPDATA%`. Defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Decides `${pathSeparator}`, path rules and the Claude Desktop location. Defaults to process.platform. */
  readonly platform?: NodeJS.Platform;
  readonly fs?: ConfigFileSystem;
  /** Reads a team gateway's listing; without it a team gateway in `sources` is its one entry. */
  readonly teams?: TeamLister;
  /**
   * The scripts this installation's CLI starts from (absolute): an entry that runs one with
   * `serve --stdio` is Switchboard itself, and skipped (switchboardEntries.ts).
   */
  readonly launchers?: readonly string[];
}
