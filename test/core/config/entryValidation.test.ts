import { generateKeyPairSync } from 'node:crypto';
import assert from 'node:assert/strict';
import { DEFAULT_RECONNECT, DEFAULT_TIMEOUTS, type ServerDefinition } from '../../../src/core/config';
import { assertDiagnostics, expectInvalid, expectValid, FOLDER, loadOne, loadServers, type ExpectedDiagnostic } from './helpers';

interface Case {
  readonly title: string;
  readonly raw: unknown;
  /** [severity, path under servers.srv, message fragment]; the list is exhaustive. */
  readonly expect?: ReadonlyArray<readonly ['error' | 'warning', string, string]>;
  readonly check?: (server: ServerDefinition) => void;
}

function expected(rows: Case['expect']): ExpectedDiagnostic[] {
  return (rows ?? []).map(([severity, suffix, messageIncludes]) => ({
    severity,
    server: 'srv',
    path: `servers.srv${suffix}`,
    messageIncludes,
  }));
}

function runCases(cases: readonly Case[]): void {
  for (const testCase of cases) {
    it(testCase.title, async () => {
      const { server, diagnostics } = await loadOne(testCase.raw);
      assertDiagnostics(diagnostics, expected(testCase.expect));
      const hasErrors = (testCase.expect ?? []).some(([severity]) => severity === 'error');
      if (hasErrors) {
        assertDiagnostics(expectInvalid(server).diagnostics, expected(testCase.expect));
      } else {
        testCase.check?.(expectValid(server));
      }
    });
  }
}

describe('config: transport selection', () => {
  runCases([
    {
      title: 'command alone means stdio with defaults',
      raw: { command: 'npx' },
      check: (server) => {
        assert.equal(server.transport, 'stdio');
        if (server.transport !== 'stdio') return;
        assert.deepEqual(server.args, []);
        assert.deepEqual(server.env, {});
        assert.equal(server.cwd, FOLDER);
        assert.equal(server.enabled, true);
        assert.deepEqual(server.timeouts, DEFAULT_TIMEOUTS);
        assert.deepEqual(server.reconnect, DEFAULT_RECONNECT);
        assert.deepEqual(server.tools, {});
        assert.deepEqual(server.secrets, []);
      },
    },
    {
      title: 'url alone means streamable HTTP with SSE fallback',
      raw: { url: 'https://example.com/mcp' },
      check: (server) => {
        assert.deepEqual(server.transport !== 'stdio' && [server.transport, server.sseFallback, server.headers], ['http', true, {}]);
      },
    },
    {
      title: 'explicit type "http" has no fallback',
      raw: { type: 'http', url: 'http://localhost:3000/mcp' },
      check: (server) => {
        assert.deepEqual(server.transport !== 'stdio' && [server.transport, server.sseFallback], ['http', false]);
      },
    },
    {
      title: 'type "sse"',
      raw: { type: 'sse', url: 'https://example.com/sse' },
      check: (server) => {
        assert.deepEqual(server.transport !== 'stdio' && [server.transport, server.sseFallback], ['sse', false]);
      },
    },
    { title: 'explicit type "stdio"', raw: { type: 'stdio', command: 'node' }, check: (server) => assert.equal(server.transport, 'stdio') },
    { title: 'command and url together', raw: { command: 'node', url: 'https://x.test' }, expect: [['error', '', 'both "command"']] },
    { title: 'neither command nor url', raw: { args: ['x'] }, expect: [['error', '', 'needs a "command"']] },
    {
      title: 'type "stdio" with only a url',
      raw: { type: 'stdio', url: 'https://x.test' },
      expect: [['error', '.type', 'type "stdio" needs a "command"']],
    },
    {
      title: 'type "http" with only a command',
      raw: { type: 'http', command: 'node' },
      expect: [['error', '.type', 'type "http" needs a "url"']],
    },
    {
      title: 'type "websocket"',
      raw: { type: 'websocket', url: 'ws://x.test' },
      expect: [['error', '.type', 'expected one of "stdio", "http", "sse", got "websocket"']],
    },
    { title: 'empty command', raw: { command: '' }, expect: [['error', '.command', 'must not be empty']] },
    { title: 'whitespace command', raw: { command: '   ' }, expect: [['error', '.command', 'must not be empty']] },
    { title: 'command that expands to nothing', raw: { command: '${env:EMPTY}' }, expect: [['error', '.command', 'must not be empty']] },
    {
      title: 'headers on a stdio server are ignored with a warning',
      raw: { command: 'node', headers: { A: 'b' } },
      expect: [['warning', '.headers', 'only applies to http/sse']],
    },
    {
      title: 'stdio-only fields on an http server are ignored with a warning',
      raw: { url: 'https://x.test', args: [], env: {}, cwd: '/tmp' },
      expect: [
        ['warning', '.args', 'only applies to stdio'],
        ['warning', '.env', 'only applies to stdio'],
        ['warning', '.cwd', 'only applies to stdio'],
      ],
    },
  ]);
});

