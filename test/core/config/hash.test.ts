import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../src/core/config/hash';
import { DEFAULT_OAUTH, hashServerConnection, type HttpServerDefinition, type StdioServerDefinition } from '../../../src/core/config';

const stdio: StdioServerDefinition = {
  name: 'git',
  source: { kind: 'user' },
  enabled: true,
  timeouts: { connectMs: 30_000, requestMs: 60_000 },
  reconnect: { maxAttempts: 5, initialDelayMs: 500, maxDelayMs: 30_000 },
  tools: {},
  lifecycle: { start: 'eager', idleStopMs: 0 },
  secrets: [],
  transport: 'stdio',
  command: 'npx',
  args: ['-y', 'server'],
  env: { A: '1', B: '2' },
  cwd: '/ws',
};

const http: HttpServerDefinition = {
  ...stdio,
  transport: 'http',
  url: 'https://x.test/mcp',
  headers: { Authorization: 'Bearer t' },
  sseFallback: true,
  oauth: DEFAULT_OAUTH,
};

describe('config: hashServerConnection', () => {
  it('is a hex SHA-256 that is stable across calls and key order', () => {
    const hash = hashServerConnection(stdio);
    assert.match(hash, /^[0-9a-f]{64}$/);
    assert.equal(hashServerConnection({ ...stdio }), hash);
    assert.equal(hashServerConnection({ ...stdio, env: { B: '2', A: '1' } }), hash);
  });

  const stdioChanges: ReadonlyArray<readonly [string, Partial<StdioServerDefinition>]> = [
    ['command', { command: 'node' }],
    ['args', { args: ['server', '-y'] }],
    ['env value', { env: { A: '1', B: '3' } }],
    ['env key', { env: { A: '1' } }],
    ['cwd', { cwd: '/other' }],
    ['cwd removed', { cwd: undefined }],
    ['connect timeout', { timeouts: { connectMs: 1, requestMs: 60_000 } }],
    ['request timeout', { timeouts: { connectMs: 30_000, requestMs: 1 } }],
    ['reconnect', { reconnect: { maxAttempts: 6, initialDelayMs: 500, maxDelayMs: 30_000 } }],
  ];
  for (const [what, change] of stdioChanges) {
    it(`changes with ${what}`, () => assert.notEqual(hashServerConnection({ ...stdio, ...change }), hashServerConnection(stdio)));
  }

  const httpChanges: ReadonlyArray<readonly [string, Partial<HttpServerDefinition>]> = [
    ['url', { url: 'https://y.test/mcp' }],
    ['headers', { headers: { Authorization: 'Bearer u' } }],
    ['transport', { transport: 'sse' }],
    ['sseFallback', { sseFallback: false }],
  ];
  for (const [what, change] of httpChanges) {
    it(`changes with ${what} (http)`, () => assert.notEqual(hashServerConnection({ ...http, ...change }), hashServerConnection(http)));
  }

  const ignored: ReadonlyArray<readonly [string, Partial<StdioServerDefinition>]> = [
    ['enabled', { enabled: false }],
    ['tools', { tools: { allow: ['a*'], readOnly: true } }],
    ['name', { name: 'renamed' }],
    ['source', { source: { kind: 'workspace', file: '/ws/.vscode/settings.json' } }],
    ['secrets', { secrets: ['x'] }],
  ];
  for (const [what, change] of ignored) {
    it(`ignores ${what}`, () => assert.equal(hashServerConnection({ ...stdio, ...change }), hashServerConnection(stdio)));
  }

  it('differs between a stdio and an http server', () => assert.notEqual(hashServerConnection(stdio), hashServerConnection(http)));
});

describe('connection hash and sandboxes', () => {
  it('an unsandboxed server keeps the hash it had before sandboxes existed (its cached tools stay valid)', () => {
    const definition = {
      name: 'x',
      source: { kind: 'user' as const },
      enabled: true,
      transport: 'stdio' as const,
      command: 'node',
      args: ['s.js'],
      env: {},
      cwd: '/w',
      timeouts: { connectMs: 1, requestMs: 2 },
      reconnect: { maxAttempts: 1, initialDelayMs: 1, maxDelayMs: 2 },
      tools: {},
      lifecycle: { start: 'eager' as const, idleStopMs: 0 },
      secrets: [],
    };
    // The version-2 layout, written out: what earlier releases stored their caches under.
    const before = createHash('sha256')
      .update(
        canonicalJson({
          v: 2,
          timeouts: definition.timeouts,
          reconnect: definition.reconnect,
          transport: 'stdio',
          command: 'node',
          args: ['s.js'],
          env: {},
          cwd: '/w',
        }),
      )
      .digest('hex');
    assert.equal(hashServerConnection(definition), before);
    const off = {
      ...definition,
      sandbox: {
        enabled: false,
        origin: 'entry' as const,
        rules: { filesystem: { allowWrite: ['/'], denyRead: [], denyWrite: [] }, network: { allowedDomains: [], deniedDomains: [] } },
      },
    };
    assert.equal(hashServerConnection(off), before);
    assert.notEqual(hashServerConnection({ ...off, sandbox: { ...off.sandbox, enabled: true } }), before);
  });
});
