// What the catalog knows of each configured server, read when asked from those who own it: the
// state and definition from the manager, the live tool list from the server's connection (which
// keeps it while the server reconnects or idles), the stored list from the cache. Nothing here is
// a copy kept in step by events. What it remembers is derived (each server's prepared list, reused
// while the connection's list is the same) or its own: which live lists the user invalidated.
import type { Tool } from '@modelcontextprotocol/client';
import { hashServerConnection, type ServerDefinition } from '../config';
import type { Clock } from '../base/clock';
import { isConnecting, startsOnDemand, type ServerStateKind } from '../state';
import type { Logger } from '../base/logging';
import type { CatalogManager, CatalogServerInfo } from './catalogManager';
import { RefreshScheduler } from './refreshScheduler';
import { errorMessage } from '../base/errorMessage';
import { deepFreeze, isDeepFrozenData } from '../base/freeze';
import { fingerprintTools, prepareToolList, type PreparedToolList } from './preparedList';
import type { SnapshotServerInput } from './snapshot';
import type { ToolCache } from './toolCache';

export interface ToolList {
  /** Frozen: the connection's or the cache's own value, shared, never copied into or mutated. */
  readonly raw: readonly Tool[];
  readonly prepared: PreparedToolList;
  /** When the catalog first saw this list (live), or when it was fetched (cached). */
  readonly fetchedAt: number;
}

/** One server as the catalog reads it now; built on each read, never kept. */
export interface ServerFacts {
  readonly name: string;
  readonly definition: ServerDefinition | undefined;
  /** The connection hash of the definition: the key of its cached list. */
  readonly hash: string | undefined;
  readonly state: ServerStateKind;
  /** The list the connection last got from the server (kept while it reconnects or idles). */
  readonly live: ToolList | undefined;
  /** The stored list for the current connection hash. */
  readonly cached: ToolList | undefined;
}

export interface ServerListsOptions {
  readonly manager: Pick<CatalogManager, 'servers' | 'server' | 'connection'>;
  readonly cache: ToolCache;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Quiet time after the last change signal before taking the list. */
  readonly debounceMs: number;
  /** A running server's new list was taken (stored, and due in the snapshot). */
  readonly onTaken: (server: string) => void;
}

export class ServerLists {
  /** Derived: each server's live list, prepared once and reused while the connection's list is the same. */
  private readonly prepared = new Map<string, { readonly source: readonly Tool[]; readonly list: ToolList }>();
  /**
   * Derived: each frozen list prepared once, whoever holds it. A live list taken into the cache is
   * the same array there, and an entry whose offer is stored again keeps its tools array: neither
   * is prepared (normalized and hashed) a second time.
   */
  private readonly preparedByTools = new WeakMap<readonly Tool[], PreparedToolList>();
  private readonly hashes = new WeakMap<ServerDefinition, string>();
  /** The catalog's own: a live list the user invalidated stands for nothing until the server lists again. */
  private readonly forgotten = new Map<string, readonly Tool[]>();
  /** Debounced taking of a running server's latest list after a burst of changes: stored, then shown. */
  readonly refresh: RefreshScheduler<readonly Tool[]>;

  constructor(private readonly options: ServerListsOptions) {
    this.refresh = new RefreshScheduler<readonly Tool[]>({
      delayMs: options.debounceMs,
      clock: options.clock,
      // The connection announced a change with its new list: after the burst, its latest list.
      fetch: (name) => Promise.resolve(this.facts(name)?.state === 'running' ? options.manager.connection(name)?.tools : undefined),
      apply: (name) => this.take(name),
      fingerprint: fingerprintTools,
      onError: (name, error) => options.logger.warn(`${name}: refreshing the tool list failed: ${errorMessage(error)}`),
    });
  }

  facts(name: string): ServerFacts | undefined {
    const info = this.options.manager.server(name);
    return info && this.factsOf(info);
  }

  /** In configuration order. */
  all(): ServerFacts[] {
    return this.options.manager.servers().map((info) => this.factsOf(info));
  }

  /** Asks a running server for its tools again (through its connection, which keeps them). */
  relist(server: string): Promise<readonly Tool[] | undefined> {
    const connection = this.facts(server)?.state === 'running' ? this.options.manager.connection(server) : undefined;
    return connection ? connection.listTools() : Promise.resolve(undefined);
  }

  /** Stores a running server's current list (unless empty) and says so. */
  take(server: string): void {
    const facts = this.facts(server);
    if (facts?.state === 'running' && facts.live && facts.hash !== undefined)
      this.options.cache.store(server, facts.hash, facts.live.raw, facts.live.fetchedAt);
    this.options.onTaken(server);
  }

