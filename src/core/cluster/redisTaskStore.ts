// Finished 2026-07-28 tasks in Redis, for when the replica that ran one is gone (a rolling update,
// a crash): another replica answers its tasks/get from here. Only what tasks/get shows and whose it
// is, sealed under the replicas' key and bound to the task's id: whoever can read Redis reads
// neither the output nor its owner, and whoever can write it can neither forge an entry nor move
// one under another task's id. Nothing is read back but by id, never more than the bound, and
// every command gives up after a short while: a Redis that stalls costs a request that long, no
// more. Every entry expires with its task.
// The Redis client is loaded when a Redis is named: one person's serve carries none of it.
import type { Sealer } from '../base/sealer';
import type { SharedValues } from '../base/sharedValues';
import type { SharedTaskStore, StoredTask } from '../gateway';

const PREFIX = 'mcp-switchboard:task:';
/** A stored task larger than this is not kept (the gateway's own bound on kept results is 16 MiB in all). */
const MAX_ENTRY_BYTES = 4 * 1024 * 1024;
/** What a sealed entry of that size takes in Redis (base64url of IV, text and tag), read at most. */
const MAX_SEALED_CHARS = Math.ceil(((MAX_ENTRY_BYTES + 28) * 4) / 3) + 4;
const MAX_ID_CHARS = 1024;
/** How long one Redis command may take before it counts as failed. */
export const DEFAULT_REDIS_COMMAND_MS = 2_000;

/** What the store uses of a Redis client. */
interface KeyValues {
  set(key: string, value: string, options: { expiration: { type: 'PX'; value: number } }): Promise<unknown>;
  getRange(key: string, start: number, end: number): Promise<unknown>;
  del(key: string): Promise<unknown>;
  close(): Promise<unknown>;
}

const SECRET_PREFIX = 'mcp-switchboard:secret:';
const MAX_SECRET_BYTES = 64 * 1024;

export interface RedisStoreOptions {
  /** Reports a lost connection (it is retried) and an entry refused on read. */
  readonly onError: (message: string) => void;
  /** Seals finished tasks: the replicas' shared key, for this use. */
  readonly sealer: Sealer;
  /** How long one command may take (default 2 s). */
  readonly commandMs?: number;
}

export class RedisTaskStore implements SharedTaskStore {
  private readonly commandMs: number;

  private constructor(
    private readonly client: KeyValues,
    private readonly options: RedisStoreOptions,
  ) {
    this.commandMs = options.commandMs ?? DEFAULT_REDIS_COMMAND_MS;
  }

  /** Connects (at most 5 s); throws, naming the URL without its password, when Redis cannot be reached. */
  static async connect(url: string, options: RedisStoreOptions): Promise<RedisTaskStore> {
    const { createClient } = await import('@redis/client');
    const client = createClient({
      url,
      socket: { connectTimeout: 5_000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5_000) },
      // A command while Redis is away fails at once instead of queueing without bound.
      disableOfflineQueue: true,
    });
    // A lost connection is reported and retried; it must never reach the process as an unhandled error.
    client.on('error', (error: unknown) => options.onError(error instanceof Error ? error.message : String(error)));
    try {
      await client.connect();
    } catch (error) {
      client.destroy();
      throw new Error(`Redis at ${withoutPassword(url)} could not be reached: ${error instanceof Error ? error.message : String(error)}`);
    }
    return new RedisTaskStore(client, options);
  }

  async put(taskId: string, task: StoredTask, ttlMs: number): Promise<void> {
    if (taskId.length > MAX_ID_CHARS) return;
    const value = JSON.stringify(task);
    if (Buffer.byteLength(value) > MAX_ENTRY_BYTES) return;
    const sealed = this.options.sealer.seal(value, taskContext(taskId));
    await this.within(this.client.set(PREFIX + taskId, sealed, { expiration: { type: 'PX', value: Math.max(1, Math.floor(ttlMs)) } }));
  }

  async get(taskId: string): Promise<StoredTask | undefined> {
    if (taskId.length > MAX_ID_CHARS) return undefined;
    const sealed = await this.bounded(PREFIX + taskId, MAX_SEALED_CHARS);
    if (sealed === undefined) return undefined;
    const value = this.options.sealer.open(sealed, MAX_SEALED_CHARS, taskContext(taskId));
    if (value === undefined) {
      this.options.onError(`a finished task's entry did not open under the cluster key (forged, or moved from another id): ignored`);
      return undefined;
    }
    const parsed = JSON.parse(value) as Partial<StoredTask>;
    return typeof parsed.owner === 'string' && typeof parsed.result === 'object' && parsed.result !== null
      ? { owner: parsed.owner, result: parsed.result }
      : undefined;
  }

  /** Values the replicas share besides tasks (users' sealed tokens), on the same connection. */
  readonly values: SharedValues = {
    get: (key) => this.bounded(SECRET_PREFIX + key, MAX_SECRET_BYTES),
    put: async (key, value, ttlMs) => {
      if (Buffer.byteLength(value) > MAX_SECRET_BYTES) return;
      await this.within(this.client.set(SECRET_PREFIX + key, value, { expiration: { type: 'PX', value: Math.max(1, Math.floor(ttlMs)) } }));
    },
    delete: async (key) => {
      await this.within(this.client.del(SECRET_PREFIX + key));
    },
  };

  async close(): Promise<void> {
    await this.client.close();
  }

  /**
   * The value at `key` if it is at most `maxChars` long. Never reads more than one character past
   * the bound: an entry someone made huge costs nothing but a warning.
   */
  private async bounded(key: string, maxChars: number): Promise<string | undefined> {
    const value = await this.within(this.client.getRange(key, 0, maxChars));
    if (typeof value !== 'string' || value === '') return undefined;
    if (value.length > maxChars) {
      this.options.onError(`an entry in Redis is larger than ${maxChars} characters: ignored`);
      return undefined;
    }
    return value;
  }

  /**
   * The command's answer, or a failure once it took longer than the bound. The client's own
   * timeout covers only a command not yet written; one Redis never answers must not hold a request.
   */
  private within<T>(command: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${this.commandMs} ms`)), this.commandMs);
    });
    // The command may still settle later: its answer then goes nowhere, and a failure is not unhandled.
    command.catch(() => undefined);
    return Promise.race([command, late]).finally(() => clearTimeout(timer));
  }
}

/** A finished task's entry opens only under its own id. */
function taskContext(taskId: string): readonly [string, string] {
  return ['finished task', taskId];
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
