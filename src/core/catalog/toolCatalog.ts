// The tool catalog: reads the manager's servers and their connections' lists (serverLists.ts), with
// the cache standing in while a server is still connecting, applies the filters and the budget,
// and answers the gateway with one snapshot of what chat may call, rebuilt when they change. It is
// the one gate for calls: a call is checked here against that snapshot, and waits (serverWaits.ts)
// for a server still starting.
import type { CallToolResult } from '@modelcontextprotocol/client';
import { systemClock, type Clock, type TimerHandle } from '../base/clock';
import { containFailure } from '../base/contain';
import { Emitter, type Disposable, type Event } from '../base/events';
import { nullLogger, type Logger } from '../base/logging';
import type { CallerOptions, CallOutcome, ToolsChangeEvent } from '../connection';
import { isSwitchboardError, startsOnDemand, type ErrorCode, type ServerStateChangeEvent } from '../state';
import { type CachedOffer, type ToolCacheStorage } from './cache';
import { ToolCallGate } from './callGate';
import { ToolSearch } from './toolSearch';
import type { CatalogManager } from './catalogManager';
import { SwitchboardError } from '../state';
import { fingerprintTools, type PreparedTool } from './preparedList';
import { DEFAULT_REFRESH_DEBOUNCE_MS, type RefreshCounters } from './refreshScheduler';
import { ServerLists, type ServerFacts } from './serverLists';
import { ServerWaits } from './serverWaits';
import { DEFAULT_CATALOG_SETTINGS, normalizeSettings, type CatalogSettings } from './settings';
import type { BuiltSnapshot } from './snapshot';
import { SnapshotPublisher } from './snapshotPublisher';
import { ToolCache } from './toolCache';
import type { CallReach, CatalogSnapshot, CatalogTool, ReadyOptions, ReadyTool, ToolAddress, ToolHit, ToolSource } from './types';

export interface ToolCatalogOptions {
  readonly manager: CatalogManager;
  readonly storage: ToolCacheStorage;
  readonly settings?: Partial<CatalogSettings>;
  readonly logger?: Logger;
  /** Cache timestamps and expiry, the list_changed debounce, and call waits. */
  readonly clock?: Clock;
  /** Quiet time after the last tools/list_changed before refetching. Default 300 ms. */
  readonly debounceMs?: number;
  /**
   * When the search index follows the catalog: `background` (the default) a while after each burst
   * of changes, off the path of the servers' start; `onSearch` only when something searches (the
   * machine host, whose clients search their own catalogs, then never builds one).
   */
  readonly searchIndex?: SearchIndexing;
}

export type SearchIndexing = 'background' | 'onSearch';

/**
 * How long after a change the index follows in the background: long enough that servers starting
 * together land in one update after they ran (an update between two servers' lists delays the
 * second), short enough that a first search seldom finds the index behind. A search never waits
 * for it: a search of a newer snapshot updates the index first.
 */
export const SEARCH_INDEX_DELAY_MS = 250;

export interface CatalogDiagnostics {
  readonly refresh: RefreshCounters;
  readonly cacheEntries: number;
  /** Calls waiting for their server to start. */
  readonly waitingCalls: number;
  /** Snapshots rebuilt since construction. */
  readonly builds: number;
}

/** How a call through the catalog ended: a result, a result with `isError`, or an error's code. */
export type CallSettlement = 'ok' | 'toolError' | ErrorCode | 'failed';

export interface SettledCall {
  readonly server: string;
  readonly tool: string;
  readonly outcome: CallSettlement;
  /** From the call's arrival to its end, waits for the server included. */
  readonly ms: number;
  /** Who asked, as the caller's options say (a gateway client's name and version); absent for chat. */
  readonly caller?: string;
}

export class ToolCatalog implements ToolSource, Disposable {
  /** Fires when what chat sees changed: at most once per burst of events. */
  readonly onDidChange: Event<CatalogSnapshot>;
  /** Fires once per call from chat or a gateway client, when it ends: what metrics count. */
  readonly onDidSettleCall: Event<SettledCall>;
  private readonly callsSettled = new Emitter<SettledCall>();
  /** Resolves once the stored cache has been read; cached tools appear from then on. Never rejects. */
  readonly ready: Promise<void>;

