// The machine host's servers: one runtime (manager, catalog, the gateway's sessions) in the host
// process. A client (a window, an agent) puts the list of launches it wants shared (PUT
// /host/servers, for its attachment); the host runs one server per distinct launch, and forgets one
// once no attached client lists it. The client then reaches each on its endpoint (`/mcp/<name>`,
// upstream names) as a session of its own: the socket upgraded to newline-delimited JSON-RPC
// (connection/link/socketTransport.ts), served as `serve --stdio` serves an agent. Health, tools,
// relays and both protocol eras of the servers are the gateway's and the connection's own code.
//
// What stays per client is everything above the connection (filters, budget, tool sets, catalog,
// views): the host's catalog exposes every tool of every server. Requests a server makes during a
// call (elicitation, sampling, roots) go back to the client whose call it is, as the gateway's
// relays do for any client. Outside a call no client is asking: `roots/list` is answered with no
// roots, since a shared server must not learn one window's folders from another's, and elicitation
// and sampling are refused (the host has no window to ask in).
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { z } from 'zod';
import { MemoryToolCacheStorage } from '../catalog';
import type { StdioServerDefinition } from '../config';
import { errorMessage } from '../base/errorMessage';
import { readJsonBody } from '../base/boundedBody';
import { redactSecrets, type Logger } from '../base/logging';
import { systemClock, type Clock } from '../base/clock';
import { HOST_PATHS, refuseUpgrade, type HostServices } from '../machine';
import { RESTART_HEADER, SERVER_FAILED_STATUS, SocketTransport, SOCKET_UPGRADE, type HostedFailure } from '../connection';
import { hasFailed, startsOnDemand, type ErrorState, type InvalidState, type ServerState } from '../state';
import { serverEndpoint } from '../gateway';
import { createRuntime, type SwitchboardRuntime } from '../runtime';
import { hostedDefinition, MAX_SHARED_PER_CLIENT, sharedLaunchSchema } from './sharedLaunch';

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const DEFAULT_SHARED_ATTEMPT_MS = 1_000;
/** A window waits for the host's copy to start at most its connect timeout and this, or this long for one without a timeout. */
const SETTLE_MARGIN_MS = 1_000;
const MAX_WAIT_MS = 10 * 60_000;
/**
 * A lazy copy that no window or agent holds a session on any more idles after this, as each
 * window's own would once its connection idles (a lazy server started to learn its lists is gone
 * once it has). A window that connects again meanwhile (a reconnect) keeps it running.
 */
const IDLE_UNHELD_MS = 2_000;
/** Tools of every shared server, whatever their number: the clients' own catalogs apply their budgets. */
const EVERY_TOOL = 1_000_000;

const putSchema = z.object({ servers: z.array(sharedLaunchSchema).max(MAX_SHARED_PER_CLIENT) });
/** POST: list again what these servers offer (a window's Invalidate Tool Cache), by the host's names. */
const refreshSchema = z.object({ refresh: z.array(z.string().regex(/^s[0-9a-f]{16}$/)).max(MAX_SHARED_PER_CLIENT) });

/** The host's answer to a PUT: for each launch sent, in order, where it is served. */
export interface HostedServer {
  /** The host's name for it (`s` and its fingerprint), which its endpoint is named by. */
  readonly name: string;
  readonly endpoint: string;
}

/** One server in the host, as `doctor` shows it. */
export interface HostedServerListing {
  readonly name: string;
  readonly command: string;
  readonly state: string;
  readonly clients: number;
}

export interface HostedServersOptions {
  readonly token: string;
  readonly logger: Logger;
  /** For tests: the runtime to serve from (default: a new one, every tool exposed, nothing stored). */
  readonly runtime?: SwitchboardRuntime;
  readonly clock?: Clock;
  /** Windows that ask to start a server again (it failed, or Reconnect) within this long of an attempt share that attempt's outcome. Default 1 s. */
  readonly sharedAttemptMs?: number;
}

export class HostedServers implements HostServices {
  readonly runtime: SwitchboardRuntime;
  /** Every window's and agent's session, by server: their requests in flight are the host's, and a server that fails ends its own. */
  private readonly sessions = new Map<string, Set<SocketTransport>>();
  /** The last attempt to start each server again for a window (it had failed, or the user's Reconnect), and its outcome, which windows asking soon after share. */
  private readonly attempts = new Map<
    string,
    { readonly at: number; readonly kind: 'retry' | 'restart'; readonly outcome: Promise<ServerState> }
  >();
  /** What each attached client listed, by the host's names. */
  private readonly wanted = new Map<string, ReadonlyMap<string, StdioServerDefinition>>();
  /** Lazy copies no session holds, due to idle. */
  private readonly unheld = new Map<string, unknown>();
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly sharedAttemptMs: number;
  /** The manager taking the clients' latest lists (their servers start meanwhile): a connection to a server it is taking waits for it. */
  private applying: Promise<void> = Promise.resolve();
  /** Connections waiting for their server (upgrade()): the host's end closes them, as it does its sessions. */
  private readonly upgrading = new Set<Duplex>();

