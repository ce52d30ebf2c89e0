// 2026-07-28 requests have no session: each one stands alone on its own HTTP response stream. When
// that stream ends before the response arrived (a proxy cut it, the server restarted), the request
// is sent again, once, on a new stream. The SDK reports the end of a request's stream to the
// transport's caller (`onRequestStreamEnd`) but its Client neither asks for that nor re-sends, so
// the transport's tap sends each such request through here (sdk/transportTap.ts): a public option
// of `Transport.send`, no SDK internals.
import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/client';
import type { Logger } from '../../base/logging';
import type { TransportHooks } from '../../sdk';

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

type RequestId = string | number;

function modernRequestId(message: JSONRPCMessage): RequestId | undefined {
  if (!('method' in message) || !('id' in message)) return undefined;
  const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  // Only requests that carry the 2026-07-28 envelope: 2025 requests belong to a session, whose
  // stream the SDK resumes itself.
  return meta !== undefined && PROTOCOL_VERSION_KEY in meta ? message.id : undefined;
}

function isResponse(message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId } {
  return 'id' in message && !('method' in message);
}

/** The transport tap's hooks that send a request again when its stream breaks (`transport` reports its failures). */
export function reissueOnBrokenStream(transport: Transport, logger: Logger): Required<Pick<TransportHooks, 'send' | 'onInbound'>> {
  /** Requests sent and not yet answered, with whether they were already sent again. */
  const open = new Map<RequestId, { reissued: boolean }>();

  const sendTracked = (
    message: JSONRPCMessage,
    options: TransportSendOptions | undefined,
    id: RequestId,
    send: Transport['send'],
  ): Promise<void> =>
    send(message, {
      ...options,
      // Called when the stream ends, answered or not (and after the SDK gave up resuming it).
      onRequestStreamEnd: () => {
        options?.onRequestStreamEnd?.();
        const entry = open.get(id);
        if (!entry) return; // answered
        if (entry.reissued || options?.requestSignal?.aborted) {
          open.delete(id);
          return;
        }
        entry.reissued = true;
        logger.info(`the response stream of request ${String(id)} ended without its response; sending it again`);
        sendTracked(message, options, id, send).catch((error: unknown) => {
          open.delete(id);
          transport.onerror?.(error instanceof Error ? error : new Error(String(error)));
        });
      },
    });

  return {
    send: (message, options, send) => {
      const id = modernRequestId(message);
      if (id === undefined) return send(message, options);
      open.set(id, { reissued: false });
      options?.requestSignal?.addEventListener('abort', () => open.delete(id), { once: true });
      return sendTracked(message, options, id, send).catch((error: unknown) => {
        open.delete(id);
        throw error;
      });
    },
    // Every inbound message: a response closes its request.
    onInbound: (message) => {
      if (isResponse(message)) open.delete(message.id);
    },
  };
}
