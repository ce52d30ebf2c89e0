// `mcp-switchboard serve` end to end: the built CLI as a child process, two fixture servers, and a
// bare SDK client that knows nothing but the URL and the token it printed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { serveCacheDir } from '../../../src/core/cli';
import { Cleanup, isAlive, textOf } from '../connection/helpers';
import { buildCli, fixture, runCli, markerPid, tempWorkspace } from '../doctor/helpers';
import { bareClient, eventually, startServe, tempCacheHome } from './helpers';
import { initializeHeaders, INITIALIZE_BODY, rawRequest } from '../gateway/helpers';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

function rawPost(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: INITIALIZE,
  });
}

describe('CLI: serve', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  before(function () {
    this.timeout(120_000);
    buildCli();
  });

  it('serves /mcp and /mcp/<server> to a bare SDK client with the token, 401 without, and leaves no process after SIGTERM', async () => {
    const cacheHome = tempCacheHome(cleanup);
    const ws = tempWorkspace(cleanup, {});
    const markers = { alpha: ws.file('alpha.json'), beta: ws.file('beta.json') };
    fs.writeFileSync(
      ws.file('.vscode/settings.json'),
      JSON.stringify({
        'mcpSwitchboard.servers': {
          alpha: { ...fixture('--marker', markers.alpha), tools: { deny: ['add'] } },
          beta: fixture('--marker', markers.beta),
        },
      }),
    );
    const serve = await startServe(cleanup, ['--folder', ws.dir], { XDG_CACHE_HOME: cacheHome });
    const pids = [await markerPid(markers.alpha), await markerPid(markers.beta)];
    cleanup.add(() => pids.forEach((pid) => isAlive(pid) && process.kill(pid, 'SIGKILL')));

    const { url, token, servers } = serve.ready;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.deepEqual(servers, { alpha: `${url}/alpha`, beta: `${url}/beta` });
    assert.ok(!serve.stderr().includes(token), 'the token is printed on stdout only');

    // Aggregated: qualified names, the denied tool absent. Polled: the JSON line comes after the
    // start-up gate, and a loaded machine may need longer than that to connect both fixtures.
    const aggregated = await bareClient(cleanup, url, token);
    const names = await eventually(async () => {
      const listed = (await aggregated.listTools()).tools.map((tool) => tool.name);
      return listed.includes('alpha__echo') && listed.includes('beta__add') ? listed : undefined;
    }, 'both servers listed on /mcp');
    assert.ok(names.includes('beta__echo'), names.join(', '));
    assert.ok(!names.includes('alpha__add'), 'tools.deny ["add"] of alpha hides alpha__add');
    assert.ok(
      names.every((name) => /^(alpha|beta)__[A-Za-z0-9_-]+$/.test(name)),
      names.join(', '),
    );
    const viaAggregate = (await aggregated.callTool({ name: 'beta__add', arguments: { a: 2, b: 40 } })) as CallToolResult;
    assert.equal(textOf(viaAggregate), '42');

    // Per server: upstream names.
    const alpha = await bareClient(cleanup, servers.alpha ?? '', token);
    const alphaNames = (await alpha.listTools()).tools.map((tool) => tool.name);
    assert.ok(alphaNames.includes('echo') && !alphaNames.includes('add'), alphaNames.join(', '));
    assert.ok(
      alphaNames.every((name) => !name.includes('__')),
      alphaNames.join(', '),
    );
    assert.equal(
      textOf((await alpha.callTool({ name: 'echo', arguments: { text: 'from a terminal agent' } })) as CallToolResult),
      'from a terminal agent',
    );
    const denied = (await alpha.callTool({ name: 'add', arguments: { a: 1, b: 1 } }).catch((error: unknown) => error)) as Error;
    assert.match(String(denied), /tools\.deny/, 'a hidden tool cannot be called either');

    // Without the token, or with a wrong one: 401 on every endpoint.
    for (const endpoint of [url, servers.alpha ?? '']) {
      assert.equal((await rawPost(endpoint)).status, 401, endpoint);
      assert.equal((await rawPost(endpoint, { authorization: 'Bearer not-the-token' })).status, 401, endpoint);
    }
    assert.equal((await rawPost(url, { authorization: `Bearer ${token}` })).status, 200, 'the raw request itself is fine');

    assert.deepEqual(pids.filter(isAlive), pids, 'both servers run while serve does');
    // The clients stay connected: shutdown must not wait for them to leave.
    serve.child.kill('SIGTERM');
    const exit = await serve.exited;
    assert.deepEqual(exit, { code: 0, signal: null }, serve.stderr());
    assert.deepEqual(pids.filter(isAlive), [], 'server processes outlived serve');
    assert.equal(
      serve
        .stdout()
        .split('\n')
        .filter((line) => line !== '').length,
      1,
      'stdout carries exactly one line',
    );
    assert.match(serve.stderr(), /shutting down/);
  });

  it('the built CLI as a team gateway: flags from the environment, JSON logs, access and audit lines, /metrics, probes, a clean SIGTERM', async () => {
    const ws = tempWorkspace(cleanup, { alpha: fixture() });
    const serve = await startServe(cleanup, ['--folder', ws.dir, '--log-format', 'json'], {
      XDG_CACHE_HOME: tempCacheHome(cleanup),
      MCP_SWITCHBOARD_ALLOWED_HOST: 'team.example.test',
      MCP_SWITCHBOARD_METRICS: 'true',
      MCP_SWITCHBOARD_ACCESS_LOG: '1',
      MCP_SWITCHBOARD_AUDIT_LOG: '1',
    });
    const { url, token, servers } = serve.ready;
    const client = await bareClient(cleanup, servers.alpha ?? '', token);
    assert.equal(textOf((await client.callTool({ name: 'echo', arguments: { text: 'audited' } })) as CallToolResult), 'audited');
    const origin = new URL(url).origin;
    assert.equal((await fetch(`${origin}/readyz`)).status, 200);
    const metrics = await fetch(`${origin}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(metrics.status, 200);
    const text = await metrics.text();
    assert.match(text, /^mcp_switchboard_tool_calls_total\{server="alpha",outcome="ok"\} 1$/m);
    assert.match(text, /^mcp_switchboard_process_cpu_seconds_total \d/m, "the process's own, in the bundle");
    const port = Number(new URL(url).port);
    const asTeam = (host: string) =>
      rawRequest(port, {
        path: '/mcp/alpha',
        headers: initializeHeaders({ Host: host, Authorization: `Bearer ${token}` }),
        body: INITIALIZE_BODY,
      });
    assert.equal((await asTeam('team.example.test')).status, 200, 'MCP_SWITCHBOARD_ALLOWED_HOST');
    assert.equal((await asTeam('other.example.test')).status, 403);

    serve.child.kill('SIGTERM');
    assert.deepEqual(await serve.exited, { code: 0, signal: null });
    const entries = serve
      .stderr()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok(entries.some((entry) => entry.type === 'access' && entry.rpc === 'tools/call echo' && entry.status === 200));
    assert.ok(
      entries.some(
        (entry) => entry.type === 'audit' && entry.tool === 'echo' && entry.outcome === 'ok' && entry.caller === 'serve-test@1.0.0',
      ),
    );
    assert.ok(!serve.stderr().includes('audited'), 'no argument in any line');
  });

  it("keeps the tool cache in the user cache folder, so a restart lists a slow server's tools before it connects", async () => {
    const cacheHome = tempCacheHome(cleanup);
    const ws = tempWorkspace(cleanup, { slow: fixture('--startup-delay', '3000') });
    const dir = serveCacheDir(ws.dir, { XDG_CACHE_HOME: cacheHome });
    assert.ok(dir.startsWith(path.join(cacheHome, 'mcp-switchboard', 'tools') + path.sep), dir);

    const first = await startServe(cleanup, ['--folder', ws.dir], { XDG_CACHE_HOME: cacheHome });
    const firstClient = await bareClient(cleanup, first.ready.url, first.ready.token);
    await eventually(
      async () => ((await firstClient.listTools()).tools.some((tool) => tool.name === 'slow__echo') ? true : undefined),
      'slow listed',
    );
    first.child.kill('SIGTERM');
    assert.equal((await first.exited).code, 0, first.stderr());
    assert.equal(fs.readdirSync(dir).filter((name) => name.endsWith('.json')).length, 1, 'one cache entry, written before exit');
    assert.deepEqual(fs.readdirSync(ws.dir).sort(), ['.vscode'], 'nothing is written into the workspace');

    const second = await startServe(cleanup, ['--folder', ws.dir, '--no-wait'], { XDG_CACHE_HOME: cacheHome });
    const client = await bareClient(cleanup, second.ready.url, second.ready.token);
    const started = Date.now();
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes('slow__echo'), `listed from the cache while the server starts: ${names.join(', ')}`);
    assert.doesNotMatch(second.stderr(), /\[slow\] running/, 'the server had not connected yet');
    // A call to a cached tool waits for its server instead of failing.
    const result = (await client.callTool({ name: 'slow__echo', arguments: { text: 'waited' } })) as CallToolResult;
    assert.equal(textOf(result), 'waited');
    assert.ok(Date.now() - started > 500, 'the call had to wait for the server');
    second.child.kill('SIGTERM');
    assert.equal((await second.exited).code, 0, second.stderr());
  });

  it('serve --help prints the usage (exit 0); a bad serve command line exits 2', async () => {
    const help = await runCli(['serve', '--help']);
    assert.equal(help.code, 0);
    assert.match(
      help.stdout,
      /mcp-switchboard serve \[--folder DIR\] \[--port N\] \[--token-file FILE\] \[--no-wait\]\s+run the gateway headless; prints \{"url","token","servers"\}/,
    );
    const bad = await runCli(['serve', '--port', 'x']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--port must be an integer/);
    assert.equal(bad.stdout, '');
  });
});