  constructor(options: HostedServersOptions) {
    this.logger = options.logger;
    this.clock = options.clock ?? systemClock;
    this.sharedAttemptMs = options.sharedAttemptMs ?? DEFAULT_SHARED_ATTEMPT_MS;
    this.runtime =
      options.runtime ??
      createRuntime({
        logger: options.logger,
        storage: new MemoryToolCacheStorage(),
        settings: { maxExposed: EVERY_TOOL },
        // Windows and agents search their own catalogs; the host's copies are reached one server at a time.
        searchIndex: 'onSearch',
        // Each window's output shows its server's log, as for a server of its own: one process, one log, for every window using it.
        connection: { onServerStderr: (server, line) => this.sessions.get(server)?.forEach((session) => session.sendStderr(line)) },
        hostAnswers: {
          listRoots: async () => ({ roots: [] }),
          refusal: (kind) => `the machine host has no window to ask in: ${kind} is answered only during a call from a window or agent`,
        },
      });
    // A server that fails ends the windows' sessions on it, saying how: each window's row reads as
    // for a server of its own; connecting again, it is tried again, and refused with how it failed (servable).
    this.runtime.manager.onDidChangeState(({ server, state }) => {
      if (state.kind !== 'error' && state.kind !== 'invalid') return;
      const failure = failureOf(state);
      for (const session of this.sessions.get(server) ?? []) void session.fail(failure);
    });
  }

  serve(req: http.IncomingMessage, res: http.ServerResponse, client: string | undefined): void {
    if ((req.url ?? '').split('?', 1)[0] !== HOST_PATHS.servers) return answer(res, 404, { error: 'not found' });
    void this.answerList(req, res, client).catch((error: unknown) => {
      this.logger.error(`machine host: ${HOST_PATHS.servers} failed: ${errorMessage(error)}`);
      if (!res.headersSent) answer(res, 500, { error: 'the host could not take the list' });
      else res.destroy();
    });
  }

  detached(client: string): void {
    if (this.wanted.delete(client)) void this.apply();
  }

