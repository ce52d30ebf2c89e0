// What the catalog knows of each configured server, following the manager: its definition and
// connection hash, its state, its live list and its cached list (for the same connection hash).
// These records are the catalog's input; the snapshot is built from them.
import type { Tool } from '@modelcontextprotocol/client';
import { hashServerConnection, type ServerDefinition } from '../config';
import type { Clock } from '../base/clock';
import { isConnecting, startsOnDemand, type ServerStateKind } from '../state';
import { Emitter, type Event } from '../base/events';
import type { Logger } from '../base/logging';
import type { ToolCacheEntry } from './cache';
import { deepFreeze, isDeepFrozenData } from '../base/freeze';
import { RefreshScheduler } from './refreshScheduler';
import { errorMessage } from '../base/errorMessage';
import { fingerprintTools, prepareToolList, type PreparedToolList } from './preparedList';
import type { SnapshotServerInput } from './snapshot';
import type { ToolCache } from './toolCache';

export interface ToolList {
  /** Frozen: the cached value is shared, never copied into and never mutated. */
  readonly raw: readonly Tool[];
  readonly prepared: PreparedToolList;
  readonly fetchedAt: number;
}

export interface ServerRecord {
  readonly name: string;
  definition: ServerDefinition | undefined;
  hash: string | undefined;
  state: ServerStateKind;
  /** The last list fetched from the running server (kept while it reconnects). */
  live: ToolList | undefined;
  /** The stored list for the current connection hash. */
  cached: ToolList | undefined;
}

export interface ServerRecordsOptions {
  readonly cache: ToolCache;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The live tools of a running server's connection: the list its owner keeps current. */
  readonly liveTools: (server: string) => readonly Tool[] | undefined;
  /** Asks a running server for its tools again (invalidating the cache; never on a change). */
  readonly listTools: (server: string) => Promise<readonly Tool[] | undefined>;
  /** Quiet time after the last change signal before listing again. */
  readonly debounceMs: number;
}

export class ServerRecords {
  private readonly records = new Map<string, ServerRecord>();
  private readonly preparedEntries = new WeakMap<ToolCacheEntry, ToolList>();
  private readonly serverEmitter = new Emitter<string>();
  private readonly inputsEmitter = new Emitter<void>();
  /** A server's record changed (state, lists) or it was removed. */
  readonly onDidChangeServer: Event<string> = this.serverEmitter.event;
  /** Something the snapshot is built from changed. */
  readonly onDidChangeInputs: Event<void> = this.inputsEmitter.event;
  /** Debounced taking of the running servers' latest lists after changes; its results land in applyLive. */
  readonly refresh: RefreshScheduler<readonly Tool[]>;
  private order: string[] = [];

  constructor(private readonly options: ServerRecordsOptions) {
    this.refresh = new RefreshScheduler<readonly Tool[]>({
      delayMs: options.debounceMs,
      clock: options.clock,
      // The connection announced a change with its new list: after the burst, its latest list.
      fetch: (name) => Promise.resolve(this.records.get(name)?.state === 'running' ? options.liveTools(name) : undefined),
      apply: (name, tools) => {
        const record = this.records.get(name);
        if (record) this.applyLive(record, tools);
      },
      fingerprint: fingerprintTools,
      onError: (name, error) => options.logger.warn(`${name}: refreshing the tool list failed: ${errorMessage(error)}`),
    });
  }

  /** Asks a running server for its tools again (through its connection, which keeps them). */
  relist(server: string): Promise<readonly Tool[] | undefined> {
    return this.records.get(server)?.state === 'running' ? this.options.listTools(server) : Promise.resolve(undefined);
  }

  record(server: string): ServerRecord | undefined {
    return this.records.get(server);
  }

  all(): ServerRecord[] {
    return [...this.records.values()];
  }

  names(): string[] {
    return [...this.records.keys()];
  }

  /** Takes the manager's servers as they are: adds, updates, reorders and removes records. */
  sync(
    views: readonly { readonly name: string; readonly definition?: ServerDefinition; readonly state: { readonly kind: ServerStateKind } }[],
  ): void {
    const names = new Set<string>();
    for (const view of views) {
      names.add(view.name);
      let record = this.records.get(view.name);
      if (!record) {
        record = { name: view.name, definition: undefined, hash: undefined, state: 'stopped', live: undefined, cached: undefined };
        this.records.set(view.name, record);
      }
      this.updateDefinition(record, view.definition);
      this.setState(record, view.state.kind);
    }
    for (const name of [...this.records.keys()]) {
      if (names.has(name)) continue;
      this.refresh.cancel(name);
      this.records.delete(name);
      this.serverEmitter.fire(name);
    }
    this.order = views.map((view) => view.name);
    this.inputsEmitter.fire();
  }

