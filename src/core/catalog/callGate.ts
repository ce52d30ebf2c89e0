// The one gate for a call from chat: the tool must be in the catalog's snapshot and exposed (or,
// for a call the model found by search, left out only by the budget: `reach: 'eligible'`). A
// server that is not ready (starting, idle, reconnecting) is woken once and waited for once, until
// the call's one deadline (serverWaits.ts); then the tool is checked again, since the live list
// replaced the cached one and the tool may be gone or filtered now.
import { isConnecting, isServed, isSwitchboardError, startsOnDemand, unknownServer, type ServerStateKind } from '../state';
import type { Clock } from '../base/clock';
import type { CatalogManager } from './catalogManager';
import { SwitchboardError } from '../state';
import { describeFilterRule } from './filters';
import { isForModel } from './modelVisibility';
import type { ServerWaits } from './serverWaits';
import type { CallReach, CatalogServer, CatalogSnapshot, CatalogTool, ReadyOptions, ReadyTool, ToolAddress } from './types';

export interface ToolCallGateOptions {
  readonly snapshot: () => CatalogSnapshot;
  /** The snapshot's own index of its tools by qualified name (snapshot.ts), not a scan per call. */
  readonly toolByQualifiedName: (qualifiedName: string) => CatalogTool | undefined;
  readonly waits: ServerWaits;
  readonly manager: Pick<CatalogManager, 'wake'>;
  readonly clock: Clock;
}

/** How long a call waits for a qualified name no server lists yet, when no server has a limit of its own. */
const MAX_NAME_WAIT_MS = 60_000;

export class ToolCallGate {
  constructor(private readonly options: ToolCallGateOptions) {}

  /**
   * The one wait of a call (ToolSource.readyTool): the tool an address names, once its server is
   * ready. A server that is not ready (starting, idle, reconnecting) is woken once and waited for
   * once, until the call's one deadline; then the tool is checked again, since the live list
   * replaced the cached one and the tool may be gone or filtered now.
   */
  async ready(address: ToolAddress, options: ReadyOptions = {}): Promise<ReadyTool> {
    return this.readyNow(address, options);
  }

  /**
   * As ready(), without a turn of waiting when there is nothing to wait for (a ready server's call
   * is then sent in the caller's turn); throws a refusal at once.
   */
  readyNow(address: ToolAddress, options: ReadyOptions): ReadyTool | Promise<ReadyTool> {
    if ('qualifiedName' in address) {
      const found = this.find(address.qualifiedName, options);
      if (found) return this.readyAbout(found, options);
      return this.locate(address.qualifiedName, options).then((located) =>
        this.readyAbout(located, { ...options, readyBy: located.readyBy ?? options.readyBy }),
      );
    }
    const { server, tool } = address;
    const { waits, manager } = this.options;
    const reach = options.reach ?? 'exposed';
    if (options.within && !options.within(server)) throw unknownServer(server);
    const readyBy = options.readyBy ?? waits.readyBy(server);
    let state: ServerStateKind;
    try {
      state = this.resolve(server, tool, reach).state;
    } catch (refusal) {
      // Unknown only because nothing is known of the server's tools yet: known once it is ready.
      if (!waits.isStartingWithoutTools(server)) throw refusal;
      state = 'starting';
    }
    if (state === 'running') return { server, tool, readyBy };
    if (startsOnDemand(state)) manager.wake(server, `a call of \`${tool}\``);
    // Registered synchronously, before this returns: diagnostics count it at once.
    return waits.whenReady(server, options.signal, readyBy).then(() => {
      this.resolve(server, tool, reach);
      return { server, tool, readyBy };
    });
  }

  /**
   * The same one wait for a request about a server rather than one of its tools (resources,
   * prompts): an idle server is woken, a starting one waited for until the request's deadline.
   * Resolves with that deadline, for the connection; a server in any other state is the
   * connection's to answer for, at once.
   */
  readyServer(server: string, options: ReadyOptions = {}): number | undefined | Promise<number | undefined> {
    const { waits, manager } = this.options;
    const entry = this.options.snapshot().servers.find((candidate) => candidate.name === server);
    if (!entry) throw unknownServer(server);
    const readyBy = options.readyBy ?? waits.readyBy(server);
    if (!isConnecting(entry.state) && !startsOnDemand(entry.state)) return readyBy;
    if (startsOnDemand(entry.state)) manager.wake(server, 'a request');
    return waits.whenReady(server, options.signal, readyBy).then(() => readyBy);
  }