describe('config: field types', () => {
  runCases([
    { title: 'args not an array', raw: { command: 'x', args: '--flag' }, expect: [['error', '.args', 'expected an array, got "--flag"']] },
    {
      title: 'an argument that is a number',
      raw: { command: 'x', args: ['a', 'b', 3] },
      expect: [['error', '.args[2]', 'expected a string, got 3']],
    },
    {
      title: 'env value that is a number',
      raw: { command: 'x', env: { PORT: 8080 } },
      expect: [['error', '.env.PORT', 'expected a string, got 8080']],
    },
    { title: 'env value null', raw: { command: 'x', env: { A: null } }, expect: [['error', '.env.A', 'expected a string, got null']] },
    {
      title: 'env name with "="',
      raw: { command: 'x', env: { 'A=B': 'c' } },
      expect: [['error', '.env["A=B"]', 'not a valid environment variable name']],
    },
    { title: 'env not an object', raw: { command: 'x', env: ['A=B'] }, expect: [['error', '.env', 'expected an object, got an array']] },
    {
      title: 'enabled as a string',
      raw: { command: 'x', enabled: 'yes' },
      expect: [['error', '.enabled', 'expected true or false, got "yes"']],
    },
    { title: 'cwd as a number', raw: { command: 'x', cwd: 1 }, expect: [['error', '.cwd', 'expected a string, got 1']] },
    { title: 'envFile as a boolean', raw: { command: 'x', envFile: true }, expect: [['error', '.envFile', 'expected a string, got true']] },
    { title: 'url as a number', raw: { url: 42 }, expect: [['error', '.url', 'expected a string, got 42']] },
    {
      title: 'headers not an object',
      raw: { url: 'https://x.test', headers: 'Authorization: x' },
      expect: [['error', '.headers', 'expected an object']],
    },
    {
      title: 'header value not a string',
      raw: { url: 'https://x.test', headers: { 'X-Retry': 3 } },
      expect: [['error', '.headers.X-Retry', 'expected a string, got 3']],
    },
    {
      title: 'header name with a space',
      raw: { url: 'https://x.test', headers: { 'X Api': 'v' } },
      expect: [['error', '.headers["X Api"]', 'not a valid HTTP header name']],
    },
    {
      title: 'header value with a line break',
      raw: { url: 'https://x.test', headers: { 'X-A': 'a\r\nX-B: b' } },
      expect: [['error', '.headers.X-A', 'line breaks']],
    },
    {
      title: 'several problems are all reported',
      raw: { command: 5, args: {}, enabled: 1 },
      expect: [
        ['error', '.command', 'expected a string'],
        ['error', '.args', 'expected an array'],
        ['error', '.enabled', 'expected true or false'],
      ],
    },
  ]);
});