  private readonly manager: CatalogManager;
  private readonly logger: Logger;
  private readonly cache: ToolCache;
  private readonly lists: ServerLists;
  /** A server's state or lists may have changed (undefined: any server's): what waits check. */
  private readonly serverChanges = new Emitter<string | undefined>();
  private readonly waits: ServerWaits;
  private readonly calls: ToolCallGate;
  private readonly toolSearch: ToolSearch;
  private readonly subscriptions: Disposable[] = [];
  private readonly publisher: SnapshotPublisher;
  private settings: CatalogSettings;
  private readonly clock: Clock;
  private disposed = false;
  /** The stored cache has been read: an idle server without a list has none to stand in. */
  private loaded = false;

  constructor(options: ToolCatalogOptions) {
    // Each part is built from the parts before it: nothing here refers to a field assigned later.
    const manager = options.manager;
    this.manager = manager;
    this.logger = options.logger ?? nullLogger;
    const clock = options.clock ?? systemClock;
    this.clock = clock;
    this.settings = normalizeSettings({ ...DEFAULT_CATALOG_SETTINGS, ...options.settings });
    this.cache = new ToolCache({ storage: options.storage, ttlMs: this.settings.cacheTtlMs, clock, logger: this.logger });
    const lists = new ServerLists({
      manager,
      cache: this.cache,
      clock,
      logger: this.logger,
      debounceMs: options.debounceMs ?? DEFAULT_REFRESH_DEBOUNCE_MS,
      onTaken: (name) => this.changed(name),
    });
    this.lists = lists;
    const publisher = new SnapshotPublisher({ inputs: () => lists.snapshotInputs(), settings: () => this.settings, logger: this.logger });
    this.publisher = publisher;
    this.onDidChange = publisher.onDidChange;
    this.onDidSettleCall = this.callsSettled.event;
    this.waits = new ServerWaits(
      {
        facts: (name) => lists.facts(name),
        // The connection's definition: every valid entry has a connection, and reading it allocates nothing on a call's path.
        definition: (name) => manager.connection(name)?.definition,
        onDidChangeServer: this.serverChanges.event,
      },
      clock,
    );
    this.calls = new ToolCallGate({
      snapshot: () => publisher.current().snapshot,
      toolByQualifiedName: (name) => publisher.current().byQualifiedName.get(name),
      waits: this.waits,
      manager,
      clock: this.clock,
    });
    this.toolSearch = new ToolSearch(() => publisher.current().snapshot);
    // The search index follows the snapshots off the request path: once per burst of changes.
    if ((options.searchIndex ?? 'background') === 'background') this.subscriptions.push(publisher.onDidChange(() => this.indexSoon()));
    this.subscriptions.push(
      this.manager.onDidChangeState((event) =>
        containFailure(this.logger, 'tool catalog: handling a state change', () => this.onState(event)),
      ),
      this.manager.onDidChangeTools((event) =>
        containFailure(this.logger, 'tool catalog: handling a tool list change', () => this.onTools(event)),
      ),
      this.manager.onDidChangeServers(() =>
        containFailure(this.logger, 'tool catalog: following the configured servers', () => this.followServers()),
      ),
    );
    // Servers already running have their lists stored, as if they had just started.
    for (const facts of lists.all()) if (facts.state === 'running') lists.take(facts.name);
    this.publisher.settle();
    this.ready = this.cache.load().then(() =>
      containFailure(this.logger, 'tool catalog: handling a cache load', () => {
        if (this.disposed) return;
        this.loaded = true;
        this.changed(undefined);
        for (const facts of this.lists.all()) this.learnIfUnknown(facts);
      }),
    );
  }

  // ── ToolSource: what the gateway and the dispatcher tools ask ──

  snapshot(): CatalogSnapshot {
    return this.current().snapshot;
  }

  /**
   * A call from chat or a gateway client: the gate (callGate.ts) decides whether the tool may be
   * called, and a server that is not ready is waited for once (until the call's readyBy) and the
   * tool checked again; then the call goes to the server's connection.
   */
  async callExposedTool<O extends CallerOptions = CallerOptions>(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: O = {} as O,
    reach: CallReach = 'exposed',
  ): Promise<CallOutcome<O, CallToolResult>> {
    const settle = this.callsSettled.listenerCount === 0 ? undefined : this.settler(server, tool, options.caller);
    try {
      // A ready server's call is sent in this very turn (it is in flight, for idle stop and
      // diagnostics, as soon as this returns); only a call that must wait awaits.
      const now = this.calls.readyNow({ server, tool }, { signal: options.signal, readyBy: options.readyBy, reach });
      const { readyBy } = now instanceof Promise ? await now : now;
      // The same deadline goes on: if the session drops before the call is sent, the connection
      // waits for the next one only as long as is left.
      const sent = readyBy === undefined ? options : { ...options, readyBy };
      const result = await this.manager.usableConnection(server).sendToolCall(tool, args, sent);
      settle?.(isErrorResult(result) ? 'toolError' : 'ok');
      return result;
    } catch (error) {
      settle?.(isSwitchboardError(error) ? error.code : 'failed');
      throw error;
    }
  }