  /** One server's state event. */
  update(record: ServerRecord, definition: ServerDefinition | undefined, state: ServerStateKind): void {
    this.updateDefinition(record, definition);
    this.setState(record, state);
    this.inputsEmitter.fire();
    this.serverEmitter.fire(record.name);
  }

  /** After the stored cache has been read: records without a cached list get theirs. */
  loadCached(): void {
    for (const record of this.records.values())
      if (record.hash !== undefined && !record.cached) record.cached = this.cachedList(record.name, record.hash);
    this.inputsEmitter.fire();
  }

  /** A fresh list from the server: shown at once, and stored unless empty. */
  applyLive(record: ServerRecord, tools: readonly Tool[]): void {
    const fetchedAt = this.options.clock.now();
    record.live = this.toList(tools, fetchedAt, record.live ?? record.cached);
    if (record.hash !== undefined) this.options.cache.store(record.name, record.hash, record.live.raw, fetchedAt);
    this.inputsEmitter.fire();
  }

  /** In configuration order: the lists the snapshot shows, live or standing in from the cache. */
  snapshotInputs(): SnapshotServerInput[] {
    const inputs: SnapshotServerInput[] = [];
    for (const name of this.order) {
      const record = this.records.get(name);
      if (!record) continue;
      const base = { name, state: record.state, filters: record.definition?.tools };
      let list: ToolList | undefined;
      let fromCache = false;
      if (record.state === 'running') {
        list = record.live;
      } else if (isConnecting(record.state) || startsOnDemand(record.state)) {
        // On its way up (the manager reports queued servers as starting), or idle until a request
        // starts it: the last list, or the cached one, stands in.
        list = record.live ?? record.cached;
        fromCache = list !== undefined;
      }
      inputs.push(list ? { ...base, fromCache, fetchedAt: list.fetchedAt, tools: list.prepared } : { ...base, fromCache });
    }
    return inputs;
  }

  dispose(): void {
    this.refresh.dispose();
    this.serverEmitter.dispose();
    this.inputsEmitter.dispose();
  }

  /** A changed connection config is a different server as far as tools go: nothing carries over. */
  private updateDefinition(record: ServerRecord, definition: ServerDefinition | undefined): void {
    record.definition = definition;
    const hash = definition ? hashServerConnection(definition) : undefined;
    if (hash === record.hash) return;
    const previous = record.hash;
    record.hash = hash;
    if (previous !== undefined) {
      this.options.logger.info(`${record.name}: connection config changed; its cached tool list no longer applies`);
      this.refresh.cancel(record.name);
      this.options.cache.drop(record.name, previous);
      record.live = undefined;
    }
    record.cached = hash === undefined ? undefined : this.cachedList(record.name, hash);
  }

  private setState(record: ServerRecord, state: ServerStateKind): void {
    const wasRunning = record.state === 'running' && record.live !== undefined;
    record.state = state;
    // running → running is the connection updating toolCount after a list change; the list itself
    // arrives as a tools event and goes through the debounce.
    if (state === 'running' && !wasRunning) {
      // Newer than any refetch still running for the previous session.
      this.refresh.supersede(record.name);
      const tools = this.options.liveTools(record.name);
      if (tools) this.applyLive(record, tools);
    }
  }

  private toList(tools: readonly Tool[], fetchedAt: number, previous: ToolList | undefined): ToolList {
    const fingerprint = fingerprintTools(tools);
    if (previous && previous.prepared.fingerprint === fingerprint) return { raw: previous.raw, prepared: previous.prepared, fetchedAt };
    // Frozen, so the cache stores it and the prepared list shares its tools. A connection's list is
    // frozen already (shared as it is); anything else is copied once, privately, then frozen.
    const raw = isDeepFrozenData(tools) ? tools : deepFreeze(structuredClone(tools));
    return { raw, prepared: prepareToolList(raw, fingerprint, { shareFrozen: true }), fetchedAt };
  }

  private cachedList(name: string, hash: string): ToolList | undefined {
    const entry = this.options.cache.lookup(name, hash);
    if (!entry) return undefined;
    let list = this.preparedEntries.get(entry);
    if (!list) {
      // The cache's entries are frozen (ToolCache freezes what it loads and stores): share their tools.
      list = { raw: entry.tools, prepared: prepareToolList(entry.tools, undefined, { shareFrozen: true }), fetchedAt: entry.fetchedAt };
      this.preparedEntries.set(entry, list);
    }
    return list;
  }
}
