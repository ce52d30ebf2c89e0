// Where OAuth tokens and client registrations are kept. The editor backs this with its
// SecretStorage (the OS keychain); the CLI with a file only the user can read. Nothing here ever
// goes to settings or logs.
import { userConfigFolder } from '../config';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export interface SecretStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
  keys(): Promise<readonly string[]>;
}

/** For one process's lifetime: tests, and a host that has nowhere safe to keep secrets. */
export class MemorySecretStore implements SecretStore {
  private readonly values = new Map<string, string>();

  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.values.get(key));
  }

  set(key: string, value: string): Promise<void> {
    this.values.set(key, value);
    return Promise.resolve();
  }

  delete(key: string): Promise<void> {
    this.values.delete(key);
    return Promise.resolve();
  }

  keys(): Promise<readonly string[]> {
    return Promise.resolve([...this.values.keys()]);
  }
}

/** A credentials file larger than this is not ours (or is damaged); it is refused, not parsed. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/**
 * One JSON file, created with mode 0600 in a 0700 folder and replaced atomically (written to a
 * temporary file, then renamed), so a crash never leaves half a file and no other user can read it.
 * Writes are serialized within the process.
 */
export class FileSecretStore implements SecretStore {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly file: string) {}

  async get(key: string): Promise<string | undefined> {
    const values = await this.read();
    return Object.hasOwn(values, key) ? values[key] : undefined;
  }

  set(key: string, value: string): Promise<void> {
    return this.update((values) => values.set(key, value));
  }

  delete(key: string): Promise<void> {
    return this.update((values) => values.delete(key));
  }

  async keys(): Promise<readonly string[]> {
    return Object.keys(await this.read());
  }

  private update(change: (values: Map<string, string>) => void): Promise<void> {
    const next = this.queue.then(async () => {
      const values = new Map(Object.entries(await this.read()));
      change(values);
      await this.write(Object.fromEntries(values));
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async read(): Promise<Record<string, string>> {
    let text: string;
    try {
      const stat = await fs.stat(this.file);
      // A FIFO in its place would block the read for good.
      if (!stat.isFile()) throw new Error(`${this.file} is not a regular file; move it away to start over`);
      if (stat.size > MAX_FILE_BYTES) throw new Error(`${this.file} is larger than ${MAX_FILE_BYTES} bytes; move it away to start over`);
      text = await fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Object.create(null) as Record<string, string>;
      throw error;
    }
    const parsed: unknown = JSON.parse(text);
    const values = Object.create(null) as Record<string, string>;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return values;
    for (const [key, value] of Object.entries(parsed)) if (typeof value === 'string') values[key] = value;
    return values;
  }

  private async write(values: Record<string, string>): Promise<void> {
    await fs.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temporary = `${this.file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await fs.writeFile(temporary, `${JSON.stringify(values, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      await fs.rename(temporary, this.file);
    } catch (error) {
      await fs.rm(temporary, { force: true });
      throw error;
    }
    // rename keeps the temporary file's mode; chmod covers a file an older version created wider.
    await fs.chmod(this.file, 0o600);
  }
}

/** The user's config folder for Switchboard: $XDG_CONFIG_HOME, ~/Library/Application Support, %APPDATA%. */
export { userConfigFolder };

export function defaultCredentialsFile(env: NodeJS.ProcessEnv = process.env): string {
  return env.MCP_SWITCHBOARD_CREDENTIALS || path.join(userConfigFolder(env), 'credentials.json');
}
