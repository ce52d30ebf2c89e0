// A Switchboard never serves itself back to itself (base/selfLoop.ts), on the real parts: two
// runtimes with their gateways listening, fixture servers behind each, and the gateways named as
// servers of each other, or of themselves.
import assert from 'node:assert/strict';
import { ProtocolError } from '@modelcontextprotocol/client';
import { trailOf } from '../../../src/core/base/selfLoop';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime/runtime';
import type { McpGateway } from '../../../src/core/gateway';
import { Cleanup, httpDefinition, stdioDefinition } from '../connection/helpers';
import { eventually } from '../support/poll';
import { connectClient, delay, waitForRunning } from './helpers';

interface Node {
  readonly runtime: SwitchboardRuntime;
  readonly gateway: McpGateway;
}

describe('gateway: a Switchboard never serves itself', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  async function node(): Promise<Node> {
    const runtime = createRuntime({ storage: new MemoryToolCacheStorage(), settings: {} });
    cleanup.add(() => runtime.dispose());
    const gateway = runtime.gateway();
    await gateway.start();
    return { runtime, gateway };
  }

  /** Another node's gateway as a server entry, with its token. */
  const entryFor = (name: string, other: Node) =>
    httpDefinition(other.gateway.aggregatedUrl, { name, headers: { Authorization: `Bearer ${other.gateway.token}` } });

  it('its own gateway as one of its servers: refused at the first request, named, and not retried', async () => {
    const a = await node();
    const changes: string[] = [];
    const listening = a.runtime.manager.onDidChangeState((event) => changes.push(event.state.kind));
    cleanup.add(() => listening.dispose());
    const started = Date.now();
    await a.runtime.manager.start([entryFor('me', a)]);
    const state = await eventually(() => {
      const current = a.runtime.manager.server('me')?.state;
      return current?.kind === 'error' ? current : undefined;
    }, 'the entry failed');
    assert.equal(state.code, 'LOOP');
    assert.match(state.message, /is this Switchboard's own gateway/);
    assert.equal(state.nextTryAt, undefined, 'no slow retry either');
    assert.ok(Date.now() - started < 5_000, 'at once, not after a connect timeout');
    // The entry's reconnect settings allow three more attempts 20-100 ms apart: none is made.
    await delay(500);
    assert.deepEqual(changes, ['starting', 'error']);
  });

  it('its own gateway as a team source: the listing is refused at once and says why', async () => {
    const a = await node();
    const listing = await a.runtime.teams.list(a.gateway.url);
    assert.deepEqual(listing, {
      kind: 'unlisted',
      reason: 'failed',
      message: "it is this Switchboard's own gateway: a team source names another gateway",
    });
    // Another Switchboard's gateway is not taken for this one (without its token it asks for a sign-in).
    const b = await node();
    const other = await a.runtime.teams.list(b.gateway.url);
    assert.ok(!JSON.stringify(other).includes('own gateway'), JSON.stringify(other));
  });

  it('two gateways that list each other: each gets the other’s own offer at once, never its own back', async () => {
    const a = await node();
    const b = await node();
    const started = Date.now();
    // Started together: each gateway's list is asked for while the other is still starting.
    await Promise.all([
      a.runtime.manager.start([stdioDefinition(['--features'], { name: 'alpha' }), entryFor('b', b)]),
      b.runtime.manager.start([stdioDefinition(['--features'], { name: 'beta' }), entryFor('a', a)]),
    ]);
    await Promise.all([waitForRunning(a.runtime.manager, ['alpha', 'b']), waitForRunning(b.runtime.manager, ['beta', 'a'])]);
    // Without the answer for a Switchboard that does not wait, each waits for the other until its
    // connect timeout (10 s here).
    assert.ok(Date.now() - started < 8_000, `both running after ${Date.now() - started} ms`);

    const { client } = await connectClient(cleanup, a.gateway.aggregatedUrl, a.gateway.token);
    const tools = async () => (await client.listTools()).tools.map((tool) => tool.name);
    await eventually(async () => ((await tools()).includes('b__beta__echo') ? true : undefined), "beta's tools through b");
    // Long enough for a ring to go round a few times (each list change announced to the other).
    await delay(1_000);
    const names = await tools();
    assert.ok(names.includes('alpha__echo') && names.includes('b__beta__echo'), names.join(', '));
    assert.deepEqual(
      names.filter((name) => name.startsWith('b__a__')),
      [],
      'nothing of its own comes back through b',
    );
    const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
    assert.ok(prompts.includes('alpha__greet') && prompts.includes('b__beta__greet'), prompts.join(', '));
    assert.ok(!prompts.some((name) => name.startsWith('b__a__')), prompts.join(', '));

    // What each runtime took from the other: nothing whose trail has its own id.
    for (const [self, other] of [
      [a, 'b'],
      [b, 'a'],
    ] as const) {
      const id = self.runtime.switchboardId;
      const taken = self.runtime.catalog.snapshot().servers.find((server) => server.name === other);
      assert.ok(taken && taken.tools.length > 0, `${other}'s tools`);
      assert.ok(!taken.tools.some((tool) => trailOf(tool.tool).includes(id)), `a tool of ${other} came back`);
      const offer = self.runtime.offers.offer(other);
      for (const item of [...(offer?.resources ?? []), ...(offer?.resourceTemplates ?? []), ...(offer?.prompts ?? [])])
        assert.ok(!trailOf(item).includes(id), `an item of ${other} came back: ${JSON.stringify(item)}`);
    }

    assert.equal(
      ((await client.callTool({ name: 'b__beta__echo', arguments: { text: 'hi' } })).content as { text: string }[])[0]?.text,
      'hi',
    );
    // The name a ring would have made of its own tool names nothing: refused at once.
    const refusedAt = Date.now();
    await assert.rejects(
      client.callTool({ name: 'b__a__alpha__echo', arguments: { text: 'hi' } }),
      (error: unknown) => error instanceof ProtocolError && /b__a__alpha__echo/.test(error.message),
    );
    assert.ok(Date.now() - refusedAt < 2_000);
  });
});
