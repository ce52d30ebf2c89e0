import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
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

/**
 * Logs every JSON-RPC message at trace level, both ways, and shows each inbound one to `onInbound`
 * (streamReissue.ts tracks answers with it), and to `take`, which may keep it from the client
 * (rawRequests.ts). Wraps the transport before the client connects, so
 * the handshake is included. The logger redacts secrets; long messages are cut.
 */
export function traceTraffic<T extends Transport>(
  transport: T,
  logger: Logger,
  onInbound?: (message: JSONRPCMessage) => void,
  take?: (message: JSONRPCMessage) => boolean,
): T {
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
          // A response to a request the client did not send (rawRequests.ts) is not the client's.
          if (take?.(message)) return;
          next(message, extra);
        });
    },
  });
  return transport;
}