describe('config: url rules', () => {
  runCases([
    {
      title: 'https url',
      raw: { url: 'https://example.com:8443/mcp?x=1' },
      check: (server) => assert.equal(server.transport !== 'stdio' && server.url, 'https://example.com:8443/mcp?x=1'),
    },
    { title: 'http url', raw: { url: 'http://127.0.0.1:3000/mcp' }, check: (server) => assert.equal(server.transport, 'http') },
    {
      title: 'ftp scheme',
      raw: { url: 'ftp://example.com' },
      expect: [['error', '.url', 'must be an http:// or https:// URL, got "ftp:"']],
    },
    { title: 'websocket scheme', raw: { url: 'ws://example.com' }, expect: [['error', '.url', 'got "ws:"']] },
    { title: 'unparsable url', raw: { url: 'not a url' }, expect: [['error', '.url', 'is not a valid URL']] },
    { title: 'empty url', raw: { url: '' }, expect: [['error', '.url', 'is not a valid URL']] },
    {
      title: 'url built from a variable is checked after expansion',
      raw: { url: '${env:EMPTY}' },
      expect: [['error', '.url', 'is not a valid URL']],
    },
  ]);
});

describe('config: timeouts, reconnect, tools, enabled', () => {
  runCases([
    {
      title: 'custom timeouts, 0 disables',
      raw: { command: 'x', timeouts: { connectMs: 0, requestMs: 1500 } },
      check: (server) => assert.deepEqual(server.timeouts, { connectMs: 0, requestMs: 1500 }),
    },
    {
      title: 'a partial timeouts object keeps the other default',
      raw: { command: 'x', timeouts: { requestMs: 5 } },
      check: (server) => assert.deepEqual(server.timeouts, { connectMs: 30_000, requestMs: 5 }),
    },
    {
      title: 'negative timeout',
      raw: { command: 'x', timeouts: { connectMs: -1 } },
      expect: [['error', '.timeouts.connectMs', 'must not be negative']],
    },
    {
      title: 'fractional timeout',
      raw: { command: 'x', timeouts: { requestMs: 1.5 } },
      expect: [['error', '.timeouts.requestMs', 'expected a whole number, got 1.5']],
    },
    {
      title: 'timeout as a string',
      raw: { command: 'x', timeouts: { requestMs: '10s' } },
      expect: [['error', '.timeouts.requestMs', 'expected a number, got "10s"']],
    },
    {
      title: 'timeout beyond what Node timers can hold',
      raw: { command: 'x', timeouts: { connectMs: 2 ** 31 } },
      expect: [['error', '.timeouts.connectMs', 'at most 2147483647']],
    },
    {
      title: 'timeouts not an object',
      raw: { command: 'x', timeouts: 5000 },
      expect: [['error', '.timeouts', 'expected an object, got 5000']],
    },
    {
      title: 'custom reconnect',
      raw: { command: 'x', reconnect: { maxAttempts: 0, initialDelayMs: 10, maxDelayMs: 20 } },
      check: (server) => assert.deepEqual(server.reconnect, { maxAttempts: 0, initialDelayMs: 10, maxDelayMs: 20 }),
    },
    {
      title: 'negative reconnect attempts',
      raw: { command: 'x', reconnect: { maxAttempts: -2 } },
      expect: [['error', '.reconnect.maxAttempts', 'must not be negative']],
    },
    {
      title: 'initial delay above the maximum',
      raw: { command: 'x', reconnect: { initialDelayMs: 60_000 } },
      expect: [['error', '.reconnect.initialDelayMs', 'must not exceed reconnect.maxDelayMs (30000)']],
    },
    {
      title: 'tool filters pass through',
      raw: { command: 'x', tools: { allow: ['git_*'], deny: ['git_push'], readOnly: true } },
      check: (server) => assert.deepEqual(server.tools, { allow: ['git_*'], deny: ['git_push'], readOnly: true }),
    },
    {
      title: 'tools.allow not an array',
      raw: { command: 'x', tools: { allow: 'git_*' } },
      expect: [['error', '.tools.allow', 'expected an array']],
    },
    {
      title: 'tools.readOnly as a string',
      raw: { command: 'x', tools: { readOnly: 'true' } },
      expect: [['error', '.tools.readOnly', 'expected true or false']],
    },
    { title: 'enabled: false is kept', raw: { command: 'x', enabled: false }, check: (server) => assert.equal(server.enabled, false) },
  ]);
});

