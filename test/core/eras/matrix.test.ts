// Both protocol eras through the gateway: {legacy, modern} upstream server × {legacy, modern}
// client of the gateway × {stdio, streamable HTTP} upstream. Every cell lists, calls, forwards
// progress and passes a tool-list change from the upstream to the client in the client's era.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import type { CallToolResult, Progress } from '@modelcontextprotocol/client';
import type { ServerDefinition } from '../../../src/core/config/types';
import { Cleanup, connect, FIXTURES, httpDefinition, startHttpFixture, stdioDefinition, textOf } from '../connection/helpers';
import { eventually, rawRequest, startGateway, type Setup } from '../gateway/helpers';
import { connectInEra, MODERN_VERSION, type Era, type EraClient } from '../support/eraClient';
import { FakeClock } from '../support/fakeClock';

type Wire = 'stdio' | 'http';

const MODERN_SERVER = path.join(FIXTURES, 'modern-server.mjs');

async function startModernHttp(cleanup: Cleanup, args: string[] = []): Promise<string> {
  const child = spawn(process.execPath, [MODERN_SERVER, '--http', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanup.add(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  });
  const port = await new Promise<number>((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once('line', (line) => resolve(Number(line.split(' ')[1])));
    child.once('exit', (code) => reject(new Error(`modern fixture exited (${code})`)));
  });
  return `http://127.0.0.1:${port}/mcp`;
}

async function upstream(cleanup: Cleanup, era: Era, wire: Wire): Promise<ServerDefinition> {
  if (wire === 'stdio')
    return era === 'legacy' ? stdioDefinition([], { name: 'up' }) : stdioDefinition([], { name: 'up', args: [MODERN_SERVER] });
  const url = era === 'legacy' ? (await startHttpFixture(cleanup)).url('/mcp') : await startModernHttp(cleanup);
  return httpDefinition(url, { name: 'up' });
}

/** A gateway client of server `up`'s endpoint in the given era, listening for tool list changes. */
function connectToUp(cleanup: Cleanup, setup: Setup, era: Era): Promise<EraClient> {
  return connectInEra(cleanup, setup.gateway, setup.gateway.endpointUrl('up'), era, { toolsListChanged: true });
}

describe('both protocol eras through the gateway', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  for (const wire of ['stdio', 'http'] as const) {
    for (const upstreamEra of ['legacy', 'modern'] as const) {
      for (const clientEra of ['legacy', 'modern'] as const) {
        it(`${upstreamEra} server over ${wire}, ${clientEra} client of the gateway`, async () => {
          const setup = await startGateway(cleanup, [await upstream(cleanup, upstreamEra, wire)]);
          const state = setup.manager.server('up')?.state;
          assert.equal(state?.kind, 'running');
          assert.equal(state.era, upstreamEra, 'the connection negotiated the server era');
          if (upstreamEra === 'modern') assert.equal(state.protocolVersion, MODERN_VERSION);
          else assert.match(state.protocolVersion, /^2025-/);

          const { client, listening } = await connectToUp(cleanup, setup, clientEra);
          assert.equal(client.getProtocolEra(), clientEra, 'the gateway answered in the client era');
          const names = (await client.listTools()).tools.map((tool) => tool.name);
          assert.ok(names.includes('echo') && names.includes('slow'), names.join(', '));
          assert.equal(
            textOf((await client.callTool({ name: 'echo', arguments: { text: 'across eras' } })) as CallToolResult),
            'across eras',
          );

          const progress: Progress[] = [];
          const slow = await client.callTool(
            { name: 'slow', arguments: { ms: 400, progressEveryMs: 100 } },
            { onprogress: (update) => progress.push(update) },
          );
          assert.equal(textOf(slow as CallToolResult), 'slept 400');
          assert.ok(progress.length >= 2, `progress reached the ${clientEra} client: ${progress.length}`);

          await listening;
          let changes = 0;
          client.setNotificationHandler('notifications/tools/list_changed', () => void (changes += 1));
          await client.callTool({ name: 'add_tool', arguments: { name: 'late_tool' } });
          await eventually(() => (changes > 0 ? true : undefined), 'tools/list_changed reached the client', 10_000);
          const after = (await client.listTools({}, { cacheMode: 'refresh' })).tools.map((tool) => tool.name);
          assert.ok(after.includes('late_tool'), after.join(', '));
        });
      }
    }
  }

  it('reports the input a modern server asked for, naming it, until a handler exists', async () => {
    const setup = await startGateway(cleanup, [stdioDefinition([], { name: 'up', args: [MODERN_SERVER] })]);
    const { client } = await connectToUp(cleanup, setup, 'modern');
    const error = await client.callTool({ name: 'ask', arguments: {} }).then(
      () => assert.fail('ask needs input'),
      (failure: unknown) => failure as Error,
    );
    assert.match(error.message, /elicitation\/create/);
  });

  it('holds the token, Host and Origin checks for modern requests', async () => {
    const setup = await startGateway(cleanup, [stdioDefinition([], { name: 'up', args: [MODERN_SERVER] })]);
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } });
    const headers = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': MODERN_VERSION,
      'Mcp-Method': 'tools/list',
    };
    const port = setup.gateway.port;
    const pathname = '/mcp/up';
    const authorized = { ...headers, Authorization: `Bearer ${setup.gateway.token}` };
    assert.equal((await rawRequest(port, { method: 'POST', path: pathname, headers, body })).status, 401);
    assert.equal(
      (await rawRequest(port, { method: 'POST', path: pathname, headers: { ...authorized, Origin: 'https://evil.example' }, body })).status,
      403,
    );
    assert.equal(
      (await rawRequest(port, { method: 'POST', path: pathname, headers: { ...authorized, Host: 'evil.example' }, body })).status,
      403,
    );
    const ok = await rawRequest(port, { method: 'POST', path: pathname, headers: authorized, body });
    assert.equal(ok.status, 200, ok.body);
    assert.match(ok.body, /"echo"/);
  });
});

