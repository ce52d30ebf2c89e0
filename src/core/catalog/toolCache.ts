// The catalog's view of the tool cache: every valid entry in memory (lookups are synchronous, so a
// snapshot can include cached tools the moment a server shows up), and storage kept in step in the
// background through one queue, so writes and deletes land in the order they were made.
import type { Tool } from '@modelcontextprotocol/client';
import type { Clock } from '../base/clock';
import type { Logger } from '../base/logging';
import {
  isExpired,
  parseToolCacheEntry,
  toolCacheKey,
  TOOL_CACHE_FORMAT,
  type CachedOffer,
  type ToolCacheEntry,
  type ToolCacheStorage,
} from './cache';
import { deepFreeze } from '../base/freeze';
import { errorMessage } from '../base/errorMessage';

export interface ToolCacheOptions {
  readonly storage: ToolCacheStorage;
  readonly ttlMs: number;
  readonly clock: Pick<Clock, 'now'>;
  readonly logger: Logger;
}

function message(error: unknown): string {
  return errorMessage(error);
}

export class ToolCache {
  private readonly storage: ToolCacheStorage;
  private readonly clock: Pick<Clock, 'now'>;
  private readonly logger: Logger;
  ttlMs: number;
  /** Valid, unexpired entries, frozen. */
  private readonly entries = new Map<string, ToolCacheEntry>();
  /** Keys known to exist in storage, with their server, so that drops can find them. */
  private readonly stored = new Map<string, string>();
  /** Changes made while the initial load ran; the load must not bring back what they replaced. */
  private readonly touchedKeys = new Set<string>();
  private readonly droppedServers = new Set<string>();
  private droppedAll = false;
  private loading: Promise<void> | undefined;
  private loaded = false;
  private queue: Promise<void> = Promise.resolve();

  constructor(options: ToolCacheOptions) {
    this.storage = options.storage;
    this.clock = options.clock;
    this.logger = options.logger;
    this.ttlMs = options.ttlMs;
  }

  /** Reads every entry from storage once; unusable and expired ones are deleted. Never rejects. */
  load(): Promise<void> {
    this.loading ??= this.readAll()
      .catch((error: unknown) => this.logger.warn(`tool cache: could not read the cache: ${message(error)}`))
      .finally(() => {
        this.loaded = true;
        this.touchedKeys.clear();
        this.droppedServers.clear();
        this.droppedAll = false;
      });
    return this.loading;
  }

  private async readAll(): Promise<void> {
    const keys = await this.storage.keys();
    for (const key of keys) {
      let value: unknown;
      try {
        value = await this.storage.get(key);
      } catch (error) {
        value = undefined;
        this.logger.warn(`tool cache: could not read entry ${key}: ${message(error)}`);
      }
      const parsed = parseToolCacheEntry(key, value);
      const problem = 'problem' in parsed ? parsed.problem : isExpired(parsed.entry, this.clock.now(), this.ttlMs) ? 'expired' : undefined;
      if (problem !== undefined || !('entry' in parsed)) {
        if (problem !== 'expired') this.logger.warn(`tool cache: ignoring entry ${key}: ${problem}`);
        await this.storage
          .delete(key)
          .catch((error: unknown) => this.logger.warn(`tool cache: could not delete entry ${key}: ${message(error)}`));
        continue;
      }
      const entry = parsed.entry;
      this.stored.set(key, entry.server);
      if (this.touchedKeys.has(key) || this.droppedServers.has(entry.server) || this.droppedAll) continue;
      this.entries.set(key, deepFreeze(entry));
    }
    this.logger.debug(`tool cache: ${this.entries.size} entries loaded`);
  }

  /** The unexpired entry for this server and connection, if any. */
  lookup(server: string, connectionHash: string): ToolCacheEntry | undefined {
    const key = toolCacheKey(server, connectionHash);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (!isExpired(entry, this.clock.now(), this.ttlMs)) return entry;
    this.entries.delete(key);
    this.enqueue(`delete expired ${key}`, () => this.deleteStored(key));
    return undefined;
  }

