// The tool catalog: follows the manager's servers, keeps each one's tool list (live, or from the
// cache while it is still connecting), applies the filters and the budget, and answers the gateway
// with one snapshot of what chat may call. Calls to a tool whose server is still starting wait for it.
import { createHash } from 'node:crypto';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { hashServerConnection } from '../config/hash';
import type { ServerDefinition } from '../config/types';
import { systemClock, type Clock, type TimerHandle } from '../connection/clock';
import { isConnecting, type ServerStateChangeEvent, type ServerStateKind } from '../connection/state';
import { Emitter, type Disposable, type Event } from '../events';
import { nullLogger, type Logger } from '../logging';
import type { ServerView, ToolsChangedEvent } from '../manager/serverManager';
import { normalizeMaxExposed } from './budget';
import { DEFAULT_CACHE_TTL_MS, type ToolCacheEntry, type ToolCacheStorage } from './cache';
import { CatalogError } from './errors';
import { describeFilterRule } from './filters';
import { deepFreeze } from './freeze';
import { DEFAULT_REFRESH_DEBOUNCE_MS, RefreshScheduler, type RefreshCounters } from './refreshScheduler';
import {
  buildSnapshot,
  fingerprintTools,
  prepareToolList,
  SnapshotMemo,
  type BuiltSnapshot,
  type PreparedToolList,
  type SnapshotServerInput,
} from './snapshot';
import { ToolCache } from './toolCache';
import type { CatalogServer, CatalogSnapshot, CatalogTool, ToolCallOptions, ToolSource } from './types';

export interface CatalogSettings {
  /** `mcpSwitchboard.tools.deny`: globs on `server/tool`. */
  readonly globalDeny: readonly string[];
  /** `mcpSwitchboard.tools.disabled`: exact `server/tool` entries switched off in the UI. */
  readonly disabled: readonly string[];
  /** `mcpSwitchboard.tools.maxExposed`. */
  readonly maxExposed: number;
  readonly cacheTtlMs: number;
}

/** What the catalog needs of a connection; ServerConnection provides it. */
export interface CatalogConnection {
  readonly tools: readonly Tool[];
  listTools(): Promise<Tool[]>;
}

type ServerInfo = Pick<ServerView, 'name' | 'state' | 'definition'>;

/** What the catalog needs of the manager; ServerManager provides it. */
export interface CatalogManager {
  readonly onDidChangeState: Event<ServerStateChangeEvent>;
  readonly onDidChangeTools: Event<ToolsChangedEvent>;
  servers(): readonly ServerInfo[];
  server(name: string): ServerInfo | undefined;
  connection(name: string): CatalogConnection | undefined;
  callTool(server: string, tool: string, args: Record<string, unknown>, options: ToolCallOptions): Promise<CallToolResult>;
}

export interface ToolCatalogOptions {
  readonly manager: CatalogManager;
  readonly storage: ToolCacheStorage;
  readonly settings?: Partial<CatalogSettings>;
  readonly logger?: Logger;
  /** Cache timestamps and expiry, the list_changed debounce, and call waits. */
  readonly clock?: Clock;
  /** Quiet time after the last tools/list_changed before refetching. Default 300 ms. */
  readonly debounceMs?: number;
}

export interface CatalogDiagnostics {
  readonly refresh: RefreshCounters;
  readonly cacheEntries: number;
  /** Calls waiting for their server to start. */
  readonly waitingCalls: number;
  /** Snapshots rebuilt since construction. */
  readonly builds: number;
}

export const DEFAULT_CATALOG_SETTINGS: CatalogSettings = Object.freeze({
  globalDeny: Object.freeze([]),
  disabled: Object.freeze([]),
  maxExposed: normalizeMaxExposed(undefined),
  cacheTtlMs: DEFAULT_CACHE_TTL_MS,
});

function normalizeSettings(settings: Partial<CatalogSettings>): CatalogSettings {
  const ttl = settings.cacheTtlMs;
  return deepFreeze({
    globalDeny: Array.isArray(settings.globalDeny) ? [...settings.globalDeny] : [],
    disabled: Array.isArray(settings.disabled) ? [...settings.disabled] : [],
    maxExposed: normalizeMaxExposed(settings.maxExposed),
    cacheTtlMs: typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 0 ? ttl : DEFAULT_CACHE_TTL_MS,
  });
}

interface ToolList {
  /** Frozen: the cached value is shared, never copied into and never mutated. */
  readonly raw: readonly Tool[];
  readonly prepared: PreparedToolList;
  readonly fetchedAt: number;
}