describe('config: unknown and ignored fields', () => {
  runCases([
    {
      title: 'an unknown top-level field warns and the server stays valid',
      raw: { command: 'x', autoApprove: ['*'] },
      expect: [['warning', '.autoApprove', 'unknown field "autoApprove"']],
      check: (server) => assert.equal(server.transport, 'stdio'),
    },
    {
      title: 'unknown nested fields warn',
      raw: { command: 'x', timeouts: { idleMs: 1 }, tools: { hide: [] }, reconnect: { jitter: true } },
      expect: [
        ['warning', '.timeouts.idleMs', 'unknown field "timeouts.idleMs"'],
        ['warning', '.tools.hide', 'unknown field "tools.hide"'],
        ['warning', '.reconnect.jitter', 'unknown field "reconnect.jitter"'],
      ],
      check: (server) => assert.deepEqual(server.timeouts, DEFAULT_TIMEOUTS),
    },
    {
      title: 'mcp.json fields we do not use are accepted silently',
      raw: { command: 'x', dev: { watch: 'src/**' }, gallery: true, version: '1.0.0', description: 'd' },
      check: (server) => assert.equal(server.transport, 'stdio'),
    },
  ]);
});

describe('config: entry shape and names', () => {
  for (const [title, raw, got] of [
    ['a string entry', 'npx server', '"npx server"'],
    ['a number entry', 7, '7'],
    ['an array entry', ['npx'], 'an array'],
    ['a null entry', null, 'null'],
  ] as const) {
    it(`${title} is an error`, async () => {
      const { server, diagnostics } = await loadOne(raw);
      assertDiagnostics(diagnostics, [
        { severity: 'error', server: 'srv', path: 'servers.srv', messageIncludes: `must be an object, got ${got}` },
      ]);
      expectInvalid(server);
    });
  }

  const nameCases: ReadonlyArray<readonly [string, string, ExpectedDiagnostic[]]> = [
    ['empty', '', [{ severity: 'error', path: 'servers[""]', messageIncludes: 'must not be empty' }]],
    ['whitespace only', '  ', [{ severity: 'error', path: 'servers["  "]', messageIncludes: 'must not be empty' }]],
    ['with a space', 'my server', [{ severity: 'warning', path: 'servers["my server"]', messageIncludes: 'characters outside' }]],
    ['portable', 'git.local_v2-b', []],
    ['too long', 'n'.repeat(300), [{ severity: 'error', path: `servers["${'n'.repeat(64)}…"]`, messageIncludes: 'longer than 256' }]],
  ];
  for (const [title, name, diagnostics] of nameCases) {
    it(`server name: ${title}`, async () => {
      const loaded = await loadServers({ [name]: { command: 'x' } });
      assertDiagnostics(loaded.diagnostics, diagnostics);
      const server = loaded.servers[0];
      assert.ok(server);
      assert.equal(server.name, name);
      assert.equal('transport' in server, !diagnostics.some((item) => item.severity === 'error'));
    });
  }

  it('one invalid entry leaves the others valid, in configuration order', async () => {
    const loaded = await loadServers({ first: { command: 'a' }, broken: { command: 1 }, last: { url: 'https://x.test' } });
    assert.deepEqual(
      loaded.servers.map((server) => [server.name, 'transport' in server]),
      [
        ['first', true],
        ['broken', false],
        ['last', true],
      ],
    );
  });
});

