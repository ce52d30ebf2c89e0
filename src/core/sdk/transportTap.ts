// The one place Switchboard wraps an SDK transport: its `send` is replaced once and its
// `onmessage` made an accessor once, before the client connects (so the handshake is included).
// Every message is logged at trace level both ways; each inbound one passes the hooks before the
// client gets it, and each outbound one may be sent by a hook in its stead. Everything that needs
// to see or change the traffic is a hook here, not another wrapper.
import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/client';
import { jsonShapeProblem, RESULT_LIMITS } from '../base/jsonShape';
import { isEnabled, type Logger } from '../base/logging';
import { errorMessage } from '../base/errorMessage';

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

/** What may look at, change or keep a message on its way, and send an outbound one in its stead. */
export interface TransportHooks {
  /** Sees every inbound message (a response closes its request for the stream reissue). */
  readonly onInbound?: (message: JSONRPCMessage) => void;
  /** Mends a message the client would refuse for a fault it can read past (resultTypeMend below). */
  readonly mend?: (message: JSONRPCMessage) => JSONRPCMessage;
  /** Keeps a message from the SDK object above: a response to a request it did not send (raw requests), a call the machine host passes through. */
  readonly take?: (message: JSONRPCMessage) => boolean;
  /** Sends an outbound message, through `send` (the transport's own), with what it adds (the stream reissue). */
  readonly send?: (message: JSONRPCMessage, options: TransportSendOptions | undefined, send: Transport['send']) => Promise<void>;
}

/** Taps `transport` (see the header); returns it. */
export function tapTransport<T extends Transport>(transport: T, logger: Logger, hooks: TransportHooks = {}): T {
  const { onInbound, mend, take, send: sendVia } = hooks;
  const send: Transport['send'] = transport.send.bind(transport);
  transport.send = (message, options) => {
    // Rendered only when someone reads it: this runs for every message, on the hot path.
    if (isEnabled(logger, 'trace')) logger.trace(`→ ${render(message)}`);
    return sendVia ? sendVia(message, options, send) : send(message, options);
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