interface ServerRecord {
  readonly name: string;
  definition: ServerDefinition | undefined;
  hash: string | undefined;
  state: ServerStateKind;
  /** Configured (or reconfigured) and not yet past its first start: `stopped` still means "about to start". */
  pendingStart: boolean;
  /** The last list fetched from the running server (kept while it reconnects). */
  live: ToolList | undefined;
  /** The stored list for the current connection hash. */
  cached: ToolList | undefined;
}

interface Waiter {
  fail(error: CatalogError): void;
}

/** How long a tools/list waits for a server whose connect timeout is 0 (no limit). */
const MAX_LIST_WAIT_MS = 60_000;

function isDeferrable(record: ServerRecord): boolean {
  return isConnecting(record.state) || (record.state === 'stopped' && record.pendingStart);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class ToolCatalog implements ToolSource, Disposable {
  private readonly changeEmitter = new Emitter<CatalogSnapshot>();
  readonly onDidChange: Event<CatalogSnapshot> = this.changeEmitter.event;
  /** Resolves once the stored cache has been read; cached tools appear from then on. Never rejects. */
  readonly ready: Promise<void>;

  private readonly manager: CatalogManager;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly cache: ToolCache;
  private readonly scheduler: RefreshScheduler<Tool[]>;
  /** Fires a server's name after the catalog has processed a state change of it (or its removal). */
  private readonly serverEmitter = new Emitter<string>();
  private readonly subscriptions: Disposable[] = [];
  private readonly records = new Map<string, ServerRecord>();
  private readonly preparedEntries = new WeakMap<ToolCacheEntry, ToolList>();
  private readonly waiters = new Set<Waiter>();
  private settings: CatalogSettings;
  private order: string[] = [];
  private built: BuiltSnapshot | undefined;
  private dirty = true;
  private flushQueued = false;
  private firedSignature: string;
  /** Warnings of the last announced snapshot, so each is logged once when it appears. */
  private loggedWarnings = new Set<string>();
  private builds = 0;
  private versions = new Map<string, string>();
  private readonly memo = new SnapshotMemo();
  private disposed = false;

  constructor(options: ToolCatalogOptions) {
    this.manager = options.manager;
    this.logger = options.logger ?? nullLogger;
    this.clock = options.clock ?? systemClock;
    this.settings = normalizeSettings({ ...DEFAULT_CATALOG_SETTINGS, ...options.settings });
    this.cache = new ToolCache({ storage: options.storage, ttlMs: this.settings.cacheTtlMs, clock: this.clock, logger: this.logger });
    this.scheduler = new RefreshScheduler<Tool[]>({
      delayMs: options.debounceMs ?? DEFAULT_REFRESH_DEBOUNCE_MS,
      clock: this.clock,
      fetch: (name) => this.fetchTools(name),
      apply: (name, tools) => {
        const record = this.records.get(name);
        if (record) this.applyLive(record, tools);
      },
      fingerprint: fingerprintTools,
      onError: (name, error) => this.logger.warn(`${name}: refreshing the tool list failed: ${errorText(error)}`),
    });
    this.subscriptions.push(
      this.manager.onDidChangeState((event) => this.guard('state change', () => this.onState(event))),
      this.manager.onDidChangeTools((event) => this.guard('tool list change', () => this.onTools(event))),
    );
    this.syncServers();
    this.firedSignature = this.current().signature;
    this.ready = this.cache.load().then(() =>
      this.guard('cache load', () => {
        if (this.disposed) return;
        for (const record of this.records.values()) if (record.hash !== undefined && !record.cached) record.cached = this.cachedList(record.name, record.hash);
        this.markDirty();
      }),
    );
  }

  // ── ToolSource ──

  snapshot(): CatalogSnapshot {
    return this.current().snapshot;
  }

  async callTool(server: string, tool: string, args: Record<string, unknown>, options: ToolCallOptions = {}): Promise<CallToolResult> {
    const target = this.resolveCall(server, tool);
    if (target.state !== 'running') {
      await this.waitForRunning(server, options.signal);
      // The live list replaced the cached one; the tool may be gone or filtered now.
      this.resolveCall(server, tool);
    }
    return this.manager.callTool(server, tool, args, options);
  }

  /**
   * Waits until none of `servers` (every server when omitted) is still starting without any tool
   * list, live or cached; each one for at most its connect timeout. Never rejects: a client that
   * lists tools gets what is there once waiting could not help any more.
   */
  async whenToolsKnown(servers?: readonly string[], signal?: AbortSignal): Promise<void> {
    await this.ready;
    const names = servers ?? [...this.records.keys()];
    await Promise.all(names.map((name) => this.whenServerListed(name, signal)));
  }

  /** Whether the server is starting and nothing is known of its tools yet. */
  isStartingWithoutTools(server: string): boolean {
    const record = this.records.get(server);
    return record !== undefined && isDeferrable(record) && !record.live && !record.cached;
  }

  private whenServerListed(server: string, signal: AbortSignal | undefined): Promise<void> {
    if (!this.isStartingWithoutTools(server) || signal?.aborted) return Promise.resolve();
    // A connect timeout of 0 means "no limit" for the connection; a listing client still deserves an answer.
    const limitMs = this.records.get(server)?.definition?.timeouts.connectMs || MAX_LIST_WAIT_MS;
    return new Promise<void>((resolve) => {
      const finish = () => {
        this.waiters.delete(waiter);
        subscription.dispose();
        this.clock.clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        resolve();
      };
      const waiter: Waiter = { fail: finish };
      const subscription = this.serverEmitter.event((name) => {
        if (name === server && !this.isStartingWithoutTools(server)) finish();
      });
      const timer = this.clock.setTimeout(finish, limitMs);
      signal?.addEventListener('abort', finish, { once: true });
      this.waiters.add(waiter);
    });
  }

  // ── Lookups ──

  toolByQualifiedName(qualifiedName: string): CatalogTool | undefined {
    return this.current().byQualifiedName.get(qualifiedName);
  }

  /**
   * A short hash of what the server exposes (qualified names and definitions): it changes exactly
   * when chat's view of that server changes. Undefined for a server that is not configured.
   */
  catalogVersion(server: string): string | undefined {
    const built = this.current();
    const known = this.versions.get(server);
    if (known !== undefined) return known;
    const entry = built.snapshot.servers.find((candidate) => candidate.name === server);
    if (!entry) return undefined;
    const exposed = entry.tools.filter((tool) => tool.exposed).map((tool) => [tool.qualifiedName, tool.tool]);
    const version = createHash('sha256').update(JSON.stringify(exposed)).digest('hex').slice(0, 12);
    this.versions.set(server, version);
    return version;
  }

  diagnostics(): CatalogDiagnostics {
    return { refresh: { ...this.scheduler.counters }, cacheEntries: this.cache.size, waitingCalls: this.waiters.size, builds: this.builds };
  }

  // ── Control ──

  /** Applies new settings; fires onDidChange (synchronously) if what chat sees changed. */
  updateSettings(settings: Partial<CatalogSettings>): void {
    this.settings = normalizeSettings({ ...this.settings, ...settings });
    this.cache.ttlMs = this.settings.cacheTtlMs;
    this.dirty = true;
    this.flush();
  }

  /**
   * Re-reads the manager's servers. Call after `manager.update()`: the manager announces restarts
   * by state events, but not reordered or removed servers, nor changed `tools` filters.
   */
  reconcile(): void {
    this.syncServers();
    this.flush();
  }

  /**
   * Drops the cached lists (memory and storage) of one server or all, and refetches from the
   * running ones. A running server keeps showing its current list until the new one arrives;
   * one that is not running loses its cached tools. Resolves when refetched and written.
   */
  async invalidate(server?: string): Promise<void> {
    if (this.disposed) return;
    await this.ready;
    const targets = server === undefined ? [...this.records.values()] : [this.records.get(server)].filter((record) => record !== undefined);
    if (server === undefined) this.cache.dropAll();
    else this.cache.drop(server);
    const refetches: Promise<void>[] = [];
    for (const record of targets) {
      this.scheduler.cancel(record.name);
      record.cached = undefined;
      if (record.state === 'running') refetches.push(this.scheduler.refreshNow(record.name));
      else record.live = undefined;
    }
    this.logger.info(`tool cache invalidated for ${server === undefined ? 'all servers' : `"${server}"`}`);
    this.markDirty();
    await Promise.all(refetches);
    await this.cache.idle();
  }

  /** Resolves when no refresh is pending or running and every cache write has landed. */
  async settled(): Promise<void> {
    await this.ready;
    await this.scheduler.idle();
    await this.cache.idle();
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const subscription of this.subscriptions.splice(0)) subscription.dispose();
    this.scheduler.dispose();
    for (const waiter of [...this.waiters]) waiter.fail(new CatalogError('SERVER_UNAVAILABLE', 'the tool catalog was disposed'));
    this.changeEmitter.dispose();
    this.serverEmitter.dispose();
    await this.cache.idle();
  }

  // ── Following the manager ──

  private onState(event: ServerStateChangeEvent): void {
    if (this.disposed) return;
    const record = this.records.get(event.server);
    if (record) {
      this.updateDefinition(record, this.manager.server(event.server)?.definition);
      this.setState(record, event.state.kind);
    } else {
      this.syncServers();
    }
    this.markDirty();
    this.serverEmitter.fire(event.server);
  }

  private onTools(event: ToolsChangedEvent): void {
    const record = this.records.get(event.server);
    if (this.disposed || !record || record.state !== 'running') return;
    if (!record.live) {
      this.applyLive(record, event.tools);
      return;
    }
    const fingerprint = fingerprintTools(event.tools);
    if (fingerprint === record.live.prepared.fingerprint) return;
    // The connection refetches on every list_changed without ordering its answers; one debounced
    // refetch after the burst gives the final list, and recomputes the catalog once.
    this.scheduler.signal(record.name, fingerprint);
  }

  private syncServers(): void {
    const views = this.manager.servers();
    const names = new Set<string>();
    for (const view of views) {
      names.add(view.name);
      let record = this.records.get(view.name);
      if (!record) {
        record = { name: view.name, definition: undefined, hash: undefined, state: 'stopped', pendingStart: true, live: undefined, cached: undefined };
        this.records.set(view.name, record);
      }
      this.updateDefinition(record, view.definition);
      this.setState(record, view.state.kind);
    }
    for (const name of [...this.records.keys()]) {
      if (names.has(name)) continue;
      this.scheduler.cancel(name);
      this.records.delete(name);
      this.serverEmitter.fire(name);
    }
    this.order = views.map((view) => view.name);
    this.markDirty();
  }

  /** A changed connection config is a different server as far as tools go: nothing carries over. */
  private updateDefinition(record: ServerRecord, definition: ServerDefinition | undefined): void {
    record.definition = definition;
    const hash = definition ? hashServerConnection(definition) : undefined;
    if (hash === record.hash) return;
    const previous = record.hash;
    record.hash = hash;
    if (previous !== undefined) {
      this.logger.info(`${record.name}: connection config changed; its cached tool list no longer applies`);
      this.scheduler.cancel(record.name);
      this.cache.drop(record.name, previous);
      record.live = undefined;
      record.pendingStart = true;
    }
    record.cached = hash === undefined ? undefined : this.cachedList(record.name, hash);
  }

  private setState(record: ServerRecord, state: ServerStateKind): void {
    const wasRunning = record.state === 'running' && record.live !== undefined;
    record.state = state;
    // running → running is the connection updating toolCount after a list change; the list itself
    // arrives as a tools event and goes through the debounce.
    if (state === 'running' && !wasRunning) {
      record.pendingStart = false;
      // Newer than any refetch still running for the previous session.
      this.scheduler.supersede(record.name);
      const connection = this.manager.connection(record.name);
      if (connection) this.applyLive(record, connection.tools);
    } else if (!isConnecting(state) && state !== 'stopped') {
      record.pendingStart = false;
    }
  }

  private async fetchTools(name: string): Promise<Tool[] | undefined> {
    const record = this.records.get(name);
    if (!record || record.state !== 'running') return undefined;
    return this.manager.connection(name)?.listTools();
  }

  /** A fresh list from the server: shown at once, and stored unless empty. */
  private applyLive(record: ServerRecord, tools: readonly Tool[]): void {
    const fetchedAt = this.clock.now();
    record.live = this.toList(tools, fetchedAt, record.live ?? record.cached);
    if (record.hash !== undefined) this.cache.store(record.name, record.hash, record.live.raw, fetchedAt);
    this.markDirty();
  }

  private toList(tools: readonly Tool[], fetchedAt: number, previous: ToolList | undefined): ToolList {
    const fingerprint = fingerprintTools(tools);
    if (previous && previous.prepared.fingerprint === fingerprint) return { raw: previous.raw, prepared: previous.prepared, fetchedAt };
    // One private, frozen copy: the cache stores it and the prepared list shares its tools.
    const raw = deepFreeze(structuredClone(tools));
    return { raw, prepared: prepareToolList(raw, fingerprint, { shareFrozen: true }), fetchedAt };
  }

  private cachedList(name: string, hash: string): ToolList | undefined {
    const entry = this.cache.lookup(name, hash);
    if (!entry) return undefined;
    let list = this.preparedEntries.get(entry);
    if (!list) {
      // The cache's entries are frozen (ToolCache freezes what it loads and stores): share their tools.
      list = { raw: entry.tools, prepared: prepareToolList(entry.tools, undefined, { shareFrozen: true }), fetchedAt: entry.fetchedAt };
      this.preparedEntries.set(entry, list);
    }
    return list;
  }

  // ── Snapshot ──

  private inputs(): SnapshotServerInput[] {
    const inputs: SnapshotServerInput[] = [];
    for (const name of this.order) {
      const record = this.records.get(name);
      if (!record) continue;
      const base = { name, state: record.state, filters: record.definition?.tools };
      let list: ToolList | undefined;
      let fromCache = false;
      if (record.state === 'running') {
        list = record.live;
      } else if (isDeferrable(record)) {
        list = record.live ?? record.cached;
        fromCache = list !== undefined;
      }
      inputs.push(list ? { ...base, fromCache, fetchedAt: list.fetchedAt, tools: list.prepared } : { ...base, fromCache });
    }
    return inputs;
  }

  private current(): BuiltSnapshot {
    if (!this.built || this.dirty) {
      this.dirty = false;
      this.built = buildSnapshot(this.inputs(), this.settings, { memo: this.memo });
      this.builds += 1;
      this.versions = new Map();
    }
    return this.built;
  }

  private markDirty(): void {
    this.dirty = true;
    if (this.flushQueued || this.disposed) return;
    this.flushQueued = true;
    // Events arrive in bursts (a start fires several per server): build and announce once per burst.
    queueMicrotask(() => {
      this.flushQueued = false;
      this.guard('snapshot update', () => this.flush());
    });
  }

  private flush(): void {
    if (this.disposed) return;
    const built = this.current();
    if (built.signature === this.firedSignature) return;
    this.firedSignature = built.signature;
    const warnings = new Set(built.snapshot.warnings.map((warning) => warning.message));
    for (const message of warnings) if (!this.loggedWarnings.has(message)) this.logger.warn(message);
    this.loggedWarnings = warnings;
    this.changeEmitter.fire(built.snapshot);
  }

  // ── Calls ──

  /** The server entry for a callable tool, or the reason it cannot be called. */
  private resolveCall(server: string, tool: string): CatalogServer {
    const entry = this.snapshot().servers.find((candidate) => candidate.name === server);
    if (!entry) throw new CatalogError('UNKNOWN_TOOL', `no server named "${server}" is configured`);
    const found = entry.tools.find((candidate) => candidate.name === tool);
    if (!found) {
      if (entry.state !== 'running' && entry.tools.length === 0) {
        throw new CatalogError('SERVER_UNAVAILABLE', `server "${server}" is ${entry.state}, so its tool "${tool}" cannot be called`);
      }
      throw new CatalogError('UNKNOWN_TOOL', `server "${server}" has no tool "${tool}"`);
    }
    const rule = found.filteredBy;
    if (!found.exposed && rule) {
      const code = rule.kind === 'disabledSetting' ? 'TOOL_DISABLED' : 'TOOL_FILTERED';
      throw new CatalogError(code, `tool "${tool}" of server "${server}" is ${describeFilterRule(rule, server)}`, rule);
    }
    return entry;
  }

  /** Waits, within the server's requestMs, until the catalog has seen it running. */
  private waitForRunning(server: string, signal: AbortSignal | undefined): Promise<void> {
    const requestMs = this.records.get(server)?.definition?.timeouts.requestMs ?? 0;
    if (signal?.aborted) return Promise.reject(new CatalogError('CANCELLED', `the call to server "${server}" was cancelled`));
    return new Promise<void>((resolve, reject) => {
      let timer: TimerHandle | undefined;
      const finish = (error?: CatalogError) => {
        this.waiters.delete(waiter);
        subscription.dispose();
        if (timer !== undefined) this.clock.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve();
      };
      const waiter: Waiter = { fail: finish };
      const onAbort = () => finish(new CatalogError('CANCELLED', `the call to server "${server}" was cancelled while it was starting`));
      const check = () => {
        const record = this.records.get(server);
        if (!record) finish(new CatalogError('SERVER_UNAVAILABLE', `server "${server}" was removed while a call was waiting for it`));
        else if (record.state === 'running') finish();
        else if (!isDeferrable(record)) finish(new CatalogError('SERVER_UNAVAILABLE', `server "${server}" is ${record.state}; the call was not sent`));
      };
      const subscription = this.serverEmitter.event((name) => {
        if (name === server) check();
      });
      this.waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (requestMs > 0) {
        timer = this.clock.setTimeout(
          () => finish(new CatalogError('SERVER_UNAVAILABLE', `server "${server}" did not start within ${requestMs} ms (timeouts.requestMs); the call was not sent`)),
          requestMs,
        );
      }
      check();
    });
  }

  private guard(what: string, action: () => void): void {
    try {
      action();
    } catch (error) {
      this.logger.error(`tool catalog: handling a ${what} failed: ${errorText(error)}`);
    }
  }
}