describe('config: size limits', () => {
  it('1000 arguments are fine, 1001 are an error', async () => {
    expectValid((await loadOne({ command: 'x', args: Array.from({ length: 1000 }, () => 'a') })).server);
    const { diagnostics } = await loadOne({ command: 'x', args: Array.from({ length: 1001 }, () => 'a') });
    assertDiagnostics(diagnostics, [{ severity: 'error', path: 'servers.srv.args', messageIncludes: 'more than 1000 arguments' }]);
  });

  it('a string over 64 KiB is an error at its path', async () => {
    const { diagnostics } = await loadOne({ command: 'x', args: ['ok', 'y'.repeat(64 * 1024 + 1)] });
    assertDiagnostics(diagnostics, [{ severity: 'error', path: 'servers.srv.args[1]', messageIncludes: 'longer than 65536' }]);
  });

  it('a value that grows past 64 KiB through a variable is an error', async () => {
    const { diagnostics } = await loadOne({ command: 'x', env: { BIG: '${env:BIG}${env:BIG}' } }, { env: { BIG: 'z'.repeat(40_000) } });
    assertDiagnostics(diagnostics, [{ severity: 'error', path: 'servers.srv.env.BIG', messageIncludes: 'after expansion' }]);
  });

  it('more than 1000 env entries is an error', async () => {
    const env = Object.fromEntries(Array.from({ length: 1001 }, (_, index) => [`V${index}`, 'x']));
    const { diagnostics } = await loadOne({ command: 'x', env });
    assertDiagnostics(diagnostics, [{ severity: 'error', path: 'servers.srv.env', messageIncludes: 'more than 1000 variables' }]);
  });

  it('a 1 MB argument and 10k bad arguments finish quickly with a bounded report', async () => {
    const started = Date.now();
    const huge = await loadOne({ command: 'x', args: ['m'.repeat(1024 * 1024)] });
    assert.equal(huge.diagnostics.length, 1);
    const many = await loadOne({ command: 'x', args: Array.from({ length: 10_000 }, (_, index) => index) });
    assert.ok(many.diagnostics.length >= 1 && many.diagnostics.length <= 51, `${many.diagnostics.length} diagnostics`);
    const wide = await loadOne({ command: 'x', env: Object.fromEntries(Array.from({ length: 5000 }, (_, index) => [`K${index}`, index])) });
    assert.equal(wide.diagnostics.length, 51);
    assert.match(wide.diagnostics[50]?.message ?? '', /more problems are not shown/);
    // A guard against a hang or a quadratic blow-up, not a benchmark: generous for a busy machine.
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
  });
});

describe('config: lifecycle and idleStopMinutes', () => {
  runCases([
    {
      title: 'eager and never stopped by default',
      raw: { command: 'npx' },
      check: (server) => assert.deepEqual(server.lifecycle, { start: 'eager', idleStopMs: 0 }),
    },
    {
      title: 'lazy, stopped after 2.5 minutes without use',
      raw: { command: 'npx', lifecycle: 'lazy', idleStopMinutes: 2.5 },
      check: (server) => assert.deepEqual(server.lifecycle, { start: 'lazy', idleStopMs: 150_000 }),
    },
    {
      title: 'an unknown lifecycle names the choices',
      raw: { command: 'npx', lifecycle: 'sometimes' },
      expect: [['error', '.lifecycle', 'expected one of "eager", "lazy"']],
    },
    {
      title: 'a negative idle time is refused',
      raw: { command: 'npx', idleStopMinutes: -1 },
      expect: [['error', '.idleStopMinutes', 'must not be negative']],
    },
    {
      title: 'an idle time beyond a week is refused (timers overflow long before anyone means it)',
      raw: { command: 'npx', idleStopMinutes: 100_000 },
      expect: [['error', '.idleStopMinutes', 'at most 10080']],
    },
  ]);
});

