// Loading a CommonJS bundle with V8's code cache. A fresh process (each window's extension host,
// each agent's `serve`, the machine host) otherwise parses and compiles the whole bundle, then each
// function the first time it runs: 55-60 ms to compile the package's minified bundle on a 2-core
// machine, before the extension has done anything, and more in its first sessions. With the cache,
// 12-16 ms, and what ran before the cache was made is not compiled again (bench/RESULTS.md).
//
// The editor does not do this for extensions (Node's compile cache is process-wide and code-server
// leaves it off), so the extension's entry (src/boot.ts) loads the rest of the bundle through here.
import fs from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { createHash } from 'node:crypto';

/** What became of the cache on this load. */
export type CodeCacheUse = 'used' | 'made' | 'rejected' | 'off';

export interface CodeCacheOptions {
  /**
   * Where cache files are kept (created 0700 if missing); undefined: no cache. It must be a folder
   * only the user writes: a cache file is code that runs. Switchboard keeps it in its own folder,
   * which no sandboxed server may write.
   */
  readonly folder: string | undefined;
  /** When to save a cache once the load used none: late enough that what runs at startup was compiled. */
  readonly saveAfterMs: number;
  /** Runs `save` after `ms`; the timer must not keep the process alive. */
  readonly schedule?: (save: () => void, ms: number) => void;
}

export interface CachedLoad {
  readonly exports: unknown;
  /** The cache file this load read or will write; undefined when off. */
  readonly file: string | undefined;
  /** 'used': read and accepted; 'rejected': read, but V8 refused it (it is made again); 'made': none yet. */
  readonly use: CodeCacheUse;
  /** Writes the cache now (if the load used none); later calls do nothing. Never throws. */
  save(): void;
}

/** Cache files of one bundle kept at most (other builds, Node versions or flags beside the current one). */
const MAX_FILES_PER_BUNDLE = 4;

const unrefTimer = (save: () => void, ms: number) => setTimeout(save, ms).unref();

/**
 * Which cache file belongs to `bundle` as this process would compile it: V8 checks its version and
 * flags and the source's length only, so the name holds the bundle's size and modification time
 * (an update with the same length must not run the old code), Node's version, and the flags.
 */
function codeCacheFile(folder: string, bundle: string, stat: fs.Stats): string {
  const runtime = createHash('sha256')
    .update(`${process.version} ${process.arch} ${process.execArgv.join(' ')}`)
    .digest('hex')
    .slice(0, 12);
  return path.join(folder, `${buildOf(bundle, stat)}-${runtime}.bin`);
}

/** The part of a cache file's name that names the bundle's build. */
function buildOf(bundle: string, stat: fs.Stats): string {
  return `${path.basename(bundle)}-${stat.size}-${Math.trunc(stat.mtimeMs)}`;
}

/** Larger than any cache of ours (the bundle's is under 2 MB): not read. */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The cache file's bytes, if it is this user's own and nobody else may write it (a cache is code
 * that runs: one another user could have written is ignored, and replaced on save). Checked on the
 * open file, so that it cannot be swapped between the check and the read.
 */
function readCache(file: string | undefined): Buffer | undefined {
  if (!file) return undefined;
  let fd: number | undefined;
  try {
    // Non-blocking: a FIFO in its place would otherwise hold the open (and the editor's activation) until someone writes to it.
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_CACHE_BYTES) return undefined;
    if (process.platform !== 'win32' && (stat.uid !== process.getuid?.() || (stat.mode & 0o022) !== 0)) return undefined;
    return fs.readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Runs `bundle` as a CommonJS module whose `require` is `requireFrom` (the entry's own: the
 * editor's `vscode` module is resolved for the extension that asks) and returns its exports.
 * Nothing about the cache can stop the load: an unreadable, refused or unwritable cache only
 * costs the compile it would have saved.
 */
export function loadWithCodeCache(bundle: string, requireFrom: NodeJS.Require, options: CodeCacheOptions): CachedLoad {
  const source = fs.readFileSync(bundle, 'utf8');
  let file: string | undefined;
  try {
    if (options.folder) file = codeCacheFile(options.folder, bundle, fs.statSync(bundle));
  } catch {
    file = undefined;
  }
  const cachedData = readCache(file);
  const script = new vm.Script(Module.wrap(source), {
    filename: bundle,
    ...(cachedData ? { cachedData } : {}),
    // A dynamic import() left in the bundle resolves as in any module (Node ≥ 20.12).
    ...(vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER ? { importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER } : {}),
  });
  const use: CodeCacheUse = !file ? 'off' : !cachedData ? 'made' : script.cachedDataRejected ? 'rejected' : 'used';
  const loaded = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: { exports: unknown },
    filename: string,
    dirname: string,
  ) => void;
  wrapper.call(loaded.exports, loaded.exports, requireFrom, loaded, bundle, path.dirname(bundle));
  let saved = use === 'used' || use === 'off';
  const save = () => {
    if (saved || !file) return;
    saved = true;
    try {
      writeCache(file, script.createCachedData(), path.basename(bundle));
    } catch {
      // A folder we cannot write: the next load compiles, as this one did.
    }
  };
  if (!saved) (options.schedule ?? unrefTimer)(save, options.saveAfterMs);
  return { exports: loaded.exports, file, use, save };
}

/**
 * Written whole or not at all (a reader never sees half a file), 0600, beside at most a few others
 * of the same bundle: other builds (two editors with two versions of the extension take turns, and
 * neither should delete what the other just made) and other Node versions or flags. The oldest go.
 */
function writeCache(file: string, data: Buffer, bundleName: string): void {
  const folder = path.dirname(file);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const partial = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(partial, data, { mode: 0o600 });
  fs.renameSync(partial, file);
  const others = fs
    .readdirSync(folder)
    .filter((name) => name.startsWith(`${bundleName}-`) && name.endsWith('.bin') && path.join(folder, name) !== file)
    .map((name) => ({ name, at: fs.statSync(path.join(folder, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const entry of others.slice(MAX_FILES_PER_BUNDLE - 1)) fs.rmSync(path.join(folder, entry.name), { force: true });
}
