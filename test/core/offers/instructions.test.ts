// A server's instructions reach a client of the gateway in either era: in initialize (2025) and
// server/discover (2026-07-28), on its own endpoint as given and on the aggregated one under its
// name; kept with the cached offer, so an idle server's endpoint has them too.
import assert from 'node:assert/strict';
import path from 'node:path';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import type { ServerDefinition } from '../../../src/core/config/types';
import { createRuntime } from '../../../src/core/runtime/runtime';
import { Cleanup, FIXTURES, MemoryLogger, stdioDefinition } from '../connection/helpers';
import { waitForRunning } from '../gateway/helpers';
import { connectInEra } from '../support/eraClient';

const MODERN_SERVER = path.join(FIXTURES, 'modern-server.mjs');

describe('server instructions through the gateway', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  const servers: ServerDefinition[] = [
    stdioDefinition(['--instructions', 'Call echo before add.'], { name: 'old' }),
    stdioDefinition([], { name: 'new', args: [MODERN_SERVER, '--instructions', 'Prefer small pages.'] }),
    stdioDefinition([], { name: 'quiet' }),
  ];

  async function start(storage = new MemoryToolCacheStorage()) {
    const runtime = createRuntime({ logger: new MemoryLogger(), storage, settings: {} });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start(servers);
    await waitForRunning(
      runtime.manager,
      servers.map((server) => server.name),
    );
    const gateway = runtime.gateway();
    await gateway.start();
    return { runtime, gateway };
  }

  for (const clientEra of ['legacy', 'modern'] as const) {
    it(`a ${clientEra} client gets each server's instructions on its endpoint, and all of them, named, on the aggregated one`, async () => {
      const { gateway } = await start();
      const on = async (url: string) => (await connectInEra(cleanup, gateway, url, clientEra, {})).client.getInstructions();
      assert.equal(await on(gateway.endpointUrl('old')), 'Call echo before add.');
      assert.equal(await on(gateway.endpointUrl('new')), 'Prefer small pages.');
      assert.equal(await on(gateway.endpointUrl('quiet')), undefined);
      assert.equal(
        await on(gateway.aggregatedUrl),
        '## old (tools named old__…)\n\nCall echo before add.\n\n## new (tools named new__…)\n\nPrefer small pages.',
      );
    });
  }

  it('keeps them with the cached offer, so a lazy server that has not started again still has them', async () => {
    const storage = new MemoryToolCacheStorage();
    const first = await start(storage);
    await first.runtime.dispose();
    const lazy = servers.map((server) => ({ ...server, lifecycle: { start: 'lazy' as const, idleStopMs: 0 } }));
    const runtime = createRuntime({ logger: new MemoryLogger(), storage, settings: {} });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start(lazy);
    const gateway = runtime.gateway();
    await gateway.start();
    assert.equal(runtime.manager.server('old')?.state.kind, 'idle');
    const { client } = await connectInEra(cleanup, gateway, gateway.endpointUrl('old'), 'legacy', {});
    assert.equal(client.getInstructions(), 'Call echo before add.');
    assert.equal(runtime.manager.server('old')?.state.kind, 'idle', 'the instructions did not start it');
  });
});