describe('config: mcpSwitchboard.defaultLifecycle and defaultIdleStopMinutes', () => {
  it("apply to entries that set neither field, and an entry's own fields win", async () => {
    const loaded = await loadServers(
      {
        plain: { command: 'npx' },
        eager: { command: 'npx', lifecycle: 'eager', idleStopMinutes: 0 },
        short: { command: 'npx', idleStopMinutes: 1 },
      },
      { lifecycleDefaults: { lifecycle: 'lazy', idleStopMinutes: 15 } },
    );
    assert.deepEqual(loaded.diagnostics, []);
    const byName = new Map(loaded.servers.map((server) => [server.name, expectValid(server).lifecycle]));
    assert.deepEqual(byName.get('plain'), { start: 'lazy', idleStopMs: 900_000 });
    assert.deepEqual(byName.get('eager'), { start: 'eager', idleStopMs: 0 });
    assert.deepEqual(byName.get('short'), { start: 'lazy', idleStopMs: 60_000 });
  });

  it('a bad default is a warning naming the setting, and the built-in default applies', async () => {
    const { server, diagnostics } = await loadOne(
      { command: 'npx' },
      { lifecycleDefaults: { lifecycle: 'sometimes', idleStopMinutes: -5 } },
    );
    assertDiagnostics(diagnostics, [
      {
        severity: 'warning',
        path: 'mcpSwitchboard.defaultLifecycle',
        messageIncludes: 'expected one of "eager", "lazy", got "sometimes"; using the default',
      },
      { severity: 'warning', path: 'mcpSwitchboard.defaultIdleStopMinutes', messageIncludes: 'must not be negative' },
    ]);
    assert.deepEqual(expectValid(server).lifecycle, { start: 'eager', idleStopMs: 0 });
  });
});

