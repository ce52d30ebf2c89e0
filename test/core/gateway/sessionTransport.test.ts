// The 2025 session transport on its own, on a real HTTP server, with a server behind it that never
// answers: a streamed answer's headers go at once, and what a client can hold open is bounded.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '../../../src/core/base/clock';
import { BoundedEventStore } from '../../../src/core/gateway/sessions/eventStore';
import { MAX_IN_FLIGHT, SessionTransport } from '../../../src/core/gateway/sessions/sessionTransport';

describe('gateway: the 2025 session transport', () => {
  const opened: http.ClientRequest[] = [];
  let server: http.Server | undefined;
  let transport: SessionTransport | undefined;
  afterEach(async () => {
    for (const request of opened.splice(0)) request.destroy();
    await transport?.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  /** A transport whose server never answers, and a POST on a connection of its own; resolves at the response's headers. */
  async function start(): Promise<{
    post: (body: unknown) => Promise<{ status: number; body: () => Promise<string> }>;
    received: () => number;
  }> {
    const session = new SessionTransport({
      events: new BoundedEventStore(),
      clock: systemClock,
      retryMs: 1_000,
      newSessionId: () => 'the-session',
      onInitialized: () => undefined,
    });
    transport = session;
    let received = 0;
    session.onmessage = () => void (received += 1);
    const listening = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => void session.handle(req, res, text === '' ? undefined : (JSON.parse(text) as unknown)));
    });
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    const port = (listening.address() as AddressInfo).port;
    let initialized = false;
    const post = (body: unknown) =>
      new Promise<{ status: number; body: () => Promise<string> }>((resolve, reject) => {
        // No protocol version header: a 2025-03-26 client, which gets no priming event.
        const headers = {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...(initialized ? { 'mcp-session-id': 'the-session' } : {}),
        };
        initialized = true;
        const request = http.request({ host: '127.0.0.1', port, method: 'POST', agent: false, headers }, (response) =>
          resolve({
            status: response.statusCode ?? 0,
            body: () =>
              new Promise((done) => {
                let text = '';
                response.on('data', (chunk: Buffer) => (text += chunk.toString()));
                response.on('end', () => done(text));
              }),
          }),
        );
        request.on('error', reject);
        opened.push(request);
        request.end(JSON.stringify(body));
      });
    return { post, received: () => received };
  }

  const batch = (from: number, count: number) =>
    Array.from({ length: count }, (_, index) => ({ jsonrpc: '2.0', id: from + index, method: 'ping' }));
  const initialize = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  };

  it('sends the headers of an answer that became a stream at once, without a priming event to carry them', async () => {
    const { post } = await start();
    const started = Date.now();
    // Unanswered: past the 50 ms hold it is a stream, and its headers come then (they waited for
    // the first keep-alive, 15 s, before).
    assert.equal((await post(initialize)).status, 200);
    assert.ok(Date.now() - started < 5_000, `${Date.now() - started} ms`);
  });

  it(`holds at most ${MAX_IN_FLIGHT} requests of a session in flight, and refuses more with 429`, async () => {
    const { post, received } = await start();
    // The initialize request is the first in flight (never answered here).
    assert.equal((await post(initialize)).status, 200);
    const open: Promise<{ status: number }>[] = [];
    for (let from = 1; from < MAX_IN_FLIGHT - 1; from += 100) open.push(post(batch(from, Math.min(100, MAX_IN_FLIGHT - 1 - from))));
    for (const response of await Promise.all(open)) assert.equal(response.status, 200);
    assert.equal(received(), MAX_IN_FLIGHT - 1);
    assert.equal((await post(batch(10_000, 1))).status, 200, 'the last one that fits');
    const over = await post(batch(20_000, 1));
    assert.equal(over.status, 429);
    assert.match((JSON.parse(await over.body()) as { error: { message: string } }).error.message, /Too many requests in flight/);
  });
});
