// Finished 2026-07-28 tasks in Redis, for when the replica that ran one is gone (a rolling update,
// a crash): another replica answers its tasks/get from here. Only what tasks/get shows and whose it
// is; nothing is read back but by id, and every entry expires with its task.
// The Redis client is loaded when a Redis is named: one person's serve carries none of it.
import type { SharedValues } from '../base/sharedValues';
import type { SharedTaskStore, StoredTask } from '../gateway';

const PREFIX = 'mcp-switchboard:task:';
/** A stored task larger than this is not kept (the gateway's own bound on kept results is 16 MiB in all). */
const MAX_ENTRY_BYTES = 4 * 1024 * 1024;
const MAX_ID_CHARS = 1024;

/** What the store uses of a Redis client. */
interface KeyValues {
  set(key: string, value: string, options: { expiration: { type: 'PX'; value: number } }): Promise<unknown>;
  get(key: string): Promise<unknown>;
  del(key: string): Promise<unknown>;
  close(): Promise<unknown>;
}

const SECRET_PREFIX = 'mcp-switchboard:secret:';
const MAX_SECRET_BYTES = 64 * 1024;

export class RedisTaskStore implements SharedTaskStore {
  private constructor(private readonly client: KeyValues) {}

  /** Connects (at most 5 s); throws, naming the URL without its password, when Redis cannot be reached. */
  static async connect(url: string, onError: (message: string) => void): Promise<RedisTaskStore> {
    const { createClient } = await import('@redis/client');
    const client = createClient({
      url,
      socket: { connectTimeout: 5_000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5_000) },
      // A command while Redis is away fails at once instead of queueing without bound.
      disableOfflineQueue: true,
    });
    // A lost connection is reported and retried; it must never reach the process as an unhandled error.
    client.on('error', (error: unknown) => onError(error instanceof Error ? error.message : String(error)));
    try {
      await client.connect();
    } catch (error) {
      client.destroy();
      throw new Error(`Redis at ${withoutPassword(url)} could not be reached: ${error instanceof Error ? error.message : String(error)}`);
    }
    return new RedisTaskStore(client);
  }

  async put(taskId: string, task: StoredTask, ttlMs: number): Promise<void> {
    if (taskId.length > MAX_ID_CHARS) return;
    const value = JSON.stringify(task);
    if (Buffer.byteLength(value) > MAX_ENTRY_BYTES) return;
    await this.client.set(PREFIX + taskId, value, { expiration: { type: 'PX', value: Math.max(1, Math.floor(ttlMs)) } });
  }

  async get(taskId: string): Promise<StoredTask | undefined> {
    if (taskId.length > MAX_ID_CHARS) return undefined;
    const value = await this.client.get(PREFIX + taskId);
    if (typeof value !== 'string') return undefined;
    const parsed = JSON.parse(value) as Partial<StoredTask>;
    return typeof parsed.owner === 'string' && typeof parsed.result === 'object' && parsed.result !== null
      ? { owner: parsed.owner, result: parsed.result }
      : undefined;
  }

  /** Values the replicas share besides tasks (users' sealed tokens), on the same connection. */
  readonly values: SharedValues = {
    get: async (key) => {
      const value = await this.client.get(SECRET_PREFIX + key);
      return typeof value === 'string' ? value : undefined;
    },
    put: async (key, value, ttlMs) => {
      if (Buffer.byteLength(value) > MAX_SECRET_BYTES) return;
      await this.client.set(SECRET_PREFIX + key, value, { expiration: { type: 'PX', value: Math.max(1, Math.floor(ttlMs)) } });
    },
    delete: async (key) => {
      await this.client.del(SECRET_PREFIX + key);
    },
  };

  async close(): Promise<void> {
    await this.client.close();
  }
}

export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.href;
  } catch {
    return '(not a URL)';
  }
}
