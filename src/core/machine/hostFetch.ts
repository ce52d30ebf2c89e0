// How a window's connection reaches a server that runs in the machine host: streamable HTTP, as to
// any HTTP server, but over the host's socket. A fetch that sends requests for HOST_NAME's URLs
// through the socket and everything else on as it was, so that the connection, its sessions and
// its relays are today's code. Node's fetch has no way to name a socket without undici's Agent,
// which the bundle would carry whole for this one request shape; node:http speaks HTTP over a
// Unix socket (and a Windows named pipe) already.
import http from 'node:http';
import { Readable } from 'node:stream';
import { HOST_NAME } from './hostProtocol';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Bodies that are no body (RFC 9110): a Response refuses one. */
const NO_BODY = new Set([204, 205, 304]);

/**
 * `base` (default: the global fetch), except that a URL whose host is HOST_NAME goes to the host's
 * socket at `socket()`, kept alive between requests.
 */
export function fetchThroughHost(socket: () => string, base?: Fetch): Fetch {
  const agent = new http.Agent({ keepAlive: true });
  const send: Fetch = base ?? ((url, init) => fetch(url, init));
  return (url, init) => {
    const target = typeof url === 'string' ? new URL(url) : url;
    if (target.hostname !== HOST_NAME) return send(url, init);
    return overSocket(socket(), target, init ?? {}, agent);
  };
}

function overSocket(socketPath: string, url: URL, init: RequestInit, agent: http.Agent): Promise<Response> {
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => (headers[name] = value));
  headers.host = HOST_NAME;
  const body = bodyBytes(init.body);
  if (body !== undefined) headers['content-length'] = String(body.length);
  const method = init.method ?? 'GET';
  const signal = init.signal ?? undefined;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const request = http.request({ socketPath, agent, method, path: `${url.pathname}${url.search}`, headers }, (response) => {
      const answer = new Headers();
      for (const [name, value] of Object.entries(response.headers)) {
        for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) answer.append(name, one);
      }
      const status = response.statusCode ?? 502;
      const empty = NO_BODY.has(status) || method === 'HEAD';
      if (empty) response.resume();
      resolve(
        new Response(empty ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>), {
          status,
          statusText: response.statusMessage ?? '',
          headers: answer,
        }),
      );
    });
    const onAbort = () => request.destroy(abortError(signal));
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('close', () => signal?.removeEventListener('abort', onAbort));
    request.on('error', (error) => {
      // What fetch rejects with when nothing was reached, so that the connection reads it as it reads any unreachable server.
      reject(signal?.aborted ? abortError(signal) : new TypeError('fetch failed', { cause: error }));
    });
    request.end(body);
  });
}

function bodyBytes(body: RequestInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString(), 'utf8');
  throw new TypeError('a request to the machine host takes a string or bytes as its body');
}

function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}
