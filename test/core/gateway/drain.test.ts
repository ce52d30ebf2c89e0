// Stopping without dropping calls, and the probes a load balancer or Kubernetes asks: /healthz,
// /readyz. A stop drains: no new requests, the calls in flight answered, within a bound.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { MODERN } from '../support/wire';
import { McpGateway } from '../../../src/core/gateway';
import { Cleanup, connectClient, eventually, startGateway, stats, textOf, toolsServer, type Setup } from './helpers';

interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

function get(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; agent?: http.Agent } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers ?? {}, agent: options.agent ?? false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('gateway: drain and probes', function () {
  const cleanup = new Cleanup();
  let setup: Setup;

  before(async () => {
    setup = await startGateway(cleanup, [toolsServer('alpha')]);
  });
  after(() => cleanup.run());

  async function ownGateway(): Promise<McpGateway> {
    const gateway = new McpGateway({ source: setup.source, logger: setup.logger });
    cleanup.add(() => gateway.dispose());
    await gateway.start();
    return gateway;
  }

  it('answers /healthz and /readyz without the token, after the Host check, and nothing else there', async () => {
    const { port } = setup.gateway;
    for (const path of ['/healthz', '/readyz']) {
      const answer = await get(port, path);
      assert.equal(answer.status, 200, path);
      assert.deepEqual(JSON.parse(answer.body), { status: 'ok' });
      assert.equal((await get(port, path, { headers: { Host: 'evil.test' } })).status, 403, `${path}, a rebound name`);
      assert.equal((await get(port, path, { method: 'POST' })).status, 405, `${path}, POST`);
      assert.equal((await get(port, path, { method: 'HEAD' })).status, 200, `${path}, HEAD`);
    }
    assert.equal((await get(port, '/healthz/x')).status, 401, 'not a probe: the token is needed');
    assert.equal((await get(port, '/readyz?verbose')).status, 401);
    // The server listing is no probe: it says what runs here, to a client with the token only.
    assert.equal((await get(port, '/servers')).status, 401);
    const listed = await get(port, '/servers', { headers: { Authorization: `Bearer ${setup.gateway.token}` } });
    assert.equal(listed.status, 200);
    assert.ok((JSON.parse(listed.body) as { servers: { name: string }[] }).servers.length > 0, listed.body);
  });

  it('a stop answers the call in flight and takes no new connection (so /readyz fails too)', async () => {
    const gateway = await ownGateway();
    const { client } = await connectClient(cleanup, gateway.endpointUrl('alpha'), gateway.token);
    const started = Date.now();
    const call = client.callTool({ name: 'slow', arguments: { ms: 1500 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const drained = gateway.drain(10_000);

    await assert.rejects(get(gateway.port, '/readyz'), /ECONNREFUSED/, 'no new connections');

    assert.equal(textOf(await call), 'slept 1500');
    assert.deepEqual(await drained, { answered: true, left: 0 });
    assert.ok(Date.now() - started >= 1400, 'the drain waited for the call');
  });

  it('gives up at its deadline, or at once when forced, and dispose cuts what is left', async () => {
    for (const how of ['deadline', 'forced'] as const) {
      const gateway = await ownGateway();
      const { client } = await connectClient(cleanup, gateway.endpointUrl('alpha'), gateway.token);
      const before = (await stats(setup.source, 'alpha')).cancellations;
      // The client would try to resume the cut stream for a while: its outcome is not awaited here.
      void client.callTool({ name: 'slow', arguments: { ms: 5000 } }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const force = new AbortController();
      const started = Date.now();
      const drained = gateway.drain(how === 'deadline' ? 400 : 20_000, force.signal);
      if (how === 'forced') setTimeout(() => force.abort(), 200);
      assert.deepEqual(await drained, { answered: false, left: 1 }, how);
      const took = Date.now() - started;
      assert.ok(took < 2000, `${how}: drained after ${took} ms`);
      await gateway.dispose();
      await eventually(
        async () => ((await stats(setup.source, 'alpha')).cancellations > before ? true : undefined),
        `${how}: the cut call cancelled upstream`,
      );
    }
    assert.match(setup.logger.text(), /drained with 1 call\(s\) still in flight: they are cut/);
  });

  it('refuses a new request on a connection that was already open once the drain began (503, Connection: close), and still answers the call in flight', async () => {
    const gateway = await ownGateway();
    // One connection, busy with a slow call when the stop begins (an idle one is closed with the port).
    const socket = net.connect(gateway.port, '127.0.0.1');
    cleanup.add(() => void socket.destroy());
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'slow',
        arguments: { ms: 1500 },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'wire', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    const host = `127.0.0.1:${gateway.port}`;
    socket.write(
      `POST /mcp/alpha HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${gateway.token}\r\nContent-Type: application/json\r\n` +
        `Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: ${MODERN}\r\nMcp-Method: tools/call\r\nMcp-Name: slow\r\n` +
        `Content-Length: ${Buffer.byteLength(call)}\r\n\r\n${call}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const drained = gateway.drain(10_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The port no longer takes connections, but this one is open: its next request is refused.
    socket.write(`GET /servers HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${gateway.token}\r\n\r\n`);
    assert.deepEqual(await drained, { answered: true, left: 0 });
    await ended;
    const statuses = [...received.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((match) => Number(match[1]));
    assert.deepEqual(statuses, [200, 503], received);
    assert.match(received, /slept 1500/, 'the call in flight was answered');
    const refusal = received.slice(received.lastIndexOf('HTTP/1.1 503'));
    assert.match(refusal, /^connection: close/im);
    assert.match(refusal, /^x-switchboard-stopping: 1/im, 'a peer replica reads it as gone');
  });

  it('is first only unready: /readyz says 503 while new requests are still served, then they are refused', async () => {
    const gateway = new McpGateway({ source: setup.source, logger: setup.logger });
    cleanup.add(() => gateway.dispose());
    await gateway.start();
    const { client } = await connectClient(cleanup, gateway.aggregatedUrl, gateway.token);
    const draining = gateway.drain(5_000, undefined, 1_500);
    assert.equal((await get(gateway.port, '/readyz')).status, 503, 'out of rotation at once');
    assert.equal(textOf(await client.callTool({ name: 'alpha__echo', arguments: { text: 'still served' } })), 'still served');
    assert.deepEqual(await draining, { answered: true, left: 0 });
    await assert.rejects(get(gateway.port, '/healthz'), /ECONNREFUSED/, 'then the port is closed');
  });
});
