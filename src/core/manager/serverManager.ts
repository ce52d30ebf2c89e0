// Owns one ServerConnection per configured server and keeps them in step with the configuration:
// connects in parallel (bounded), reconciles updates by connection hash, and publishes one ordered
// view of every server's state for the UI, the catalog and the doctor CLI.
import { waitForState, type WaitOptions, type WaitOutcome } from './waitForState';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { hashServerConnection } from '../config/hash';
import type { ConfigDiagnostic, InvalidServer, ServerDefinition, ServerSource } from '../config/types';
import { systemClock, type Clock, type TimerHandle } from '../base/clock';
import { ConnectionError } from '../connection/errors';
import type { CallerOptions, ConnectionOptions } from '../connection/connectionOptions';
import { ServerConnection } from '../connection/serverConnection';
import { copyState, startsOnDemand, type BlockedReason, type ServerState, type ServerStateChangeEvent } from '../state/serverState';
import type { OfferChangeEvent, ToolsChangeEvent } from '../connection/offerKeeper';
import type { ServerNotice } from '../connection/serverNotices';
import type { ServerRequestHandlers } from '../connection/clientLink';
import type { ForwardedMethod, ForwardedResult } from '../connection/serverOffer';
import { Emitter, type Event } from '../base/events';
import { nullLogger, type Logger } from '../base/logging';
import { ConcurrencyLimit } from './concurrencyLimit';
import { ManagerError } from './errors';
import { summarizeHealth, type HealthSummary } from './health';

export type ConfiguredServer = ServerDefinition | InvalidServer;

/** Why the editor will not let a server start (trust, consent, inputs). */
export interface ServerBlock {
  readonly reason: BlockedReason;
  readonly detail: string;
}

export interface ManagerOptions {
  readonly logger?: Logger;
  /** Passed to every connection (clock, default cwd, base env, ...). */
  readonly connection?: Omit<ConnectionOptions, 'logger'>;
  /** A logger per server, e.g. one output channel each. Falls back to `logger`. */
  readonly serverLogger?: (name: string) => Logger;
  /** Servers connecting at the same time. Default 16. */
  readonly concurrency?: number;
  /** How long start() waits before reporting still-pending servers as starting. Default 250 ms. */
  readonly startupGateMs?: number;
  /** The startup gate and event timestamps. Default: the connections' clock, else the system clock. */
  readonly clock?: Clock;
  /** Who answers what each server asks of its client (ServerRequestRouter.handlersFor). */
  readonly serverRequests?: (server: string) => ServerRequestHandlers;
}

/** A copy of what the manager knows about one server. */
export interface ServerView {
  readonly name: string;
  readonly source: ServerSource;
  readonly state: ServerState;
  /** The last tool list the server reported (empty until it has run). */
  readonly tools: readonly Tool[];
  /** Validation warnings and errors for this entry. */
  readonly diagnostics: readonly ConfigDiagnostic[];
  readonly definition?: ServerDefinition;
  /** The last stderr lines of a stdio server. */
  readonly stderrTail: readonly string[];
}


interface Entry {
  readonly name: string;
  configured: ConfiguredServer;
  readonly hash: string | undefined;
  readonly connection: ServerConnection | undefined;
  /** Set by the editor (trust, consent, inputs); wins over everything but invalid. */
  blocked?: ServerBlock;
  /** Waiting for a free slot in the concurrency limit; reported as starting. */
  queuedSince?: number;
  /** `starting` was reported for the queue: the connection's own stopped → starting is not news. */
  startingReported?: boolean;
  readonly subscriptions: Array<{ dispose(): void }>;
}

/**
 * Servers starting at once. Starting is CPU-bound (each is a runtime loading its code), so on any
 * machine the whole set is up soonest when all of them start together: a cap below the number of
 * servers adds a wave (bench:startup, 20 servers on 2 cores: 6.1 s with 16, 5.4 s with 20; one per
 * core brings the first server up in 0.9 s but all of them only in 9.2 s). The cap only guards
 * against configurations far beyond what people run (10 to 30 servers).
 */
export const DEFAULT_CONCURRENCY = 32;
export const DEFAULT_STARTUP_GATE_MS = 250;

function isInvalid(server: ConfiguredServer): server is InvalidServer {
  return !('transport' in server);
}

function isEnabled(server: ConfiguredServer): boolean {
  return !isInvalid(server) && server.enabled;
}

