import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Logger } from '../logging';

const MAX_LOGGED = 4_000;

function render(message: unknown): string {
  const text = JSON.stringify(message);
  return text.length > MAX_LOGGED ? `${text.slice(0, MAX_LOGGED)}… (${text.length} characters)` : text;
}

/**
 * Logs every JSON-RPC message at trace level, both ways. Wraps the transport before the client
 * connects, so the handshake is included. The logger redacts secrets; long messages are cut.
 */
export function traceTraffic<T extends Transport>(transport: T, logger: Logger): T {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    logger.trace(`→ ${render(message)}`);
    return send(message, options);
  };
  let handler: Transport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => handler,
    set: (next: Transport['onmessage']) => {
      handler = next && ((message, extra) => {
        logger.trace(`← ${render(message)}`);
        next(message, extra);
      });
    },
  });
  return transport;
}
