// Issue: serve said it was ready 250 ms after start, while servers were still connecting; a client
// that listed tools at once got a partial list and "Unknown tool" for a starting server's tools.
import assert from 'node:assert/strict';
import { fixture, tempWorkspace } from '../doctor/helpers';
import { cliSuite } from '../support/cliSuite';
import { freePort } from '../support/ports';
import { bareClient, startServe, tempCacheHome } from '../cli/helpers';

describe('serve is ready when it says so', function () {
  this.timeout(60_000);
  const cleanup = cliSuite();

  it('by default prints its line only after every server finished connecting', async () => {
    const ws = tempWorkspace(cleanup, { quick: fixture(), late: fixture('--startup-delay', '1500') });
    const serve = await startServe(cleanup, ['--folder', ws.dir], { XDG_CACHE_HOME: tempCacheHome(cleanup) });
    const client = await bareClient(cleanup, serve.ready.url, serve.ready.token);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes('quick__echo') && names.includes('late__echo'), names.join(', '));
  });

  it('with --no-wait, tools/list and calls wait for servers still starting with nothing cached', async () => {
    const ws = tempWorkspace(cleanup, { late: fixture('--startup-delay', '1500') });
    const serve = await startServe(cleanup, ['--folder', ws.dir, '--no-wait'], { XDG_CACHE_HOME: tempCacheHome(cleanup) });
    const client = await bareClient(cleanup, serve.ready.url, serve.ready.token);
    const calling = client.callTool({ name: 'late__echo', arguments: { text: 'waited' } });
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes('late__echo'), `the list was answered before the server started: ${names.join(', ')}`);
    assert.deepEqual((await calling).content, [{ type: 'text', text: 'waited' }]);

    const perServer = await bareClient(cleanup, serve.ready.servers.late ?? '', serve.ready.token);
    assert.deepEqual((await perServer.callTool({ name: 'echo', arguments: { text: 'direct' } })).content, [
      { type: 'text', text: 'direct' },
    ]);
  });

  it('a tool of a server that is still starting fails with the one NOT_READY error, after waiting its requestMs once', async () => {
    // A remote server that is down: it retries with backoff, so it stays "starting" for the gateway.
    const port = await freePort();
    const ws = tempWorkspace(cleanup, {
      late: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, timeouts: { connectMs: 1500, requestMs: 1500 } },
    });
    const serve = await startServe(cleanup, ['--folder', ws.dir, '--no-wait'], { XDG_CACHE_HOME: tempCacheHome(cleanup) });
    const client = await bareClient(cleanup, serve.ready.url, serve.ready.token);
    const started = Date.now();
    await assert.rejects(
      client.callTool({ name: 'late__echo', arguments: { text: 'x' } }),
      /server `late` was not ready within 1500 ms \(timeouts\.requestMs\); nothing was sent, try again shortly/,
    );
    assert.ok(Date.now() - started >= 1400, 'it waited for the requestMs first');
    assert.equal((await client.listTools()).tools.length, 0);
  });
});
