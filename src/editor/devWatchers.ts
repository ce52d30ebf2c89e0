// The editor's `dev.watch`: a change to a file matching a server's patterns restarts the server,
// once the changes stop for a moment (a build writes many files). The row then says it restarted
// and the tooltip which file changed.
import * as vscode from 'vscode';
import { GlobWatcher } from '../core/base/globWatcher';
import { isInvalidServer, type ServerDefinition } from '../core/config';
import type { ConfiguredServer } from '../core/manager';

/** Quiet time after the last change before the restart. */
export const DEV_WATCH_DEBOUNCE_MS = 300;

export interface DevRestart {
  /** The changed file, relative to the folder watched. */
  readonly file: string;
  readonly at: number;
}

interface Watched {
  readonly key: string;
  readonly disposable: vscode.Disposable;
  timer?: ReturnType<typeof setTimeout>;
}

export class DevWatchers implements vscode.Disposable {
  private readonly watched = new Map<string, Watched>();
  private readonly restarts = new Map<string, DevRestart>();

  constructor(
    private readonly restart: (server: string) => Promise<unknown>,
    private readonly log: (server: string, message: string) => void,
  ) {}

  /** The last restart dev.watch made of this server, if any. */
  lastRestart(server: string): DevRestart | undefined {
    return this.restarts.get(server);
  }

  /** Watches the patterns of these servers from now on (a server whose patterns did not change keeps its watchers). */
  update(servers: readonly ConfiguredServer[]): void {
    const wanted = new Map<string, ServerDefinition>();
    for (const server of servers) {
      if (!isInvalidServer(server) && server.enabled && server.devWatch?.length) wanted.set(server.name, server);
    }
    for (const [name, watched] of this.watched) {
      const definition = wanted.get(name);
      if (definition && this.keyOf(definition) === watched.key) continue;
      this.stop(name);
    }
    for (const [name, definition] of wanted) if (!this.watched.has(name)) this.start(definition);
  }

  dispose(): void {
    for (const name of [...this.watched.keys()]) this.stop(name);
  }

  /** Where the patterns are relative to: the server's cwd, else its workspace folder, else the first. */
  private baseOf(definition: ServerDefinition): string | undefined {
    if (definition.transport === 'stdio' && definition.cwd) return definition.cwd;
    const folders = vscode.workspace.workspaceFolders ?? [];
    const own = folders.find((folder) => definition.source.file?.startsWith(folder.uri.fsPath));
    return (own ?? folders[0])?.uri.fsPath;
  }

  private keyOf(definition: ServerDefinition): string {
    return JSON.stringify([this.baseOf(definition), definition.devWatch]);
  }

  private start(definition: ServerDefinition): void {
    const base = this.baseOf(definition);
    if (!base) return;
    const patterns = definition.devWatch ?? [];
    const key = this.keyOf(definition);
    // Node's watcher, not the editor's: the editor's misses files in folders made after it
    // started (a clean build's output), which is what a server author changes most.
    const watcher = new GlobWatcher(base, patterns, {
      changed: (file) => this.schedule(definition.name, key, file),
      problem: (message) => this.log(definition.name, `dev.watch: ${message}`),
    });
    this.watched.set(definition.name, { key, disposable: { dispose: () => watcher.dispose() } });
    this.log(definition.name, `dev.watch: watching ${patterns.join(', ')} in ${base}`);
  }

  private schedule(name: string, key: string, file: string): void {
    const current = this.watched.get(name);
    if (!current || current.key !== key) return;
    clearTimeout(current.timer);
    current.timer = setTimeout(() => {
      current.timer = undefined;
      this.restarts.set(name, { file, at: Date.now() });
      this.log(name, `dev.watch: ${file} changed; restarting`);
      void this.restart(name).catch((error: unknown) => this.log(name, `dev.watch: the restart failed: ${String(error)}`));
    }, DEV_WATCH_DEBOUNCE_MS);
  }

  private stop(name: string): void {
    const watched = this.watched.get(name);
    if (!watched) return;
    clearTimeout(watched.timer);
    watched.disposable.dispose();
    this.watched.delete(name);
  }
}
