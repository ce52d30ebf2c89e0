// The tool catalog: follows the manager's servers (serverRecords.ts), keeps each one's tool list
// (live, or from the cache while it is still connecting), applies the filters and the budget, and
// answers the gateway with one snapshot of what chat may call. It is the one gate for calls: a
// call is checked here against that snapshot, and waits (serverWaits.ts) for a server still starting.
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { systemClock, type Clock } from '../base/clock';
import { isServed, startsOnDemand, type ServerStateChangeEvent } from '../state/serverState';
import type { Disposable, Event } from '../base/events';
import { nullLogger, type Logger } from '../base/logging';
import { containFailure } from '../base/contain';
import type { ToolsChangeEvent } from '../connection/offerKeeper';
import type { ServerView } from '../manager/serverManager';
import { type CachedOffer, type ToolCacheStorage } from './cache';
import { CatalogError } from './errors';
import { describeFilterRule } from './filters';
import { DEFAULT_REFRESH_DEBOUNCE_MS, RefreshScheduler, type RefreshCounters } from './refreshScheduler';
import { ServerRecords, type ServerRecord } from './serverRecords';
import { ServerWaits } from './serverWaits';
import { DEFAULT_CATALOG_SETTINGS, normalizeSettings, type CatalogSettings } from './settings';
import { fingerprintTools, type BuiltSnapshot } from './snapshot';
import { SnapshotPublisher } from './snapshotPublisher';
import { ToolCache } from './toolCache';
import type { CallerOptions } from '../connection/connectionOptions';
import type { CatalogServer, CatalogSnapshot, CatalogTool, ToolSource } from './types';
import { errorMessage } from '../base/errorMessage';

/** What the catalog needs of a connection; ServerConnection provides it. */
export interface CatalogConnection {
  readonly tools: readonly Tool[];
  listTools(): Promise<Tool[]>;
}

type ServerInfo = Pick<ServerView, 'name' | 'state' | 'definition'>;

/** What the catalog needs of the manager; ServerManager provides it. */
export interface CatalogManager {
  readonly onDidChangeState: Event<ServerStateChangeEvent>;
  readonly onDidChangeTools: Event<ToolsChangeEvent>;
  servers(): readonly ServerInfo[];
  server(name: string): ServerInfo | undefined;
  connection(name: string): CatalogConnection | undefined;
  forwardToolCall(server: string, tool: string, args: Record<string, unknown>, options: CallerOptions): Promise<CallToolResult>;
  /** Starts an idle server: a call needs it. */
  wake(server: string): void;
  /** Starts an idle server with nothing cached, to learn its lists; it idles again once unused. */
  learn(server: string): void;
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


export class ToolCatalog implements ToolSource, Disposable {
  /** Fires when what chat sees changed: at most once per burst of events. */
  readonly onDidChange: Event<CatalogSnapshot>;
  /** Resolves once the stored cache has been read; cached tools appear from then on. Never rejects. */
  readonly ready: Promise<void>;

  private readonly manager: CatalogManager;
  private readonly logger: Logger;
  private readonly cache: ToolCache;
  private readonly scheduler: RefreshScheduler<Tool[]>;
  private readonly records: ServerRecords;
  private readonly waits: ServerWaits;
  private readonly subscriptions: Disposable[] = [];
  private readonly publisher: SnapshotPublisher;
  private settings: CatalogSettings;
  private readonly clock: Clock;
  private disposed = false;
  /** The stored cache has been read: an idle server without a list has none to stand in. */
  private loaded = false;