function isLazy(server: ConfiguredServer): boolean {
  return !isInvalid(server) && server.lifecycle.start === 'lazy';
}

/**
 * Resolves when the connection's first attempt is over: running, failed, or retrying. A remote
 * server that is down retries with backoff for as long as it takes; it must not hold a start slot
 * (and so keep other servers waiting) meanwhile.
 */
function firstAttempt(connection: ServerConnection): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      subscription.dispose();
      resolve();
    };
    const subscription = connection.onDidChangeState(({ state }) => {
      if (state.kind !== 'starting') done();
    });
    void connection.start().then(done);
  });
}

export class ServerManager {
  private readonly stateEmitter = new Emitter<ServerStateChangeEvent>();
  private readonly toolsEmitter = new Emitter<ToolsChangeEvent>();
  /** Every state change of every server, in the order they happened. */
  readonly onDidChangeState: Event<ServerStateChangeEvent> = this.stateEmitter.event;
  readonly onDidChangeTools: Event<ToolsChangeEvent> = this.toolsEmitter.event;
  private readonly offerEmitter = new Emitter<OfferChangeEvent>();
  private readonly noticeEmitter = new Emitter<ServerNotice>();
  /** A server's resources, templates or prompts changed. */
  readonly onDidChangeOffer: Event<OfferChangeEvent> = this.offerEmitter.event;
  /** Resource updates (of subscribed URIs) and log messages, from every server. */
  readonly onNotice: Event<ServerNotice> = this.noticeEmitter.event;