  /** Tells onDidSettleCall's listeners how a call that starts now ended. */
  private settler(server: string, tool: string, caller: string | undefined): (outcome: CallSettlement) => void {
    const started = this.clock.now();
    return (outcome) =>
      this.callsSettled.fire({ server, tool, outcome, ms: this.clock.now() - started, ...(caller === undefined ? {} : { caller }) });
  }

  /**
   * Throws the reason a tool may not be called now, as the gate would: for callers that ask before
   * they call (a confirmation dialog should not be shown for a tool that will be refused).
   */
  assertCallable(server: string, tool: string, reach: CallReach = 'exposed'): void {
    this.calls.resolve(server, tool, reach);
  }

  /**
   * Every eligible tool (those the budget left out of chat's list included) ranked for `query`:
   * what the dispatcher's search offers a model, which then calls a hit with `reach: 'eligible'`.
   */
  searchTools(query: string, options?: { readonly limit?: number; readonly server?: string }): ToolHit[] {
    return this.toolSearch.search(query, options);
  }

  private indexing: TimerHandle | undefined;

  /** Updates the search index SEARCH_INDEX_DELAY_MS after a change (a search before then updates it itself). */
  private indexSoon(): void {
    if (this.indexing !== undefined || this.disposed) return;
    this.indexing = this.clock.setTimeout(() => {
      this.indexing = undefined;
      if (!this.disposed) containFailure(this.logger, 'tool catalog: updating the search index', () => this.toolSearch.update());
    }, SEARCH_INDEX_DELAY_MS);
    (this.indexing as { unref?: () => void }).unref?.();
  }

  /** Whether the search index holds the current snapshot (what a search would find without updating it). */
  get searchIndexCurrent(): boolean {
    return this.toolSearch.isCurrent();
  }

  /**
   * Waits until none of `servers` (every server when omitted) is still starting without any tool
   * list, live or cached; each one for at most its connect timeout. Never rejects: a client that
   * lists tools gets what is there once waiting could not help any more.
   */
  async whenToolsKnown(servers?: readonly string[], signal?: AbortSignal): Promise<void> {
    await this.ready;
    const names = servers ?? this.lists.all().map((facts) => facts.name);
    await Promise.all(names.map((name) => this.waits.whenListed(name, signal)));
  }

  readyTool(address: ToolAddress, options?: ReadyOptions): Promise<ReadyTool> {
    return this.calls.ready(address, options);
  }

  /** The one wait for a request about a server (its resources, prompts): resolves with the request's deadline. */
  async readyServer(server: string, options?: Pick<ReadyOptions, 'signal' | 'readyBy'>): Promise<number | undefined> {
    return this.calls.readyServer(server, options);
  }

  /**
   * The tools last known of a server that chat is not offered now (stopped, failed, blocked): its
   * last live list, else its cached one. For the Servers view, which shows them as not offered.
   */
  knownTools(server: string): readonly PreparedTool[] {
    const facts = this.lists.facts(server);
    return (facts?.live ?? facts?.cached)?.prepared.tools ?? [];
  }

  // ── What servers offer besides tools, cached next to their tools ──

  /** The offer stored for the server's current connection config, if any and unexpired. */
  cachedOffer(server: string): CachedOffer | undefined {
    const hash = this.lists.facts(server)?.hash;
    return hash === undefined ? undefined : this.cache.lookup(server, hash)?.offer;
  }

  /** Stores what a running server offers besides tools, under the same key as its tools. */
  rememberOffer(server: string, offer: CachedOffer): void {
    const hash = this.lists.facts(server)?.hash;
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
    return {
      refresh: { ...this.lists.refresh.counters },
      cacheEntries: this.cache.size,
      waitingCalls: this.waits.size,
      builds: this.publisher.builds,
    };
  }

  // ── Control ──

  /** Applies new settings; fires onDidChange (synchronously) if what chat sees changed. */
  updateSettings(settings: Partial<CatalogSettings>): void {
    this.settings = normalizeSettings({ ...this.settings, ...settings });
    this.cache.ttlMs = this.settings.cacheTtlMs;
    this.publisher.markDirty();
    this.publisher.flush();
  }

