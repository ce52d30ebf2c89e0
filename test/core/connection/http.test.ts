import assert from 'node:assert/strict';
import net from 'node:net';
import { isSwitchboardError } from '../../../src/core/connection';
import { assertState, Cleanup, connect, httpDefinition, startHttpFixture, textOf, waitForState } from './helpers';

describe('ServerConnection over HTTP', () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('connects with streamable HTTP, sending the configured headers', async () => {
    const server = await startHttpFixture(cleanup);
    const { connection } = connect(cleanup, httpDefinition(server.url('/mcp'), { headers: { 'X-Fixture-Header': 'hello' } }));
    const state = await connection.start();
    assertState(state, 'running');
    assert.equal(state.transport, 'http');
    assert.deepEqual(state.serverInfo, { name: 'fixture-http', version: '1.2.3' });
    assert.equal(textOf(await connection.sendToolCall('add', { a: 20, b: 22 })), '42');
    const stats = await server.stats();
    assert.equal(stats.lastHeader, 'hello');
    assert.equal(stats.initializations, 1);
    assert.equal(stats.calls, 1);
  });

  it('connects with legacy SSE when the type says sse', async () => {
    const server = await startHttpFixture(cleanup);
    const { connection } = connect(
      cleanup,
      httpDefinition(server.url('/sse'), { transport: 'sse', headers: { 'X-Fixture-Header': 'sse' } }),
    );
    const state = await connection.start();
    assertState(state, 'running');
    assert.equal(state.transport, 'sse');
    assert.equal(textOf(await connection.sendToolCall('echo', { text: 'over sse' })), 'over sse');
    assert.equal((await server.stats()).lastHeader, 'sse');
  });

  it('reconnects when the legacy SSE stream dies', async () => {
    const server = await startHttpFixture(cleanup);
    const { connection } = connect(
      cleanup,
      httpDefinition(server.url('/sse'), { transport: 'sse', reconnect: { maxAttempts: 1, initialDelayMs: 20, maxDelayMs: 20 } }),
    );
    await connection.start();
    server.child.kill('SIGKILL');
    const state = await waitForState(connection, (s) => s.kind === 'reconnecting');
    assertState(state, 'reconnecting');
    assert.equal(state.attempt, 1);
    assertState(await waitForState(connection, (s) => s.kind === 'error'), 'error');
  });

  it('falls back to SSE when a definition without a type gets a 4xx for its streamable POST', async () => {
    const server = await startHttpFixture(cleanup, ['--sse-only']);
    const { connection, logger, events } = connect(cleanup, httpDefinition(server.url('/mcp'), { sseFallback: true }));
    const state = await connection.start();
    assertState(state, 'running');
    assert.equal(state.transport, 'sse');
    assert.equal(textOf(await connection.sendToolCall('echo', { text: 'fell back' })), 'fell back');
    assert.match(logger.text(), /answered 405; falling back to the legacy SSE transport/);
    assert.deepEqual(
      events.map((event) => event.state.kind),
      ['starting', 'running'],
    );
  });

  it('does not fall back when the type was given explicitly', async () => {
    const server = await startHttpFixture(cleanup, ['--sse-only']);
    const { connection } = connect(cleanup, httpDefinition(server.url('/mcp'), { sseFallback: false }));
    const state = await connection.start();
    assertState(state, 'error');
    assert.equal(state.code, 'HTTP_ERROR');
    assert.match(state.message, /HTTP 405/);
  });

  it('reports an unreachable server', async () => {
    const port = await freePort();
    const { connection } = connect(cleanup, httpDefinition(`http://127.0.0.1:${port}/mcp`));
    const state = await connection.start();
    assertState(state, 'error');
    assert.equal(state.code, 'CONNECT_FAILED');
    assert.match(state.message, new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}/mcp: .*ECONNREFUSED`));
  });

  it('renews an expired session once for ten concurrent callers, with one new client and transport', async () => {
    const server = await startHttpFixture(cleanup);
    const { connection, events, logger } = connect(cleanup, httpDefinition(server.url('/mcp')));
    await connection.start();
    assert.equal(textOf(await connection.sendToolCall('echo', { text: 'before' })), 'before');
    const eventsBefore = events.length;
    assert.deepEqual(await server.control('expire'), { expired: 1 });

    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => connection.sendToolCall('echo', { text: `call ${i}` })));
    assert.deepEqual(
      results.map(textOf),
      Array.from({ length: 10 }, (_, i) => `call ${i}`),
    );

    const stats = await server.stats();
    assert.equal(stats.initializations, 2, 'exactly one new initialize handshake');
    assert.equal(stats.sessionsExpired, 1);
    assert.equal(stats.calls, 11, 'each call reached the server once after the renewal');
    assert.deepEqual(connection.diagnostics, { connectAttempts: 1, transportsCreated: 2, clientsCreated: 2, sessionRenewals: 1 });
    assert.equal(events.length, eventsBefore, 'a renewal is not a state change');
    const expiredSeen = logger.entries.filter((entry) => entry.message.includes('is unknown to the server (HTTP 404)')).length;
    assert.ok(expiredSeen > 1, `only ${expiredSeen} caller(s) saw the 404: the lock was not exercised`);
    assertState(connection.state, 'running');
  });

  it('does not renew again for a 404 that arrives after the renewal finished', async () => {
    const server = await startHttpFixture(cleanup);
    // Holds back every 404 but the first until the new session is fully initialized, so that
    // those callers only learn of the expiry once it has already been dealt with.
    let released: () => void = () => undefined;
    const renewed = new Promise<void>((resolve) => (released = resolve));
    let first404 = true;
    const slowFetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const response = await fetch(url, init);
      const body = typeof init?.body === 'string' ? init.body : '';
      if (body.includes('"notifications/initialized"') && response.ok && !first404) setTimeout(released, 0);
      if (response.status === 404 && body.includes('"tools/call"')) {
        if (first404) first404 = false;
        else await renewed;
      }
      return response;
    };
    const { connection } = connect(cleanup, httpDefinition(server.url('/mcp')), { fetch: slowFetch });
    await connection.start();
    await server.control('expire');
    const results = await Promise.all(['a', 'b', 'c'].map((text) => connection.sendToolCall('echo', { text })));
    assert.deepEqual(results.map(textOf), ['a', 'b', 'c']);
    assert.equal((await server.stats()).initializations, 2);
    assert.equal(connection.diagnostics.sessionRenewals, 1);
  });

  it('renews a session that expires after N requests, for calls and tool listing alike', async () => {
    const server = await startHttpFixture(cleanup, ['--expire-after', '3']);
    const { connection } = connect(cleanup, httpDefinition(server.url('/mcp')));
    await connection.start();
    for (let i = 0; i < 6; i++) assert.equal(textOf(await connection.sendToolCall('echo', { text: String(i) })), String(i));
    assert.ok((await connection.listTools()).length > 0);
    const stats = await server.stats();
    assert.ok(stats.sessionsExpired >= 2, JSON.stringify(stats));
    assert.equal(stats.initializations, stats.sessionsExpired + 1);
    assert.equal(connection.diagnostics.connectAttempts, 1, 'renewals are not reconnects');
    assert.equal(connection.diagnostics.transportsCreated, 1 + stats.sessionsExpired);
    assert.equal(connection.diagnostics.sessionRenewals, stats.sessionsExpired);
  });

  it('terminates the HTTP session on close', async () => {
    const server = await startHttpFixture(cleanup);
    const { connection } = connect(cleanup, httpDefinition(server.url('/mcp')));
    await connection.start();
    await connection.dispose();
    const stats = await server.stats();
    assert.equal(stats.sessionsTerminated, 1);
    assert.equal(stats.sessions, 0);
    assert.equal(connection.state.kind, 'stopped');
    await assert.rejects(connection.sendToolCall('echo', { text: 'x' }), (error) => isSwitchboardError(error, 'CLOSED'));
  });

  it('reconnects when the HTTP server goes away and comes back', async () => {
    const first = await startHttpFixture(cleanup);
    const { connection, events } = connect(
      cleanup,
      httpDefinition(first.url('/mcp'), { reconnect: { maxAttempts: 50, initialDelayMs: 20, maxDelayMs: 50 } }),
    );
    await connection.start();
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;
    // The next request finds the server unreachable: it was never delivered, so it may be retried
    // once the connection is back, which needs a server on the same port.
    const call = connection.sendToolCall('echo', { text: 'after restart' });
    const second = await startHttpFixture(cleanup, ['--port', String(first.port)]);
    assert.equal(textOf(await call), 'after restart');
    assert.equal((await second.stats()).calls, 1);
    const kinds = events.map((event) => event.state.kind);
    assert.ok(kinds.includes('reconnecting'), kinds.join());
    assert.equal(kinds.at(-1), 'running');
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
