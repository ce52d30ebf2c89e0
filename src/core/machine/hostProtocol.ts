// What the machine host and its clients (windows, agents) say to each other over the host's socket,
// besides MCP: who the host is, a client's attachment (a response that stays open, with a beat),
// and a request to step down for a newer version. Every request carries the token; `Host` must be
// the host's own name and a request with an `Origin` is refused, so that nothing but a client of
// this user that read the token can use it.
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { z } from 'zod';
import { readRegularFileSync } from '../base/regularFile';
import { GATEWAY_TOKEN_PATTERN } from '../base/token';
import { checkOwn, type HostPlace } from './hostPlace';

/** Raised when what host and client say to each other changes incompatibly. */
export const HOST_PROTOCOL = 1;
/**
 * The `Host` header of every request to the host (the socket has no address to name), and the host
 * of the URLs its servers are reached at. Under `.invalid` (RFC 2606), which never resolves: a
 * request that did not go through the socket reaches nobody, and never carries the token away.
 */
export const HOST_NAME = 'mcp-switchboard-host.invalid';
export const HOST_PATHS = { info: '/host/info', attach: '/host/attach', retire: '/host/retire', servers: '/host/servers' } as const;
/** Which attachment a request is made for (the id its first line gave): what the host forgets when it ends. */
export const CLIENT_HEADER = 'x-mcp-switchboard-client';
/** How often the host writes a beat on each attachment. */
export const HEARTBEAT_MS = 1_000;

/** What a host says of itself (GET /host/info, and host.json for a starter). */
export const hostInfoSchema = z.object({
  pid: z.number().int().positive(),
  version: z.string().max(100),
  protocol: z.number().int(),
  /** Open attachments: windows and agents using this host. */
  clients: z.number().int().nonnegative(),
  /** Requests in flight to its servers: a host is replaced only when none is. */
  busy: z.number().int().nonnegative(),
  startedAt: z.number(),
});
export type HostInfo = z.infer<typeof hostInfoSchema>;

/** An attachment's first line: the host's info and the id of this attachment. */
export const attachedSchema = hostInfoSchema.extend({
  client: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/),
  /** What runs in the host (HostServices.status); sent again, as `{"status": …}`, when it changes. */
  status: z.unknown().optional(),
});
export type Attached = z.infer<typeof attachedSchema>;

const MAX_ANSWER_BYTES = 64 * 1024;

/** The host's token, read only from a file that is this user's alone. */
export function readHostToken(place: HostPlace): string | undefined {
  let text: string | undefined;
  try {
    text = readRegularFileSync(place.token, 1024);
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  checkOwn(place.token, 'token');
  const token = text.trim();
  return GATEWAY_TOKEN_PATTERN.test(token) ? token : undefined;
}

export interface HostAnswer {
  readonly status: number;
  readonly body: unknown;
}

export interface HostQuestion {
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly path: string;
  readonly timeoutMs: number;
  /** Sent as JSON. */
  readonly body?: unknown;
  /** The attachment the request is made for (CLIENT_HEADER). */
  readonly client?: string;
}

/** One request to the host over its socket, bounded in time and size; rejects when nothing answers. */
export function askHost(place: HostPlace, token: string, question: HostQuestion): Promise<HostAnswer> {
  const { method, path, timeoutMs, body, client } = question;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { host: HOST_NAME, authorization: `Bearer ${token}` };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  if (client !== undefined) headers[CLIENT_HEADER] = client;
  return new Promise((resolve, reject) => {
    const request = http.request({ socketPath: place.socket, path, method, headers, timeout: timeoutMs }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) request.destroy(new Error(`the host's answer is over ${MAX_ANSWER_BYTES} bytes`));
        else chunks.push(chunk);
      });
      response.on('end', () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = undefined;
        }
        resolve({ status: response.statusCode ?? 0, body });
      });
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`the machine host did not answer within ${timeoutMs} ms`)));
    request.on('error', reject);
    request.end(payload);
  });
}

/** The host's info, or undefined when what answered is not a host of this protocol's shape. */
export async function hostInfo(place: HostPlace, token: string, timeoutMs: number): Promise<HostInfo | undefined> {
  const answer = await askHost(place, token, { method: 'GET', path: HOST_PATHS.info, timeoutMs });
  if (answer.status !== 200) return undefined;
  const parsed = hostInfoSchema.safeParse(answer.body);
  return parsed.success ? parsed.data : undefined;
}

/** host.json holds a line; a FIFO or a huge file in its place is read as nothing. */
const MAX_INFO_BYTES = 4096;

/** What the running host wrote of itself (host.json): its pid for a starter that must replace a stopped or hung one. */
export function readHostFile(place: HostPlace): HostInfo | undefined {
  try {
    const parsed = hostInfoSchema.safeParse(JSON.parse(readRegularFileSync(place.info, MAX_INFO_BYTES) ?? ''));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Answers a request to upgrade with a plain HTTP status instead (and a JSON body, if given), and ends the socket. */
export function refuseUpgrade(socket: Duplex, status: number, body?: unknown): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  const type = body === undefined ? '' : 'Content-Type: application/json\r\n';
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\nConnection: close\r\n${type}Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
}
