// Newline-delimited JSON-RPC, as MCP's stdio transport frames it: reading the lines of a stream,
// and handing the messages over one at a time. Shared by a server process's pipes
// (stdioTransport.ts) and the machine host's socket (socketTransport.ts).
import { StringDecoder } from 'node:string_decoder';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';

/**
 * The lines of a stream, each without its `\n` or `\r\n`, the last one also without them; then
 * `onEnd`. What readline does for JSON-RPC's newline-delimited messages, in a third of its time per
 * message: this is on the path of every reply.
 */
export function readLines(
  stream: NodeJS.ReadableStream,
  onLine: (line: string) => void,
  onEnd: () => void,
  /** A line longer than this (a peer that never ends one) is not kept: `tooLong` is called instead, once. */
  bound?: { readonly maxChars: number; readonly tooLong: () => void },
): void {
  let partial = '';
  const emit = (line: string) => onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  // Decoded here rather than by setEncoding, which a socket an HTTP server upgraded refuses.
  const decoder = new StringDecoder('utf8');
  stream.on('data', (data: Buffer | string) => {
    const chunk = typeof data === 'string' ? data : decoder.write(data);
    let start = 0;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      const line = chunk.slice(start, end);
      start = end + 1;
      if (partial === '') emit(line);
      else {
        emit(partial + line);
        partial = '';
      }
    }
    if (start < chunk.length) partial += chunk.slice(start);
    if (bound && partial.length > bound.maxChars) {
      partial = '';
      bound.tooLong();
    }
  });
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    if (partial !== '') emit(partial);
    onEnd();
  };
  // 'close' too: a stream destroyed by an error ends without 'end'.
  stream.on('end', end);
  stream.on('close', end);
}

/**
 * Hands messages over one at a time. The SDK dispatches a notification in a microtask but a
 * response synchronously; given a chunk with progress then the result, it would settle the call
 * (and drop its progress handler) before it saw the progress. So after anything but a response,
 * the next message waits for a macrotask, by which time the notification has been handled.
 */
export class MessageInbox {
  private readonly queue: JSONRPCMessage[] = [];
  private delivering = false;

  /** `idle`: every message pushed so far has been handed over. */
  constructor(
    private readonly deliver: (message: JSONRPCMessage) => void,
    private readonly idle: () => void,
  ) {}

  push(message: JSONRPCMessage): void {
    this.queue.push(message);
    if (!this.delivering) this.drain();
  }

  /** Messages are waiting or being handed over. */
  get busy(): boolean {
    return this.delivering || this.queue.length > 0;
  }

  private drain(): void {
    this.delivering = true;
    while (this.queue.length > 0) {
      const message = this.queue.shift() as JSONRPCMessage;
      this.deliver(message);
      // Already validated: a message with an id and no method is a response (result or error).
      const isResponse = 'id' in message && !('method' in message);
      if (!isResponse) {
        // The lines of one chunk are handed over one after another: whatever comes next (even in
        // the same chunk) waits here until the SDK has handled this message.
        setImmediate(() => this.drain());
        return;
      }
    }
    this.delivering = false;
    this.idle();
  }
}
