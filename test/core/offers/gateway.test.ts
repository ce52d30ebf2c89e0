// Resources, prompts, completion and logging through the gateway, with the real runtime (manager,
// catalogs, gateway), in both protocol eras upstream and downstream.
import assert from 'node:assert/strict';
import path from 'node:path';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import type { ServerDefinition } from '../../../src/core/config/types';
import type { McpGateway } from '../../../src/core/gateway';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime/runtime';
import { Cleanup, FIXTURES, MemoryLogger, stdioDefinition } from '../connection/helpers';
import { eventually, waitForRunning } from '../gateway/helpers';
import { connectInEra, type Era, type EraClient } from '../support/eraClient';

const MODERN_SERVER = path.join(FIXTURES, 'modern-server.mjs');

function upstream(era: Era, name = 'up', overrides: { resources?: boolean; prompts?: boolean } = {}): ServerDefinition {
  return era === 'legacy'
    ? stdioDefinition(['--features'], { name, ...overrides })
    : stdioDefinition([], { name, args: [MODERN_SERVER], ...overrides });
}

interface Running {
  readonly runtime: SwitchboardRuntime;
  readonly gateway: McpGateway;
  readonly logger: MemoryLogger;
}

async function run(cleanup: Cleanup, servers: readonly ServerDefinition[]): Promise<Running> {
  const logger = new MemoryLogger();
  const runtime = createRuntime({ logger, storage: new MemoryToolCacheStorage(), settings: {} });
  cleanup.add(() => runtime.dispose());
  await runtime.manager.start(servers);
  await waitForRunning(
    runtime.manager,
    servers.map((server) => server.name),
  );
  const gateway = runtime.gateway();
  await gateway.start();
  return { runtime, gateway, logger };
}

function connect(cleanup: Cleanup, gateway: McpGateway, url: string, era: Era): Promise<EraClient> {
  return connectInEra(cleanup, gateway, url, era, { resourcesListChanged: true, promptsListChanged: true });
}

