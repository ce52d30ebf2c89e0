// A session on one server under its own names (the machine host's hop, where a window's client
// speaks to the host's copy of a server): a plain tools/call is taken off the session's transport
// before the session server parses it, made through the catalog's one call path as any call is
// (the gate, the one wait, the connection's limits and relays), and its result is written back as
// the server sent it (CallerOptions.asSent). The window's own client validates request and result,
// as it would a server of its own: parsing them here again, into the SDK's shapes and back, was
// most of what the hop cost (bench/RESULTS.md, "A call through the machine host"). Everything else
// (a task-augmented call, a duplicate id, lists, resources, prompts) goes to the session server.
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { errorMessage } from '../base/errorMessage';
import { cancelledRequestId } from '../base/jsonRpc';
import type { Logger } from '../base/logging';
import type { ToolSource } from '../catalog';
import type { Relay, RelayRouter } from '../connection';
import { toProtocolError } from './exposure';
import { progressTo } from './rounds';

type RequestId = string | number;

/** Calls one session has in flight here; past it, a call gets an error rather than a place. */
export const MAX_PASSED_CALLS = 1_000;

export interface CallPassThroughOptions {
  /** The server the session is on: its tools are called by their own names. */
  readonly server: string;
  readonly source: ToolSource;
  readonly relays: RelayRouter;
  /** What this session's client answers (elicitation, sampling, roots), once it has said so. */
  readonly relay: () => Relay | undefined;
  /** The session's transport as the session server sends on it: answers go out in order with its own. */
  readonly send: Transport['send'];
  readonly logger: Logger;
  /** Default MAX_PASSED_CALLS. */
  readonly maxCalls?: number;
}

export class CallPassThrough {
  private readonly calls = new Map<RequestId, AbortController>();
  private closed = false;

  constructor(private readonly options: CallPassThroughOptions) {}

  /** Whether `message` is handled here (a plain tools/call, or the cancellation of one): then the session server never sees it. */
  take(message: JSONRPCMessage): boolean {
    if (this.closed || !('method' in message)) return false;
    if (!('id' in message)) return message.method === 'notifications/cancelled' && this.cancel(message.params);
    if (message.method !== 'tools/call') return false;
    const params = message.params as { name?: unknown; arguments?: unknown; task?: unknown; _meta?: unknown } | undefined;
    // A task-augmented call is the session server's (its tasks); an id already in flight is its to refuse.
    if (typeof params?.name !== 'string' || params.task !== undefined || this.calls.has(message.id)) return false;
    const args = params.arguments;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) return false;
    const max = this.options.maxCalls ?? MAX_PASSED_CALLS;
    if (this.calls.size >= max) {
      void this.answer(message.id, { error: { code: -32000, message: `more than ${max} calls in flight on this session` } });
      return true;
    }
    const controller = new AbortController();
    this.calls.set(message.id, controller);
    const progressToken = progressTokenOf(params._meta);
    void this.call(message.id, params.name, (args ?? {}) as Record<string, unknown>, controller.signal, progressToken);
    return true;
  }

  /** The session ended: what is still in flight is cancelled upstream, and answered to nobody. */
  close(): void {
    this.closed = true;
    for (const controller of this.calls.values()) controller.abort(new Error('the session closed'));
    this.calls.clear();
  }

  private cancel(params: unknown): boolean {
    const id = cancelledRequestId(params);
    if (id === undefined) return false;
    const controller = this.calls.get(id);
    if (!controller) return false;
    this.calls.delete(id);
    controller.abort(new Error('cancelled by the client'));
    return true;
  }

  private async call(id: RequestId, tool: string, args: Record<string, unknown>, signal: AbortSignal, progressToken?: string | number) {
    const { server, source, relays } = this.options;
    const onProgress =
      progressToken === undefined
        ? undefined
        : progressTo(
            progressToken,
            (notification) => this.options.send({ jsonrpc: '2.0', ...notification }),
            this.options.logger,
            `${server}/${tool}`,
          );
    let outcome: { result: unknown } | { error: { code: number; message: string; data?: unknown } };
    try {
      const result = await relays.run(server, this.options.relay(), () =>
        source.callExposedTool(server, tool, args, { signal, asSent: true, ...(onProgress ? { onProgress } : {}) }),
      );
      outcome = { result };
    } catch (error) {
      const refused = toProtocolError(error, { server, name: tool });
      outcome = { error: { code: refused.code, message: refused.message, ...(refused.data === undefined ? {} : { data: refused.data }) } };
    }
    // Cancelled by the client (or the session ended): a cancelled request gets no answer.
    if (this.calls.get(id)?.signal !== signal) return;
    this.calls.delete(id);
    await this.answer(id, outcome);
  }

  private answer(id: RequestId, outcome: { result: unknown } | { error: { code: number; message: string; data?: unknown } }) {
    return this.options
      .send({ jsonrpc: '2.0', id, ...outcome } as JSONRPCMessage)
      .catch((error: unknown) =>
        this.options.logger.debug(`the answer to a call on ${this.options.server} was not delivered: ${errorMessage(error)}`),
      );
  }
}

function progressTokenOf(meta: unknown): string | number | undefined {
  const token = (meta as { progressToken?: unknown } | undefined)?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}