describe('2026-07-28 requests on a broken response stream', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('sends a request again, once, when its response stream ends without the response', async () => {
    const url = await startModernHttp(cleanup, ['--break-stream-once', 'echo']);
    const { connection, logger } = connect(cleanup, httpDefinition(url, { name: 'up' }));
    const state = await connection.start();
    assert.equal(state.kind === 'running' ? state.era : state.kind, 'modern');
    assert.equal(textOf(await connection.sendToolCall('echo', { text: 'again' })), 'again');
    const stats = JSON.parse(textOf(await connection.sendToolCall('stats', {}))) as { brokenStreams: number; calls: number };
    assert.equal(stats.brokenStreams, 1, 'the first stream was cut');
    assert.equal(stats.calls, 2, 'echo once, after the re-issue, and stats');
    assert.ok(
      logger.entries.some((entry) => /ended without its response; sending it again/.test(entry.message)),
      logger.text(),
    );
  });
});

describe('2026-07-28 cache hints', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('lists the tools again when the ttlMs of a server without change notifications runs out', async () => {
    const url = await startModernHttp(cleanup, ['--ttl-ms', '60000', '--no-list-changed']);
    const clock = new FakeClock();
    const { connection } = connect(cleanup, httpDefinition(url, { name: 'up' }), { clock });
    await connection.start();
    await connection.sendToolCall('add_tool', { name: 'later' });
    assert.ok(!connection.tools.some((tool) => tool.name === 'later'), 'no notification, so not seen yet');
    const refreshed = new Promise<void>((resolve) => connection.onDidChangeTools(() => resolve()));
    clock.advance(59_999);
    assert.ok(!connection.tools.some((tool) => tool.name === 'later'), 'still fresh');
    clock.advance(1);
    await refreshed;
    assert.ok(
      connection.tools.some((tool) => tool.name === 'later'),
      'listed again after ttlMs',
    );
  });
});

describe('what a server asks of the client', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('answers an input_required round through the one handler interface, and declares only what it handles', async () => {
    const asked: unknown[] = [];
    const { connection } = connect(cleanup, stdioDefinition([], { name: 'up', args: [MODERN_SERVER] }), {
      serverRequests: {
        elicit: async (params) => {
          asked.push(params.message);
          return { action: 'accept', content: { ok: true } };
        },
      },
    });
    await connection.start();
    const answer = JSON.parse(textOf(await connection.sendToolCall('ask', {}))) as { action: string; content: { ok: boolean } };
    assert.deepEqual(answer, { action: 'accept', content: { ok: true } });
    assert.deepEqual(asked, ['Proceed?']);
  });
});
