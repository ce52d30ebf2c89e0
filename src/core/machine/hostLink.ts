// A window's or an agent's side of the machine host: attach to the user's host, starting one when
// there is none, and stay attached. The attachment is a response the host keeps open and writes a
// beat on; when it ends (the host was killed or crashed) or falls silent (stopped, hung), the link
// attaches again, and the start that brings up a new host also ends a silent one (machineHost.ts).
//
// A host of another version is replaced when it has nothing in flight (it is asked to step down);
// while it is busy, this client does not attach to it and says so (`own`): the caller then runs its
// servers itself, never through a host that speaks another version.
import fs from 'node:fs';
import http from 'node:http';
import { systemClock, type Clock, type TimerHandle } from '../base/clock';
import { errorMessage } from '../base/errorMessage';
import { compareVersions } from '../base/version';
import { isProcessStopped } from '../base/processes';
import { Emitter, type Event } from '../base/events';
import type { Logger } from '../base/logging';
import { checkOwn, ensurePrivateFolder, HostPlaceError, type HostPlace } from './hostPlace';
import {
  askHost,
  attachedSchema,
  HEARTBEAT_MS,
  HOST_NAME,
  HOST_PATHS,
  HOST_PROTOCOL,
  hostInfo,
  readHostFile,
  readHostToken,
  type Attached,
  type HostAnswer,
  type HostInfo,
  type HostQuestion,
} from './hostProtocol';

/** Silence on the attachment for this long (three beats) means the host is stopped or hung. */
export const HUNG_AFTER_MS = 3 * HEARTBEAT_MS;
const DEFAULT_READY_MS = 5_000;
const POLL_MS = 50;
/** A starter that did not bring a host up is launched again after this long. */
const RELAUNCH_MS = 1_000;
const ASK_MS = 1_500;
/** While a beat is late, how often the host's process is looked at (is it stopped?). */
const STOPPED_CHECK_MS = 150;
/** A line from the host (its info, its status) is at most this long. */
const MAX_LINE_CHARS = 1024 * 1024;

export type HostLinkState =
  | { readonly kind: 'attaching' }
  /** `client`: this attachment's id at the host, which requests made for it name. */
  | { readonly kind: 'attached'; readonly info: HostInfo; readonly client: string }
  /** This client runs its servers itself: `why` says so in the user's words. */
  | { readonly kind: 'own'; readonly why: string }
  | { readonly kind: 'closed' };

export interface HostLinkOptions {
  readonly place: HostPlace;
  readonly version: string;
  /** Starts a host process, detached from this one (it outlives no client: it ends when the last has gone). */
  readonly launch: () => void;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** How long an attach may take, starting a host included. Default 5 s. */
  readonly readyMs?: number;
}

export class HostLink {
  private state: HostLinkState = { kind: 'attaching' };
  private readonly changed = new Emitter<HostLinkState>();
  readonly onDidChange: Event<HostLinkState> = this.changed.event;
  private readonly clock: Clock;
  private attachment: http.ClientRequest | undefined;
  private silence: TimerHandle | undefined;
  private stoppedCheck: TimerHandle | undefined;
  private attaching: Promise<HostLinkState> | undefined;
  private lastStatus: unknown;
  private readonly statusHeard = new Emitter<unknown>();
  /** The host said what runs in it (its services' status: what the sharing reads of its servers). */
  readonly onDidHearStatus: Event<unknown> = this.statusHeard.event;
  /** The token of the host attached to; undefined unless attached. */
  private hostToken: string | undefined;
  /** When this link last started a host (warm() or an attach), on the clock: one start per RELAUNCH_MS. */
  private launchedAt: number | undefined;
  /** warm()'s look for a host, which an attach waits for rather than start a second host beside it. */
  private warming: Promise<void> | undefined;

  constructor(private readonly options: HostLinkOptions) {
    this.clock = options.clock ?? systemClock;
  }

  get current(): HostLinkState {
    return this.state;
  }

  /** Attaches (starting a host if needed); resolves with the state it came to. Calls while one runs share it. */
  attach(): Promise<HostLinkState> {
    // Attached already: one attachment per link (a second would count this client twice, and outlive dispose()).
    if (this.state.kind === 'closed' || this.state.kind === 'attached') return Promise.resolve(this.state);
    this.attaching ??= this.connect().finally(() => (this.attaching = undefined));
    return this.attaching;
  }