/** A P-256 key made for these tests (signs ES256). */
const EC_KEY = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe('config: oauth', () => {
  const remote = { type: 'http', url: 'https://mcp.example.com/mcp' };
  const oauthOf = (server: ServerDefinition) => (server.transport === 'stdio' ? assert.fail('expected a remote server') : server.oauth);
  runCases([
    {
      title: 'on by default, signing in in the browser, with no client configured',
      raw: remote,
      check: (server) => assert.deepEqual(oauthOf(server), { enabled: true, grant: 'authorization_code' }),
    },
    {
      title: '`false` turns sign-in off',
      raw: { ...remote, oauth: false },
      check: (server) => assert.equal(oauthOf(server).enabled, false),
    },
    {
      title: 'a pre-registered client with its scopes and token endpoint authentication',
      raw: {
        ...remote,
        oauth: { clientId: 'abc', clientSecret: 's3', scopes: ['repo', 'read:org'], tokenEndpointAuthMethod: 'client_secret_post' },
      },
      check: (server) => {
        assert.deepEqual(oauthOf(server), {
          enabled: true,
          grant: 'authorization_code',
          clientId: 'abc',
          clientSecret: 's3',
          scopes: ['repo', 'read:org'],
          tokenEndpointAuthMethod: 'client_secret_post',
        });
        assert.ok(server.secrets.includes('s3'), 'the client secret is redacted wherever the server is logged');
      },
    },
    {
      title: 'client_credentials needs a client id and secret',
      raw: { ...remote, oauth: { grant: 'client_credentials', clientId: 'abc' } },
      expect: [['error', '.oauth.grant', 'needs a pre-registered "clientId", and a "clientSecret" or a "privateKey"']],
    },
    {
      title: "private_key_jwt: a client id and a private key, kept as a secret; the algorithm is the key's own unless given",
      raw: {
        ...remote,
        oauth: { grant: 'client_credentials', clientId: 'abc', tokenEndpointAuthMethod: 'private_key_jwt', privateKey: EC_KEY },
      },
      check: (server) => {
        assert.deepEqual(oauthOf(server), {
          enabled: true,
          grant: 'client_credentials',
          clientId: 'abc',
          tokenEndpointAuthMethod: 'private_key_jwt',
          privateKey: EC_KEY,
        });
        assert.ok(server.secrets.includes(EC_KEY), 'the private key is redacted wherever the server is logged');
      },
    },
    {
      title: 'private_key_jwt: a key that is not one, or that cannot sign with the algorithm given, is refused without quoting it',
      raw: {
        ...remote,
        oauth: { clientId: 'abc', tokenEndpointAuthMethod: 'private_key_jwt', privateKey: 'not a key', signingAlgorithm: 'ES256' },
      },
      expect: [['error', '.oauth.privateKey', 'is not a private key in PEM']],
    },
    {
      title: 'private_key_jwt: an EC key cannot sign RS256',
      raw: {
        ...remote,
        oauth: { clientId: 'abc', tokenEndpointAuthMethod: 'private_key_jwt', privateKey: EC_KEY, signingAlgorithm: 'RS256' },
      },
      expect: [['error', '.oauth.privateKey', 'is a ec key, which cannot sign with "RS256" (it signs with ES256)']],
    },
    {
      title: 'private_key_jwt needs a client id and a key; a key without the method is refused',
      raw: { ...remote, oauth: { tokenEndpointAuthMethod: 'private_key_jwt' } },
      expect: [
        ['error', '.oauth.clientId', '"private_key_jwt" needs a pre-registered "clientId"'],
        ['error', '.oauth.privateKey', '"private_key_jwt" needs the client\'s "privateKey"'],
      ],
    },
    {
      title: 'dpop: true asks for DPoP-bound tokens',
      raw: { ...remote, oauth: { dpop: true } },
      check: (server) => assert.deepEqual(oauthOf(server), { enabled: true, grant: 'authorization_code', dpop: true }),
    },
    {
      title: "jwt_bearer: a workload's token as the grant, kept as a secret",
      raw: { ...remote, oauth: { grant: 'jwt_bearer', clientId: 'workload', assertion: 'eyJ.workload.jwt' } },
      check: (server) => {
        assert.deepEqual(oauthOf(server), { enabled: true, grant: 'jwt_bearer', clientId: 'workload', assertion: 'eyJ.workload.jwt' });
        assert.ok(server.secrets.includes('eyJ.workload.jwt'));
      },
    },
    {
      title: 'jwt_bearer needs a client id and exactly one of assertion and assertionFile',
      raw: { ...remote, oauth: { grant: 'jwt_bearer', assertion: 'a', assertionFile: '/var/run/token' } },
      expect: [
        ['error', '.oauth.clientId', '"jwt_bearer" needs the "clientId"'],
        ['error', '.oauth.grant', '"assertion" (in ${env:...}) or "assertionFile", one of them'],
      ],
    },
    {
      title: "enterprise: the identity provider and the user's ID token, kept as secrets",
      raw: {
        ...remote,
        oauth: {
          grant: 'enterprise',
          clientId: 'mcp-client',
          clientSecret: 'as-secret',
          idp: { issuer: 'https://idp.example.com', clientId: 'idp-client', clientSecret: 'idp-secret', idToken: 'eyJ.id.token' },
        },
      },
      check: (server) => {
        assert.deepEqual(oauthOf(server), {
          enabled: true,
          grant: 'enterprise',
          clientId: 'mcp-client',
          clientSecret: 'as-secret',
          idp: { clientId: 'idp-client', issuer: 'https://idp.example.com', clientSecret: 'idp-secret', idToken: 'eyJ.id.token' },
        });
        for (const secret of ['as-secret', 'idp-secret', 'eyJ.id.token']) assert.ok(server.secrets.includes(secret), secret);
      },
    },
    {
      title: 'enterprise needs a client id and an identity provider',
      raw: { ...remote, oauth: { grant: 'enterprise' } },
      expect: [
        ['error', '.oauth.clientId', '"enterprise" needs the "clientId"'],
        ['error', '.oauth.idp', '"enterprise" needs the identity provider'],
      ],
    },
    {
      title: 'enterprise: where the provider is, its client id, and exactly one ID token',
      raw: {
        ...remote,
        oauth: {
          grant: 'enterprise',
          clientId: 'c',
          idp: { issuer: 'http://idp.example.com', idToken: 'a', idTokenFile: '/run/id_token' },
        },
      },
      expect: [
        ['error', '.oauth.idp.issuer', 'must be an https URL'],
        ['error', '.oauth.idp.clientId', 'is needed'],
        ['error', '.oauth.idp', '"idToken" (in ${env:...}) or "idTokenFile", one of them'],
      ],
    },
    {
      title: 'an identity provider is used only with enterprise',
      raw: {
        ...remote,
        oauth: {
          grant: 'client_credentials',
          clientId: 'c',
          clientSecret: 's',
          idp: { issuer: 'https://idp.example.com', clientId: 'i', idToken: 't' },
        },
      },
      expect: [['error', '.oauth.idp', 'only with "grant": "enterprise"']],
    },
    {
      title: "perUser: each user's own token by token exchange, made by the gateway's client",
      raw: { ...remote, oauth: { grant: 'client_credentials', clientId: 'gw', clientSecret: 's', perUser: 'tokenExchange' } },
      check: (server) => {
        assert.deepEqual(oauthOf(server), {
          enabled: true,
          grant: 'client_credentials',
          clientId: 'gw',
          clientSecret: 's',
          perUser: 'tokenExchange',
        });
      },
    },
    {
      title: 'perUser signIn: each user signs in themselves, with no client of the gateway named',
      raw: { ...remote, oauth: { perUser: 'signIn' } },
      check: (server) => assert.deepEqual(oauthOf(server), { enabled: true, grant: 'authorization_code', perUser: 'signIn' }),
    },
    {
      title: "perUser needs the gateway's client id and takes no DPoP",
      raw: { ...remote, oauth: { perUser: 'tokenExchange', dpop: true } },
      expect: [
        ['error', '.oauth.perUser', 'needs the "clientId" the server\'s authorization server knows the gateway by'],
        ['error', '.oauth.perUser', 'cannot be used with "dpop"'],
      ],
    },
    {
      title: 'an assertion is used only with jwt_bearer',
      raw: { ...remote, oauth: { assertionFile: '/var/run/token' } },
      expect: [['error', '.oauth.assertionFile', 'only with "grant": "jwt_bearer"']],
    },
    {
      title: 'a private key is used only with private_key_jwt',
      raw: { ...remote, oauth: { clientId: 'abc', clientSecret: 's', privateKey: EC_KEY } },
      expect: [['error', '.oauth.privateKey', 'only with "tokenEndpointAuthMethod": "private_key_jwt"']],
    },
    {
      title: 'a secret without a client id is refused',
      raw: { ...remote, oauth: { clientSecret: 's3' } },
      expect: [['error', '.oauth.clientSecret', 'needs "clientId"']],
    },
    {
      title: 'a client metadata document must be an https URL with a path',
      raw: { ...remote, oauth: { clientMetadataUrl: 'http://example.com/client.json' } },
      expect: [['error', '.oauth.clientMetadataUrl', 'https URL with a path']],
    },
    {
      title: 'a scope with a space is two scopes, not one: refused',
      raw: { ...remote, oauth: { scopes: ['repo read'] } },
      expect: [['error', '.oauth.scopes[0]', 'not a valid OAuth scope']],
    },
    {
      title: 'an unknown grant names the choices',
      raw: { ...remote, oauth: { grant: 'password' } },
      expect: [['error', '.oauth.grant', 'expected one of "authorization_code", "client_credentials"']],
    },
    {
      title: 'an unknown field in the block is a warning',
      raw: { ...remote, oauth: { clientID: 'typo' } },
      expect: [['warning', '.oauth.clientID', 'unknown']],
    },
    {
      title: 'on a stdio server the block is ignored, with a warning',
      raw: { command: 'npx', oauth: { clientId: 'abc' } },
      expect: [['warning', '.oauth', 'only applies to http/sse servers']],
    },
  ]);
});
