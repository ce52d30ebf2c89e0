// The machine host's own side: one process per OS user, started by whichever window or agent first
// needs it, serving on a socket in the user's private folder (hostPlace.ts). It is the host while
// clients are attached, and it ends itself once the last has been gone for `graceMs`: nothing of it
// outlives the windows and agents that use it.
//
// Becoming the host happens under the start lock (O_EXCL), so that of two starters racing, one
// listens and the other ends. Under the lock a starter first asks the socket: a host that answers
// stays the host. One that does not answer but is alive (stopped, hung) is killed, after checking
// that its pid is still a host's, and its socket taken over.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { systemClock, type Clock, type TimerHandle } from '../base/clock';
import { errorMessage } from '../base/errorMessage';
import { isProcessAlive, isProcessStopped } from '../base/processes';
import { readRegularFileSync, writePrivateFileSync } from '../base/regularFile';
import { bearerToken, tokenMatches } from '../base/token';
import type { Logger } from '../base/logging';
import { ensurePrivateFolder, type HostPlace } from './hostPlace';
import {
  CLIENT_HEADER,
  HEARTBEAT_MS,
  HOST_NAME,
  HOST_PATHS,
  HOST_PROTOCOL,
  hostInfo,
  readHostFile,
  readHostToken,
  refuseUpgrade,
  type HostInfo,
} from './hostProtocol';

/** The argument every host process is started with: what tells a starter that a pid is a host's. */
export const HOST_MARKER = '--machine-host';
/** A lock older than this whose holder is gone or silent is a starter that died holding it. */
const STALE_LOCK_MS = 10_000;
/** How long a starter gives the current host to answer before taking it for hung. */
const PROBE_MS = 1_500;
const DEFAULT_GRACE_MS = 10_000;
/** The lock holds a line; a FIFO or a huge file in its place is read as nothing. */
const MAX_STATE_BYTES = 4096;

export interface MachineHostOptions {
  readonly place: HostPlace;
  readonly version: string;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** How long the host stays with no client attached before it ends. Default 10 s. */
  readonly graceMs?: number;
  /** Requests in flight to the host's servers; a newer version replaces the host only at 0. */
  readonly busy?: () => number;
  /** Whether `pid` is a host process (its command line carries HOST_MARKER). Default: read from /proc or ps. */
  readonly isHostProcess?: (pid: number) => boolean;
  /** What the host serves besides its lifecycle (the shared servers), made once its token is known. */
  readonly services?: (token: string) => HostServices;
}

/** What runs in the host (its servers), given the requests that are not the host's own. */
export interface HostServices {
  /**
   * A request that passed the host's checks (token, Host, no Origin) for a path not its own.
   * `client` is the live attachment the request names (CLIENT_HEADER), if any.
   */
  serve(req: http.IncomingMessage, res: http.ServerResponse, client: string | undefined): void;
  /** A request to upgrade to another protocol (a window's connection to a server), checked as `serve`'s are. */
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void;
  /** An attachment ended: what its client asked for is forgotten. */
  detached(client: string): void;
  /** Requests in flight: a newer version replaces the host only at 0. */
  busy(): number;
  /** What every client is told of the services (JSON), at attaching and whenever it changes. */
  status(): unknown;
  close(): Promise<void>;
}

/** Why start() did not make this process the host. */
export type NotHost = { readonly kind: 'another'; readonly why: string };

export class MachineHost {
  /** Open attachments by their id, each a response the host keeps writing beats on. */
  private readonly attachments = new Map<string, http.ServerResponse>();
  private readonly services: HostServices | undefined;
  /** The status as last sent on a beat. */
  private statusSent: string | undefined;
  private readonly clock: Clock;
  private idleTimer: TimerHandle | undefined;
  private beatTimer: TimerHandle | undefined;
  private closing: Promise<void> | undefined;
  private readonly closedOnce: Promise<void>;
  private markClosed!: () => void;
  readonly startedAt: number;

  private constructor(
    private readonly options: MachineHostOptions,
    private readonly server: http.Server,
    private readonly token: string,
  ) {
    this.clock = options.clock ?? systemClock;
    this.startedAt = this.clock.now();
    this.services = options.services?.(token);
    this.closedOnce = new Promise((resolve) => (this.markClosed = resolve));
  }

