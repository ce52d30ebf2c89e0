// The hop between a window (or an agent) and the machine host: MCP's stdio framing (one JSON-RPC
// message per line) over the host's Unix socket, after an HTTP Upgrade that carries the token. A
// stdio server's cost per message, where streamable HTTP to the host cost 1.4 ms more per call
// (bench:host). The same class is both ends: the window's (`upgrading`, which opens the socket)
// and the host's (`accepted`, on the socket its HTTP server upgraded).
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { cancelledRequestId, isJsonRpcMessage } from '../../base/jsonRpc';
import { errorMessage } from '../../base/errorMessage';
import { readJsonBody } from '../../base/boundedBody';
import { MessageInbox, readLines } from './messageLines';
import { SwitchboardError, type ConnectionFailure } from './errors';
import type { ConnectionErrorCode, RunningState } from '../../state';

/** The `Upgrade` token of the hop. */
export const SOCKET_UPGRADE = 'mcp-jsonrpc-lines';
/** On the upgrade: the user's Reconnect, so the host restarts its copy of the server, as a window restarts its own. */
export const RESTART_HEADER = 'x-mcp-switchboard-restart';
/** A message on the hop is at most this long (a peer that never ends a line is cut off). */
const MAX_LINE_CHARS = 64 * 1024 * 1024;

export interface UpgradeRequest {
  readonly socketPath: string;
  /** The endpoint, e.g. `/mcp/s0123…`. */
  readonly path: string;
  /** `Host` and `Authorization` among them. */
  readonly headers: Readonly<Record<string, string>>;
  /** The last lines the host's copy of the server wrote to stderr, when the host says it failed: this window's tail shows them. */
  readonly onStderrLine?: (line: string) => void;
}

/** The host's refusal of a connection to a server of its that failed (HostedServers): its state's code, message and stderr. */
export const SERVER_FAILED_STATUS = 502;

/**
 * What the host says on the hop itself, never handed to the MCP client above the transport: a line
 * the shared server wrote to stderr (each window's output shows its server's log, as for a server
 * of its own), and why it ends a session (its server failed: the window's row says how, not
 * "connection lost"). Only the host's end sends them, only the window's end reads them.
 */
const HOP_STDERR = 'notifications/mcp-switchboard/stderr';
const HOP_FAILED = 'notifications/mcp-switchboard/failed';
/** First on a session: the protocol the host's copy speaks with its server, which the window's row shows (the hop itself is 2025's). */
const HOP_UPSTREAM = 'notifications/mcp-switchboard/upstream';
/** Stderr lines wait in a session's socket up to this much; past it (a window that does not read) they are dropped, never buffered without end. */
const MAX_STDERR_BACKLOG_BYTES = 1024 * 1024;
const MAX_STDERR_LINE_CHARS = 2000;
/** How long the host waits for a failure message to be written before it ends the session anyway (real I/O, real time). */
const FAILURE_FLUSH_MS = 1_000;

/** The protocol a host's copy of a server speaks with it. */
export interface UpstreamProtocol {
  readonly protocolVersion: string;
  readonly era: RunningState['era'];
}

/** How a host's copy of a server failed, as the host tells a window. */
export interface HostedFailure {
  readonly code: string;
  readonly message: string;
  readonly stderrTail?: readonly string[];
}

/** What a host's copy of a stdio server can fail with; anything else it says is a failure to connect. */
const FAILURE_CODES = new Set([
  'ENOENT',
  'SPAWN_FAILED',
  'PROCESS_EXITED',
  'CONNECT_TIMEOUT',
  'PROTOCOL_ERROR',
  'CONNECTION_LOST',
  'SANDBOX_UNAVAILABLE',
]);
const MAX_FAILURE_BYTES = 64 * 1024;
const MAX_FAILURE_LINES = 50;

type RequestId = string | number;

