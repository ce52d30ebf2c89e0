// The offer keeper relists one list at a time per list, but resources and prompts independently:
// a prompts relist that began before a resources relist ended must not put the old resources back.
// And a connection's tools fingerprint is the one the catalog knows its lists by.
import assert from 'node:assert/strict';
import { systemClock } from '../../../src/core/base/clock';
import { nullLogger } from '../../../src/core/base/logging';
import { OfferKeeper } from '../../../src/core/connection/offer/offerKeeper';
import { listAllTools } from '../../../src/core/connection/offer/toolList';
import { pageSchema } from '../../../src/core/connection/offer/listPaging';
import type { McpSession } from '../../../src/core/connection/session';
import { fingerprintTools } from '../../../src/core/catalog/preparedList';
import { Cleanup, connect, stdioDefinition } from './helpers';
import { until } from '../support/poll';

describe('offer keeper: lists relisted side by side', () => {
  it('a prompts relist that ends after a resources relist keeps the new resources', async () => {
    let resources = [{ uri: 'fixture://a', name: 'a' }];
    const prompts = [{ name: 'greet' }];
    let releasePrompts: () => void = () => undefined;
    const promptsHeld = new Promise<void>((resolve) => (releasePrompts = resolve));
    let promptsAsked: () => void = () => undefined;
    const promptsAsking = new Promise<void>((resolve) => (promptsAsked = resolve));
    const session = {
      capabilities: { resources: { listChanged: true }, prompts: { listChanged: true } },
      async requestRaw(method: string) {
        if (method === 'resources/list') return { resources };
        if (method === 'resources/templates/list') return { resourceTemplates: [] };
        if (method === 'prompts/list') {
          promptsAsked();
          await promptsHeld;
          return { prompts };
        }
        throw new Error(`unexpected ${method}`);
      },
      async listSkills() {
        return { skills: [], problems: [] };
      },
    } as unknown as McpSession;
    const keeper = new OfferKeeper({
      server: 's',
      logger: nullLogger,
      clock: systemClock,
      activeSession: () => session,
      refreshPolicy: () => ({ timeoutMs: 5_000, maxTotalMs: 0 }),
      onToolsReplaced: () => undefined,
    });
    await keeper.relistOffer(session, ['resources']);
    assert.deepEqual(
      keeper.offer.resources.map((resource) => resource.uri),
      ['fixture://a'],
    );

    const promptsRelist = keeper.relistOffer(session, ['prompts'], true);
    await promptsAsking;
    resources = [...resources, { uri: 'fixture://b', name: 'b' }];
    await keeper.relistOffer(session, ['resources'], true);
    assert.deepEqual(
      keeper.offer.resources.map((resource) => resource.uri),
      ['fixture://a', 'fixture://b'],
    );
    releasePrompts();
    await promptsRelist;
    assert.deepEqual(
      keeper.offer.resources.map((resource) => resource.uri),
      ['fixture://a', 'fixture://b'],
      'the prompts relist put the resources of when it began back',
    );
    assert.deepEqual(
      keeper.offer.prompts.map((prompt) => prompt.name),
      ['greet'],
    );
    keeper.dispose();
  });
});

describe("a connection's tools fingerprint", function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('is the catalog’s fingerprint of the same list (it is read there, not hashed again), and follows every new list', async () => {
    const { connection } = connect(cleanup, stdioDefinition());
    await connection.start();
    const first = connection.toolsFingerprint;
    assert.equal(first, fingerprintTools(connection.tools));
    assert.notEqual(first, fingerprintTools([]));
    await connection.sendToolCall('add_tool', { name: 'brand_new' });
    await until(() => connection.tools.some((tool) => tool.name === 'brand_new'), 10_000, 'the new list');
    assert.equal(connection.toolsFingerprint, fingerprintTools(connection.tools));
    assert.notEqual(connection.toolsFingerprint, first);
  });
});

describe('a tool list screened at the other end', () => {
  // A definition screenTools() holds back: inputSchema is not an object schema.
  const invalid = { name: 'invalid', inputSchema: { type: 'string' } };
  const echo = { name: 'echo', inputSchema: { type: 'object' } };
  const onePage = async () => ({ tools: [echo, invalid] });

  it('is taken as listed from the machine host (it screened each definition as it took it), and screened from anyone else', async () => {
    const fromHost = await listAllTools(onePage, 'legacy', 'machine host');
    assert.deepEqual(
      fromHost.tools.map((tool) => tool.name),
      ['echo', 'invalid'],
    );
    assert.deepEqual(fromHost.quarantined, []);
    const direct = await listAllTools(onePage, 'legacy');
    assert.deepEqual(
      direct.tools.map((tool) => tool.name),
      ['echo'],
    );
    assert.deepEqual(
      direct.quarantined.map((tool) => tool.name),
      ['invalid'],
    );
  });

  it('reuses one page schema per list method (zod compiles a parser per schema object)', () => {
    assert.equal(pageSchema('tools/list'), pageSchema('tools/list'));
    assert.notEqual(pageSchema('tools/list'), pageSchema('prompts/list'));
  });
});