  /** Makes this process the host, or says why another is (or is becoming) the host instead. */
  static async start(options: MachineHostOptions): Promise<MachineHost | NotHost> {
    const { place, logger } = options;
    ensurePrivateFolder(place);
    const release = takeStartLock(place, options.clock ?? systemClock);
    if (!release) return { kind: 'another', why: 'another process is starting the host' };
    try {
      const previous = await answeringHost(place);
      if (previous) return { kind: 'another', why: `the host (pid ${previous.pid}) is running` };
      endSilentHost(place, options.isHostProcess ?? isHostProcess, logger);
      const token = crypto.randomBytes(32).toString('base64url');
      writePrivateFileSync(place.token, `${token}\n`);
      const host = new MachineHost(options, http.createServer(), token);
      try {
        await host.listen();
      } catch (error) {
        await host.services?.close();
        throw error;
      }
      writePrivateFileSync(place.info, JSON.stringify(host.info()));
      logger.info(`machine host ${process.pid} listening on ${place.socket}`);
      return host;
    } finally {
      release();
    }
  }

  /** Resolves when the host has ended (its last client gone for the grace period, retired, or closed). */
  get closed(): Promise<void> {
    return this.closedOnce;
  }

  info(): HostInfo {
    return {
      pid: process.pid,
      version: this.options.version,
      protocol: HOST_PROTOCOL,
      clients: this.attachments.size,
      busy: this.busy(),
      startedAt: this.startedAt,
    };
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private listen(): Promise<void> {
    const { server, options } = this;
    server.on('request', (req, res) => this.serve(req, res));
    server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
    server.on('clientError', (_error, socket) => socket.destroy());
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.place.socket, () => {
        server.off('error', reject);
        server.on('error', (error) => options.logger.warn(`machine host: ${errorMessage(error)}`));
        this.startBeat();
        this.noteClients();
        resolve();
      });
    });
  }

  /** Whether a request may reach the host at all: its name, no Origin (no page), and the token. */
  private refusal(req: http.IncomingMessage): { readonly status: 401 | 403; readonly error: string } | undefined {
    if (req.headers.host !== HOST_NAME || req.headers.origin !== undefined) return { status: 403, error: 'not a client of this host' };
    const presented = bearerToken(req.headers.authorization);
    if (presented === undefined || !tokenMatches(presented, this.token)) return { status: 401, error: 'missing or wrong token' };
    return undefined;
  }

  private upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => undefined);
    const refused = this.refusal(req) ?? (this.services ? undefined : { status: 404, error: 'not found' });
    if (refused || !this.services) return refuseUpgrade(socket, refused?.status ?? 404);
    this.services.upgrade(req, socket, head);
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    res.on('error', () => undefined);
    const refused = this.refusal(req);
    if (refused) return answer(res, refused.status, { error: refused.error });
    const route = `${req.method ?? ''} ${req.url ?? ''}`;
    if (route === `GET ${HOST_PATHS.info}`) return answer(res, 200, this.info());
    if (route === `GET ${HOST_PATHS.attach}`) return this.attach(res);
    if (route === `POST ${HOST_PATHS.retire}`) {
      const busy = this.busy();
      if (busy > 0) return answer(res, 409, { busy });
      res.on('finish', () => void this.close());
      answer(res, 200, { retired: true });
      return;
    }
    if (!this.services) return answer(res, 404, { error: 'not found' });
    const named = req.headers[CLIENT_HEADER];
    const client = typeof named === 'string' && this.attachments.has(named) ? named : undefined;
    this.services.serve(req, res, client);
  }

  private busy(): number {
    return (this.options.busy?.() ?? 0) + (this.services?.busy() ?? 0);
  }

  /** A client is attached while this response is open; the host writes a beat on it so that the client can tell it is alive. */
  private attach(res: http.ServerResponse): void {
    const client = crypto.randomBytes(12).toString('base64url');
    res.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
    this.attachments.set(client, res);
    res.write(`${JSON.stringify({ ...this.info(), client, status: this.services?.status() })}\n`);
    res.on('close', () => {
      this.attachments.delete(client);
      this.services?.detached(client);
      this.noteClients();
    });
    this.noteClients();
  }

  private startBeat(): void {
    const beat = () => {
      // A beat carries the status when it changed since the last one: clients learn it within a second.
      const status = this.services ? JSON.stringify(this.services.status()) : undefined;
      const line = status !== undefined && status !== this.statusSent ? `{"status":${status}}\n` : '{}\n';
      this.statusSent = status;
      for (const res of this.attachments.values()) if (res.writable) res.write(line);
      this.beatTimer = this.clock.setTimeout(beat, HEARTBEAT_MS);
    };
    this.beatTimer = this.clock.setTimeout(beat, HEARTBEAT_MS);
  }

  /** With no client attached, the host ends after the grace period unless one attaches meanwhile. */
  private noteClients(): void {
    if (this.attachments.size > 0) {
      if (this.idleTimer !== undefined) this.clock.clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
      return;
    }
    if (this.idleTimer !== undefined || this.closing) return;
    const graceMs = this.options.graceMs ?? DEFAULT_GRACE_MS;
    this.idleTimer = this.clock.setTimeout(() => {
      this.idleTimer = undefined;
      if (this.attachments.size === 0) {
        this.options.logger.info(`machine host: no client for ${graceMs} ms; ending`);
        void this.close();
      }
    }, graceMs);
  }

  private async shutDown(): Promise<void> {
    if (this.idleTimer !== undefined) this.clock.clearTimeout(this.idleTimer);
    if (this.beatTimer !== undefined) this.clock.clearTimeout(this.beatTimer);
    for (const res of this.attachments.values()) res.destroy();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // The servers end before the socket closes: nothing of the host outlives it.
    await this.services
      ?.close()
      .catch((error: unknown) => this.options.logger.warn(`machine host: stopping its servers failed: ${errorMessage(error)}`));
    // A client's connection kept alive would hold the close for the keep-alive timeout.
    this.server.closeAllConnections();
    await closed;
    // Only what is still this host's: a host that replaced this one owns the files now.
    if (ownsInfo(this.options.place)) {
      for (const file of [this.options.place.info, this.options.place.token]) fs.rmSync(file, { force: true });
    }
    this.markClosed();
  }
}