  /** The manager's servers changed (added, removed, reordered, a filter edited): the snapshot follows. */
  private followServers(): void {
    if (this.disposed) return;
    this.lists.followConfiguration();
    // A server handed over running under a new connection config (make before break) has its list stored now.
    for (const facts of this.lists.all())
      if (facts.state === 'running' && facts.live && !this.lists.isStored(facts.name, facts.live.prepared.fingerprint))
        this.lists.take(facts.name);
    this.serverChanges.fire(undefined);
    this.publisher.markDirty();
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
    const targets = server === undefined ? this.lists.all() : [this.lists.facts(server)].filter((facts) => facts !== undefined);
    if (server === undefined) this.cache.dropAll();
    else this.cache.drop(server);
    const refetches: Promise<void>[] = [];
    const learning: string[] = [];
    for (const { name, state } of targets) {
      this.lists.refresh.cancel(name);
      if (state === 'running') refetches.push(this.lists.refresh.refreshNow(name, (server) => this.lists.relist(server)));
      else this.lists.forget(name);
      const facts = this.lists.facts(name);
      if (facts && this.learnIfUnknown(facts)) learning.push(name);
    }
    this.changed(server);
    // A lazy server starts once to list its tools again (learnIfUnknown's microtask starts it, so
    // this one runs after): what it lists is part of the answer.
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    for (const name of learning) refetches.push(this.waits.whenListed(name, undefined));
    this.logger.info(`tool cache invalidated for ${server === undefined ? 'all servers' : `"${server}"`}`);
    this.publisher.markDirty();
    await Promise.all(refetches);
    await this.cache.idle();
  }

  /** Resolves when no refresh is pending or running and every cache write has landed. */
  async settled(): Promise<void> {
    await this.ready;
    await this.lists.refresh.idle();
    await this.cache.idle();
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.indexing !== undefined) this.clock.clearTimeout(this.indexing);
    for (const subscription of this.subscriptions.splice(0)) subscription.dispose();
    this.lists.dispose();
    this.callsSettled.dispose();
    this.waits.failAll(new SwitchboardError('SERVER_UNAVAILABLE', 'the tool catalog was disposed', { notSent: true }));
    this.publisher.dispose();
    this.serverChanges.dispose();
    await this.cache.idle();
  }

  // ── Following the manager ──

  private onState(event: ServerStateChangeEvent): void {
    if (this.disposed) return;
    const { server, state, previous } = event;
    // running → running is the connection updating toolCount after a list change; the list itself
    // arrives as a tools event and goes through the debounce.
    if (state.kind === 'running' && previous.kind !== 'running') {
      // Newer than any refetch still running for the previous session.
      this.lists.refresh.supersede(server);
      this.lists.take(server);
    } else if (state.kind !== previous.kind) {
      this.changed(server);
    }
    const facts = this.lists.facts(server);
    if (facts) this.learnIfUnknown(facts);
  }

  /**
   * An idle server with nothing to show for it (never run with this configuration, or its cache
   * dropped or expired) starts once to list what it offers; the connection idles it again after.
   * True when it will.
   */
  private learnIfUnknown({ name }: ServerFacts): boolean {
    const unknown = () => {
      const facts = this.lists.facts(name);
      return this.loaded && !this.disposed && facts !== undefined && startsOnDemand(facts.state) && !facts.live && !facts.cached;
    };
    if (!unknown()) return false;
    // Not from inside the state event being delivered: its other listeners must see idle before starting.
    queueMicrotask(() => containFailure(this.logger, 'tool catalog: learning a server', () => unknown() && this.manager.learn(name)));
    return true;
  }

  private onTools(event: ToolsChangeEvent): void {
    if (this.disposed || this.lists.facts(event.server)?.state !== 'running') return;
    // The echo of a list just taken (a connect announces the list it started with): nothing to do.
    const fingerprint = fingerprintTools(event.tools);
    if (this.lists.isStored(event.server, fingerprint)) return;
    // The connection lists again on list_changed (one request at a time, in order) and announces
    // each new list; after the burst, the catalog takes the latest one and recomputes once.
    this.lists.refresh.signal(event.server, fingerprint);
  }

  /** What the snapshot and the waits read of a server (undefined: of any) may have changed. */
  private changed(server: string | undefined): void {
    if (this.disposed) return;
    this.publisher.markDirty();
    this.serverChanges.fire(server);
  }

  private current(): BuiltSnapshot {
    return this.publisher.current();
  }
}

function isErrorResult(result: unknown): boolean {
  return typeof result === 'object' && result !== null && (result as { isError?: unknown }).isError === true;
}
