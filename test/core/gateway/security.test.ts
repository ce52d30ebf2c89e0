import assert from 'node:assert/strict';
import net from 'node:net';
import os from 'node:os';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { LOOPBACK_HOST, McpGateway } from '../../../src/core/gateway';
import { isAllowedHost, isLoopbackOrigin } from '../../../src/core/gateway/http/requestGuard';
import { bearerToken, tokenMatches } from '../../../src/core/base/token';
import { Cleanup, connectClient, initializeHeaders, INITIALIZE_BODY, rawRequest, startGateway, toolsServer, type Setup } from './helpers';

/** Non-loopback addresses of this machine, to prove nothing listens there. */
function externalAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((info) => info !== undefined && !info.internal)
    .map((info) => info?.address ?? '');
}

function connectError(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 2_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('ETIMEDOUT');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('gateway: security', function () {
  const cleanup = new Cleanup();
  let setup: Setup;
  let port: number;
  let auth: Record<string, string>;

  before(async () => {
    setup = await startGateway(cleanup, [toolsServer('alpha')]);
    port = setup.gateway.port;
    auth = { Authorization: `Bearer ${setup.gateway.token}` };
  });
  after(() => cleanup.run());

  describe('bearer token', () => {
    it('is 256 random bits, new for every gateway, and never logged', async () => {
      const token = setup.gateway.token;
      assert.match(token, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(Buffer.from(token, 'base64url').length, 32);
      const other = new McpGateway({ source: setup.source });
      assert.notEqual(other.token, token);
      await other.dispose();
      await rawRequest(port, { path: '/mcp', headers: initializeHeaders({ Authorization: 'Bearer wrong' }), body: INITIALIZE_BODY });
      assert.ok(setup.logger.entries.length > 0);
      assert.ok(!setup.logger.text().includes(token));
    });

    it('answers 401 to a request without the right token (raw fetch)', async () => {
      const token = setup.gateway.token;
      const wrong: (string | undefined)[] = [
        undefined,
        'Bearer',
        'Bearer wrong',
        `Bearer ${token}x`,
        `Bearer ${token.slice(0, -1)}`,
        `Bearer ${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`,
        `Basic ${token}`,
        token,
        `Bearer ${token} extra`,
      ];
      for (const authorization of wrong) {
        const response = await fetch(setup.gateway.endpointUrl('alpha'), {
          method: 'POST',
          headers: initializeHeaders(authorization === undefined ? {} : { Authorization: authorization }),
          body: INITIALIZE_BODY,
        });
        assert.equal(response.status, 401, `Authorization: ${String(authorization)}`);
        assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer /);
        const body = (await response.json()) as { error: { message: string } };
        assert.match(body.error.message, /bearer token/);
      }
      const lowerCaseScheme = await fetch(setup.gateway.endpointUrl('alpha'), {
        method: 'POST',
        headers: initializeHeaders({ Authorization: `bearer ${token}` }),
        body: INITIALIZE_BODY,
      });
      assert.equal(lowerCaseScheme.status, 200, 'the scheme is case-insensitive');
      await lowerCaseScheme.body?.cancel();
    });

    it('keeps an SDK client without the token out', async () => {
      const client = new Client({ name: 'intruder', version: '1' });
      await assert.rejects(client.connect(new StreamableHTTPClientTransport(new URL(setup.gateway.aggregatedUrl))), /401|Unauthorized/);
      await client.close();
    });

    it('compares tokens of any length without throwing', () => {
      assert.equal(tokenMatches('abc', 'abc'), true);
      assert.equal(tokenMatches('abc', 'abd'), false);
      assert.equal(tokenMatches('', 'a'.repeat(43)), false);
      assert.equal(tokenMatches('a'.repeat(10_000), 'a'.repeat(43)), false);
      assert.equal(tokenMatches('abc', 'abcd'), false);
      // As long in characters, not in bytes: compared as bytes, refused, no throw.
      assert.equal(tokenMatches('é', 'ab'), false);
      assert.equal(tokenMatches('éé', 'abcd'), false);
      assert.equal(bearerToken('Bearer  abc '), 'abc');
      assert.equal(bearerToken('Bearer a b'), undefined);
      assert.equal(bearerToken(undefined), undefined);
    });
  });

  describe('Host header', () => {
    it('answers 403 to any Host but 127.0.0.1:<port> or localhost:<port>, token or not', async () => {
      const hosts = [
        'evil.example.com',
        `evil.example.com:${port}`,
        `127.0.0.1:${port + 1}`,
        '127.0.0.1',
        'localhost',
        `127.0.0.2:${port}`,
        `[::1]:${port}`,
        `0.0.0.0:${port}`,
        `localhost.:${port}`,
        `localhost.evil.example.com:${port}`,
        `127.0.0.1:${port}.evil.example.com`,
      ];
      for (const host of hosts) {
        for (const headers of [auth, {}]) {
          const response = await rawRequest(port, { headers: initializeHeaders({ ...headers, Host: host }), body: INITIALIZE_BODY });
          assert.equal(response.status, 403, `Host: ${host}, token: ${'Authorization' in headers}`);
          assert.match(response.body, /Host header/);
        }
      }
      assert.ok(!isAllowedHost(undefined, port));
    });

    it('rejects a request without a Host header', async () => {
      const response = await rawRequest(port, { headers: initializeHeaders(auth), body: INITIALIZE_BODY, setHost: false });
      assert.ok(response.status === 400 || response.status === 403, `got ${response.status}`);
    });
  });

  describe('Origin header', () => {
    it('answers 403 to a non-loopback Origin, even with the token', async () => {
      const origins = [
        'http://evil.example.com',
        `http://evil.example.com:${port}`,
        'https://attacker.test',
        'null',
        'file://',
        'http://127.0.0.1.evil.example.com',
        'http://localhost.evil.example.com',
        'vscode-webview://abc',
        'not a url',
      ];
      for (const origin of origins) {
        const response = await rawRequest(port, {
          headers: initializeHeaders({ ...auth, Host: `127.0.0.1:${port}`, Origin: origin }),
          body: INITIALIZE_BODY,
        });
        assert.equal(response.status, 403, `Origin: ${origin}`);
        assert.match(response.body, /Origin/);
      }
    });
  });

  it('accepts localhost:<port> and 127.0.0.1:<port> hosts, with no Origin or a loopback one', async () => {
    const origins = [undefined, `http://127.0.0.1:${port}`, 'http://localhost:3000', 'https://localhost', 'http://[::1]:8080'];
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      for (const origin of origins) {
        const headers = initializeHeaders({ ...auth, Host: host, ...(origin === undefined ? {} : { Origin: origin }) });
        const response = await rawRequest(port, { path: '/mcp/alpha', headers, body: INITIALIZE_BODY });
        assert.equal(response.status, 200, `Host: ${host}, Origin: ${String(origin)}: ${response.body}`);
        assert.ok(response.headers['mcp-session-id'], 'a session was created');
        assert.match(response.body, /"serverInfo"/);
      }
    }
    assert.ok(isLoopbackOrigin('http://127.0.0.1') && !isLoopbackOrigin('ftp://localhost'));
  });

  it('listens on 127.0.0.1 only', async () => {
    const address = setup.gateway.address();
    assert.deepEqual({ address: address?.address, family: address?.family }, { address: LOOPBACK_HOST, family: 'IPv4' });
    assert.equal(new URL(setup.gateway.url).hostname, LOOPBACK_HOST);
    for (const host of ['::1', ...externalAddresses()]) {
      const error = await connectError(host, port);
      assert.ok(error !== undefined, `something accepted a connection on ${host}:${port}`);
    }
    assert.equal(await connectError(LOOPBACK_HOST, port), undefined);
  });

  it('refuses to be constructed for a host that is not an IP address, or an invalid port', () => {
    for (const host of ['localhost', 'example.com', '127.1', '']) {
      assert.throws(
        () => new McpGateway({ source: setup.source, reach: { host, allowedHosts: [], trustedProxies: [], allowedOrigins: [] } }),
        /listens on an IP address/,
        host,
      );
    }
    for (const bad of [-1, 65_536, 1.5, Number.NaN]) {
      assert.throws(() => new McpGateway({ source: setup.source, port: bad }), /Invalid gateway port/, String(bad));
    }
  });

  describe('sessions', () => {
    it('answers a session only on its own endpoint, and ends it on DELETE', async () => {
      const { transport } = await connectClient(cleanup, setup.gateway.endpointUrl('alpha'), setup.gateway.token);
      const sessionId = transport.sessionId;
      assert.ok(sessionId);
      const before = setup.gateway.sessionCount;
      const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
      const headers = initializeHeaders({ ...auth, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' });
      assert.equal((await rawRequest(port, { path: '/mcp/alpha', headers, body: list })).status, 200);
      assert.equal((await rawRequest(port, { path: '/mcp', headers, body: list })).status, 404, 'not on another endpoint');

      await transport.terminateSession();
      assert.equal(setup.gateway.sessionCount, before - 1);
      assert.equal((await rawRequest(port, { path: '/mcp/alpha', headers, body: list })).status, 404, 'gone after DELETE');
    });

    it('requires a session for GET and DELETE, and initialize for a new one', async () => {
      for (const method of ['GET', 'DELETE']) {
        assert.equal(
          (await rawRequest(port, { method, path: '/mcp/alpha', headers: { ...auth, Accept: 'text/event-stream' } })).status,
          400,
          method,
        );
      }
      assert.equal((await rawRequest(port, { method: 'PUT', path: '/mcp/alpha', headers: auth })).status, 405);
      const before = setup.gateway.sessionCount;
      const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
      const response = await rawRequest(port, { path: '/mcp/alpha', headers: initializeHeaders(auth), body: list });
      assert.equal(response.status, 400, response.body);
      assert.equal(setup.gateway.sessionCount, before, 'no session for a request that is not initialize');
    });
  });

  it('dispose closes every session and the port', async () => {
    const local = new Cleanup();
    try {
      const own = await startGateway(local, [toolsServer('alpha')]);
      const first = await connectClient(local, own.gateway.endpointUrl('alpha'), own.gateway.token);
      await first.notificationStream;
      await connectClient(local, own.gateway.aggregatedUrl, own.gateway.token);
      assert.equal(own.gateway.sessionCount, 2);
      const ownPort = own.gateway.port;

      const started = Date.now();
      await own.gateway.dispose();
      // Open streams and keep-alive sockets are cut, not waited out (Node's keep-alive is 5 s).
      assert.ok(Date.now() - started < 4_000, `dispose took ${Date.now() - started} ms`);
      assert.equal(own.gateway.sessionCount, 0);
      assert.equal(await connectError(LOOPBACK_HOST, ownPort), 'ECONNREFUSED');
      await assert.rejects(first.client.listTools());
      await assert.rejects(own.gateway.start(), /disposed/);
      await own.gateway.dispose(); // Idempotent.
    } finally {
      await local.run();
    }
  });
});