  /**
   * A window's connection to one server: `GET /mcp/<name>` with `Upgrade: mcp-jsonrpc-lines`, then
   * a session on that server's endpoint, once the host's copy runs (or refused with how it failed).
   * Ends with the socket (the window went, or the host).
   */
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const name = /^\/mcp\/(s[0-9a-f]{16})$/.exec((req.url ?? '').split('?', 1)[0] ?? '')?.[1];
    if (req.headers.upgrade !== SOCKET_UPGRADE) return refuseUpgrade(socket, 400);
    if (name === undefined || !this.isWanted(name)) return refuseUpgrade(socket, 404);
    this.upgrading.add(socket);
    void this.applying
      .then(() => this.servable(name, req.headers[RESTART_HEADER] === '1'))
      .then((state) => {
        if (socket.destroyed) return;
        if (state === undefined) return refuseUpgrade(socket, 404);
        if (state.kind === 'error' || state.kind === 'invalid') return refuseUpgrade(socket, SERVER_FAILED_STATUS, failureOf(state));
        this.accept(name, socket, head);
      })
      .catch((error: unknown) => {
        this.logger.warn(`machine host: a connection to ${name} failed: ${errorMessage(error)}`);
        socket.destroy();
      })
      .finally(() => this.upgrading.delete(socket));
  }

  /** A client lists `name`, or the manager runs it (a copy it is still stopping). */
  private isWanted(name: string): boolean {
    return this.runtime.manager.server(name) !== undefined || [...this.wanted.values()].some((servers) => servers.has(name));
  }

  /**
   * The host's copy as a window's session should find it: running, so that the window reads the
   * server's own identity (name, icons, instructions) as from a server of its own. An idle copy is
   * started; one on its way up is waited for (within its connect timeout); a failed one is tried
   * again, as the window's own would be on its reconnect, and so is a running one on the user's
   * Reconnect (`restart`): its process restarts, as a window's own would. Windows asking within
   * `sharedAttemptMs` of an attempt share its outcome: many windows retrying, or a Reconnect All in
   * each, restart it once.
   */
  private async servable(name: string, restart: boolean): Promise<ServerState | undefined> {
    const { manager } = this.runtime;
    const view = manager.server(name);
    if (!view) return undefined;
    if (view.state.kind === 'error') return this.attempt(name, 'retry');
    if (restart && view.state.kind === 'running') return this.attempt(name, 'restart');
    if (view.state.kind === 'running' || hasFailed(view.state.kind)) return view.state;
    if (startsOnDemand(view.state.kind)) manager.wake(name, 'a window connects');
    const connectMs = view.definition?.timeouts.connectMs ?? 0;
    await manager.waitForState(
      (servers) => {
        const kind = servers.find((server) => server.name === name)?.state.kind;
        return kind === undefined || kind === 'running' || hasFailed(kind);
      },
      { timeoutMs: connectMs > 0 ? connectMs + SETTLE_MARGIN_MS : MAX_WAIT_MS },
    );
    return manager.server(name)?.state;
  }

  /**
   * Starts `name` again, or shares an attempt of the same kind made within sharedAttemptMs. Of the
   * same kind only: a restart of the running copy that an attempt to start the failed one has just
   * brought up (Reconnect on a failed row, then Reconnect All) is a restart, not that attempt.
   */
  private attempt(name: string, kind: 'retry' | 'restart'): Promise<ServerState> {
    const now = this.clock.now();
    const last = this.attempts.get(name);
    if (last && last.kind === kind && now - last.at < this.sharedAttemptMs) return last.outcome;
    const outcome = this.runtime.manager.reconnect(name);
    this.attempts.set(name, { at: now, kind, outcome });
    return outcome;
  }

  private accept(name: string, socket: Duplex, head: Buffer): void {
    const state = this.runtime.manager.server(name)?.state;
    const upstream = state?.kind === 'running' ? { protocolVersion: state.protocolVersion, era: state.era } : undefined;
    const transport = SocketTransport.accepted(socket, head, upstream);
    let sessions = this.sessions.get(name);
    if (!sessions) this.sessions.set(name, (sessions = new Set()));
    sessions.add(transport);
    this.held(name);
    this.runtime
      // The window's client validates what it sends and gets: a plain call is passed on as it came (gateway/callPassThrough.ts).
      .stdioSession(transport, serverEndpoint(name, { asItself: true }), { passToolCalls: true })
      .then((session) => session.closed)
      .catch((error: unknown) => this.logger.warn(`machine host: a session on ${name} failed: ${errorMessage(error)}`))
      .finally(() => {
        sessions.delete(transport);
        if (sessions.size === 0 && this.sessions.get(name) === sessions) {
          this.sessions.delete(name);
          this.unheldNow(name);
        }
        socket.destroy();
      });
  }

  private held(name: string): void {
    const timer = this.unheld.get(name);
    if (timer === undefined) return;
    this.clock.clearTimeout(timer);
    this.unheld.delete(name);
  }

  /** The last session on a copy ended: a lazy one idles soon, unless a session opens on it meanwhile. */
  private unheldNow(name: string): void {
    this.held(name);
    this.unheld.set(
      name,
      this.clock.setTimeout(() => {
        this.unheld.delete(name);
        const view = this.runtime.manager.server(name);
        if (this.sessions.has(name) || view?.state.kind !== 'running' || view.definition?.lifecycle.start !== 'lazy') return;
        void this.runtime.manager
          .connection(name)
          ?.goIdle('lazy')
          .catch((error: unknown) => this.logger.warn(`machine host: idling ${name} failed: ${errorMessage(error)}`));
      }, IDLE_UNHELD_MS),
    );
  }

  busy(): number {
    let inFlight = 0;
    for (const sessions of this.sessions.values()) for (const session of sessions) inFlight += session.requestsInFlight;
    return inFlight;
  }

  /** What every client is told: how many attached clients list each server, by the host's name. */
  status(): { readonly clients: Record<string, number> } {
    const clients: Record<string, number> = {};
    for (const servers of this.wanted.values()) for (const name of servers.keys()) clients[name] = (clients[name] ?? 0) + 1;
    return { clients };
  }

  /** How many attached clients list the server the host calls `name`. */
  clientsOf(name: string): number {
    let count = 0;
    for (const servers of this.wanted.values()) if (servers.has(name)) count += 1;
    return count;
  }

  /** Ends every client's session and waiting connection (an upgraded socket would hold the host's server open) and every server. */
  async close(): Promise<void> {
    // A connection still waiting for its server (one starting, or a list being taken) would hold
    // the host's server open as long as that wait lasts.
    for (const socket of this.upgrading) socket.destroy();
    this.upgrading.clear();
    for (const name of [...this.unheld.keys()]) this.held(name);
    await Promise.all([...this.sessions.values()].flatMap((sessions) => [...sessions].map((session) => session.close())));
    await this.runtime.dispose();
  }

  /** What runs here, for `doctor`: each server's command line (its secrets redacted), state and clients. */
  listing(): HostedServerListing[] {
    return this.runtime.manager.servers().map((view) => {
      const definition = view.definition?.transport === 'stdio' ? view.definition : undefined;
      const command = definition ? redactSecrets([definition.command, ...definition.args].join(' '), definition.secrets) : '';
      return { name: view.name, command, state: view.state.kind, clients: this.clientsOf(view.name) };
    });
  }

  private async answerList(req: http.IncomingMessage, res: http.ServerResponse, client: string | undefined): Promise<void> {
    if (req.method === 'GET') return answer(res, 200, { servers: this.listing() });
    if (req.method !== 'PUT' && req.method !== 'POST')
      return answer(res, 405, { error: 'PUT the list of servers, POST what to list again, or GET what runs' });
    // Only for an attachment that is open: what it lists is forgotten when it ends, so nothing is kept for a client that is gone.
    if (client === undefined) return answer(res, 409, { error: 'name an open attachment of this host' });
    const body = await readJsonBody(req, MAX_BODY_BYTES);
    if (body.kind === 'tooLarge') {
      // The rest is not read: the connection ends with the answer.
      res.on('finish', () => req.destroy());
      return answer(res, 413, { error: `the list is over ${MAX_BODY_BYTES} bytes` }, { connection: 'close' });
    }
    if (req.method === 'POST') return this.answerRefresh(res, client, body.kind === 'ok' ? body.body : undefined);
    const parsed = putSchema.safeParse(body.kind === 'ok' ? body.body : undefined);
    if (!parsed.success) return answer(res, 400, { error: `not a list of servers: ${parsed.error.issues[0]?.message ?? 'malformed'}` });
    const definitions = parsed.data.servers.map(hostedDefinition);
    this.wanted.set(client, new Map(definitions.map((definition) => [definition.name, definition])));
    // Answered before the servers have started: the client's connections open meanwhile, and each
    // waits for its server here (upgrade()), instead of the client waiting for every spawn.
    this.applying = this.apply().catch((error: unknown) => this.logger.error(`machine host: taking a list failed: ${errorMessage(error)}`));
    const servers: HostedServer[] = definitions.map(({ name }) => ({ name, endpoint: `/mcp/${name}` }));
    answer(res, 200, { servers });
  }

  /**
   * A window's Invalidate Tool Cache: the host's copies list again what they offer, before the
   * window lists them from the host (which answers from its own catalog). Only servers that this
   * client lists: one window cannot make the host work for servers it does not use.
   */
  private async answerRefresh(res: http.ServerResponse, client: string, body: unknown): Promise<void> {
    const parsed = refreshSchema.safeParse(body);
    if (!parsed.success) return answer(res, 400, { error: `not a list of servers: ${parsed.error.issues[0]?.message ?? 'malformed'}` });
    const own = this.wanted.get(client);
    const names = [...new Set(parsed.data.refresh)].filter((name) => own?.has(name) === true);
    await Promise.all(names.map((name) => this.runtime.invalidateCaches(name)));
    answer(res, 200, { refreshed: names });
  }

  /** The manager runs what any attached client lists, each launch once (eagerly if any of them wants it so); the rest stop. */
  private apply(): Promise<void> {
    const all = new Map<string, StdioServerDefinition>();
    for (const servers of this.wanted.values()) {
      for (const [name, definition] of servers) {
        const held = all.get(name);
        if (!held || (held.lifecycle.start === 'lazy' && definition.lifecycle.start === 'eager')) all.set(name, definition);
      }
    }
    // What is no longer run is forgotten: the host lives as long as its clients, whose lists change.
    for (const name of this.attempts.keys()) if (!all.has(name)) this.attempts.delete(name);
    return this.runtime.manager.update([...all.values()]);
  }
}

function failureOf(state: ErrorState | InvalidState): HostedFailure {
  return state.kind === 'error'
    ? { code: state.code, message: state.message, stderrTail: state.stderrTail }
    : { code: 'PROTOCOL_ERROR', message: 'its entry is invalid', stderrTail: [] };
}

function answer(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
}