describe('resources, prompts, completion and logging through the gateway', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  for (const upstreamEra of ['legacy', 'modern'] as const) {
    for (const clientEra of ['legacy', 'modern'] as const) {
      it(`${upstreamEra} server, ${clientEra} client: lists, reads, gets, completes and follows list changes`, async () => {
        const { gateway } = await run(cleanup, [upstream(upstreamEra)]);
        const { client, listening } = await connect(cleanup, gateway, gateway.endpointUrl('up'), clientEra);
        const capabilities = client.getServerCapabilities();
        assert.ok(capabilities?.resources && capabilities.prompts && capabilities.completions, JSON.stringify(capabilities));
        assert.equal(capabilities.logging !== undefined, upstreamEra === 'legacy', 'logging only where the upstream offers it');

        assert.deepEqual(
          (await client.listResources()).resources.map((resource) => resource.uri),
          ['fixture://readme', 'fixture://logo.png', 'fixture://counter'],
        );
        assert.deepEqual(
          (await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate),
          ['fixture://notes/{topic}'],
        );
        const readme = await client.readResource({ uri: 'fixture://readme' });
        assert.match((readme.contents[0] as { text: string }).text, /^# Fixture/);
        const logo = await client.readResource({ uri: 'fixture://logo.png' });
        assert.equal((logo.contents[0] as { mimeType?: string }).mimeType, 'image/png');
        assert.match((logo.contents[0] as { blob: string }).blob, /^iVBORw0KGgo/);
        assert.equal(
          ((await client.readResource({ uri: 'fixture://notes/alpha' })).contents[0] as { text: string }).text,
          'Notes on alpha',
        );
        const missing = await client.readResource({ uri: 'fixture://nowhere' }).then(
          () => assert.fail('an unknown resource'),
          (error: unknown) => error as { code?: number; message: string },
        );
        assert.match(missing.message, /fixture:\/\/nowhere/);

        assert.deepEqual(
          (await client.listPrompts()).prompts.map((prompt) => prompt.name),
          ['greet', 'summarize'],
        );
        const greeting = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
        assert.deepEqual(greeting.messages, [{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }]);
        const names = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'G' } });
        assert.deepEqual(names.completion.values, ['Grace']);
        const topics = await client.complete({
          ref: { type: 'ref/resource', uri: 'fixture://notes/{topic}' },
          argument: { name: 'topic', value: 'b' },
        });
        assert.deepEqual(topics.completion.values, ['beta']);

        await listening;
        let resourceChanges = 0;
        let promptChanges = 0;
        client.setNotificationHandler('notifications/resources/list_changed', () => void (resourceChanges += 1));
        client.setNotificationHandler('notifications/prompts/list_changed', () => void (promptChanges += 1));
        await client.callTool({ name: 'add_resource', arguments: { name: 'late' } });
        await eventually(() => (resourceChanges > 0 ? true : undefined), 'resources/list_changed reached the client', 10_000);
        const uris = (await client.listResources({}, { cacheMode: 'refresh' })).resources.map((resource) => resource.uri);
        assert.ok(uris.includes('fixture://extra/late'), uris.join(', '));
        assert.equal(promptChanges, 0, 'the prompts did not change, so no prompts/list_changed');
        await client.callTool({ name: 'add_prompt', arguments: { name: 'late_prompt' } });
        await eventually(() => (promptChanges > 0 ? true : undefined), 'prompts/list_changed reached the client', 10_000);
        assert.ok((await client.listPrompts({}, { cacheMode: 'refresh' })).prompts.some((prompt) => prompt.name === 'late_prompt'));
      });
    }

    it(`${upstreamEra} server, 2025 client: a subscribed resource's updates reach the session that subscribed, and it unsubscribes`, async () => {
      const { gateway } = await run(cleanup, [upstream(upstreamEra)]);
      const { client, listening } = await connect(cleanup, gateway, gateway.endpointUrl('up'), 'legacy');
      const other = await connect(cleanup, gateway, gateway.endpointUrl('up'), 'legacy');
      await Promise.all([listening, other.listening]);
      const updates: string[] = [];
      const elsewhere: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (notification) => void updates.push(notification.params.uri));
      other.client.setNotificationHandler(
        'notifications/resources/updated',
        (notification) => void elsewhere.push(notification.params.uri),
      );
      await client.subscribeResource({ uri: 'fixture://counter' });
      // 2026-07-28 upstream: the subscription is a new listen stream; bump until it is in place.
      await eventually(
        async () => {
          await client.callTool({ name: 'bump', arguments: {} });
          return updates.length > 0 ? true : undefined;
        },
        'resources/updated reached the subscriber',
        10_000,
      );
      assert.deepEqual([...new Set(updates)], ['fixture://counter']);
      assert.deepEqual(elsewhere, [], 'a session that did not subscribe hears nothing');
      await client.unsubscribeResource({ uri: 'fixture://counter' });
      const before = updates.length;
      await client.callTool({ name: 'bump', arguments: {} });
      await client.callTool({ name: 'bump', arguments: {} });
      // A round trip after the bumps: an update sent before it would have arrived before its answer.
      await client.listTools();
      assert.equal(updates.length, before, 'no updates after unsubscribing');
    });
  }

  for (const era of ['legacy', 'modern'] as const) {
    it(`lists the prompts and resources of a server still starting, for a ${era} client that asks for them first`, async () => {
      const runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {} });
      cleanup.add(() => runtime.dispose());
      // Not waited for: the client comes while the server is starting, with nothing known of it.
      await runtime.manager.start([stdioDefinition(['--features', '--startup-delay', '1000'], { name: 'slow' })]);
      const gateway = runtime.gateway();
      await gateway.start();
      for (const url of [gateway.aggregatedUrl, gateway.endpointUrl('slow')]) {
        const { client } = await connectInEra(cleanup, gateway, url, era, {});
        const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
        assert.ok(prompts.includes('greet') || prompts.includes('slow__greet'), `${url}: ${prompts.join(', ')}`);
        assert.ok((await client.listResources()).resources.length > 0, url);
        assert.ok((await client.listResourceTemplates()).resourceTemplates.length > 0, url);
      }
    });
  }

  for (const clientEra of ['legacy', 'modern'] as const) {
    it(`tells a ${clientEra} client of the aggregated endpoint that a removed server's prompts are gone`, async () => {
      // A server removed from the configuration fires no state event of its own: its offers went unannounced.
      const { runtime, gateway } = await run(cleanup, [upstream('legacy', 'kept'), upstream('legacy', 'removed')]);
      const { client, listening } = await connect(cleanup, gateway, gateway.aggregatedUrl, clientEra);
      assert.deepEqual(
        (await client.listPrompts()).prompts.map((prompt) => prompt.name),
        ['kept__greet', 'kept__summarize', 'removed__greet', 'removed__summarize'],
      );
      await listening;
      let promptChanges = 0;
      client.setNotificationHandler('notifications/prompts/list_changed', () => void (promptChanges += 1));
      await runtime.manager.update([upstream('legacy', 'kept')]);
      await eventually(() => (promptChanges > 0 ? true : undefined), 'prompts/list_changed');
      assert.deepEqual(
        (await client.listPrompts()).prompts.map((prompt) => prompt.name),
        ['kept__greet', 'kept__summarize'],
      );
    });
  }

  it('passes a burst of prompt announcements on as at most two, listing the prompts at most twice for it', async () => {
    const { gateway } = await run(cleanup, [stdioDefinition(['--features', '--announcing'], { name: 'up' })]);
    const { client, listening } = await connect(cleanup, gateway, gateway.endpointUrl('up'), 'legacy');
    await listening;
    let passedOn = 0;
    client.setNotificationHandler('notifications/prompts/list_changed', () => void (passedOn += 1));
    const listsSoFar = async (count: number) =>
      Number(
        (
          ((await client.callTool({ name: 'announce_prompts', arguments: { count } })).content as Array<{ text: string }>)[0] ?? {
            text: '',
          }
        ).text,
      );
    const before = await listsSoFar(0);
    await listsSoFar(20);
    await eventually(() => (passedOn > 0 ? true : undefined), 'the announcement reached the client', 10_000);
    // Long enough for every announcement of the burst to have been handled, had each its own relist.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const asked = (await listsSoFar(0)) - before;
    assert.ok(asked >= 1 && asked <= 2, `${asked} prompts/list requests for 20 announcements`);
    assert.ok(passedOn >= 1 && passedOn <= 2, `${passedOn} prompts/list_changed passed on for 20 announcements`);
  });

  it("relays a 2025 server's log messages to the session, after logging/setLevel was forwarded", async () => {
    const { gateway } = await run(cleanup, [upstream('legacy')]);
    const { client, listening } = await connect(cleanup, gateway, gateway.endpointUrl('up'), 'legacy');
    await listening;
    const messages: unknown[] = [];
    client.setNotificationHandler('notifications/message', (notification) => void messages.push(notification.params));
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'log', arguments: { level: 'warning', message: 'through the gateway' } });
    await eventually(() => (messages.length > 0 ? true : undefined), 'the log message reached the client', 10_000);
    assert.deepEqual(messages[0], { level: 'warning', logger: 'fixture', data: 'through the gateway' });
  });

  it('on the aggregated endpoint: namespaces prompts, routes URIs to the first server that lists them, and hides what an entry hides', async () => {
    const { gateway } = await run(cleanup, [
      upstream('legacy', 'first'),
      upstream('modern', 'second'),
      upstream('legacy', 'hidden', { resources: false, prompts: false }),
    ]);
    const { client } = await connect(cleanup, gateway, gateway.aggregatedUrl, 'legacy');
    const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
    assert.deepEqual(prompts, ['first__greet', 'first__summarize', 'second__greet', 'second__summarize']);
    const greeting = await client.getPrompt({ name: 'second__greet', arguments: { name: 'Alan', style: 'formal' } });
    assert.deepEqual(greeting.messages, [{ role: 'user', content: { type: 'text', text: 'Good day, Alan!' } }]);
    const names = await client.complete({ ref: { type: 'ref/prompt', name: 'second__greet' }, argument: { name: 'name', value: 'A' } });
    assert.deepEqual(names.completion.values, ['Ada', 'Alan']);

    // Both fixtures list the same URIs: each appears once, owned by the first server.
    const uris = (await client.listResources()).resources.map((resource) => resource.uri);
    assert.deepEqual(uris, ['fixture://readme', 'fixture://logo.png', 'fixture://counter']);
    await client.callTool({ name: 'first__bump', arguments: {} });
    const counter = await client.readResource({ uri: 'fixture://counter' });
    assert.equal((counter.contents[0] as { text: string }).text, '1', 'read from the first server, the one that was bumped');
    assert.equal(((await client.readResource({ uri: 'fixture://notes/gamma' })).contents[0] as { text: string }).text, 'Notes on gamma');

    const direct = await connect(cleanup, gateway, gateway.endpointUrl('hidden'), 'legacy');
    assert.equal(direct.client.getServerCapabilities()?.resources, undefined, 'no resources capability where they are hidden');
    assert.equal(direct.client.getServerCapabilities()?.prompts, undefined);
    const raw = await direct.client
      .request({ method: 'resources/read', params: { uri: 'fixture://readme' } } as never, undefined as never)
      .then(
        () => 'answered',
        (error: unknown) => (error as Error).message,
      );
    assert.match(raw, /not found|Method not found|-32601/i);
  });

  it('keeps listing the offer of a server that crashed, and a read waits for it to be back', async () => {
    const { gateway, logger } = await run(cleanup, [stdioDefinition(['--features', '--crash-after', '1'], { name: 'up' })]);
    const { client } = await connect(cleanup, gateway, gateway.endpointUrl('up'), 'legacy');
    await client.callTool({ name: 'echo', arguments: { text: 'crash' } }).catch(() => undefined);
    assert.deepEqual(
      (await client.listResources()).resources.map((resource) => resource.uri),
      ['fixture://readme', 'fixture://logo.png', 'fixture://counter'],
    );
    const readme = await client.readResource({ uri: 'fixture://readme' });
    assert.match((readme.contents[0] as { text: string }).text, /^# Fixture/);
    assert.ok(/connection lost/.test(logger.text()), 'the server did crash');
  });
});
