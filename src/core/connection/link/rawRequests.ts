// Requests the SDK client cannot make for Switchboard: the 2026-07-28 tasks extension's traffic (a
// tools/call answered with `resultType: "task"`, tasks/get, tasks/update, tasks/cancel), which the
// SDK's wire codec refuses. The SDK's tasks package asks its host for exactly this path
// (`rawDispatch`). They go out on the client's own transport (its process, auth and headers) with
// ids of their own, and their responses are taken off the transport before the client sees them.
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

export type RawResponse =
  | { readonly kind: 'result'; readonly result: unknown }
  | { readonly kind: 'error'; readonly error: { code: number; message: string; data?: unknown } };

/** More raw requests in flight on one link than the tasks it runs need (32 tasks, a few requests each). */
const MAX_PENDING = 256;

export class RawRequests {
  private readonly pending = new Map<string, (response: RawResponse) => void>();
  private next = 0;
  private closed = false;

  constructor(private readonly transport: Transport) {}

  /** For the transport's tap: takes a response to a raw request off the transport (true), or leaves it. */
  readonly take = (message: JSONRPCMessage): boolean => {
    const id = (message as { id?: unknown }).id;
    if (typeof id !== 'string' || !('result' in message || 'error' in message)) return false;
    const settle = this.pending.get(id);
    if (!settle) return false;
    this.pending.delete(id);
    settle('error' in message ? { kind: 'error', error: message.error } : { kind: 'result', result: message.result });
    return true;
  };

  /**
   * Sends `request` (method and params, no id) and resolves with its response; `signal` gives up on
   * it. `headers` go with its message (a user's credential, credentials/userCredential.ts).
   */
  async dispatch(
    request: { readonly method: string; readonly params?: unknown },
    signal?: AbortSignal,
    headers?: Readonly<Record<string, string>>,
  ): Promise<RawResponse> {
    if (this.closed) throw new Error('the connection closed');
    if (this.pending.size >= MAX_PENDING) throw new Error(`more than ${MAX_PENDING} task requests in flight`);
    signal?.throwIfAborted();
    this.next += 1;
    const id = `switchboard-raw-${this.next}`;
    const answered = new Promise<RawResponse>((resolve, reject) => {
      const abort = () => {
        this.pending.delete(id);
        reject(signal?.reason);
        // The server is told, as the SDK client tells it of its own requests; a closed link is told nothing.
        if (!this.closed)
          this.transport
            .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'cancelled by the caller' } })
            .catch(() => undefined);
      };
      signal?.addEventListener('abort', abort, { once: true });
      this.pending.set(id, (response) => {
        signal?.removeEventListener('abort', abort);
        resolve(response);
      });
    });
    try {
      await this.transport.send(
        {
          jsonrpc: '2.0',
          id,
          method: request.method,
          params: request.params,
        } as JSONRPCMessage,
        headers === undefined ? undefined : { headers },
      );
    } catch (error) {
      this.pending.delete(id);
      throw error;
    }
    return answered;
  }

  /** The link closed: whatever is in flight fails. */
  close(): void {
    this.closed = true;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const settle of waiting) settle({ kind: 'error', error: { code: -32000, message: 'the connection closed' } });
  }
}