  /** Whether the cache holds the list of this fingerprint for the server's configuration: nothing to take. */
  isStored(server: string, fingerprint: string): boolean {
    const cached = this.facts(server)?.cached;
    return cached !== undefined && cached.prepared.fingerprint === fingerprint;
  }

  /** The user invalidated a server that is not running: its last live list no longer stands in for it. */
  forget(server: string): void {
    const connection = this.options.manager.connection(server);
    if (connection?.toolsListed) this.forgotten.set(server, connection.tools);
  }

  /**
   * The configured servers changed: a server whose connection config changed is a different server
   * as far as tools go, so the lists stored for its other configs go; what was derived for a
   * removed server goes too.
   */
  followConfiguration(): void {
    const configured = new Set<string>();
    for (const info of this.options.manager.servers()) {
      configured.add(info.name);
      const hash = info.definition && this.hashOf(info.definition);
      if (hash !== undefined && this.options.cache.dropOtherConfigs(info.name, hash)) {
        this.options.logger.info(`${info.name}: connection config changed; its cached tool list no longer applies`);
        this.refresh.cancel(info.name);
      }
    }
    for (const name of [...this.prepared.keys(), ...this.forgotten.keys()]) {
      if (configured.has(name)) continue;
      this.refresh.cancel(name);
      this.prepared.delete(name);
      this.forgotten.delete(name);
    }
  }

  /** In configuration order: the lists the snapshot shows, live or standing in from the cache. */
  snapshotInputs(): SnapshotServerInput[] {
    return this.all().map((facts) => {
      const base = { name: facts.name, state: facts.state, filters: facts.definition?.tools };
      let list: ToolList | undefined;
      let fromCache = false;
      if (facts.state === 'running') {
        list = facts.live;
      } else if (isConnecting(facts.state) || startsOnDemand(facts.state)) {
        // On its way up (the manager reports queued servers as starting), or idle until a request
        // starts it: the last list, or the cached one, stands in.
        list = facts.live ?? facts.cached;
        fromCache = list !== undefined;
      }
      return list ? { ...base, fromCache, fetchedAt: list.fetchedAt, tools: list.prepared } : { ...base, fromCache };
    });
  }

  dispose(): void {
    this.refresh.dispose();
  }

  private factsOf(info: CatalogServerInfo): ServerFacts {
    const { name, definition } = info;
    const hash = definition && this.hashOf(definition);
    return {
      name,
      definition,
      hash,
      state: info.state.kind,
      live: this.live(name),
      cached: hash === undefined ? undefined : this.cachedList(name, hash),
    };
  }

  private hashOf(definition: ServerDefinition): string {
    let hash = this.hashes.get(definition);
    if (hash === undefined) {
      hash = hashServerConnection(definition);
      this.hashes.set(definition, hash);
    }
    return hash;
  }

  private live(name: string): ToolList | undefined {
    const connection = this.options.manager.connection(name);
    if (!connection?.toolsListed) return undefined;
    const tools = connection.tools;
    const forgotten = this.forgotten.get(name);
    if (forgotten === tools) return undefined;
    if (forgotten) this.forgotten.delete(name);
    const known = this.prepared.get(name);
    if (known?.source === tools) return known.list;
    // The connection's own fingerprint of this list, the same function as fingerprintTools: not hashed again.
    const fingerprint = connection.toolsFingerprint;
    const fetchedAt = this.options.clock.now();
    let list: ToolList;
    if (known && known.list.prepared.fingerprint === fingerprint) {
      list = { ...known.list, fetchedAt };
    } else {
      // A connection's list is frozen (shared as it is); anything else is copied once, privately, then frozen.
      const raw = isDeepFrozenData(tools) ? tools : deepFreeze(structuredClone(tools));
      list = { raw, prepared: this.preparedOf(raw, fingerprint), fetchedAt };
    }
    this.prepared.set(name, { source: tools, list });
    return list;
  }

  private cachedList(name: string, hash: string): ToolList | undefined {
    const entry = this.options.cache.lookup(name, hash);
    // The cache's entries are frozen (ToolCache freezes what it loads and stores): their tools are shared, prepared once.
    return entry && { raw: entry.tools, prepared: this.preparedOf(entry.tools), fetchedAt: entry.fetchedAt };
  }

  /** `raw` is frozen (a connection's or the cache's list): what it prepares to cannot change. */
  private preparedOf(raw: readonly Tool[], fingerprint?: string): PreparedToolList {
    let prepared = this.preparedByTools.get(raw);
    if (!prepared) {
      prepared = prepareToolList(raw, fingerprint ?? fingerprintTools(raw), { shareFrozen: true });
      this.preparedByTools.set(raw, prepared);
    }
    return prepared;
  }
}
