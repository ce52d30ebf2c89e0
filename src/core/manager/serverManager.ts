// Owns one ServerConnection per configured server and keeps them in step with the configuration:
// connects in parallel (bounded), reconciles updates by connection hash, and publishes one ordered
// view of every server's state for the UI, the catalog and the doctor CLI.
import { waitForState, type WaitOptions, type WaitOutcome } from './waitForState';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { systemClock, type Clock } from '../base/clock';
import {
  SwitchboardError,
  type CallerOptions,
  type CallOutcome,
  type ConnectionOptions,
  ServerConnection,
  type OfferChangeEvent,
  type ToolsChangeEvent,
  type ServerNotice,
  type ServerRequestHandlers,
  type ForwardedMethod,
  type ForwardedResult,
  type Skill,
  type SkillFile,
} from '../connection';
import { startsOnDemand, type ServerState, type ServerStateChangeEvent } from '../state';
import { Emitter, type Event } from '../base/events';
import { nullLogger, type Logger } from '../base/logging';
import { ConcurrencyLimit } from './concurrencyLimit';
import { DEFAULT_CONCURRENCY, DEFAULT_STARTUP_GATE_MS, firstAttempt, StartQueue } from './startQueue';
import { summarizeHealth, type HealthSummary } from './health';
import { isEnabled, isInvalid, isLazy, ManagedServer, type ConfiguredServer, type ServerBlock, type ServerView } from './managedServer';
import { planReconcile, type ReconcilePlan } from './reconcilePlan';
import { ServerEvents } from './serverEvents';

export type { ConfiguredServer, ServerBlock, ServerView } from './managedServer';
export { DEFAULT_CONCURRENCY } from './startQueue';

/** What changed in the list of servers: the ones it no longer has (a removal fires no state event). */
export interface ServersChange {
  readonly removed: readonly string[];
}

export interface ManagerOptions {
  readonly logger?: Logger;
  /** Passed to every connection (clock, default cwd, base env, ...). */
  readonly connection?: Omit<ConnectionOptions, 'logger'>;
  /** A logger per server, e.g. one output channel each. Falls back to `logger`. */
  readonly serverLogger?: (name: string) => Logger;
  /** Servers connecting at the same time. Default 32 (DEFAULT_CONCURRENCY). */
  readonly concurrency?: number;
  /** How long start() waits before reporting still-pending servers as starting. Default 250 ms. */
  readonly startupGateMs?: number;
  /** The startup gate and event timestamps. Default: the connections' clock, else the system clock. */
  readonly clock?: Clock;
  /** Who answers what each server asks of its client (RelayRouter.handlersFor). */
  readonly serverRequests?: (server: string) => ServerRequestHandlers;
}

export class ServerManager {
  private readonly events: ServerEvents;
  /** Every state change of every server, in the order they happened. */
  readonly onDidChangeState: Event<ServerStateChangeEvent>;
  readonly onDidChangeTools: Event<ToolsChangeEvent>;
  /** A server's resources, templates or prompts changed. */
  readonly onDidChangeOffer: Event<OfferChangeEvent>;
  /** Resource updates (of subscribed URIs) and log messages, from every server. */
  readonly onNotice: Event<ServerNotice>;
  /** A task a server runs for a caller started, changed status or ended. */
  readonly onDidChangeTasks: Event<{ readonly server: string }>;
  private readonly serversEmitter = new Emitter<ServersChange>();
  /**
   * The configured servers changed: added, removed, reordered, or a definition replaced in place
   * (a changed filter keeps the connection). Fires once per update(), before the servers it starts
   * or stops report their states; what follows the list (the catalog) reads servers() then. A
   * removed server fires no state event: this one names it.
   */
  readonly onDidChangeServers: Event<ServersChange> = this.serversEmitter.event;