  constructor(options: ToolCatalogOptions) {
    this.manager = options.manager;
    this.logger = options.logger ?? nullLogger;
    const clock = options.clock ?? systemClock;
    this.clock = clock;
    this.settings = normalizeSettings({ ...DEFAULT_CATALOG_SETTINGS, ...options.settings });
    this.cache = new ToolCache({ storage: options.storage, ttlMs: this.settings.cacheTtlMs, clock, logger: this.logger });
    this.scheduler = new RefreshScheduler<Tool[]>({
      delayMs: options.debounceMs ?? DEFAULT_REFRESH_DEBOUNCE_MS,
      clock,
      fetch: (name) => this.fetchTools(name),
      apply: (name, tools) => {
        const record = this.records.record(name);
        if (record) this.records.applyLive(record, tools);
      },
      fingerprint: fingerprintTools,
      onError: (name, error) => this.logger.warn(`${name}: refreshing the tool list failed: ${errorMessage(error)}`),
    });
    this.publisher = new SnapshotPublisher({
      inputs: () => this.records.snapshotInputs(),
      settings: () => this.settings,
      logger: this.logger,
    });
    this.onDidChange = this.publisher.onDidChange;
    this.records = new ServerRecords({
      cache: this.cache,
      scheduler: this.scheduler,
      clock,
      logger: this.logger,
      liveTools: (name) => this.manager.connection(name)?.tools,
      onChange: () => this.publisher.markDirty(),
    });
    this.waits = new ServerWaits(this.records, clock);
    this.subscriptions.push(
      this.manager.onDidChangeState((event) => containFailure(this.logger, 'tool catalog: handling a state change', () => this.onState(event))),
      this.manager.onDidChangeTools((event) => containFailure(this.logger, 'tool catalog: handling a tool list change', () => this.onTools(event))),
    );
    this.records.sync(this.manager.servers());
    this.publisher.settle();
    this.ready = this.cache.load().then(() =>
      containFailure(this.logger, 'tool catalog: handling a cache load', () => {
        if (this.disposed) return;
        this.loaded = true;
        this.records.loadCached();
        for (const record of this.records.all()) this.learnIfUnknown(record);
      }),
    );
  }

  // ── ToolSource: what the gateway and the dispatcher tools ask ──

  snapshot(): CatalogSnapshot {
    return this.current().snapshot;
  }

  /**
   * The one gate for a call: the tool must be in the snapshot and exposed; a server that is still
   * starting is waited for (within its requestMs), then checked again, since the live list
   * replaced the cached one and the tool may be gone or filtered now.
   */
  async callExposedTool(server: string, tool: string, args: Record<string, unknown>, options: CallerOptions = {}): Promise<CallToolResult> {
    let target: CatalogServer;
    try {
      // Synchronous when it can be: a waiting call is registered before this returns.
      target = this.resolveCall(server, tool);
    } catch (error) {
      target = await this.resolveWhenListed(server, tool, error, options.signal);
    }
    if (target.state !== 'running') {
      if (startsOnDemand(target.state)) this.manager.wake(server);
      await this.waits.whenRunning(server, options.signal);
      this.resolveCall(server, tool);
    }
    return this.manager.forwardToolCall(server, tool, args, options);
  }

  /**
   * Waits until none of `servers` (every server when omitted) is still starting without any tool
   * list, live or cached; each one for at most its connect timeout. Never rejects: a client that
   * lists tools gets what is there once waiting could not help any more.
   */
  async whenToolsKnown(servers?: readonly string[], signal?: AbortSignal): Promise<void> {
    await this.ready;
    const names = servers ?? this.records.names();
    await Promise.all(names.map((name) => this.waits.whenListed(name, signal)));
  }

  /** Whether the server is starting and nothing is known of its tools yet. */
  isStartingWithoutTools(server: string): boolean {
    return this.waits.isStartingWithoutTools(server);
  }

  // ── What servers offer besides tools, cached next to their tools ──

  /** The offer stored for the server's current connection config, if any and unexpired. */
  cachedOffer(server: string): CachedOffer | undefined {
    const hash = this.records.record(server)?.hash;
    return hash === undefined ? undefined : this.cache.lookup(server, hash)?.offer;
  }

  /** Stores what a running server offers besides tools, under the same key as its tools. */
  rememberOffer(server: string, offer: CachedOffer): void {
    const hash = this.records.record(server)?.hash;
    if (hash === undefined || this.disposed) return;
    this.cache.storeOffer(server, hash, structuredClone(offer), this.clock.now());
  }

  // ── Lookups ──

  toolByQualifiedName(qualifiedName: string): CatalogTool | undefined {
    return this.current().byQualifiedName.get(qualifiedName);
  }

  /** A short hash of what chat sees of the server; changes exactly when that changes. */
  catalogVersion(server: string): string | undefined {
    return this.publisher.version(server);
  }

  diagnostics(): CatalogDiagnostics {
    return { refresh: { ...this.scheduler.counters }, cacheEntries: this.cache.size, waitingCalls: this.waits.size, builds: this.publisher.builds };
  }

  // ── Control ──

  /** Applies new settings; fires onDidChange (synchronously) if what chat sees changed. */
  updateSettings(settings: Partial<CatalogSettings>): void {
    this.settings = normalizeSettings({ ...this.settings, ...settings });
    this.cache.ttlMs = this.settings.cacheTtlMs;
    this.publisher.markDirty();
    this.publisher.flush();
  }

