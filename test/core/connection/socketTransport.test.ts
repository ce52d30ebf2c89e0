// The hop between a window and the machine host (connection/link/socketTransport.ts), both ends on
// a real Unix socket upgraded by a real HTTP server: what the host says about the hop (its server's
// stderr, its failure) reaches the window's end and never the MCP client above it; the window
// cannot say it back; and a window that does not read is never buffered for without end.
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { SOCKET_UPGRADE, SocketTransport } from '../../../src/core/connection';
import { Cleanup, tempDir } from './helpers';
import { until } from '../support/poll';

const STDERR = 'notifications/mcp-switchboard/stderr';

describe('the socket hop to the machine host', function () {
  this.timeout(20_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  /** A host: an HTTP server on a Unix socket whose upgrades become the host's end of the hop. */
  async function host(): Promise<{ socketPath: string; accepted: Promise<{ transport: SocketTransport; socket: Duplex }> }> {
    const socketPath = path.join(tempDir(cleanup, 'sb-hop-'), 'host.sock');
    const server = http.createServer((_req, res) => res.writeHead(404).end());
    const accepted = new Promise<{ transport: SocketTransport; socket: Duplex }>((resolve) => {
      server.on('upgrade', (_req, socket: Duplex, head: Buffer) => {
        const transport = SocketTransport.accepted(socket, head);
        void transport.start().then(() => resolve({ transport, socket }));
      });
    });
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    cleanup.add(() => new Promise<void>((resolve) => server.close(() => resolve())));
    server.on('connection', (socket) => cleanup.add(() => void socket.destroy()));
    return { socketPath, accepted };
  }

  it("hands the host's stderr lines and failure to the window's end, never to the client above it; the host's end takes no such message from a window", async () => {
    const { socketPath, accepted } = await host();
    const stderr: string[] = [];
    const window = SocketTransport.upgrading({
      socketPath,
      path: '/mcp/s0000000000000000',
      headers: {},
      onStderrLine: (line) => stderr.push(line),
    });
    const toClient: JSONRPCMessage[] = [];
    window.onmessage = (message) => toClient.push(message);
    let windowClosed = false;
    window.onclose = () => (windowClosed = true);
    await window.start();
    const { transport: hostEnd } = await accepted;
    const toHost: JSONRPCMessage[] = [];
    hostEnd.onmessage = (message) => toHost.push(message);

    // A window cannot make the host take a line as its server's (nor end a session as failed).
    await window.send({ jsonrpc: '2.0', method: STDERR, params: { line: 'from the window' } });
    await until(() => toHost.length === 1, 5_000, 'the host got the message as any other');
    assert.equal(toHost[0] && 'method' in toHost[0] ? toHost[0].method : '', STDERR);

    hostEnd.sendStderr('first line');
    hostEnd.sendStderr('x'.repeat(5_000));
    await hostEnd.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await until(() => toClient.length === 1, 5_000, 'the notification reached the client');
    assert.deepEqual(stderr, ['first line', 'x'.repeat(2_000)], 'the lines, each cut at 2,000 characters');
    assert.deepEqual(
      toClient,
      [{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }],
      'the hop’s messages stay in the transport',
    );

    await hostEnd.fail({ code: 'PROCESS_EXITED', message: 'the server process exited with code 3', stderrTail: ['not sent again'] });
    await until(() => windowClosed, 5_000, "the window's end closed");
    assert.equal(window.failure?.code, 'PROCESS_EXITED');
    assert.equal(window.failure?.message, 'in the machine host: the server process exited with code 3');
    assert.deepEqual(stderr.slice(2), [], 'the failure does not repeat lines the window already has');
  });

  it('counts a request in flight until it is answered or cancelled: a cancelled request gets no answer, and the host is not busy with it', async () => {
    const { socketPath, accepted } = await host();
    const window = SocketTransport.upgrading({ socketPath, path: '/mcp/s0000000000000000', headers: {} });
    await window.start();
    const { transport: hostEnd } = await accepted;
    const toHost: JSONRPCMessage[] = [];
    hostEnd.onmessage = (message) => toHost.push(message);
    for (const id of [1, 'two', 3])
      await window.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: {} } } as JSONRPCMessage);
    await until(() => hostEnd.requestsInFlight === 3, 5_000, 'three requests in flight');
    await hostEnd.send({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    await window.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'two' } });
    await until(() => toHost.length === 4, 5_000, 'the cancellation reached the host');
    assert.equal(hostEnd.requestsInFlight, 1, 'only the request neither answered nor cancelled');
    // A cancellation naming no request in flight changes nothing.
    await window.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nothing' } });
    await until(() => toHost.length === 5, 5_000, 'the second cancellation reached the host');
    assert.equal(hostEnd.requestsInFlight, 1);
  });

  it('a failure code the hop does not know is a failure to connect', async () => {
    const { socketPath, accepted } = await host();
    const window = SocketTransport.upgrading({ socketPath, path: '/mcp/s0000000000000000', headers: {} });
    let closed = false;
    window.onclose = () => (closed = true);
    await window.start();
    const { transport: hostEnd } = await accepted;
    await hostEnd.fail({ code: 'TOOL_FILTERED', message: 'no' });
    await until(() => closed, 5_000, 'closed');
    assert.equal(window.failure?.code, 'CONNECT_FAILED');
  });

  it('closed while its upgrade is still asked for: the socket the host answers on later is closed, and start() fails', async () => {
    const socketPath = path.join(tempDir(cleanup, 'sb-hop-'), 'host.sock');
    const server = http.createServer((_req, res) => res.writeHead(404).end());
    // The host answers the upgrade only when the test says (as one waiting for its server does).
    let answer: () => void = () => undefined;
    const asked = new Promise<Duplex>((resolve) =>
      server.on('upgrade', (_req, socket: Duplex) => {
        // The window may be gone by then (its end closed at once): nothing to write to, no error.
        socket.on('error', () => undefined);
        answer = () => {
          if (!socket.destroyed)
            socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${SOCKET_UPGRADE}\r\n\r\n`);
        };
        resolve(socket);
      }),
    );
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    cleanup.add(() => new Promise<void>((resolve) => server.close(() => resolve())));
    server.on('connection', (socket) => cleanup.add(() => void socket.destroy()));
    const window = SocketTransport.upgrading({ socketPath, path: '/mcp/s0000000000000000', headers: {} });
    const started = window.start();
    const hostEnd = await asked;
    let hostEndClosed = false;
    hostEnd.on('close', () => (hostEndClosed = true));
    hostEnd.resume();
    await window.close();
    answer();
    await assert.rejects(started);
    await until(() => hostEndClosed, 5_000, "the connection's end in the host closed");
  });

  it("drops the host's stderr lines while a window does not read, past a bound", async () => {
    const { socketPath, accepted } = await host();
    const window = SocketTransport.upgrading({ socketPath, path: '/mcp/s0000000000000000', headers: {} });
    await window.start();
    const { transport: hostEnd, socket } = await accepted;
    // The window's end stops reading: what the host writes stays in its socket's buffer.
    (window as unknown as { socket: Duplex }).socket.pause();
    const line = 'y'.repeat(1_000);
    for (let i = 0; i < 5_000; i++) hostEnd.sendStderr(line);
    assert.ok(socket.writableLength < 2 * 1024 * 1024, `${socket.writableLength} bytes held for a window that does not read`);
    // Its server failing still ends its session: the failure's message is not waited for without end.
    const started = Date.now();
    await hostEnd.fail({ code: 'PROCESS_EXITED', message: 'gone' });
    assert.ok(Date.now() - started < 5_000, `fail() took ${Date.now() - started} ms`);
    assert.ok(socket.destroyed, 'the session’s socket is closed');
  });
});
