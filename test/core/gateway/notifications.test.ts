import assert from 'node:assert/strict';
import {
  Cleanup,
  connectClient,
  contentServer,
  eventually,
  startGateway,
  toolsServer,
  type FixtureToolSource,
  type GatewayClient,
  type Setup,
} from './helpers';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { McpGateway, serveStdioSession, SETTLING_HOLD_MS } from '../../../src/core/gateway';
import { FakeClock } from '../support/fakeClock';

interface Counted {
  readonly client: GatewayClient['client'];
  count(): number;
}

/** A client of `url` that counts tools/list_changed, once its notification stream is open. */
async function listening(cleanup: Cleanup, url: string, token: string): Promise<Counted> {
  const connected = await connectClient(cleanup, url, token);
  let count = 0;
  connected.client.setNotificationHandler('notifications/tools/list_changed', () => {
    count += 1;
  });
  await connected.notificationStream;
  return { client: connected.client, count: () => count };
}

async function reaches(counted: Counted, expected: number, what: string): Promise<void> {
  await eventually(() => (counted.count() >= expected ? true : undefined), what, 5_000);
  assert.equal(counted.count(), expected, what);
}

/**
 * Three changes while a server is still starting (each arrival moves the budget's shares) are told
 * once it has settled; a change of a settled catalog at once; a server that stays starting holds
 * the others' notices no longer than SETTLING_HOLD_MS.
 */
async function holdsWhileSettling(source: FixtureToolSource, clock: FakeClock, counted: Counted): Promise<void> {
  source.settling = true;
  source.filter('alpha', 'add', { kind: 'globalDeny', pattern: 'add' });
  source.filter('alpha', 'count', { kind: 'globalDeny', pattern: 'count' });
  source.filter('alpha', 'add', undefined);
  assert.equal(counted.count(), 0);
  source.settling = false;
  source.changed();
  await reaches(counted, 1, 'told once the servers have settled');
  // A barrier: a change after settling is told at once, and nothing else came before it.
  source.filter('alpha', 'echo', { kind: 'globalDeny', pattern: 'echo' });
  await reaches(counted, 2, 'a change of a settled catalog is told at once, and the held ones were told once');
  source.settling = true;
  source.filter('alpha', 'echo', undefined);
  await clock.whenPending(SETTLING_HOLD_MS);
  clock.advance(SETTLING_HOLD_MS);
  await reaches(counted, 3, 'told after the hold, though a server is still starting');
}

describe('gateway: tools/list_changed', function () {
  const cleanup = new Cleanup();
  let setup: Setup;

  beforeEach(async () => {
    setup = await startGateway(cleanup, [toolsServer('alpha'), contentServer('content')]);
  });
  afterEach(() => cleanup.run());

  it('notifies exactly the endpoints whose filtered list changed', async () => {
    const { gateway, source } = setup;
    const alpha = await listening(cleanup, gateway.endpointUrl('alpha'), gateway.token);
    const content = await listening(cleanup, gateway.endpointUrl('content'), gateway.token);
    const aggregated = await listening(cleanup, gateway.aggregatedUrl, gateway.token);

    source.filter('alpha', 'add', { kind: 'globalDeny', pattern: '*add*' });
    await reaches(alpha, 1, 'alpha is told its list changed');
    await reaches(aggregated, 1, 'the aggregated endpoint is told');

    // A change event that changes no list sends nothing; the next real change proves it.
    source.changed();
    source.filter('content', 'audio', { kind: 'budget', maxExposed: 10 });
    await reaches(content, 1, 'content is told once, for its own change only');
    await reaches(aggregated, 2, 'the aggregated endpoint is told again');
    // Barriers instead of a sleep: each session's notices arrive in order on its own stream, so
    // once a barrier notice has arrived, any wrong notice sent before it would have been counted.
    source.filter('alpha', 'count', { kind: 'globalDeny', pattern: 'count' });
    source.filter('content', 'text', { kind: 'globalDeny', pattern: 'text' });
    await reaches(alpha, 2, 'alpha gets the barrier, and nothing more before it');
    await reaches(content, 2, 'content gets the barrier, and nothing more before it');
    await reaches(aggregated, 4, 'the aggregated endpoint gets both barriers, and nothing more');

    const listed = (await alpha.client.listTools()).tools.map((tool) => tool.name);
    assert.ok(!listed.includes('add') && listed.includes('echo'));
  });

  it('notifies when the upstream server changes its tools', async () => {
    const alpha = await listening(cleanup, setup.gateway.endpointUrl('alpha'), setup.gateway.token);
    await alpha.client.callTool({ name: 'add_tool', arguments: { name: 'brand_new' } });
    await reaches(alpha, 1, 'the new upstream tool is announced');
    assert.ok((await alpha.client.listTools()).tools.some((tool) => tool.name === 'brand_new'));
  });

  it('holds list changes while servers come up, and tells each endpoint once when they have settled, or after SETTLING_HOLD_MS', async () => {
    const { source, logger } = setup;
    const clock = new FakeClock();
    const gateway = new McpGateway({ source, logger, clock });
    cleanup.add(() => gateway.dispose());
    await gateway.start();
    const alpha = await listening(cleanup, gateway.endpointUrl('alpha'), gateway.token);
    await holdsWhileSettling(source, clock, alpha);
  });

  it('a stdio session (serve --stdio, a window on the machine host) holds them the same way', async () => {
    const { source, logger } = setup;
    const clock = new FakeClock();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const served = await serveStdioSession({ source, logger, clock }, serverSide);
    cleanup.add(() => served.close());
    const client = new Client({ name: 'agent', version: '1.0.0' });
    let count = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => void (count += 1));
    await client.connect(clientSide);
    cleanup.add(() => client.close());
    await holdsWhileSettling(source, clock, { client, count: () => count });
  });
});
