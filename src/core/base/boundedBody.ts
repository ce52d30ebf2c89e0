// A body read whole, up to a limit: what a registry, a team gateway or a client sends can be hostile.
import type http from 'node:http';
import { errorMessage } from './errorMessage';

export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the answer is over ${maxBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/** The body as UTF-8; past `maxBytes` the stream is cancelled and BodyTooLargeError thrown. */
export async function readBoundedBody(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new BodyTooLargeError(maxBytes);
  }
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export type BodyRead =
  { readonly kind: 'ok'; readonly body: unknown } | { readonly kind: 'tooLarge' } | { readonly kind: 'notJson'; readonly message: string };

/** A request's body as JSON, read whole up to `maxBytes`; past it, reading stops (the caller answers and closes). */
export function readJsonBody(req: http.IncomingMessage, maxBytes: number): Promise<BodyRead> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBytes) {
        done = true;
        // Stop reading; the response says why and the connection is closed after it.
        req.pause();
        resolve({ kind: 'tooLarge' });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve({ kind: 'ok', body: JSON.parse(text) as unknown });
      } catch (error) {
        resolve({ kind: 'notJson', message: errorMessage(error) });
      }
    });
    req.on('error', (error) => {
      if (done) return;
      done = true;
      reject(error);
    });
  });
}
