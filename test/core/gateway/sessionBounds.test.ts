// Issue: gateway sessions were freed only on DELETE, which most clients never send; 4,000 of them
// cost 22-42 KB each until serve ran out of memory. Sessions now expire when idle and are capped.
import assert from 'node:assert/strict';
import { McpGateway } from '../../../src/core/gateway';
import { Cleanup, MemoryLogger } from '../connection/helpers';
import { FixtureToolSource, INITIALIZE_BODY, initializeHeaders, rawRequest, toolsServer } from '../gateway/helpers';
import { ServerManager } from '../../../src/core/manager';
import { FakeClock } from '../support/fakeClock';

/**
 * Collects until what a collection frees has been freed: a fetch Request releases its abort
 * listeners in a finalizer, which runs in a task after the collection that found it unreachable.
 */
async function settleHeap(gc: () => void): Promise<void> {
  for (let round = 0; round < 4; round += 1) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  gc();
}

async function openSession(gateway: McpGateway): Promise<string> {
  const response = await rawRequest(gateway.port, {
    path: '/mcp',
    headers: initializeHeaders({ Host: `127.0.0.1:${gateway.port}`, Authorization: `Bearer ${gateway.token}` }),
    body: INITIALIZE_BODY,
  });
  assert.equal(response.status, 200, response.body);
  const id = response.headers['mcp-session-id'];
  assert.equal(typeof id, 'string');
  return id as string;
}

async function listWith(gateway: McpGateway, session: string): Promise<number> {
  const response = await rawRequest(gateway.port, {
    path: '/mcp',
    headers: initializeHeaders({
      Host: `127.0.0.1:${gateway.port}`,
      Authorization: `Bearer ${gateway.token}`,
      'Mcp-Session-Id': session,
      'Mcp-Protocol-Version': '2025-11-25',
    }),
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  return response.status;
}

describe('gateway sessions are bounded', function () {
  this.timeout(120_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  async function start(options: { maxSessions?: number; sessionIdleMs?: number; clock?: FakeClock }) {
    const manager = new ServerManager();
    cleanup.add(() => manager.dispose());
    const source = new FixtureToolSource(manager);
    cleanup.add(() => source.dispose());
    await manager.start([toolsServer('alpha')]);
    const logger = new MemoryLogger();
    const gateway = new McpGateway({ source, logger, ...options });
    cleanup.add(() => gateway.dispose());
    await gateway.start();
    return { gateway, logger };
  }

  it('caps open sessions, closing the least recently used; a closed session gets 404', async () => {
    const { gateway, logger } = await start({ maxSessions: 3 });
    const [first, second, third] = [await openSession(gateway), await openSession(gateway), await openSession(gateway)];
    assert.equal(await listWith(gateway, first), 200); // first is now the most recently used
    await openSession(gateway);
    assert.equal(gateway.sessionCount, 3);
    assert.equal(await listWith(gateway, second), 404, 'the least recently used session was closed');
    assert.equal(await listWith(gateway, first), 200);
    assert.equal(await listWith(gateway, third), 200);
    assert.match(logger.text(), /closed: the gateway holds at most 3 sessions/);
  });

  it('expires idle sessions on the clock; the client gets 404 and can initialize again', async () => {
    const clock = new FakeClock();
    const { gateway, logger } = await start({ sessionIdleMs: 30 * 60_000, clock });
    const idle = await openSession(gateway);
    clock.advance(20 * 60_000);
    const busy = await openSession(gateway);
    clock.advance(11 * 60_000);
    assert.equal(gateway.sessionCount, 1);
    assert.equal(await listWith(gateway, idle), 404);
    assert.equal(await listWith(gateway, busy), 200);
    assert.match(logger.text(), /closed: idle for more than 30 min/);
    await openSession(gateway);
    assert.equal(gateway.sessionCount, 2);
  });

  it('keeps memory bounded while 3,000 clients open sessions (eight at a time) and never close them', async () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    assert.ok(gc, 'run with --expose-gc (the unit stage does)');
    const { gateway } = await start({ maxSessions: 64 });
    for (let i = 0; i < 200; i++) await openSession(gateway);
    await settleHeap(gc);
    const before = process.memoryUsage().heapUsed;
    // Eight clients at a time, as a busy host would see them: the cap holds under concurrency too.
    for (let i = 0; i < 3_000; i += 8) await Promise.all(Array.from({ length: 8 }, () => openSession(gateway)));
    await settleHeap(gc);
    const grown = process.memoryUsage().heapUsed - before;
    assert.equal(gateway.sessionCount, 64);
    // Uncapped, 3,000 sessions held 66-126 MB; capped, the heap may only drift.
    assert.ok(grown < 16 * 1024 * 1024, `the heap grew by ${(grown / 1048576).toFixed(1)} MB`);
  });
});
