// How a 2025 session's HTTP requests reach the SDK's web-standard transport and its responses get
// back: through the SDK's Node adapter (toNodeHandler), not its NodeStreamableHTTPServerTransport.
// That one's adapter (Hono's) waits a timer tick whenever a response's first chunk is ready before
// its second, which is every call once a stream starts with a priming event (resumability): about
// 1.1 ms per call on loopback. Here a POST's priming event waits, briefly, for the first message
// and leaves with it in one write; a call that runs longer gets its priming event on its own, so
// its stream can still be resumed.
//
// The priming event is named (`event: priming`). The SDK writes it as a default `message` event
// with empty data, which the editor's client hands on as a message and logs as `Failed to parse
// message: ""` on every start; an event of another name is ignored by that client, and the SDK's
// client still takes its id (it reads the id of every event, whatever its name).
import type http from 'node:http';
import { toNodeHandler, type NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Clock } from '../base/clock';
import { errorMessage } from '../base/errorMessage';
import type { Logger } from '../base/logging';
import { MAX_REQUEST_BYTES } from './requestBody';

/** How long a POST's priming event waits for the call's first message before it is sent alone. */
export const PRIMING_HOLD_MS = 50;

export function sessionHandler(transport: WebStandardStreamableHTTPServerTransport, clock: Clock, logger: Logger): NodeMcpRequestHandler {
  const handler = toNodeHandler(
    {
      fetch: async (request, options) => {
        const response = await transport.handleRequest(request, options);
        if (request.method !== 'POST' || !response.body || !isEventStream(response.headers.get('content-type'))) return response;
        return new Response(withPrimingHeld(response.body, clock), {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        });
      },
    },
    { maxRequestBodySize: MAX_REQUEST_BYTES, onerror: (error) => logger.debug(`a session request failed: ${errorMessage(error)}`) },
  );
  return (req, res, body) =>
    handler(req, (req as http.IncomingMessage).method === 'GET' ? flushingEventStreamHeaders(res as http.ServerResponse) : res, body);
}

function isEventStream(contentType: string | null | undefined): boolean {
  return String(contentType ?? '')
    .toLowerCase()
    .startsWith('text/event-stream');
}

// On every POST's first chunk: made once.
const DECODER = new TextDecoder();
const ENCODER = new TextEncoder();
const UNNAMED_PRIMING = /^id: [^\n]*\n(?:retry: \d+\n)?data: \n\n$/;

/** The SDK's priming event (an id, a retry, empty data) with a name of its own; any other chunk as it is. */
function namedPriming(chunk: Uint8Array): Uint8Array {
  const text = DECODER.decode(chunk);
  return UNNAMED_PRIMING.test(text) ? ENCODER.encode(`event: priming\n${text}`) : chunk;
}

/** The stream's first chunk (the priming event) joined with the next one if it comes within PRIMING_HOLD_MS. */
function withPrimingHeld(body: ReadableStream<Uint8Array>, clock: Clock): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let pending: ReturnType<typeof reader.read> | undefined;
  let first = true;
  const read = () => {
    const next = pending ?? reader.read();
    pending = undefined;
    return next;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await read();
      if (chunk.done) return controller.close();
      if (!first) return controller.enqueue(chunk.value);
      first = false;
      const priming = namedPriming(chunk.value);
      const next = reader.read();
      let timer: unknown;
      const held = await Promise.race([
        next,
        new Promise<undefined>((resolve) => (timer = clock.setTimeout(() => resolve(undefined), PRIMING_HOLD_MS))),
      ]);
      clock.clearTimeout(timer);
      if (held === undefined) {
        // A call that takes longer: the priming event goes now, the message when it comes.
        pending = next;
        return controller.enqueue(priming);
      }
      if (held.done) {
        controller.enqueue(priming);
        return controller.close();
      }
      const joined = new Uint8Array(priming.length + held.value.length);
      joined.set(priming);
      joined.set(held.value, priming.length);
      controller.enqueue(joined);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * The adapter sends a response's headers with its first chunk; a GET stream has none until the
 * first notification, so its client would wait for the headers until then. An event stream's
 * headers go out at once, as the SDK's Node transport sends them.
 */
function flushingEventStreamHeaders(res: http.ServerResponse): http.ServerResponse {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => http.ServerResponse;
  (res as { writeHead: (...args: unknown[]) => http.ServerResponse }).writeHead = (...args: unknown[]) => {
    const written = writeHead(...args);
    const headers = (args.find((arg) => typeof arg === 'object' && arg !== null) ?? {}) as Record<string, unknown>;
    if (Object.entries(headers).some(([name, value]) => name.toLowerCase() === 'content-type' && isEventStream(String(value))))
      res.flushHeaders();
    return written;
  };
  return res;
}