export class SocketTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private socket: Duplex | undefined;
  private closed = false;
  /** Aborted by close(): an upgrade still asked for is given up, and a socket it brings later is closed. */
  private readonly opening = new AbortController();
  private hostFailure: ConnectionFailure | undefined;
  private upstream: UpstreamProtocol | undefined;
  private ended = false;
  /** Requests received and not yet answered: what the host counts as in flight. */
  private readonly unanswered = new Set<RequestId>();
  private readonly inbox = new MessageInbox(
    (message) => {
      try {
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(new Error(`handling a message failed: ${errorMessage(error)}`));
      }
    },
    () => {
      if (this.ended) this.finish();
    },
  );

  private constructor(
    private readonly open: (signal: AbortSignal) => Promise<Duplex>,
    /** The window's end: where the host's stderr lines go. Undefined at the host's end, which reads no hop messages. */
    private readonly window: { readonly onStderrLine?: (line: string) => void } | undefined,
  ) {}

  /** The host's end, on a socket its HTTP server is upgrading: the 101 is written here; `upstream`, what its copy speaks, is said first. */
  static accepted(socket: Duplex, head: Buffer, upstream?: UpstreamProtocol): SocketTransport {
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${SOCKET_UPGRADE}\r\n\r\n`);
    if (head.length > 0) socket.unshift(head);
    if (upstream) socket.write(hopMessage(HOP_UPSTREAM, { protocolVersion: upstream.protocolVersion, era: upstream.era }));
    return new SocketTransport(async () => socket, undefined);
  }

  /** A client's end: start() opens the socket, asks for the upgrade, and fails as an unreachable server would. */
  static upgrading(request: UpgradeRequest): SocketTransport {
    return new SocketTransport((signal) => upgrade(request, signal), { onStderrLine: request.onStderrLine });
  }

  get requestsInFlight(): number {
    return this.unanswered.size;
  }

  /** At the window's end, once the host ended the session because its server failed: how, in the words of a server of its own. */
  get failure(): ConnectionFailure | undefined {
    return this.hostFailure;
  }

  /** At the window's end: the protocol the host's copy speaks with the server (the session's own is the hop's). */
  get upstreamProtocol(): UpstreamProtocol | undefined {
    return this.upstream;
  }

  /** The host's end: a line its copy of the server wrote to stderr, for the window's output. Dropped while the window is not reading. */
  sendStderr(line: string): void {
    const socket = this.socket;
    if (this.window || !socket || this.closed || socket.destroyed || socket.writableLength > MAX_STDERR_BACKLOG_BYTES) return;
    socket.write(hopMessage(HOP_STDERR, { line: line.slice(0, MAX_STDERR_LINE_CHARS) }));
  }

  /** The host's end: its server failed, so the session ends, and the window is told how first. */
  async fail(failure: HostedFailure): Promise<void> {
    const socket = this.socket;
    if (!this.window && socket && !this.closed && !socket.destroyed) {
      const said = { code: failure.code, message: failure.message.slice(0, 4000) };
      // Written before the socket is destroyed (which drops what is unwritten), but not waited for
      // without end: a window that does not read would hold its session open.
      await new Promise<void>((resolve) => {
        const bound = setTimeout(resolve, FAILURE_FLUSH_MS);
        socket.write(hopMessage(HOP_FAILED, said), () => {
          clearTimeout(bound);
          resolve();
        });
      });
    }
    await this.close();
  }

  async start(): Promise<void> {
    const socket = await this.open(this.opening.signal);
    if (this.opening.signal.aborted) {
      // Closed while the upgrade was asked for (the server dropped, the window ending): the host's
      // session on it would be held open by nobody.
      socket.destroy();
      throw new Error('the machine host connection was closed while it opened');
    }
    this.socket = socket;
    socket.on('error', (error) => this.onerror?.(error));
    readLines(
      socket,
      (line) => this.received(line),
      () => {
        this.ended = true;
        if (!this.inbox.busy) this.finish();
      },
      { maxChars: MAX_LINE_CHARS, tooLong: () => socket.destroy(new Error(`a message over ${MAX_LINE_CHARS} characters`)) },
    );
  }

  send(message: JSONRPCMessage): Promise<void> {
    const socket = this.socket;
    if (!socket || this.closed || socket.destroyed) return Promise.reject(new Error('the machine host connection is closed'));
    if ('id' in message && !('method' in message)) this.unanswered.delete(message.id as RequestId);
    return new Promise((resolve, reject) => socket.write(serializeMessage(message), (error) => (error ? reject(error) : resolve())));
  }

  async close(): Promise<void> {
    this.opening.abort();
    this.socket?.end();
    this.socket?.destroy();
    this.ended = true;
    this.finish();
  }

  private received(line: string): void {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      message = undefined;
    }
    if (!isJsonRpcMessage(message)) {
      this.onerror?.(new Error('the other end sent a line that is not a JSON-RPC message'));
      return;
    }
    if (this.window && 'method' in message && !('id' in message) && this.hopMessage(message.method, message.params)) return;
    if ('method' in message && 'id' in message) this.unanswered.add(message.id as RequestId);
    // A cancelled request is never answered (MCP's cancellation): it is no longer in flight.
    else if ('method' in message && message.method === 'notifications/cancelled') {
      const cancelled = cancelledRequestId(message.params);
      if (cancelled !== undefined) this.unanswered.delete(cancelled);
    }
    this.inbox.push(message);
  }

  /** The window's end: whether the host's message was about the hop (its server's stderr, its failure), handled here. */
  private hopMessage(method: string, params: unknown): boolean {
    if (method === HOP_STDERR) {
      const line = (params as { line?: unknown } | undefined)?.line;
      if (typeof line === 'string') this.window?.onStderrLine?.(line.slice(0, MAX_STDERR_LINE_CHARS));
      return true;
    }
    if (method === HOP_FAILED) {
      this.hostFailure = hostFailure(params, undefined);
      return true;
    }
    if (method === HOP_UPSTREAM) {
      const said = (params ?? {}) as { protocolVersion?: unknown; era?: unknown };
      if (
        typeof said.protocolVersion === 'string' &&
        /^\d{4}-\d{2}-\d{2}$/.test(said.protocolVersion) &&
        (said.era === 'legacy' || said.era === 'modern')
      )
        this.upstream = { protocolVersion: said.protocolVersion, era: said.era };
      return true;
    }
    return false;
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.unanswered.clear();
    this.onclose?.();
  }
}

/** Opens the socket and asks for the upgrade; a socket nobody listens on is `fetch failed`, as an unreachable HTTP server is. */
function upgrade({ socketPath, path, headers, onStderrLine }: UpgradeRequest, signal: AbortSignal): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const request = http.request({
      socketPath,
      path,
      method: 'GET',
      headers: { ...headers, connection: 'Upgrade', upgrade: SOCKET_UPGRADE },
      signal,
    });
    request.on('upgrade', (response, socket, head) => {
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    request.on('response', (response) => {
      if (response.statusCode !== SERVER_FAILED_STATUS) {
        response.resume();
        return reject(new Error(`the machine host answered HTTP ${response.statusCode ?? '?'} instead of the connection`));
      }
      // The host's copy of the server failed: this connection fails the same way, in its words.
      readJsonBody(response, MAX_FAILURE_BYTES).then((read) => {
        if (read.kind === 'tooLarge') response.destroy();
        reject(hostFailure(read.kind === 'ok' ? read.body : undefined, onStderrLine));
      }, reject);
    });
    // Given up (close()) is no unreachable host: nothing is to be made of it but the end it is.
    request.on('error', (error) => reject(signal.aborted ? error : new TypeError('fetch failed', { cause: error })));
    request.end();
  });
}

function hopMessage(method: string, params: Record<string, unknown>): string {
  return serializeMessage({ jsonrpc: '2.0', method, params });
}

/** The error the host's failure says (a refusal, or the end of a session): its server's code and message, its stderr handed on first. */
function hostFailure(value: unknown, onStderrLine: ((line: string) => void) | undefined): ConnectionFailure {
  const said = (typeof value === 'object' && value !== null ? value : {}) as { code?: unknown; message?: unknown; stderrTail?: unknown };
  if (Array.isArray(said.stderrTail)) {
    for (const line of said.stderrTail.slice(-MAX_FAILURE_LINES))
      if (typeof line === 'string') onStderrLine?.(line.slice(0, MAX_STDERR_LINE_CHARS));
  }
  const code = typeof said.code === 'string' && FAILURE_CODES.has(said.code) ? (said.code as ConnectionErrorCode) : 'CONNECT_FAILED';
  const message = typeof said.message === 'string' ? said.message.slice(0, 4000) : 'the server failed in the machine host';
  return new SwitchboardError<ConnectionErrorCode>(code, `in the machine host: ${message}`);
}
