// Watches files matching glob patterns under a folder (the editor's `dev.watch`). Each pattern
// watches only its fixed prefix (`src/**/*.js` watches `src`, recursively), so a project's
// node_modules is not walked; a prefix that does not exist yet, or is deleted and made again (a
// clean build), is waited for from its nearest existing parent and watched once it is there. The
// editor's own file watcher misses files in folders made after it started, hence this one.
import fs from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';

export interface GlobWatcherOptions {
  /** A matching file changed, was created or deleted: its path relative to the folder, with `/`. */
  readonly changed: (file: string) => void;
  /** A watch could not be set up or failed; it is retried when its folder appears again. */
  readonly problem?: (message: string) => void;
}

interface Watch {
  readonly root: string;
  readonly matches: (relative: string) => boolean;
  watcher?: fs.FSWatcher;
}

function exists(directory: string): boolean {
  try {
    return fs.statSync(directory).isDirectory();
  } catch {
    return false;
  }
}

export class GlobWatcher {
  private readonly watches: Watch[];
  private disposed = false;

  constructor(
    private readonly folder: string,
    patterns: readonly string[],
    private readonly options: GlobWatcherOptions,
  ) {
    this.watches = patterns.map((pattern) => {
      const absolute = path.isAbsolute(pattern);
      const normalized = (absolute ? path.relative(folder, pattern) : pattern).split(path.sep).join('/');
      const prefix = picomatch.scan(normalized).base;
      return { root: path.resolve(folder, prefix || '.'), matches: picomatch(normalized, { dot: true }) };
    });
    for (const watch of this.watches) this.arm(watch);
  }

  dispose(): void {
    this.disposed = true;
    for (const watch of this.watches) watch.watcher?.close();
  }

  private arm(watch: Watch): void {
    if (this.disposed) return;
    watch.watcher?.close();
    if (exists(watch.root)) this.watchRoot(watch);
    else this.waitFor(watch);
  }

  private watchRoot(watch: Watch): void {
    try {
      watch.watcher = fs.watch(watch.root, { recursive: true }, (_event, name) => {
        if (!exists(watch.root)) return this.arm(watch);
        if (typeof name !== 'string') return;
        const relative = path.relative(this.folder, path.join(watch.root, name)).split(path.sep).join('/');
        if (watch.matches(relative)) this.options.changed(relative);
      });
      watch.watcher.on('error', () => this.arm(watch));
    } catch (error) {
      this.options.problem?.(`cannot watch ${watch.root}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Watches the nearest existing parent of the root, without recursion, until the root exists. */
  private waitFor(watch: Watch): void {
    let parent = path.dirname(watch.root);
    while (!exists(parent) && path.dirname(parent) !== parent) parent = path.dirname(parent);
    try {
      watch.watcher = fs.watch(parent, () => {
        if (exists(watch.root)) this.arm(watch);
        else if (!exists(parent)) this.arm(watch);
      });
      watch.watcher.on('error', () => this.arm(watch));
    } catch (error) {
      this.options.problem?.(`cannot watch ${parent}: ${error instanceof Error ? error.message : String(error)}`);
    }
    // It may have appeared between the check and the watch.
    if (exists(watch.root)) this.arm(watch);
  }
}