  private entries = new Map<string, ManagedServer>();
  /** Successors starting aside while the server they replace goes on serving (handOver). */
  private readonly successors = new Map<string, ManagedServer>();
  private order: string[] = [];
  private readonly starts: StartQueue;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private disposed = false;
  /** Serialises update() calls so that two quick settings changes reconcile in order. */
  private updating: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ManagerOptions = {}) {
    this.logger = options.logger ?? nullLogger;
    this.clock = options.clock ?? options.connection?.clock ?? systemClock;
    this.events = new ServerEvents(this.clock);
    this.onDidChangeState = this.events.onDidChangeState;
    this.onDidChangeTools = this.events.onDidChangeTools;
    this.onDidChangeOffer = this.events.onDidChangeOffer;
    this.onNotice = this.events.onNotice;
    this.onDidChangeTasks = this.events.onDidChangeTasks;
    this.starts = new StartQueue({
      limit: new ConcurrencyLimit(options.concurrency ?? DEFAULT_CONCURRENCY),
      clock: this.clock,
      gateMs: options.startupGateMs ?? DEFAULT_STARTUP_GATE_MS,
      fireState: (name, state, previous) => this.events.fireState(name, state, previous),
      isCurrent: (entry) => this.entries.get(entry.name) === entry && !this.disposed,
    });
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
    const held = new Map(
      [...this.entries].map(([name, entry]) => [
        name,
        { configured: entry.configured, hash: entry.hash, hasConnection: entry.connection !== undefined, blocked: entry.blocked },
      ]),
    );
    await this.apply(planReconcile(held, servers, blocks));
  }

  private async apply(plan: ReconcilePlan): Promise<void> {
    // A running server whose entry changed keeps serving until its successor is up (make before
    // break): Run Sandboxed, an argument edited. Its successor starts aside, then takes its place.
    const handovers = plan.create.filter((created) => {
      const held = this.entries.get(created.name);
      return (
        created.replaces && held?.state.kind === 'running' && !created.block && isEnabled(created.configured) && !isLazy(created.configured)
      );
    });
    // A newer configuration supersedes a handover under way, unless it asks for that very successor.
    for (const [name, successor] of [...this.successors]) {
      if (handovers.some((created) => created.name === name && created.hash === successor.hash)) continue;
      this.successors.delete(name);
      await this.retire(successor);
    }
    const handedOver = new Set(handovers.map((created) => created.name));
    plan = {
      ...plan,
      stop: plan.stop.filter((name) => !handedOver.has(name)),
      create: plan.create.filter((created) => !handedOver.has(created.name)),
      keep: [
        ...plan.keep,
        ...handovers.map((created) => ({
          name: created.name,
          configured: this.entries.get(created.name)?.configured ?? created.configured,
          lifecycleChanged: false,
        })),
      ],
    };
    const before = new Map([...this.entries].map(([name, entry]) => [name, entry.state]));
    const retiring = plan.stop.map((name) => this.entries.get(name)).filter((entry): entry is ManagedServer => entry !== undefined);
    const next = new Map<string, ManagedServer>();
    for (const kept of plan.keep) {
      // The subscriptions check identity, so the entry object itself is kept.
      const entry = this.entries.get(kept.name);
      if (entry) next.set(kept.name, Object.assign(entry, { configured: kept.configured }));
    }
    const toStart = plan.create
      .map((created) => {
        const entry = this.createEntry(created.configured, created.hash, created.block);
        next.set(created.name, entry);
        return entry;
      })
      .filter((entry) => this.queueOrIdle(entry));
    this.entries = new Map(
      plan.order.map((name) => [name, next.get(name)]).filter((pair): pair is [string, ManagedServer] => pair[1] !== undefined),
    );
    this.order = [...plan.order];
    this.serversEmitter.fire({ removed: retiring.filter((entry) => !next.has(entry.name)).map((entry) => entry.name) });
    for (const entry of retiring)
      this.logger.info(`${entry.name}: ${next.has(entry.name) ? 'configuration changed, restarting' : 'removed, stopping'}`);
    await Promise.all(retiring.map((entry) => this.retire(entry)));
    const blockChanges = plan.keep.filter((kept) => kept.blockChange !== undefined);
    const changedBlocks = new Set(blockChanges.map((kept) => kept.name));
    for (const [name, entry] of this.entries) {
      if (changedBlocks.has(name)) continue;
      const previous = before.get(name) ?? { kind: 'stopped' as const };
      const current = entry.state;
      if (previous.kind !== current.kind || !before.has(name)) this.events.fireState(name, current, previous);
    }
    for (const created of handovers)
      if (!this.successors.has(created.name)) void this.handOver(this.createEntry(created.configured, created.hash, created.block));
    await Promise.all([
      this.starts.startWithinGate(toStart),
      this.applyBlocks(new Map(blockChanges.map((kept) => [kept.name, kept.blockChange?.block]))),
      ...plan.keep.filter((kept) => kept.lifecycleChanged).map((kept) => this.applyLifecycle(kept.name)),
    ]);
  }

  /**
   * Starts `successor` aside while the server it replaces goes on serving; once its first attempt
   * is over (running, or failed: then that is what the user sees), it takes the name and the
   * other one stops. A newer configuration, or the manager's end, retires it instead.
   */
  private async handOver(successor: ManagedServer): Promise<void> {
    const name = successor.name;
    this.successors.set(name, successor);
    this.logger.info(`${name}: configuration changed; starting the new one before stopping the old`);
    if (successor.connection) await firstAttempt(successor.connection);
    if (this.successors.get(name) !== successor || this.disposed) return;
    this.successors.delete(name);
    const previous = this.entries.get(name);
    this.entries.set(name, successor);
    this.serversEmitter.fire({ removed: [] });
    this.events.fireState(name, successor.state, previous?.state ?? { kind: 'stopped' });
    if (previous) await this.retire(previous);
    // What the old one held (a port, a lock) may be what the new one failed on: once more, now it is gone.
    if (successor.state.kind === 'error' && this.entries.get(name) === successor) await this.reconnect(name).catch(() => undefined);
  }

  /**
   * A new entry that may start: a lazy one goes idle (the first request starts it), an eager one is
   * reported as starting from now on, not `stopped` while the previous one shuts down (the catalog
   * relies on the manager saying itself which servers are about to start). True: start it.
   */
  private queueOrIdle(entry: ManagedServer): boolean {
    if (!entry.startable || !entry.connection) return false;
    if (isLazy(entry.configured)) {
      void entry.connection.goIdle('lazy');
      return false;
    }
    entry.queuedSince = this.clock.now();
    return true;
  }

  /** `lifecycle` and `idleStopMinutes` are not part of the connection hash: they apply in place. */
  private async applyLifecycle(name: string): Promise<void> {
    const entry = this.entries.get(name);
    const connection = entry?.connection;
    if (!entry || !connection || isInvalid(entry.configured)) return;
    connection.applyLifecycle(entry.configured.lifecycle);
    // Turned eager while idle: it starts now, as it would have with the window.
    if (!isLazy(entry.configured) && startsOnDemand(connection.state.kind) && entry.startable) await this.starts.startWithinGate([entry]);
  }

  private createEntry(configured: ConfiguredServer, hash: string | undefined, blocked: ServerBlock | undefined): ManagedServer {
    let connection: ServerConnection | undefined;
    if (!isInvalid(configured)) {
      const logger = this.options.serverLogger?.(configured.name) ?? this.logger;
      const serverRequests = this.options.serverRequests?.(configured.name);
      connection = new ServerConnection(configured, { ...this.options.connection, logger, ...(serverRequests ? { serverRequests } : {}) });
    }
    const entry = new ManagedServer(configured.name, configured, hash, connection, blocked);
    if (connection) this.events.relay(entry, connection, () => this.entries.get(entry.name) === entry);
    return entry;
  }

  private async retire(entry: ManagedServer): Promise<void> {
    for (const subscription of entry.subscriptions.splice(0)) subscription.dispose();
    try {
      await entry.connection?.dispose();
    } catch (error) {
      this.logger.warn(`${entry.name}: stopping failed: ${String(error)}`);
    }
  }

  // ── Operations. Each is safe to call concurrently and more than once. ──

  /** Manual reconnect: resets the circuit breaker. Merges with one already in flight. */
  async reconnect(name: string): Promise<ServerState> {
    const entry = this.require(name);
    if (!entry.startable || !entry.connection) return entry.state;
    return entry.connection.reconnect();
  }

  /** Every server but the idle ones: they connect afresh when next used, and must not start now. */
  async reconnectAll(): Promise<void> {
    const live = this.liveEntries().filter((entry) => !startsOnDemand(entry.state.kind));
    await Promise.all(live.map((entry) => this.reconnect(entry.name)));
  }

  /** Starts a stopped server (after stop(), or one that never started). */
  async startServer(name: string): Promise<ServerState> {
    const entry = this.require(name);
    if (!entry.startable || !entry.connection) return entry.state;
    await this.starts.startQueued(entry);
    return entry.state;
  }

  /** Starts an idle server because a request needs it (a call that goes through the catalog first). */
  wake(name: string, why?: string): void {
    const entry = this.entries.get(name);
    if (entry?.startable) entry.connection?.wake(why);
  }

  /** Starts an idle server that has nothing cached, to learn its lists; it idles again once unused. */
  learn(name: string): void {
    const entry = this.entries.get(name);
    if (entry?.startable) entry.connection?.learn();
  }

  /** Cancels a task a server runs for a caller (upstream tasks/cancel; the caller's call ends). */
  cancelTask(name: string, taskId: string): boolean {
    return this.entries.get(name)?.connection?.tasks.cancel(taskId) ?? false;
  }

  async stopServer(name: string): Promise<ServerState> {
    const entry = this.require(name);
    await entry.connection?.stop();
    return entry.state;
  }

  /**
   * Marks a server blocked (untrusted workspace, consent denied, missing input) and stops it, or
   * clears the block and starts it. Set by the editor layer, which knows about trust and consent.
   */
  setBlocked(name: string, block: ServerBlock | undefined): Promise<void> {
    return this.setBlocks(new Map([[name, block]]));
  }

  /**
   * Blocks or unblocks several servers at once (the answers of one consent dialog): the ones
   * unblocked start together, within one start gate, as at activation, not one after another.
   */
  setBlocks(changes: ReadonlyMap<string, ServerBlock | undefined>): Promise<void> {
    const run = this.updating.then(() => this.applyBlocks(changes));
    this.updating = run.catch(() => undefined);
    return run;
  }

  private async applyBlocks(changes: ReadonlyMap<string, ServerBlock | undefined>): Promise<void> {
    const starting: ManagedServer[] = [];
    await Promise.all(
      [...changes].map(async ([name, block]) => {
        const entry = this.entries.get(name);
        if (!entry) return;
        const previous = entry.state;
        entry.blocked = block;
        if (block) await entry.connection?.stop();
        const current = entry.state;
        if (JSON.stringify(previous) !== JSON.stringify(current)) this.events.fireState(name, current, previous);
        if (block || !entry.connection || !isEnabled(entry.configured)) return;
        if (isLazy(entry.configured)) await entry.connection.goIdle('lazy');
        else starting.push(entry);
      }),
    );
    await this.starts.startWithinGate(starting);
  }

  /** Calls a tool on a server, waiting (within requestMs) for a server that is still connecting. */
  async forwardToolCall<O extends CallerOptions = CallerOptions>(
    server: string,
    tool: string,
    args: Record<string, unknown> = {},
    options: O = {} as O,
  ): Promise<CallOutcome<O, CallToolResult>> {
    return this.usableConnection(server).sendToolCall(tool, args, options);
  }

  /** Forwards a request about what a server offers (read, get, complete, setLevel). */
  forwardRequest<M extends ForwardedMethod, O extends CallerOptions = CallerOptions>(
    server: string,
    method: M,
    params: Record<string, unknown>,
    options: O = {} as O,
  ): Promise<CallOutcome<O, ForwardedResult<M>>> {
    return Promise.resolve().then(() => this.usableConnection(server).forwardRequest(method, params, options));
  }

  /** One file of a skill the server listed, checked against its entry (ServerConnection.readSkillFile). */
  readSkillFile(server: string, skill: Skill, ref?: string, options: CallerOptions = {}): Promise<SkillFile> {
    return Promise.resolve().then(() => this.usableConnection(server).readSkillFile(skill, ref, options));
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

  /** The connection a request goes to; throws NOT_RUNNING, naming why, for a server that cannot take one. */
  usableConnection(server: string): ServerConnection {
    const entry = this.require(server);
    if (entry.startable && entry.connection) return entry.connection;
    const state = entry.state;
    throw new SwitchboardError('NOT_RUNNING', `server "${server}" is ${state.kind}${state.kind === 'blocked' ? `: ${state.detail}` : ''}`);
  }

  /** Disposes every connection, in reverse configuration order, continuing past failures. */
  async dispose(): Promise<void> {
    if (this.disposed) return this.updating.then(() => undefined);
    this.disposed = true;
    await this.updating.catch(() => undefined);
    const entries = this.order
      .map((name) => this.entries.get(name))
      .filter((entry): entry is ManagedServer => entry !== undefined)
      .reverse();
    await Promise.all([...entries, ...this.successors.values()].map((entry) => this.retire(entry)));
    this.successors.clear();
    this.events.dispose();
    this.serversEmitter.dispose();
  }

  // ── Read side: copies only. ──

  /** Resolves when `predicate` holds for the servers, when `timeoutMs` passes, or on abort. */
  waitForState(predicate: (servers: readonly ServerView[]) => boolean, options: Omit<WaitOptions, 'clock'>): Promise<WaitOutcome> {
    return waitForState(this, predicate, { ...options, clock: this.clock });
  }

  servers(): ServerView[] {
    return this.order
      .map((name) => this.entries.get(name))
      .filter((entry): entry is ManagedServer => entry !== undefined)
      .map((entry) => entry.view());
  }

  server(name: string): ServerView | undefined {
    const entry = this.entries.get(name);
    return entry ? entry.view() : undefined;
  }

  health(): HealthSummary {
    return summarizeHealth(this.servers().map((server) => server.state));
  }

  /** The live connection, for callers (catalog, gateway) that need its tools and calls. */
  connection(name: string): ServerConnection | undefined {
    return this.entries.get(name)?.connection;
  }

  private liveEntries(): ManagedServer[] {
    return this.order
      .map((name) => this.entries.get(name))
      .filter((entry): entry is ManagedServer => entry !== undefined && entry.connection !== undefined);
  }

  private require(name: string): ManagedServer {
    const entry = this.entries.get(name);
    if (!entry) throw new SwitchboardError('UNKNOWN_SERVER', `no server named "${name}" is configured`);
    return entry;
  }
}