  /**
   * Starts a host now if there is none, without attaching: a window does it as it activates, so
   * that the host loads while the window reads its configuration (which decides what it shares).
   * A host no client attaches to ends after its grace period. Never throws.
   */
  warm(): Promise<void> {
    if (this.state.kind !== 'attaching' || this.attaching || this.warming) return this.warming ?? Promise.resolve();
    const warming = (async () => {
      try {
        ensurePrivateFolder(this.options.place);
        // Ended meanwhile (a client that stopped while a host was looked for): no host for nobody.
        if ((await this.found()).kind === 'none' && this.state.kind !== 'closed') this.launch();
      } catch (error) {
        this.options.logger.debug(`machine host: not started ahead (${errorMessage(error)})`);
      }
    })();
    this.warming = warming;
    return warming;
  }

  /**
   * A request to the attached host, made for this attachment. Rejects unless attached: what it
   * asks is then asked again, of the next host, when the link attaches again.
   */
  ask(question: Omit<HostQuestion, 'client'>): Promise<HostAnswer> {
    const { state, hostToken } = this;
    if (state.kind !== 'attached' || hostToken === undefined) return Promise.reject(new Error('not attached to the machine host'));
    return askHost(this.options.place, hostToken, { ...question, client: state.client });
  }

  /** The host's socket, which connections to its servers are opened on. */
  get socket(): string {
    return this.options.place.socket;
  }

  /** What the attached host last said of what runs in it; undefined unless attached. */
  get status(): unknown {
    return this.state.kind === 'attached' ? this.lastStatus : undefined;
  }

  /** The attached host's token, for requests that do not go through ask() (a connection to one of its servers); undefined unless attached. */
  get token(): string | undefined {
    return this.state.kind === 'attached' ? this.hostToken : undefined;
  }

  dispose(): void {
    this.set({ kind: 'closed' });
    this.detach();
    this.changed.dispose();
    this.statusHeard.dispose();
  }

  private async connect(): Promise<HostLinkState> {
    const { place, logger } = this.options;
    this.set({ kind: 'attaching' });
    try {
      ensurePrivateFolder(place);
    } catch (error) {
      if (error instanceof HostPlaceError) return this.set({ kind: 'own', why: error.message });
      throw error;
    }
    await this.warming;
    const deadline = this.clock.now() + (this.options.readyMs ?? DEFAULT_READY_MS);
    while (this.state.kind === 'attaching') {
      const found = await this.found();
      if (found.kind === 'host') {
        const { info, token } = found;
        if (info.version === this.options.version && info.protocol === HOST_PROTOCOL) {
          const attached = await this.openAttachment(token).catch((error: unknown) => {
            logger.debug(`machine host: attaching failed (${errorMessage(error)}); trying again`);
            return undefined;
          });
          if (attached) {
            this.hostToken = token;
            const { client, ...info } = attached;
            return this.set({ kind: 'attached', info, client });
          }
        } else if (info.protocol === HOST_PROTOCOL && compareVersions(info.version, this.options.version) > 0) {
          // A newer host is never replaced by an older client (two versions would take turns ending each other).
          return this.set({
            kind: 'own',
            why: `the machine host (pid ${info.pid}) runs a newer version, ${info.version}, than this ${this.options.version}: this window runs its servers itself until it is reloaded`,
          });
        } else if (info.busy > 0) {
          return this.set({
            kind: 'own',
            why: `the machine host (pid ${info.pid}) runs version ${info.version}, this is ${this.options.version}, and it has requests in flight: this window runs its servers itself`,
          });
        } else {
          logger.info(`machine host ${info.pid} runs version ${info.version}; asking it to step down for ${this.options.version}`);
          await askHost(place, token, { method: 'POST', path: HOST_PATHS.retire, timeoutMs: ASK_MS }).catch(() => undefined);
        }
      } else if (found.kind === 'refused') {
        return this.set({ kind: 'own', why: found.why });
      }
      const now = this.clock.now();
      if (now >= deadline)
        return this.set({ kind: 'own', why: `no machine host answered within ${this.options.readyMs ?? DEFAULT_READY_MS} ms` });
      if (found.kind === 'none' && (this.launchedAt === undefined || now - this.launchedAt >= RELAUNCH_MS)) this.launch();
      await new Promise<void>((resolve) => this.clock.setTimeout(resolve, POLL_MS));
    }
    return this.state;
  }

  private launch(): void {
    this.launchedAt = this.clock.now();
    this.options.launch();
  }

