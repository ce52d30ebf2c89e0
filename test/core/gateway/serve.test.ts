import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { parseServeArgs, readCatalogSettings, runServe, serveCommand, type ServeOptions, type ServeReady } from '../../../src/core/cli';
import { isAlive, startHttpFixture, STDIO_SERVER } from '../connection/helpers';
import { Cleanup, connectClient, eventually, initializeHeaders, INITIALIZE_BODY, rawRequest, textOf } from './helpers';
import { LOOPBACK_REACH as LOOPBACK } from '../../../src/core/gateway';
import type { TeamIdp } from '../../fixtures/team-idp.mjs' with { 'resolution-mode': 'import' };

/** The fixture is an ES module: loaded as one. */
const startTeamIdp = async (): Promise<TeamIdp> => (await import('../../fixtures/team-idp.mjs')).startTeamIdp();

function collect(stream: PassThrough): () => string {
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return () => text;
}

/** The process environment with the tool cache in a temporary folder. */
function cacheEnv(cleanup: Cleanup): Record<string, string | undefined> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-serve-cache-'));
  cleanup.add(() => fs.rmSync(dir, { recursive: true, force: true }));
  return { ...process.env, XDG_CACHE_HOME: dir };
}

function workspace(cleanup: Cleanup, settings: string | Record<string, unknown>): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-serve-'));
  cleanup.add(() => fs.rmSync(folder, { recursive: true, force: true }));
  fs.mkdirSync(path.join(folder, '.vscode'));
  fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), typeof settings === 'string' ? settings : JSON.stringify(settings));
  return folder;
}