  /**
   * Remembers a freshly fetched list. An empty list is never stored (a server that is still
   * loading its tools must not wipe a good entry). Returns the entry, or undefined for an empty list.
   */
  store(server: string, connectionHash: string, tools: readonly Tool[], fetchedAt: number): ToolCacheEntry | undefined {
    if (tools.length === 0) return undefined;
    const key = toolCacheKey(server, connectionHash);
    const offer = this.entries.get(key)?.offer;
    return this.write(key, { format: TOOL_CACHE_FORMAT, server, connectionHash, fetchedAt, tools, offer });
  }

  /**
   * Remembers what else the server offers, next to its tools (same key, expiry and invalidation).
   * An offer with nothing in it is stored only where an entry already exists.
   */
  storeOffer(server: string, connectionHash: string, offer: CachedOffer, fetchedAt: number): void {
    const key = toolCacheKey(server, connectionHash);
    const existing = this.entries.get(key);
    const empty = offer.resources.length + offer.resourceTemplates.length + offer.prompts.length + (offer.skills?.length ?? 0) === 0;
    if (!existing && empty) return;
    this.write(key, existing ? { ...existing, offer } : { format: TOOL_CACHE_FORMAT, server, connectionHash, fetchedAt, tools: [], offer });
  }

  private write(key: string, value: ToolCacheEntry): ToolCacheEntry {
    const entry = deepFreeze(value);
    const server = entry.server;
    this.entries.set(key, entry);
    if (!this.loaded) this.touchedKeys.add(key);
    this.enqueue(`write ${key}`, async () => {
      await this.storage.set(key, entry);
      this.stored.set(key, server);
    });
    return entry;
  }

  /** Drops one connection's entry, or every entry of the server, from memory and storage. */
  drop(server: string, connectionHash?: string): void {
    const matches = (key: string, owner: string) =>
      owner === server && (connectionHash === undefined || key === toolCacheKey(server, connectionHash));
    for (const [key, entry] of this.entries) if (matches(key, entry.server)) this.entries.delete(key);
    if (!this.loaded) {
      if (connectionHash === undefined) this.droppedServers.add(server);
      else this.touchedKeys.add(toolCacheKey(server, connectionHash));
    }
    this.enqueue(`drop ${server}`, async () => {
      for (const [key, owner] of [...this.stored]) if (matches(key, owner)) await this.deleteStored(key);
    });
  }

  /** Drops the server's entries for any connection config but `connectionHash`; true if it had any. */
  dropOtherConfigs(server: string, connectionHash: string): boolean {
    const keep = toolCacheKey(server, connectionHash);
    const others = new Set<string>();
    for (const [key, entry] of this.entries) if (entry.server === server && key !== keep) others.add(key);
    for (const [key, owner] of this.stored) if (owner === server && key !== keep) others.add(key);
    if (others.size === 0) return false;
    for (const key of others) this.entries.delete(key);
    if (!this.loaded) for (const key of others) this.touchedKeys.add(key);
    this.enqueue(`drop ${server}`, async () => {
      for (const key of others) if (this.stored.has(key)) await this.deleteStored(key);
    });
    return true;
  }

  dropAll(): void {
    this.entries.clear();
    if (!this.loaded) this.droppedAll = true;
    this.enqueue('drop all', async () => {
      // Storage may hold entries the load skipped or could not parse; keys() covers them all.
      for (const key of await this.storage.keys()) await this.deleteStored(key);
    });
  }

  /** Resolves once every queued storage change has been made. */
  async idle(): Promise<void> {
    let current: Promise<void>;
    do {
      current = this.queue;
      await current;
    } while (current !== this.queue);
  }

  /** For diagnostics and tests. */
  get size(): number {
    return this.entries.size;
  }

  private async deleteStored(key: string): Promise<void> {
    await this.storage.delete(key);
    this.stored.delete(key);
  }

  /** Runs after the load and after every earlier change; a failure is logged, never thrown. */
  private enqueue(what: string, operation: () => Promise<void>): void {
    const loaded = this.load();
    this.queue = this.queue
      .then(() => loaded)
      .then(operation)
      .catch((error: unknown) => this.logger.warn(`tool cache: could not ${what}: ${message(error)}`));
  }
}