  /** The host on the socket, if one answers; a socket or token that is not this user's is refused, not used. */
  private async found(): Promise<{ kind: 'host'; info: HostInfo; token: string } | { kind: 'none' } | { kind: 'refused'; why: string }> {
    const { place } = this.options;
    let token: string | undefined;
    try {
      token = readHostToken(place);
      // A socket someone else made would get this user's token: it must be this user's, as the folder is.
      if (token && process.platform !== 'win32' && fs.existsSync(place.socket)) checkOwn(place.socket, 'socket');
    } catch (error) {
      if (error instanceof HostPlaceError) return { kind: 'refused', why: error.message };
      throw error;
    }
    if (!token) return { kind: 'none' };
    // A stopped host (SIGSTOP) answers nothing: start the next at once rather than wait for it to say so.
    const written = readHostFile(place);
    if (written && isProcessStopped(written.pid)) return { kind: 'none' };
    try {
      const info = await hostInfo(place, token, ASK_MS);
      return info ? { kind: 'host', info, token } : { kind: 'none' };
    } catch {
      return { kind: 'none' };
    }
  }

  /** Opens the attachment; resolves with the host's info once its first line arrives. */
  private openAttachment(token: string): Promise<Attached> {
    return new Promise((resolve, reject) => {
      const request = http.request({
        socketPath: this.options.place.socket,
        path: HOST_PATHS.attach,
        method: 'GET',
        headers: { host: HOST_NAME, authorization: `Bearer ${token}` },
      });
      let first = true;
      let pending = '';
      const lost = (why: string) => {
        if (first) return reject(new Error(why));
        if (this.attachment !== request) return;
        this.detach();
        if (this.state.kind !== 'attached') return;
        this.options.logger.warn(`machine host: ${why}; attaching again`);
        this.set({ kind: 'attaching' });
        void this.attach();
      };
      request.on('response', (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          return lost(`the host answered HTTP ${response.statusCode ?? '?'}`);
        }
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          this.heard(request, lost);
          pending += chunk;
          // The first line is the host's info; then beats (`{}`, only heard) and its status when it changes. A line is bounded.
          for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
            const line = safeJson(pending.slice(0, end));
            pending = pending.slice(end + 1);
            if (first) {
              const parsed = attachedSchema.safeParse(line);
              if (!parsed.success) return lost('the host sent something that is not its info');
              first = false;
              this.attachment = request;
              this.hear(parsed.data.status);
              resolve(parsed.data);
            } else if (typeof line === 'object' && line !== null && 'status' in line) this.hear(line.status);
          }
          if (pending.length > MAX_LINE_CHARS) lost('the host sent a line too long');
        });
        response.on('end', () => lost('the host ended the attachment'));
        response.on('error', (error) => lost(errorMessage(error)));
      });
      request.on('error', (error) => lost(errorMessage(error)));
      request.on('close', () => lost('the host closed the attachment'));
      this.heard(request, lost);
      request.end();
    });
  }

  private hear(status: unknown): void {
    if (status === undefined) return;
    this.lastStatus = status;
    this.statusHeard.fire(status);
  }

  /**
   * Each thing heard from the host restarts the silence timers: three beats missed and the host is
   * taken for hung; a beat missed and the host is looked at, and taken for gone at once if it is
   * stopped (which a busy host never is, so a slow beat never ends a host that works).
   */
  private heard(request: http.ClientRequest, lost: (why: string) => void): void {
    this.clearSilence();
    this.silence = this.clock.setTimeout(() => {
      request.destroy();
      lost(`the host was silent for ${HUNG_AFTER_MS} ms`);
    }, HUNG_AFTER_MS);
    const look = (afterMs: number) => {
      this.stoppedCheck = this.clock.setTimeout(() => {
        const pid = this.state.kind === 'attached' ? this.state.info.pid : undefined;
        if (pid !== undefined && isProcessStopped(pid)) {
          request.destroy();
          return lost(`the host (pid ${pid}) is stopped`);
        }
        look(STOPPED_CHECK_MS);
      }, afterMs);
    };
    look(HEARTBEAT_MS + STOPPED_CHECK_MS);
  }

  private clearSilence(): void {
    if (this.silence !== undefined) this.clock.clearTimeout(this.silence);
    if (this.stoppedCheck !== undefined) this.clock.clearTimeout(this.stoppedCheck);
    this.silence = undefined;
    this.stoppedCheck = undefined;
  }

  private detach(): void {
    this.clearSilence();
    const attachment = this.attachment;
    this.attachment = undefined;
    attachment?.destroy();
  }

  private set(state: HostLinkState): HostLinkState {
    if (this.state.kind === 'closed') return this.state;
    this.state = state;
    this.changed.fire(state);
    return state;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
