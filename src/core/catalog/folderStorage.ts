// Tool cache storage in a folder, one JSON file per key, for the CLI (and any host without editor
// storage). Writes go to a temporary file that is then renamed over the target, so a crash or a
// second process never leaves a half-written entry; damaged files read as missing.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ToolCacheEntry, ToolCacheStorage } from './cache';

const ENTRY_FILE = /^[0-9a-f]{40}\.json$/;
const TEMP_FILE = /\.tmp$/;
/** A temporary file this old belongs to a writer that died; newer ones may still be renamed. */
const STALE_TEMP_MS = 10 * 60 * 1000;

interface StoredFile {
  readonly key: string;
  readonly entry: unknown;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

export class FolderToolCacheStorage implements ToolCacheStorage {
  /**
   * Entries keys() has just read and parsed, for the get() that usually follows it, so each file
   * is read once. Taken by that get(); forgotten on any write or delete of the key, or the next keys().
   */
  private readonly justRead = new Map<string, unknown>();

  constructor(readonly dir: string) {}

  /** Keys can hold any character and be long, so files are named by a hash; the key is inside. */
  fileFor(key: string): string {
    return path.join(this.dir, `${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 40)}.json`);
  }

  async get(key: string): Promise<unknown> {
    if (this.justRead.has(key)) {
      const entry = this.justRead.get(key);
      this.justRead.delete(key);
      return entry;
    }
    const stored = await this.read(this.fileFor(key));
    return stored?.key === key ? stored.entry : undefined;
  }

  async set(key: string, entry: ToolCacheEntry): Promise<void> {
    const file = this.fileFor(key);
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    this.justRead.delete(key);
    const stored: StoredFile = { key, entry };
    await fs.mkdir(this.dir, { recursive: true });
    try {
      await fs.writeFile(temp, JSON.stringify(stored), 'utf8');
      await fs.rename(temp, file);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    this.justRead.delete(key);
    await fs.rm(this.fileFor(key), { force: true });
  }

  /** Every readable entry's key. Damaged entries and abandoned temporary files are removed. */
  async keys(): Promise<string[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    this.justRead.clear();
    const keys: string[] = [];
    for (const name of names.sort()) {
      const file = path.join(this.dir, name);
      if (TEMP_FILE.test(name)) {
        await this.removeIfStale(file);
        continue;
      }
      if (!ENTRY_FILE.test(name)) continue;
      const stored = await this.read(file);
      if (stored && this.fileFor(stored.key) === file) {
        keys.push(stored.key);
        this.justRead.set(stored.key, stored.entry);
      } else await fs.rm(file, { force: true }).catch(() => undefined);
    }
    return keys;
  }

  /** The file's content, or undefined when it is missing or not an entry file we wrote. */
  private async read(file: string): Promise<StoredFile | undefined> {
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value !== 'object' || value === null || typeof (value as { key?: unknown }).key !== 'string') return undefined;
      return value as StoredFile;
    } catch {
      return undefined;
    }
  }

  private async removeIfStale(file: string): Promise<void> {
    try {
      const stat = await fs.stat(file);
      if (Date.now() - stat.mtimeMs > STALE_TEMP_MS) await fs.rm(file, { force: true });
    } catch {
      // Renamed or removed by its writer meanwhile.
    }
  }
}