  /** readyNow() for a tool found by its qualified name: a refusal says which server it is about (the caller named none). */
  private readyAbout(found: { server: string; tool: string }, options: ReadyOptions): ReadyTool | Promise<ReadyTool> {
    const about = (refusal: unknown) =>
      isSwitchboardError(refusal) && refusal.server === undefined ? aboutServer(refusal, found.server) : refusal;
    try {
      const ready = this.readyNow({ server: found.server, tool: found.tool }, options);
      return ready instanceof Promise ? ready.catch((refusal: unknown) => Promise.reject(about(refusal))) : ready;
    } catch (refusal) {
      throw about(refusal);
    }
  }

  /** The server and upstream name of a qualified name among the servers `within` keeps, as the snapshot has them now. */
  private find(qualifiedName: string, options: ReadyOptions): { server: string; tool: string } | undefined {
    const found = this.options.toolByQualifiedName(qualifiedName);
    return found && (!options.within || options.within(found.server)) ? { server: found.server, tool: found.name } : undefined;
  }

  /**
   * The server and upstream name of a qualified name. One that no server lists yet, while servers
   * start with nothing known of their tools, is found as soon as the server that lists it is ready
   * (the deadline: the latest of theirs). Whether it may be called is ready()'s to say.
   */
  private async locate(qualifiedName: string, options: ReadyOptions): Promise<{ server: string; tool: string; readyBy?: number }> {
    const { waits, clock } = this.options;
    const within = options.within ?? (() => true);
    const find = () => this.find(qualifiedName, options);
    const unknown = () => new SwitchboardError('UNKNOWN_TOOL', `no server offers a tool named "${qualifiedName}"`, { notSent: true });
    const now = find();
    if (now) return now;
    const starting = this.options
      .snapshot()
      .servers.map((server) => server.name)
      .filter((name) => within(name) && waits.isStartingWithoutTools(name));
    if (starting.length === 0) throw unknown();
    const unbounded = clock.now() + MAX_NAME_WAIT_MS;
    const readyBy = options.readyBy ?? Math.max(...starting.map((server) => waits.readyBy(server) ?? unbounded));
    // Ends the other waits once the name is found (or the caller gives up).
    const found = new AbortController();
    const stop = () => found.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    let notReady: unknown;
    const pending = new Map(
      starting.map((server) => [
        server,
        waits.whenReady(server, found.signal, readyBy).then(
          () => server,
          (error: unknown) => {
            if (isSwitchboardError(error, 'NOT_READY')) notReady ??= error;
            return server;
          },
        ),
      ]),
    );
    try {
      while (pending.size > 0) {
        pending.delete(await Promise.race(pending.values()));
        const located = find();
        if (located) return { ...located, readyBy };
      }
    } finally {
      options.signal?.removeEventListener('abort', stop);
      found.abort();
    }
    if (options.signal?.aborted)
      throw new SwitchboardError('CANCELLED', `the call of "${qualifiedName}" was cancelled while servers were starting`, {
        notSent: true,
      });
    if (notReady) throw notReady;
    return find() ?? Promise.reject(unknown());
  }

  /** The server entry for a callable tool, or the reason it cannot be called. */
  resolve(server: string, tool: string, reach: CallReach = 'exposed'): CatalogServer {
    const entry = this.options.snapshot().servers.find((candidate) => candidate.name === server);
    if (!entry) throw unknownServer(server);
    if (!isServed(entry.state)) throw new SwitchboardError('SERVER_HELD_BACK', `server "${server}" is ${entry.state}`, { notSent: true });
    const found = entry.tools.find((candidate) => candidate.name === tool);
    if (!found) {
      if (entry.state !== 'running' && entry.tools.length === 0) {
        throw new SwitchboardError('SERVER_UNAVAILABLE', `server "${server}" is ${entry.state}, so its tool "${tool}" cannot be called`, {
          notSent: true,
        });
      }
      throw new SwitchboardError('UNKNOWN_TOOL', `server "${server}" has no tool "${tool}"`, { notSent: true });
    }
    // A tool reached through search is a model's call: one MCP Apps keeps for its server's view is not.
    if (reach === 'eligible' && !isForModel(found.tool))
      throw new SwitchboardError(
        'TOOL_FILTERED',
        `tool "${tool}" of server "${server}" is called by its server's view (MCP Apps), not by a model`,
        { notSent: true },
      );
    const rule = found.filteredBy;
    if (!found.exposed && rule && !(reach === 'eligible' && rule.kind === 'budget')) {
      const code = rule.kind === 'disabledSetting' ? 'TOOL_DISABLED' : 'TOOL_FILTERED';
      throw new SwitchboardError(code, `tool "${tool}" of server "${server}" is ${describeFilterRule(rule, server)}`, {
        rule,
        notSent: true,
      });
    }
    return entry;
  }
}

/** The same refusal, saying which server it is about. */
function aboutServer(error: SwitchboardError, server: string): SwitchboardError {
  return new SwitchboardError(error.code, error.message, {
    cause: error.cause,
    notSent: error.notSent,
    rule: error.rule,
    server,
  });
}
