import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { jsonShapeProblem, RESULT_LIMITS } from '../../base/jsonShape';
import { isEnabled, type Logger } from '../../base/logging';
import { errorMessage } from '../../base/errorMessage';

const MAX_LOGGED = 4_000;

/** Never throws: a message too deep to serialize is described instead. */
function render(message: unknown): string {
  const problem = jsonShapeProblem(message, RESULT_LIMITS, 'the message');
  if (problem) return `(not shown: ${problem})`;
  let text: string;
  try {
    text = JSON.stringify(message);
  } catch (error) {
    return `(not shown: ${errorMessage(error)})`;
  }
  return text.length > MAX_LOGGED ? `${text.slice(0, MAX_LOGGED)}… (${text.length} characters)` : text;
}

/** What may look at, change or keep an inbound message before the client gets it. */
export interface InboundHooks {
  /** Sees every inbound message (streamReissue.ts tracks answers with it). */
  readonly onInbound?: (message: JSONRPCMessage) => void;
  /** Mends a message the client would refuse for a fault it can read past (resultTypeMend below). */
  readonly mend?: (message: JSONRPCMessage) => JSONRPCMessage;
  /** Keeps a message from the client: a response to a request it did not send (rawRequests.ts). */
  readonly take?: (message: JSONRPCMessage) => boolean;
}

/**
 * Logs every JSON-RPC message at trace level, both ways, and passes each inbound one through the
 * hooks. Wraps the transport before the client connects, so the handshake is included. The logger
 * redacts secrets; long messages are cut.
 */
export function traceTraffic<T extends Transport>(transport: T, logger: Logger, { onInbound, mend, take }: InboundHooks = {}): T {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    // Rendered only when someone reads it: this runs for every message, on the hot path.
    if (isEnabled(logger, 'trace')) logger.trace(`→ ${render(message)}`);
    return send(message, options);
  };
  let handler: Transport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => handler,
    set: (next: Transport['onmessage']) => {
      handler =
        next &&
        ((message, extra) => {
          if (isEnabled(logger, 'trace')) logger.trace(`← ${render(message)}`);
          onInbound?.(message);
          if (take?.(message)) return;
          next(mend ? mend(message) : message, extra);
        });
    },
  });
  return transport;
}

/**
 * A 2026-07-28 server must say `resultType` on every result; some that speak the revision leave it
 * out of a plain result (the conformance suite's own reference server did, on every tool call). The
 * SDK's client then refuses the result, and the call fails as if the server were down. A result with
 * no `resultType` and no `inputRequests` can only be complete: it is read as such, and `onMended`
 * hears of it (the connection says so once). Results of the 2025 revisions have no `resultType`.
 */
export function resultTypeMend(
  isModern: () => boolean,
  onMended: (message: JSONRPCMessage) => void,
): (message: JSONRPCMessage) => JSONRPCMessage {
  return (message) => {
    if (!('result' in message) || !isModern()) return message;
    const result: unknown = message.result;
    if (result === null || typeof result !== 'object' || Array.isArray(result) || 'resultType' in result || 'inputRequests' in result)
      return message;
    onMended(message);
    return { ...message, result: { ...result, resultType: 'complete' } };
  };
}
