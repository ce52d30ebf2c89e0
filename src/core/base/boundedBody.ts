// A response body read whole, up to a limit: what a registry or a team gateway sends can be hostile.

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