function answer(res: http.ServerResponse, status: number, body: unknown): void {
  // One request per connection: clients ask rarely, and a host that ends has no idle connection to wait for.
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify(body));
}

/** The start lock, or undefined while another live starter holds it. A lock left by a dead or silent starter is taken over. */
function takeStartLock(place: HostPlace, clock: Clock): (() => void) | undefined {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(place.lock, String(process.pid), { mode: 0o600, flag: 'wx' });
      return () => fs.rmSync(place.lock, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readPid(place.lock);
    const age = clock.now() - (statOrUndefined(place.lock)?.mtimeMs ?? 0);
    if (holder !== undefined && isProcessAlive(holder) && age < STALE_LOCK_MS) return undefined;
    fs.rmSync(place.lock, { force: true });
  }
  return undefined;
}

async function answeringHost(place: HostPlace): Promise<HostInfo | undefined> {
  const token = readHostToken(place);
  if (!token || !statOrUndefined(place.socket)) return undefined;
  // A stopped host answers nothing: no need to wait for it to say so.
  const written = readHostFile(place);
  if (written && isProcessStopped(written.pid)) return undefined;
  try {
    return await hostInfo(place, token, PROBE_MS);
  } catch {
    return undefined;
  }
}

/** A host that did not answer but is alive is stopped or hung: it is ended, so that nothing is left behind when its socket is taken. */
function endSilentHost(place: HostPlace, isHost: (pid: number) => boolean, logger: Logger): void {
  const previous = readHostFile(place);
  if (previous && previous.pid !== process.pid && isProcessAlive(previous.pid) && isHost(previous.pid)) {
    logger.warn(`machine host ${previous.pid} does not answer; ending it and taking its place`);
    try {
      process.kill(previous.pid, 'SIGKILL');
    } catch (error) {
      logger.warn(`machine host ${previous.pid} could not be ended: ${errorMessage(error)}`);
    }
  }
  if (process.platform !== 'win32') fs.rmSync(place.socket, { force: true });
}

function ownsInfo(place: HostPlace): boolean {
  return readHostFile(place)?.pid === process.pid;
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readRegularFileSync(file, MAX_STATE_BYTES) ?? '', 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function statOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}

/** Whether `pid` runs a host: its command line carries HOST_MARKER (a pid reused by another program does not). */
export function isHostProcess(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(HOST_MARKER);
  } catch {
    // No /proc (macOS): what `ps` says of it.
    try {
      return execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8', timeout: 2_000 }).includes(HOST_MARKER);
    } catch {
      return false;
    }
  }
}