  /**
   * Re-reads the manager's servers. Call after `manager.update()`: the manager announces restarts
   * by state events, but not reordered or removed servers, nor changed `tools` filters.
   */
  reconcile(): void {
    this.records.sync(this.manager.servers());
    this.publisher.flush();
  }

  /**
   * Drops the cached lists (memory and storage) of one server or all, and refetches from the
   * running ones. A running server keeps showing its current list until the new one arrives;
   * one that is not running loses its cached tools. Resolves when refetched and written.
   */
  async invalidate(server?: string): Promise<void> {
    if (this.disposed) return;
    await this.ready;
    const targets = server === undefined ? this.records.all() : [this.records.record(server)].filter((record) => record !== undefined);
    if (server === undefined) this.cache.dropAll();
    else this.cache.drop(server);
    const refetches: Promise<void>[] = [];
    for (const record of targets) {
      this.scheduler.cancel(record.name);
      record.cached = undefined;
      if (record.state === 'running') refetches.push(this.scheduler.refreshNow(record.name));
      else record.live = undefined;
      this.learnIfUnknown(record);
    }
    this.logger.info(`tool cache invalidated for ${server === undefined ? 'all servers' : `"${server}"`}`);
    this.publisher.markDirty();
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
    this.waits.failAll(new CatalogError('SERVER_UNAVAILABLE', 'the tool catalog was disposed'));
    this.publisher.dispose();
    this.records.dispose();
    await this.cache.idle();
  }

  // ── Following the manager ──

  private onState(event: ServerStateChangeEvent): void {
    if (this.disposed) return;
    const record = this.records.record(event.server);
    if (record) this.records.update(record, this.manager.server(event.server)?.definition, event.state.kind);
    else this.records.sync(this.manager.servers());
    const current = this.records.record(event.server);
    if (current) this.learnIfUnknown(current);
  }

  /**
   * An idle server with nothing to show for it (never run with this configuration, or its cache
   * dropped or expired) starts once to list what it offers; the connection idles it again after.
   */
  private learnIfUnknown(record: ServerRecord): void {
    const unknown = () => this.loaded && !this.disposed && startsOnDemand(record.state) && !record.live && !record.cached && this.records.record(record.name) === record;
    // Not from inside the state event being delivered: its other listeners must see idle before starting.
    if (unknown()) queueMicrotask(() => containFailure(this.logger, 'tool catalog: handling a learning a server', () => unknown() && this.manager.learn(record.name)));
  }

  private onTools(event: ToolsChangeEvent): void {
    const record = this.records.record(event.server);
    if (this.disposed || !record || record.state !== 'running') return;
    if (!record.live) {
      this.records.applyLive(record, event.tools);
      return;
    }
    const fingerprint = fingerprintTools(event.tools);
    if (fingerprint === record.live.prepared.fingerprint) return;
    // The connection refetches on every list_changed without ordering its answers; one debounced
    // refetch after the burst gives the final list, and recomputes the catalog once.
    this.scheduler.signal(record.name, fingerprint);
  }

  private async fetchTools(name: string): Promise<Tool[] | undefined> {
    const record = this.records.record(name);
    if (!record || record.state !== 'running') return undefined;
    return this.manager.connection(name)?.listTools();
  }

  private current(): BuiltSnapshot {
    return this.publisher.current();
  }

  /**
   * A tool of a server that is starting with nothing known of its tools is unknown only for now:
   * its list is waited for (within the connect timeout), once.
   */
  private async resolveWhenListed(server: string, tool: string, refusal: unknown, signal: AbortSignal | undefined): Promise<CatalogServer> {
    if (!this.waits.isStartingWithoutTools(server)) throw refusal;
    await this.waits.whenListed(server, signal);
    if (this.waits.isStartingWithoutTools(server)) throw new CatalogError('SERVER_UNAVAILABLE', `server "${server}" is still starting; try again shortly`);
    return this.resolveCall(server, tool);
  }

  /**
   * Throws the reason a tool may not be called now, as the gate would: for callers that ask before
   * they call (a confirmation dialog should not be shown for a tool that will be refused).
   */
  assertCallable(server: string, tool: string): void {
    this.resolveCall(server, tool);
  }

  /** The server entry for a callable tool, or the reason it cannot be called. */
  private resolveCall(server: string, tool: string): CatalogServer {
    const entry = this.snapshot().servers.find((candidate) => candidate.name === server);
    if (!entry) throw new CatalogError('UNKNOWN_TOOL', `no server named "${server}" is configured`);
    if (!isServed(entry.state)) throw new CatalogError('SERVER_HELD_BACK', `server "${server}" is ${entry.state}`);
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

}