  private entries = new Map<string, Entry>();
  private order: string[] = [];
  private readonly limit: ConcurrencyLimit;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private disposed = false;
  /** Serialises update() calls so that two quick settings changes reconcile in order. */
  private updating: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ManagerOptions = {}) {
    this.logger = options.logger ?? nullLogger;
    this.clock = options.clock ?? options.connection?.clock ?? systemClock;
    this.limit = new ConcurrencyLimit(options.concurrency ?? DEFAULT_CONCURRENCY);
  }

  /**
   * Applies a configuration and connects every enabled server in parallel. Resolves when all have
   * settled or when the startup gate closes, whichever is first; later results arrive as events.
   */
  async start(servers: readonly ConfiguredServer[], blocks?: ReadonlyMap<string, ServerBlock>): Promise<ServerView[]> {
    await this.update(servers, blocks);
    return this.servers();
  }

  /**
   * Reconciles against a new configuration by connection hash: unchanged servers are not touched,
   * changed ones restart, removed ones stop, added ones start. Order follows the new list.
   * `blocks`, when given, is the complete set of servers the editor holds back (a name not in it
   * is unblocked); when omitted, earlier blocks stay as they were.
   */
  update(servers: readonly ConfiguredServer[], blocks?: ReadonlyMap<string, ServerBlock>): Promise<void> {
    const run = this.updating.then(() => this.reconcile(servers, blocks));
    this.updating = run.catch(() => undefined);
    return run;
  }

  private async reconcile(servers: readonly ConfiguredServer[], blocks: ReadonlyMap<string, ServerBlock> | undefined): Promise<void> {
    if (this.disposed) return;
    const next = new Map<string, Entry>();
    const toStart: Entry[] = [];
    const toStop: Entry[] = [];
    const blockChanges: Array<{ name: string; block: ServerBlock | undefined }> = [];
    const lifecycleChanges: Array<{ entry: Entry; definition: ServerDefinition }> = [];
    const seen = new Set<string>();

    for (const configured of servers) {
      if (seen.has(configured.name)) continue; // The config layer already warned about the clash.
      seen.add(configured.name);
      const previous = this.entries.get(configured.name);
      const hash = isInvalid(configured) ? undefined : hashServerConnection(configured);
      const sameConnection = previous !== undefined && previous.hash !== undefined && previous.hash === hash
        && previous.connection !== undefined && !isInvalid(configured) && previous.connection.definition.enabled === configured.enabled;
      const block = blocks ? blocks.get(configured.name) : previous?.blocked;
      if (previous && sameConnection) {
        // Only non-connection fields (tools filters, source) may differ: keep the live connection.
        // The subscriptions check identity, so the entry object itself is kept.
        const lifecycleBefore = isInvalid(previous.configured) ? undefined : previous.configured.lifecycle;
        previous.configured = configured;
        next.set(configured.name, previous);
        if (!isInvalid(configured) && JSON.stringify(lifecycleBefore) !== JSON.stringify(configured.lifecycle)) lifecycleChanges.push({ entry: previous, definition: configured });
        if (JSON.stringify(previous.blocked) !== JSON.stringify(block)) blockChanges.push({ name: configured.name, block });
        continue;
      }
      if (previous) toStop.push(previous);
      const entry = this.createEntry(configured, hash, block);
      next.set(configured.name, entry);
      if (entry.connection && isEnabled(configured) && !entry.blocked) {
        if (isLazy(configured)) {
          // Idle from the start: the first request that needs it starts it.
          void entry.connection.goIdle('lazy');
        } else {
          // Reported as starting from now on, not `stopped` while the previous one shuts down: the
          // manager says itself which servers are about to start (the catalog relies on it).
          entry.queuedSince = this.clock.now();
          toStart.push(entry);
        }
      }
    }
    for (const [name, entry] of this.entries) if (!seen.has(name)) toStop.push(entry);

    const before = new Map([...this.entries].map(([name, entry]) => [name, this.stateOf(entry)]));
    this.entries = next;
    this.order = servers.map((server) => server.name).filter((name, index, all) => all.indexOf(name) === index);
    for (const entry of toStop) this.logger.info(`${entry.name}: ${next.has(entry.name) ? 'configuration changed, restarting' : 'removed, stopping'}`);

    await Promise.all(toStop.map((entry) => this.retire(entry)));
    const changedBlocks = new Set(blockChanges.map((change) => change.name));
    for (const [name, entry] of next) {
      if (changedBlocks.has(name)) continue;
      const previous = before.get(name) ?? { kind: 'stopped' as const };
      const current = this.stateOf(entry);
      if (previous.kind !== current.kind || !before.has(name)) this.fireState(name, current, previous);
    }
    await Promise.all([
      this.connectWithinGate(toStart),
      ...blockChanges.map((change) => this.applyBlock(change.name, change.block)),
      ...lifecycleChanges.map((change) => this.applyLifecycle(change.entry, change.definition)),
    ]);
  }

  /** `lifecycle` and `idleStopMinutes` are not part of the connection hash: they apply in place. */
  private async applyLifecycle(entry: Entry, definition: ServerDefinition): Promise<void> {
    const connection = entry.connection;
    if (!connection) return;
    connection.applyLifecycle(definition.lifecycle);
    // Turned eager while idle: it starts now, as it would have with the window.
    if (!isLazy(definition) && startsOnDemand(connection.state.kind) && !entry.blocked) await this.connectWithinGate([entry]);
  }

  private createEntry(configured: ConfiguredServer, hash: string | undefined, blocked: Entry['blocked']): Entry {
    const subscriptions: Array<{ dispose(): void }> = [];
    let connection: ServerConnection | undefined;
    if (!isInvalid(configured)) {
      const logger = this.options.serverLogger?.(configured.name) ?? this.logger;
      const serverRequests = this.options.serverRequests?.(configured.name);
      connection = new ServerConnection(configured, { ...this.options.connection, logger, ...(serverRequests ? { serverRequests } : {}) });
    }
    const entry: Entry = { name: configured.name, configured, hash, connection, subscriptions };
    if (isInvalid(configured) && configured.needsInput && configured.needsInput.length > 0) {
      entry.blocked = { reason: 'needsInput', detail: `needs input: ${configured.needsInput.join(', ')}` };
    } else if (blocked) {
      entry.blocked = blocked;
    }
    if (connection) {
      subscriptions.push(connection.onDidChangeState((event) => {
        if (this.entries.get(entry.name) !== entry || entry.blocked || entry.queuedSince !== undefined) return;
        const repeat = entry.startingReported === true && event.state.kind === 'starting';
        entry.startingReported = false;
        if (repeat) return;
        this.stateEmitter.fire({ ...event, state: copyState(event.state), previous: copyState(event.previous) });
      }));
      subscriptions.push(connection.onDidChangeTools((event) => {
        if (this.entries.get(entry.name) !== entry) return;
        this.toolsEmitter.fire({ server: entry.name, tools: structuredClone(event.tools) });
      }));
      subscriptions.push(connection.onDidChangeOffer((event) => {
        if (this.entries.get(entry.name) === entry) this.offerEmitter.fire(event);
      }));
      subscriptions.push(connection.onNotice((notice) => {
        if (this.entries.get(entry.name) === entry) this.noticeEmitter.fire(notice);
      }));
    }
    return entry;
  }

  private async retire(entry: Entry): Promise<void> {
    for (const subscription of entry.subscriptions.splice(0)) subscription.dispose();
    try {
      await entry.connection?.dispose();
    } catch (error) {
      this.logger.warn(`${entry.name}: stopping failed: ${String(error)}`);
    }
  }

  /** Starts the given servers through the concurrency limit; resolves at the gate or when all settle. */
  private async connectWithinGate(entries: readonly Entry[]): Promise<void> {
    if (entries.length === 0) return;
    const all = Promise.all(entries.map((entry) => this.connectQueued(entry)));
    const gateMs = this.options.startupGateMs ?? DEFAULT_STARTUP_GATE_MS;
    let timer: TimerHandle | undefined;
    const gate = new Promise<void>((resolve) => {
      timer = this.clock.setTimeout(resolve, gateMs);
    });
    await Promise.race([all, gate]);
    this.clock.clearTimeout(timer);
  }

  private async connectQueued(entry: Entry): Promise<void> {
    const connection = entry.connection;
    if (!connection) return;
    const previous = this.stateOf(entry);
    entry.queuedSince = this.clock.now();
    const queued = this.stateOf(entry);
    if (previous.kind !== queued.kind) this.fireState(entry.name, queued, previous);
    entry.startingReported = queued.kind === 'starting';
    await this.limit.run(async () => {
      entry.queuedSince = undefined;
      if (this.entries.get(entry.name) !== entry || entry.blocked || this.disposed) return;
      await firstAttempt(connection);
    });
  }

  private stateOf(entry: Entry): ServerState {
    if (isInvalid(entry.configured) && !entry.blocked) return { kind: 'invalid', diagnostics: structuredClone(entry.configured.diagnostics) };
    if (entry.blocked) return { kind: 'blocked', reason: entry.blocked.reason, detail: entry.blocked.detail };
    if (!isEnabled(entry.configured)) return { kind: 'disabled' };
    if (entry.queuedSince !== undefined) return { kind: 'starting', since: entry.queuedSince };
    return entry.connection?.state ?? { kind: 'stopped' };
  }

  private fireState(server: string, state: ServerState, previous: ServerState): void {
    this.stateEmitter.fire({ server, state: copyState(state), previous: copyState(previous), at: this.clock.now() });
  }

  // ── Operations. Each is safe to call concurrently and more than once. ──

  /** Manual reconnect: resets the circuit breaker. Merges with one already in flight. */
  async reconnect(name: string): Promise<ServerState> {
    const entry = this.require(name);
    if (!entry.connection || entry.blocked || !isEnabled(entry.configured)) return this.stateOf(entry);
    return entry.connection.reconnect();
  }

  /** Every server but the idle ones: they connect afresh when next used, and must not start now. */
  async reconnectAll(): Promise<void> {
    const live = this.liveEntries().filter((entry) => !startsOnDemand(this.stateOf(entry).kind));
    await Promise.all(live.map((entry) => this.reconnect(entry.name)));
  }

  /** Starts a stopped server (after stop(), or one that never started). */
  async startServer(name: string): Promise<ServerState> {
    const entry = this.require(name);
    if (!entry.connection || entry.blocked || !isEnabled(entry.configured)) return this.stateOf(entry);
    await this.connectQueued(entry);
    return this.stateOf(entry);
  }

  /** Starts an idle server because a request needs it (a call that goes through the catalog first). */
  wake(name: string): void {
    const entry = this.entries.get(name);
    if (entry && !entry.blocked) entry.connection?.wake();
  }

  /** Starts an idle server that has nothing cached, to learn its lists; it idles again once unused. */
  learn(name: string): void {
    const entry = this.entries.get(name);
    if (entry && !entry.blocked) entry.connection?.learn();
  }

  async stopServer(name: string): Promise<ServerState> {
    const entry = this.require(name);
    await entry.connection?.stop();
    return this.stateOf(entry);
  }

  /**
   * Marks a server blocked (untrusted workspace, consent denied, missing input) and stops it, or
   * clears the block and starts it. Set by the editor layer, which knows about trust and consent.
   */
  setBlocked(name: string, block: ServerBlock | undefined): Promise<void> {
    const run = this.updating.then(() => this.applyBlock(name, block));
    this.updating = run.catch(() => undefined);
    return run;
  }

  private async applyBlock(name: string, block: ServerBlock | undefined): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry) return;
    const previous = this.stateOf(entry);
    entry.blocked = block;
    if (block) await entry.connection?.stop();
    const current = this.stateOf(entry);
    if (JSON.stringify(previous) !== JSON.stringify(current)) this.fireState(name, current, previous);
    if (block || !entry.connection || !isEnabled(entry.configured)) return;
    if (isLazy(entry.configured)) await entry.connection.goIdle('lazy');
    else await this.connectWithinGate([entry]);
  }

  /** Calls a tool on a server, waiting (within requestMs) for a server that is still connecting. */
  async forwardToolCall(server: string, tool: string, args: Record<string, unknown> = {}, options: CallerOptions = {}): Promise<CallToolResult> {
    return this.usableConnection(server).sendToolCall(tool, args, options);
  }

  /** Forwards a request about what a server offers (read, get, complete, setLevel). */
  forwardRequest<M extends ForwardedMethod>(server: string, method: M, params: Record<string, unknown>, options: CallerOptions = {}): Promise<ForwardedResult<M>> {
    return Promise.resolve().then(() => this.usableConnection(server).forwardRequest(method, params, options));
  }

  /** Tells every running server that the roots changed (the workspace folders did). */
  notifyRootsChanged(): void {
    for (const entry of this.entries.values()) entry.connection?.notifyRootsChanged();
  }

  /** Counted per URI; each subscribe needs its unsubscribe. */
  subscribeResource(server: string, uri: string): Promise<void> {
    return Promise.resolve().then(() => this.usableConnection(server).subscribeResource(uri));
  }

  async unsubscribeResource(server: string, uri: string): Promise<void> {
    await this.entries.get(server)?.connection?.unsubscribeResource(uri);
  }

  private usableConnection(server: string): ServerConnection {
    const entry = this.require(server);
    if (!entry.connection) throw new ConnectionError('NOT_RUNNING', `server "${server}" is ${this.stateOf(entry).kind}`);
    if (entry.blocked) throw new ConnectionError('NOT_RUNNING', `server "${server}" is blocked: ${entry.blocked.detail}`);
    return entry.connection;
  }

  /** Disposes every connection, in reverse configuration order, continuing past failures. */
  async dispose(): Promise<void> {
    if (this.disposed) return this.updating.then(() => undefined);
    this.disposed = true;
    await this.updating.catch(() => undefined);
    const entries = this.order.map((name) => this.entries.get(name)).filter((entry): entry is Entry => entry !== undefined).reverse();
    await Promise.all(entries.map((entry) => this.retire(entry)));
    this.stateEmitter.dispose();
    this.toolsEmitter.dispose();
    this.offerEmitter.dispose();
    this.noticeEmitter.dispose();
  }

  // ── Read side: copies only. ──

  /** Resolves when `predicate` holds for the servers, when `timeoutMs` passes, or on abort. */
  waitForState(predicate: (servers: readonly ServerView[]) => boolean, options: Omit<WaitOptions, 'clock'>): Promise<WaitOutcome> {
    return waitForState(this, predicate, { ...options, clock: this.clock });
  }

  servers(): ServerView[] {
    return this.order.map((name) => this.entries.get(name)).filter((entry): entry is Entry => entry !== undefined).map((entry) => this.view(entry));
  }

  server(name: string): ServerView | undefined {
    const entry = this.entries.get(name);
    return entry ? this.view(entry) : undefined;
  }

  health(): HealthSummary {
    return summarizeHealth(this.servers().map((server) => server.state));
  }

  /** The live connection, for callers (catalog, gateway) that need its tools and calls. */
  connection(name: string): ServerConnection | undefined {
    return this.entries.get(name)?.connection;
  }

  private view(entry: Entry): ServerView {
    const configured = entry.configured;
    return {
      name: entry.name,
      source: structuredClone(configured.source),
      state: this.stateOf(entry),
      tools: entry.connection?.tools ?? [],
      diagnostics: structuredClone(isInvalid(configured) ? configured.diagnostics : []),
      definition: isInvalid(configured) ? undefined : structuredClone(configured),
      stderrTail: entry.connection?.stderrTail() ?? [],
    };
  }

  private liveEntries(): Entry[] {
    return this.order.map((name) => this.entries.get(name)).filter((entry): entry is Entry => entry !== undefined && entry.connection !== undefined);
  }

  private require(name: string): Entry {
    const entry = this.entries.get(name);
    if (!entry) throw new ManagerError('UNKNOWN_SERVER', `no server named "${name}" is configured`);
    return entry;
  }
}
