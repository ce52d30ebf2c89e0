// Resources, templates and prompts are cached next to the tool lists: a server still starting in
// a new window offers chat what it offered last time, with the same key, expiry and invalidation.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime/runtime';
import { Cleanup, connect, FIXTURES, MemoryLogger, stdioDefinition, tempDir } from '../connection/helpers';
import { FakeClock } from '../support/fakeClock';
import { waitForRunning } from '../gateway/helpers';

const MODERN_SERVER = path.join(FIXTURES, 'modern-server.mjs');

function runtimeOver(cleanup: Cleanup, storage: MemoryToolCacheStorage, settings: { cacheTtlMs?: number } = {}): SwitchboardRuntime {
  const runtime = createRuntime({ logger: new MemoryLogger(), storage, settings });
  cleanup.add(() => runtime.dispose());
  return runtime;
}

describe('resources and prompts from the cache', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('offers the cached resources, templates and prompts while the server is still starting, and serves reads once it is up', async () => {
    const gate = path.join(tempDir(cleanup), 'gate');
    fs.writeFileSync(gate, '');
    const definition = stdioDefinition(['--features', '--wait-for', gate], { name: 'up' });
    const storage = new MemoryToolCacheStorage();

    const first = runtimeOver(cleanup, storage);
    await first.catalog.ready;
    await first.manager.start([definition]);
    await waitForRunning(first.manager, ['up']);
    await first.catalog.settled();
    const stored = first.catalog.cachedOffer('up');
    assert.deepEqual(
      stored?.resources.map((resource) => resource.uri),
      ['fixture://readme', 'fixture://logo.png', 'fixture://counter'],
    );
    assert.deepEqual(Object.keys(stored?.capabilities ?? {}).sort(), ['completions', 'logging', 'prompts', 'resources', 'tools']);
    await first.dispose();

    fs.rmSync(gate);
    const second = runtimeOver(cleanup, storage);
    await second.catalog.ready;
    await second.manager.start([definition]);
    assert.equal(second.manager.server('up')?.state.kind, 'starting');
    const gateway = second.gateway();
    await gateway.start();
    const client = new Client({ name: 'early', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gateway.endpointUrl('up')), {
        requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } },
      }),
    );
    cleanup.add(() => client.close());
    assert.ok(client.getServerCapabilities()?.resources, 'capabilities from the cache, before the server answered');
    assert.deepEqual(
      (await client.listResources()).resources.map((resource) => resource.uri),
      ['fixture://readme', 'fixture://logo.png', 'fixture://counter'],
    );
    assert.deepEqual(
      (await client.listPrompts()).prompts.map((prompt) => prompt.name),
      ['greet', 'summarize'],
    );
    assert.equal(second.manager.server('up')?.state.kind, 'starting', 'still starting: all of that came from the cache');

    const reading = client.readResource({ uri: 'fixture://readme' });
    fs.writeFileSync(gate, '');
    assert.match(((await reading).contents[0] as { text: string }).text, /^# Fixture/, 'the read waited for the server');
  });

  it('drops the cached offer with the tools, and lists it again from a running server', async () => {
    const storage = new MemoryToolCacheStorage();
    const runtime = runtimeOver(cleanup, storage);
    await runtime.catalog.ready;
    await runtime.manager.start([stdioDefinition(['--features'], { name: 'up' })]);
    await waitForRunning(runtime.manager, ['up']);
    await runtime.catalog.settled();
    assert.ok(runtime.catalog.cachedOffer('up'));
    await runtime.catalog.invalidate('up');
    assert.equal(runtime.catalog.cachedOffer('up'), undefined, 'invalidating the tool cache drops the offer too');
    await runtime.invalidateCaches('up');
    await runtime.catalog.settled();
    assert.deepEqual(
      runtime.catalog.cachedOffer('up')?.prompts.map((prompt) => prompt.name),
      ['greet', 'summarize'],
    );
    assert.deepEqual((await storage.keys()).length, 1, 'one entry: tools and offer under one key');
  });

  it('keeps no offer when the cache is off', async () => {
    const runtime = runtimeOver(cleanup, new MemoryToolCacheStorage(), { cacheTtlMs: 0 });
    await runtime.catalog.ready;
    await runtime.manager.start([stdioDefinition(['--features'], { name: 'up' })]);
    await waitForRunning(runtime.manager, ['up']);
    await runtime.catalog.settled();
    assert.equal(runtime.catalog.cachedOffer('up'), undefined);
  });
});

describe('2026-07-28 cache hints on resources and prompts', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('lists resources and prompts again when the ttlMs of a server without change notifications runs out', async () => {
    const clock = new FakeClock();
    const { connection } = connect(
      cleanup,
      stdioDefinition([], { name: 'up', args: [MODERN_SERVER, '--ttl-ms', '60000', '--no-list-changed'] }),
      { clock },
    );
    await connection.start();
    assert.deepEqual(connection.offer.ttlMs, { resources: 60_000, prompts: 60_000 });
    await connection.sendToolCall('add_resource', { name: 'later' });
    const has = () => connection.offer.resources.some((resource) => resource.uri === 'fixture://extra/later');
    assert.ok(!has(), 'no notification, so not seen yet');
    const refreshed = new Promise<void>((resolve) => connection.onDidChangeOffer(() => resolve()));
    clock.advance(59_999);
    assert.ok(!has(), 'still fresh');
    clock.advance(1);
    await refreshed;
    assert.ok(has(), 'listed again after ttlMs');
  });
});
