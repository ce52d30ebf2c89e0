// Forwarding between two replicas in one process (no proxy): the holder answers what the other
// replica sends on, a stream included, and the forwarding replica bounds what it has in flight.
import assert from 'node:assert/strict';
import { Replicas } from '../../../src/core/cluster';
import { McpGateway } from '../../../src/core/gateway';
import { Cleanup, startGateway, toolsServer, type Setup } from '../gateway/helpers';
import { freePort } from '../support/ports';
import { openSession, sessionRequest } from '../support/wire';
import { FakeClock } from '../support/fakeClock';

const KEY = Buffer.from('a-key-both-replicas-of-this-test-share-0123456789');
const TOKEN = 'token-of-both-replicas-of-the-forwarding-test-0';

describe('cluster: forwarding between replicas', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  let setup: Setup;
  after(() => cleanup.run());
  before(async () => {
    setup = await startGateway(cleanup, [toolsServer('alpha')]);
  });

  async function replica(maxForwards?: number, clock?: FakeClock): Promise<McpGateway> {
    const port = await freePort();
    const router = new Replicas({ selfUrl: `http://127.0.0.1:${port}`, key: KEY, ...(maxForwards ? { maxForwards } : {}) });
    cleanup.add(() => router.dispose());
    const gateway = new McpGateway({ source: setup.source, token: TOKEN, port, replicas: router, ...(clock ? { clock } : {}) });
    cleanup.add(() => gateway.dispose());
    await gateway.start();
    return gateway;
  }

  it('sends a session’s requests to its replica, and answers 503 past its bound of requests in flight', async () => {
    const holder = await replica();
    const other = await replica(1);
    const session = await openSession(holder.aggregatedUrl, TOKEN, 'forwarded');
    assert.equal(await sessionRequest(other.aggregatedUrl, TOKEN, session, 1, 'tools/list'), 200, 'forwarded to the holder');
    // A slow call being forwarded takes the one place; the next request is refused, not queued.
    const slow = fetch(other.aggregatedUrl, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${TOKEN}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': session,
        'Mcp-Protocol-Version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'alpha__slow', arguments: { ms: 3_000 } } }),
    }).then(async (response) => ({ status: response.status, text: await response.text() }));
    // Until the slow call is on its way (each of these, forwarded, ends before the next): then refused.
    let status = 200;
    for (let i = 3; status === 200 && i < 10_000; i++) status = await sessionRequest(other.aggregatedUrl, TOKEN, session, i, 'tools/list');
    assert.equal(status, 503);
    const answered = await slow;
    assert.equal(answered.status, 200);
    assert.match(answered.text, /slept 3000/, 'the streamed answer came through');
    assert.equal(await sessionRequest(other.aggregatedUrl, TOKEN, session, 4, 'tools/list'), 200, 'the place is free again');
  });

  it('takes over a session whose replica is gone: for the same endpoint, within a day, unless its client ended it', async () => {
    const clock = new FakeClock(Date.now());
    const holder = await replica();
    const other = await replica(undefined, clock);
    const open = () => openSession(holder.aggregatedUrl, TOKEN, 'taken-over');
    const [kept, ended, old] = [await open(), await open(), await open()];
    await holder.dispose();

    const call = (session: string, url = other.aggregatedUrl) => sessionRequest(url, TOKEN, session, 1, 'tools/list');
    assert.equal(await call(kept), 200, 'taken over');
    assert.equal(await call(kept), 200, 'and found from then on');
    const called = await fetch(other.aggregatedUrl, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${TOKEN}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': kept,
        'Mcp-Protocol-Version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'alpha__echo', arguments: { text: 'still here' } },
      }),
    });
    assert.match(await called.text(), /still here/);
    assert.equal(await call(kept, other.endpointUrl('alpha')), 404, 'only at the endpoint it was opened at');

    assert.equal(await call(ended), 200);
    const deleted = await fetch(other.aggregatedUrl, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Mcp-Session-Id': ended, 'Mcp-Protocol-Version': '2025-11-25' },
    });
    assert.equal(deleted.status, 200);
    assert.equal(await call(ended), 404, 'a session its client ended is not taken over again');

    clock.advance(25 * 60 * 60_000);
    assert.equal(await call(old), 404, 'a session older than a day is not taken over');
  });

  it('takes over no session whose sealed part was put beside another replica’s mark', async () => {
    const holder = await replica();
    const elsewhere = await replica();
    const other = await replica();
    const session = await openSession(holder.aggregatedUrl, TOKEN, 'spliced');
    const mine = await openSession(elsewhere.aggregatedUrl, TOKEN, 'spliced');
    await holder.dispose();
    await elsewhere.dispose();
    const kept = session.slice(session.indexOf('.') + 1);
    const spliced = `${mine.slice(0, mine.indexOf('.'))}.${kept}`;
    assert.equal(
      await sessionRequest(other.aggregatedUrl, TOKEN, spliced, 1, 'tools/list'),
      404,
      'the sealed part opens only beside its own mark',
    );
    assert.equal(await sessionRequest(other.aggregatedUrl, TOKEN, session, 1, 'tools/list'), 200, 'the real id is taken over');
  });
});
