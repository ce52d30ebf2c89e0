// One replica of a team gateway among others behind a load balancer without affinity. The ids and
// states this replica hands out (a 2025 session's id, a 2026-07-28 task's id, a round's state)
// begin with its mark: its own URL, as its peers reach it, sealed with AES-256-GCM under the key
// every replica shares. A replica that gets a request about another's id opens the mark and sends
// the request there (forwarding, not a shared copy: a session's streams, a parked call and a
// task's running call live in one process). The seal keeps clients from pointing a replica at any
// other address, and keeps the replicas' addresses to themselves.
import { Sealer, type SealContext } from '../base/sealer';
import http from 'node:http';
import { FORWARDED_HEADER, STOPPING_HEADER, type ReplicaRouter, type SharedTaskStore } from '../gateway';

/** A shared key shorter than this is refused: it is the whole of what keeps the marks honest. */
export const MIN_CLUSTER_KEY_BYTES = 32;
/** How long a peer may take to accept the connection before it counts as gone. */
const CONNECT_TIMEOUT_MS = 2_000;
const MAX_MARK_CHARS = 512;
/** What open() reads at most: a session's kept initialize (4 KiB) sealed, with room. */
const MAX_SEALED_CHARS = 8192;
/** Marks of other replicas already opened: a gateway has few replicas, but clients send what they like. */
const MAX_KNOWN_MARKS = 1024;
/** What a mark is sealed as: nothing else sealed under the key opens as one. */
const MARK: SealContext = ['replica mark'];
/** Requests being forwarded at once; past this a replica answers 503 rather than queue without bound. */
export const MAX_FORWARDS = 1024;

/** Headers that belong to one connection, not to the request (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'content-length',
]);

export interface ReplicaOptions {
  /** This replica's URL as the others reach it (`http://10.1.2.3:8080`); its path is ignored. */
  readonly selfUrl: string;
  /** The key every replica of the gateway shares, at least 32 bytes. */
  readonly key: Uint8Array;
  /** Where finished tasks are kept for the others (Redis); absent: a task ends with its replica. */
  readonly tasks?: SharedTaskStore;
  /** Requests forwarded at once, at most (default MAX_FORWARDS). */
  readonly maxForwards?: number;
}

export class Replicas implements ReplicaRouter {
  readonly tasks: SharedTaskStore | undefined;
  private readonly self: string;
  private readonly sealer: Sealer;
  private readonly key: Uint8Array;
  /** This replica's mark: sealed once, so every id it hands out shares it. */
  private readonly mark: string;
  private readonly known = new Map<string, string | null>();
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  private forwarding = 0;
  private readonly maxForwards: number;

  constructor(options: ReplicaOptions) {
    if (options.key.length < MIN_CLUSTER_KEY_BYTES) throw new Error(`The cluster key must be at least ${MIN_CLUSTER_KEY_BYTES} bytes`);
    const url = new URL(options.selfUrl);
    if (url.protocol !== 'http:')
      throw new Error(`A replica's URL is http://address:port (the gateway speaks plain HTTP), not ${url.protocol}`);
    this.self = url.origin;
    this.key = options.key;
    this.sealer = new Sealer(options.key, 'mcp-switchboard replica mark');
    this.mark = this.seal(this.self, MARK);
    this.known.set(this.mark, null);
    this.tasks = options.tasks;
    this.maxForwards = options.maxForwards ?? MAX_FORWARDS;
  }

  mint(rest: string): string {
    return `${this.mark}.${rest}`;
  }

  holderOf(id: string): string | undefined {
    const dot = id.indexOf('.');
    if (dot <= 0 || dot > MAX_MARK_CHARS) return undefined;
    const mark = id.slice(0, dot);
    let holder = this.known.get(mark);
    if (holder === undefined) {
      holder = this.openMark(mark) ?? null;
      if (holder === this.self) holder = null;
      if (this.known.size >= MAX_KNOWN_MARKS) this.known.clear();
      this.known.set(mark, holder);
      this.known.set(this.mark, null);
    }
    return holder ?? undefined;
  }

  local(id: string): string {
    return id.startsWith(`${this.mark}.`) ? id.slice(this.mark.length + 1) : id;
  }

  forward(req: http.IncomingMessage, res: http.ServerResponse, body: unknown, holder: string): Promise<boolean> {
    if (this.forwarding >= this.maxForwards) {
      res.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '1' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'This gateway replica is forwarding too many requests; try again' },
          id: null,
        }),
      );
      return Promise.resolve(true);
    }
    this.forwarding += 1;
    res.once('close', () => (this.forwarding -= 1));
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    headers[FORWARDED_HEADER] = this.self;
    // This replica checked the client's Host; the holder is reached at its own address, which it always accepts.
    headers.host = new URL(holder).host;
    if (payload) headers['content-length'] = payload.length;
    return new Promise((resolve) => {
      const out = http.request(new URL(req.url ?? '/', holder), { method: req.method ?? 'GET', headers, agent: this.agent });
      const connecting = setTimeout(() => out.destroy(new Error('the replica did not accept the connection in time')), CONNECT_TIMEOUT_MS);
      out.once('socket', (socket) => {
        if (!socket.connecting) clearTimeout(connecting);
        else socket.once('connect', () => clearTimeout(connecting));
      });
      out.once('response', (answer) => {
        clearTimeout(connecting);
        // A holder that is stopping takes no more requests: to the caller it is gone (a session is taken over).
        if (answer.statusCode === 503 && answer.headers[STOPPING_HEADER] !== undefined) {
          answer.resume();
          resolve(false);
          return;
        }
        const copied: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) copied[name] = value;
        res.writeHead(answer.statusCode ?? 502, copied);
        answer.pipe(res);
        answer.once('error', () => res.destroy());
        resolve(true);
      });
      out.once('error', () => {
        clearTimeout(connecting);
        if (!res.headersSent) resolve(false);
        else res.destroy();
      });
      // The client went away: so does the request to the holder (a call there is cancelled as if it had come directly).
      res.once('close', () => out.destroy());
      out.end(payload);
    });
  }

  dispose(): void {
    this.agent.destroy();
  }

  seal(text: string, context: SealContext): string {
    return this.sealer.seal(text, context);
  }

  /** A sealer under the replicas' shared key for another use: what one seals, any other opens. */
  sealerFor(purpose: string): Sealer {
    return new Sealer(this.key, purpose);
  }

  open(sealed: string, context: SealContext): string | undefined {
    return this.sealer.open(sealed, MAX_SEALED_CHARS, context);
  }

  /** The URL a mark names, or undefined for anything not sealed under this gateway's key. */
  private openMark(mark: string): string | undefined {
    const text = this.open(mark, MARK);
    if (text === undefined) return undefined;
    try {
      const url = new URL(text);
      return url.protocol === 'http:' && url.origin === text ? text : undefined;
    } catch {
      return undefined;
    }
  }
}