describe('gateway: serve', function () {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  const ALPHA = { 'mcpSwitchboard.servers': { alpha: { command: process.execPath, args: [STDIO_SERVER] } } };

  /** runServe on a folder with `settings`, until the test ends; resolves once its ready line is out. */
  async function serving(settings: Record<string, unknown>, options: Partial<ServeOptions> = {}) {
    const folder = workspace(cleanup, settings);
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const out = collect(stdout);
    const err = collect(stderr);
    const controller = new AbortController();
    cleanup.add(() => controller.abort());
    const exit = runServe({ folder, trustWorkspace: true, stdout, stderr, signal: controller.signal, env: cacheEnv(cleanup), ...options });
    const ready = JSON.parse(
      await eventually(() => (out().includes('\n') ? out() : undefined), `the JSON line (stderr: ${err()})`),
    ) as ServeReady;
    return { folder, ready, exit, err, stop: () => controller.abort() };
  }

  it('parses --oauth-issuer, --oauth-resource, --oauth-audience, --oauth-scope and --policy, and refuses them half given', () => {
    const args = parseServeArgs(
      ['--oauth-issuer', 'https://login.example.test/tenant', '--oauth-scope', 'mcp', '--oauth-scope=read,write', '--policy', 'p.json'],
      '/work',
      { MCP_SWITCHBOARD_OAUTH_RESOURCE: 'https://mcp.example.test/mcp' },
    );
    assert.deepEqual(args.oauth, {
      issuer: 'https://login.example.test/tenant',
      scopes: ['mcp', 'read', 'write'],
      resource: new URL('https://mcp.example.test/mcp'),
      policyFile: path.resolve('/work', 'p.json'),
    });
    assert.throws(() => parseServeArgs(['--policy', 'p.json'], '/work'), /need --oauth-issuer/);
    assert.throws(() => parseServeArgs(['--oauth-issuer', 'login.example.test'], '/work'), /--oauth-issuer must be a URL/);
    assert.throws(() => parseServeArgs(['--oauth-issuer', 'https://u:p@login.example.test'], '/work'), /without credentials/);
    assert.throws(() => parseServeArgs(['--stdio', '--oauth-issuer', 'https://login.example.test'], '/work'), /apply to HTTP only/);
  });

  it('parses [--folder DIR] [--port N]', () => {
    assert.deepEqual(parseServeArgs([], '/work'), {
      folder: '/work',
      port: 0,
      wait: true,
      trustWorkspace: false,
      stdio: false,
      eager: false,
      reach: LOOPBACK,
      logFormat: 'text',
      accessLog: false,
      metrics: false,
      auditLog: false,
    });
    assert.deepEqual(parseServeArgs(['--folder', 'sub', '--port', '8123', '--no-wait'], '/work'), {
      folder: path.resolve('/work', 'sub'),
      port: 8123,
      wait: false,
      trustWorkspace: false,
      stdio: false,
      eager: false,
      reach: LOOPBACK,
      logFormat: 'text',
      accessLog: false,
      metrics: false,
      auditLog: false,
    });
    assert.deepEqual(parseServeArgs(['--folder=/abs', '--port=0', '--wait', '--trust-workspace'], '/work'), {
      folder: '/abs',
      port: 0,
      wait: true,
      trustWorkspace: true,
      stdio: false,
      eager: false,
      reach: LOOPBACK,
      logFormat: 'text',
      accessLog: false,
      metrics: false,
      auditLog: false,
    });
    assert.deepEqual(parseServeArgs(['--token-file', 'keys/token'], '/work'), {
      folder: '/work',
      port: 0,
      wait: true,
      trustWorkspace: false,
      stdio: false,
      eager: false,
      reach: LOOPBACK,
      logFormat: 'text',
      accessLog: false,
      metrics: false,
      auditLog: false,
      tokenFile: path.resolve('/work', 'keys/token'),
    });
    assert.throws(() => parseServeArgs(['--token-file'], '/work'), /--token-file needs a value/);
    assert.throws(() => parseServeArgs(['--port', '70000'], '/work'), /--port must be an integer/);
    assert.throws(() => parseServeArgs(['--port', '-1'], '/work'), /--port must be an integer/);
    assert.throws(() => parseServeArgs(['--port'], '/work'), /--port needs a value/);
    assert.throws(() => parseServeArgs(['--verbose'], '/work'), /unknown argument "--verbose"\nusage: mcp-switchboard serve/);
    assert.deepEqual(parseServeArgs(['--stdio', '--eager'], '/work'), {
      folder: '/work',
      port: 0,
      wait: true,
      trustWorkspace: false,
      stdio: true,
      eager: true,
      reach: LOOPBACK,
      logFormat: 'text',
      accessLog: false,
      metrics: false,
      auditLog: false,
    });
    assert.throws(() => parseServeArgs(['--stdio', '--token-file', 't'], '/work'), /--token-file apply to HTTP only/);
    assert.throws(() => parseServeArgs(['--eager'], '/work'), /--eager applies to --stdio only/);
  });

  it('parses --host, --allowed-host, --trusted-proxy and --allowed-origin, each repeated or comma-separated', () => {
    const args = parseServeArgs(
      [
        '--host',
        '0.0.0.0',
        '--allowed-host',
        'MCP.example.com,*.svc.cluster.local',
        '--allowed-host=gw.internal:8080',
        '--trusted-proxy',
        '10.0.0.0/8',
        '--trusted-proxy',
        'fd00::/8',
        '--allowed-origin',
        'https://app.example.com',
      ],
      '/work',
    );
    assert.deepEqual(args.reach, {
      host: '0.0.0.0',
      allowedHosts: ['mcp.example.com', '*.svc.cluster.local', 'gw.internal:8080'],
      trustedProxies: ['10.0.0.0/8', 'fd00::/8'],
      allowedOrigins: ['https://app.example.com'],
    });
    assert.throws(
      () => parseServeArgs(['--host', 'example.com'], '/work'),
      /listens on an IP address, not "example.com"\nusage: mcp-switchboard serve/,
    );
    assert.throws(() => parseServeArgs(['--trusted-proxy', '10.0.0.0/40'], '/work'), /Not an IP address or CIDR block/);
    assert.throws(() => parseServeArgs(['--allowed-host'], '/work'), /--allowed-host needs a value/);
    assert.deepEqual(
      [parseServeArgs(['--log-format', 'json', '--access-log'], '/work')].map((a) => [a.logFormat, a.accessLog]),
      [['json', true]],
    );
    assert.throws(() => parseServeArgs(['--log-format', 'xml'], '/work'), /--log-format is text or json/);
    assert.equal(parseServeArgs(['--token-secret', 'run/secrets/token'], '/work').tokenSecret, path.resolve('/work', 'run/secrets/token'));
    assert.throws(() => parseServeArgs(['--token-file', 'a', '--token-secret', 'b'], '/work'), /one token, from one place/);
    assert.throws(
      () => parseServeArgs(['--stdio', '--host', '0.0.0.0', '--allowed-host', 'a.test', '--allowed-host', 'b.test'], '/work'),
      /--host and --allowed-host apply to HTTP only/,
    );
  });

  it("serves the folder's servers, prints one JSON line, and stops everything when aborted", async () => {
    const folder = workspace(cleanup, {
      'mcpSwitchboard.servers': { alpha: { command: process.execPath, args: [STDIO_SERVER] } },
    });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const out = collect(stdout);
    const err = collect(stderr);
    const controller = new AbortController();
    cleanup.add(() => controller.abort());
    const exit = runServe({ folder, trustWorkspace: true, stdout, stderr, signal: controller.signal, env: cacheEnv(cleanup) });

    const line = await eventually(() => (out().includes('\n') ? out() : undefined), `the JSON line (stderr: ${err()})`);
    assert.equal(line.split('\n').length, 2, 'exactly one line');
    const ready = JSON.parse(line) as ServeReady;
    assert.match(ready.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.match(ready.token, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(Object.keys(ready.servers), ['alpha']);
    assert.equal(ready.servers.alpha, `${ready.url}/alpha`);
    assert.ok(!err().includes(ready.token), 'the token goes to stdout only');

    const { client } = await connectClient(cleanup, ready.servers.alpha ?? '', ready.token);
    const { pid } = JSON.parse(textOf((await client.callTool({ name: 'stats', arguments: {} })) as CallToolResult)) as { pid: number };
    assert.ok(isAlive(pid));
    assert.equal(textOf((await client.callTool({ name: 'echo', arguments: { text: 'headless' } })) as CallToolResult), 'headless');
    const aggregated = await connectClient(cleanup, ready.url, ready.token);
    assert.ok((await aggregated.client.listTools()).tools.some((tool) => tool.name === 'alpha__echo'));

    controller.abort();
    assert.equal(await exit, 0);
    assert.equal(isAlive(pid), false, 'the server process was stopped');
    const port = Number(new URL(ready.url).port);
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });
    assert.ok(refused, 'the port is closed');
  });

  it('listens where --host says, for the names --allowed-host lists, with the token of --token-secret', async () => {
    const reach = { host: '0.0.0.0', allowedHosts: ['team.example.test'], trustedProxies: [], allowedOrigins: [] };
    const secretDir = fs.mkdtempSync(path.join(os.tmpdir(), 'serve-secret-'));
    cleanup.add(() => fs.rmSync(secretDir, { recursive: true, force: true }));
    const tokenSecret = path.join(secretDir, 'token');
    fs.writeFileSync(tokenSecret, `${'t'.repeat(40)}\n`, { mode: 0o644 });
    const { ready, exit, stop } = await serving(ALPHA, { tokenSecret, reach });
    assert.match(ready.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/, 'a URL this machine can use');
    assert.equal(ready.token, 't'.repeat(40), "the Secret's token");
    const port = Number(new URL(ready.url).port);
    const headers = (host: string) => initializeHeaders({ Host: host, Authorization: `Bearer ${ready.token}` });
    assert.equal(
      (await rawRequest(port, { path: '/mcp/alpha', headers: headers('team.example.test'), body: INITIALIZE_BODY })).status,
      200,
    );
    assert.equal(
      (await rawRequest(port, { path: '/mcp/alpha', headers: headers('other.example.test'), body: INITIALIZE_BODY })).status,
      403,
    );
    stop();
    assert.equal(await exit, 0);
  });

  it('a stop lets the call in flight finish (--drain-seconds bounds the wait), then exits 0', async () => {
    assert.equal(parseServeArgs(['--drain-seconds', '7'], '/work').drainMs, 7000);
    assert.throws(() => parseServeArgs(['--drain-seconds', '-1'], '/work'), /--drain-seconds must be an integer from 0 to 3600/);
    assert.throws(() => parseServeArgs(['--stdio', '--drain-seconds', '3'], '/work'), /--drain-seconds apply to HTTP only/);

    const { ready, exit, stop } = await serving(ALPHA, { drainMs: 10_000 });
    const { client } = await connectClient(cleanup, ready.servers.alpha ?? '', ready.token);
    const call = client.callTool({ name: 'slow', arguments: { ms: 1500 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop();
    assert.equal(textOf((await call) as CallToolResult), 'slept 1500', 'the call in flight was answered');
    assert.equal(await exit, 0);
  });

  it('--log-format json: one object per line on stderr, outside text escaped; --access-log: one per request; --audit-log: one per call', async () => {
    const hostile = 'bad\u202e\u001b[31mname';
    const settings = { 'mcpSwitchboard.servers': { ...ALPHA['mcpSwitchboard.servers'], [hostile]: { args: ['no command'] } } };
    const { ready, exit, err, stop } = await serving(settings, { logFormat: 'json', accessLog: true, auditLog: true });
    const { client } = await connectClient(cleanup, ready.servers.alpha ?? '', ready.token);
    assert.equal(textOf((await client.callTool({ name: 'echo', arguments: { text: 'logged' } })) as CallToolResult), 'logged');
    await client.close();
    stop();
    assert.equal(await exit, 0);

    const lines = err()
      .split('\n')
      .filter((line) => line !== '');
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok(
      entries.every((entry) => typeof entry.time === 'string' && typeof entry.level === 'string'),
      err(),
    );
    assert.ok(!err().includes('\u001b') && !err().includes('\u202e'), 'no raw escape or bidi character reaches the terminal');
    assert.ok(
      entries.some((entry) => typeof entry.message === 'string' && entry.message.includes(hostile)),
      'the name itself is kept, escaped',
    );
    assert.ok(entries.some((entry) => entry.component === 'gateway' && String(entry.message).startsWith('listening on')));
    const call = entries.find((entry) => entry.type === 'access' && entry.rpc === 'tools/call echo');
    assert.ok(call, err());
    assert.equal(call.method, 'POST');
    assert.equal(call.path, '/mcp/alpha');
    assert.equal(call.status, 200);
    assert.equal(call.client, '127.0.0.1');
    assert.equal(typeof call.ms, 'number');
    assert.ok(!err().includes(ready.token), 'the token is in no log line');
    const audits = entries.filter((entry) => entry.type === 'audit');
    assert.deepEqual(
      audits.map(({ caller, server, tool, outcome }) => ({ caller, server, tool, outcome })),
      [{ caller: 'gateway-test@1.0.0', server: 'alpha', tool: 'echo', outcome: 'ok' }],
    );
    assert.ok(!JSON.stringify(audits).includes('logged'), 'never the arguments');
  });

  it('--oauth-issuer and --policy: each user’s token, what the policy lets them see, and the audit line of a call it refused', async () => {
    const idp = await startTeamIdp();
    cleanup.add(() => idp.close());
    const policyFile = path.join(workspace(cleanup, {}), 'policy.json');
    fs.writeFileSync(
      policyFile,
      JSON.stringify({
        rules: [
          { match: { groups: ['eng'] }, allow: { servers: ['*'] } },
          { name: 'support may echo', match: { groups: ['support'] }, allow: { servers: ['alpha'], tools: ['echo'] } },
        ],
      }),
    );
    const { ready, exit, err, stop } = await serving(ALPHA, {
      oauth: { issuer: idp.issuer, scopes: ['mcp'], policyFile },
      auditLog: true,
      logFormat: 'json',
    });
    idp.allowResource(ready.url);
    const names = async (user: string) => {
      const { client } = await connectClient(cleanup, ready.url, await idp.token(user, ready.url, 'mcp'));
      return { client, tools: (await client.listTools()).tools.map((tool) => tool.name) };
    };
    const alice = await names('alice');
    assert.ok(alice.tools.includes('alpha__cwd') && alice.tools.includes('alpha__echo'), alice.tools.join());
    const bob = await names('bob');
    assert.deepEqual(bob.tools, ['alpha__echo']);
    await assert.rejects(bob.client.callTool({ name: 'alpha__cwd', arguments: {} }), /Unknown tool/);
    assert.equal(textOf((await bob.client.callTool({ name: 'alpha__echo', arguments: { text: 'hi' } })) as CallToolResult), 'hi');
    stop();
    assert.equal(await exit, 0);
    const audits = err()
      .split('\n')
      .filter((line) => line.includes('"type":"audit"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      audits.map(({ caller, tool, outcome }) => ({ caller, tool, outcome })),
      [
        { caller: 'bob via gateway-test@1.0.0', tool: 'cwd', outcome: 'denied' },
        { caller: 'bob via gateway-test@1.0.0', tool: 'echo', outcome: 'ok' },
      ],
    );
    assert.equal(audits[0]?.rule, 'no rule allows it');
  });

  it('--oauth-issuer with servers that act for each user: a token exchanged for alice, and a sign-in link that starts at the team’s login', async () => {
    const idp = (await (await import('../../fixtures/team-idp.mjs')).startTeamIdp({ interactive: true })) as TeamIdp;
    cleanup.add(() => idp.close());
    const upstream = await startHttpFixture(cleanup, ['--require-jwt', idp.issuer, '--name', 'tickets']);
    idp.allowExchange(upstream.url('/mcp'));
    const own = { grant: 'client_credentials', clientId: 'gateway', clientSecret: 'gateway-secret', scopes: ['mcp'] };
    const { ready } = await serving(
      {
        'mcpSwitchboard.servers': {
          exchanged: { type: 'http', url: upstream.url('/mcp'), oauth: { ...own, perUser: 'tokenExchange' } },
          signed: { type: 'http', url: upstream.url('/mcp'), oauth: { ...own, perUser: 'signIn' } },
        },
      },
      { oauth: { issuer: idp.issuer, scopes: ['mcp'] } },
    );
    idp.allowResource(ready.url);
    const { client } = await connectClient(cleanup, ready.url, await idp.token('alice', ready.url, 'mcp'));
    assert.equal(textOf((await client.callTool({ name: 'exchanged__whoami', arguments: {} })) as CallToolResult), 'alice');
    const asked = (await client.callTool({ name: 'signed__whoami', arguments: {} }).then(
      () => undefined,
      (error: unknown) => error,
    )) as { code?: number; data?: { elicitations?: { url: string }[] } } | undefined;
    assert.equal(asked?.code, -32042, JSON.stringify(asked));
    const link = new URL(asked?.data?.elicitations?.[0]?.url ?? '');
    assert.equal(`${link.origin}${link.pathname}`, ready.url.replace(/\/mcp$/, '/oauth/start'));
    // serve answers its sign-in pages: the link's first stop is the team's own login page.
    const start = await fetch(link, { redirect: 'manual' });
    assert.equal(start.status, 302);
    assert.ok(start.headers.get('location')?.startsWith(`${idp.issuer}/`), String(start.headers.get('location')));
  });

  it('--oauth-issuer: an issuer that cannot be read, or a broken policy, stops serve before it serves', async () => {
    const dead = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const stderr = new PassThrough();
    const err = collect(stderr);
    const folder = workspace(cleanup, ALPHA);
    const base = {
      folder,
      trustWorkspace: true,
      stdout: new PassThrough(),
      stderr,
      signal: new AbortController().signal,
      env: cacheEnv(cleanup),
    };
    assert.equal(await runServe({ ...base, oauth: { issuer: `http://127.0.0.1:${dead}`, scopes: [] } }), 1);
    assert.match(err(), /The issuer http:\/\/127\.0\.0\.1:\d+ could not be read|publishes no OAuth or OpenID metadata/);
    const policyFile = path.join(folder, 'policy.json');
    fs.writeFileSync(policyFile, JSON.stringify({ rules: [{ allow: { servers: ['*'] }, deny: { servers: ['x'] } }] }));
    assert.equal(await runServe({ ...base, oauth: { issuer: `http://127.0.0.1:${dead}`, scopes: [], policyFile } }), 1);
    assert.match(err(), /--policy: .*policy\.json: Policy: rules\.0: a rule has either "allow" or "deny"/);
  });

  it('--metrics: Prometheus text at /metrics, with the token: calls by server and outcome, requests, sessions, servers', async () => {
    const settings = { 'mcpSwitchboard.servers': { ...ALPHA['mcpSwitchboard.servers'], off: { command: 'nonexistent-command-x' } } };
    const { ready, exit, stop } = await serving(settings, { metrics: true });
    const { client } = await connectClient(cleanup, ready.servers.alpha ?? '', ready.token);
    assert.equal(textOf((await client.callTool({ name: 'echo', arguments: { text: 'counted' } })) as CallToolResult), 'counted');
    assert.equal(((await client.callTool({ name: 'fail', arguments: {} })) as CallToolResult).isError, true);
    await assert.rejects(client.callTool({ name: 'nope', arguments: {} }));

    const base = new URL(ready.url).origin;
    assert.equal((await fetch(`${base}/metrics`)).status, 401, 'not without the token');
    const scrape = await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${ready.token}` } });
    assert.equal(scrape.status, 200);
    assert.match(scrape.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await scrape.text();
    assert.match(text, /^mcp_switchboard_tool_calls_total\{server="alpha",outcome="ok"\} 1$/m);
    assert.match(text, /^mcp_switchboard_tool_calls_total\{server="alpha",outcome="toolError"\} 1$/m);
    assert.match(text, /^mcp_switchboard_tool_calls_total\{server="alpha",outcome="UNKNOWN_TOOL"\} 1$/m);
    assert.match(text, /^mcp_switchboard_tool_call_duration_seconds_count\{server="alpha"\} 3$/m);
    assert.match(text, /^mcp_switchboard_http_requests_total\{method="POST",status="200"\} \d+$/m);
    assert.match(text, /^mcp_switchboard_http_requests_total\{method="GET",status="401"\} 1$/m);
    assert.match(text, /^mcp_switchboard_sessions 1$/m);
    assert.match(text, /^mcp_switchboard_servers\{state="running"\} 1$/m);
    // A command that does not exist: failed, or between two attempts, whichever the scrape sees.
    assert.match(text, /^mcp_switchboard_servers\{state="(error|starting|reconnecting)"\} 1$/m);
    assert.match(text, /^mcp_switchboard_process_resident_memory_bytes \d+/m);
    assert.ok(!text.includes('echo') && !text.includes(ready.token), 'no tool name, no token');
    stop();
    assert.equal(await exit, 0);
  });

  it('takes each HTTP flag from MCP_SWITCHBOARD_<FLAG> too (the command line wins), never for --stdio', () => {
    const env = {
      MCP_SWITCHBOARD_HOST: '0.0.0.0',
      MCP_SWITCHBOARD_ALLOWED_HOST: 'a.test,b.test',
      MCP_SWITCHBOARD_PORT: '8080',
      MCP_SWITCHBOARD_METRICS: 'true',
      MCP_SWITCHBOARD_ACCESS_LOG: '0',
      MCP_SWITCHBOARD_CONFIG: 'team/settings.json',
    };
    const args = parseServeArgs(['--port', '9090', '--allowed-host', 'c.test'], '/work', env);
    assert.deepEqual(
      [args.reach.host, args.reach.allowedHosts, args.port, args.metrics, args.accessLog, args.configFile],
      ['0.0.0.0', ['a.test', 'b.test', 'c.test'], 9090, true, false, path.resolve('/work', 'team/settings.json')],
    );
    assert.throws(() => parseServeArgs([], '/work', { MCP_SWITCHBOARD_PORT: 'x' }), /--port must be an integer/);
    assert.throws(() => parseServeArgs([], '/work', { MCP_SWITCHBOARD_METRICS: 'yes' }), /MCP_SWITCHBOARD_METRICS is 1, true, 0 or false/);
    const stdio = parseServeArgs(['--stdio'], '/work', { MCP_SWITCHBOARD_HOST: '0.0.0.0', MCP_SWITCHBOARD_STDIO: '1' });
    assert.equal(stdio.reach.host, '127.0.0.1', 'an agent launching --stdio gets none of them');
    assert.equal(parseServeArgs([], '/work', { MCP_SWITCHBOARD_STDIO: '1', MCP_SWITCHBOARD_EAGER: '1' }).stdio, false);
  });

  it('--config: a team gateway configured by a settings file, trusted as user settings, its tool filters applied', async () => {
    const folder = workspace(cleanup, {});
    const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'serve-config-'));
    cleanup.add(() => fs.rmSync(configDir, { recursive: true, force: true }));
    const configFile = path.join(configDir, 'settings.json');
    fs.writeFileSync(
      configFile,
      `// the team's servers\n${JSON.stringify({
        'mcpSwitchboard.servers': { team: { command: process.execPath, args: [STDIO_SERVER] } },
        'mcpSwitchboard.tools.deny': ['team/fail'],
      })}`,
    );
    const stdout = new PassThrough();
    const out = collect(stdout);
    const controller = new AbortController();
    cleanup.add(() => controller.abort());
    // No --trust-workspace: the file is the operator's, as user settings are the user's.
    const exit = runServe({ folder, configFile, stdout, stderr: new PassThrough(), signal: controller.signal, env: cacheEnv(cleanup) });
    const ready = JSON.parse(await eventually(() => (out().includes('\n') ? out() : undefined), 'the JSON line')) as ServeReady;
    assert.deepEqual(Object.keys(ready.servers), ['team']);
    const { client } = await connectClient(cleanup, ready.servers.team ?? '', ready.token);
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(tools.includes('echo') && !tools.includes('fail'), tools.join(', '));
    controller.abort();
    assert.equal(await exit, 0);

    const missing = runServe({
      folder,
      configFile: path.join(configDir, 'nope.json'),
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      signal: controller.signal,
      env: cacheEnv(cleanup),
    });
    assert.equal(await missing, 2);
  });

  it('serveCommand serves until SIGTERM and rejects a bad command line with exit 2', async () => {
    const folder = workspace(cleanup, {});
    const stdout = new PassThrough();
    const out = collect(stdout);
    const stderr = new PassThrough();
    const listeners = process.listenerCount('SIGTERM');
    const exit = serveCommand(['--folder', folder], { stdout, stderr });
    const ready = JSON.parse(await eventually(() => (out().includes('\n') ? out() : undefined), 'the JSON line')) as ServeReady;
    assert.deepEqual(ready.servers, {});
    // Only the JS listeners run: nothing is sent to the test process itself.
    process.emit('SIGTERM', 'SIGTERM');
    assert.equal(await exit, 0);
    assert.equal(process.listenerCount('SIGTERM'), listeners, 'the signal handlers were removed');

    const usage = new PassThrough();
    const err = collect(usage);
    assert.equal(await serveCommand(['--bogus'], { stdout: new PassThrough(), stderr: usage }), 2);
    assert.match(err(), /unknown argument "--bogus"/);
  });

  it('serveCommand: the first SIGTERM drains, a second one cuts the drain short', async () => {
    const folder = workspace(cleanup, { 'mcpSwitchboard.servers': { alpha: { command: process.execPath, args: [STDIO_SERVER] } } });
    const stdout = new PassThrough();
    const out = collect(stdout);
    const exit = serveCommand(['--folder', folder, '--trust-workspace', '--drain-seconds', '60'], { stdout, stderr: new PassThrough() });
    const ready = JSON.parse(await eventually(() => (out().includes('\n') ? out() : undefined), 'the JSON line')) as ServeReady;
    const { client } = await connectClient(cleanup, ready.servers.alpha ?? '', ready.token);
    void client.callTool({ name: 'slow', arguments: { ms: 30_000 } }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.emit('SIGTERM', 'SIGTERM');
    const drainingExit = await Promise.race([exit, new Promise((resolve) => setTimeout(() => resolve('still draining'), 500))]);
    assert.equal(drainingExit, 'still draining', 'one SIGTERM waits for the call');
    const started = Date.now();
    process.emit('SIGTERM', 'SIGTERM');
    assert.equal(await exit, 0);
    assert.ok(Date.now() - started < 10_000, `the second SIGTERM ended it in ${Date.now() - started} ms`);
  });

  it('refuses a folder that does not exist or a settings file that does not parse', async () => {
    const broken = workspace(cleanup, '{ "mcpSwitchboard.servers": { "alpha": ');
    for (const folder of [path.join(os.tmpdir(), 'switchboard-no-such-folder'), broken]) {
      const stderr = new PassThrough();
      const err = collect(stderr);
      const stdout = new PassThrough();
      const out = collect(stdout);
      const code = await runServe({ folder, trustWorkspace: true, stdout, stderr, signal: new AbortController().signal });
      assert.equal(code, 2, err());
      assert.equal(out(), '');
      assert.match(err(), /\[error\]/);
    }
  });

  it('exits 1 when the port is taken, after cleaning up', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanup.add(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const port = (blocker.address() as net.AddressInfo).port;
    const folder = workspace(cleanup, {});
    const stderr = new PassThrough();
    const err = collect(stderr);
    const code = await runServe({
      folder,
      trustWorkspace: true,
      port,
      stdout: new PassThrough(),
      stderr,
      signal: new AbortController().signal,
    });
    assert.equal(code, 1);
    assert.match(err(), /serve failed: .*EADDRINUSE/);
  });

  it('reads the catalog settings from the folder', async () => {
    const folder = workspace(
      cleanup,
      `{
      // JSONC, as VS Code writes it
      "mcpSwitchboard.tools.deny": ["*/delete_*", 3],
      "mcpSwitchboard.tools.disabled": ["alpha/add"],
      "mcpSwitchboard.tools.maxExposed": 40,
      "mcpSwitchboard.tools.cacheTtlDays": 0.5,
      "mcpSwitchboard.toolSets": { "review": { "servers": ["alpha"], "tools": ["beta/read_*"] } },
      "mcpSwitchboard.toolSet": "review",
    }`,
    );
    const day = 24 * 60 * 60 * 1000;
    // The tool set in use, as the editor reads it: serve and doctor see the tools chat sees.
    assert.deepEqual(await readCatalogSettings(folder), {
      globalDeny: ['*/delete_*'],
      disabled: ['alpha/add'],
      maxExposed: 40,
      cacheTtlMs: day / 2,
      toolSet: { name: 'review', servers: ['alpha'], tools: ['beta/read_*'] },
      unknownToolSet: undefined,
    });
    // The editor's defaults (package.json) where nothing is set.
    assert.deepEqual(await readCatalogSettings(path.join(folder, 'missing')), {
      globalDeny: [],
      disabled: [],
      maxExposed: 128,
      cacheTtlMs: 7 * day,
      toolSet: undefined,
      unknownToolSet: undefined,
    });
  });
});
