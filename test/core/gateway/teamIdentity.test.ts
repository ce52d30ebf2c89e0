// A team gateway as an OAuth 2.1 resource server, against a real OpenID provider (oidc-provider,
// test/fixtures/team-idp.mjs) that signs JWT access tokens with its own key: the challenge and the
// protected resource metadata a client discovers the provider from, the tokens refused (no token,
// another audience, a foreign key, an expired one, a missing scope), and the policy that decides
// what each user sees and may call, in both protocol eras.
import assert from 'node:assert/strict';
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { generateKeyPairSync, sign } from 'node:crypto';
import { McpGateway, oauthIdentity } from '../../../src/core/gateway';
import { AccessPolicy, createJwtVerifier, type DeniedCall, type JwtVerifier } from '../../../src/core/identity';
import type { TeamIdp } from '../../fixtures/team-idp.mjs' with { 'resolution-mode': 'import' };

/** The fixture is an ES module: loaded as one. */
const startTeamIdp = async (): Promise<TeamIdp> => (await import('../../fixtures/team-idp.mjs')).startTeamIdp();
import { FakeClock } from '../support/fakeClock';
import { MODERN_VERSION } from '../support/eraClient';
import { modernRequest } from '../support/wire';
import {
  Cleanup,
  initializeHeaders,
  INITIALIZE_BODY,
  MemoryLogger,
  rawRequest,
  startGateway,
  textOf,
  toolsServer,
  waitForRunning,
  type Setup,
} from './helpers';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { createRuntime } from '../../../src/core/runtime/runtime';
import { stdioDefinition } from '../connection/helpers';

type Idp = TeamIdp;

/** A JWT signed with RS256 by `key`: what a forger with their own key can make. */
function signedJwt(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  key: ReturnType<typeof generateKeyPairSync>['privateKey'],
): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${encode(header)}.${encode(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

const POLICY = {
  rules: [
    { name: 'engineers', match: { groups: ['eng'] }, allow: { servers: ['*'] } },
    { name: 'support reads', match: { groups: ['support'] }, allow: { servers: ['alpha'], tools: ['echo', 'count'] } },
    { name: 'no cwd for carol', match: { subjects: ['carol'] }, deny: { servers: ['alpha'], tools: ['cwd'] } },
  ],
};

describe('gateway: a team gateway checks its users’ access tokens (OAuth resource server)', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  let setup: Setup;
  let idp: Idp;
  let verifier: JwtVerifier;
  let gateway: McpGateway;
  let resource: string;
  const clock = new FakeClock(Date.now());
  const denied: DeniedCall[] = [];

  before(async () => {
    setup = await startGateway(cleanup, [toolsServer('alpha'), toolsServer('beta')]);
    idp = await startTeamIdp();
    cleanup.add(() => idp.close());
    verifier = await createJwtVerifier({ issuer: idp.issuer, clock });
    gateway = new McpGateway({
      source: setup.source,
      logger: setup.logger,
      identity: oauthIdentity({
        verifier,
        requiredScopes: ['mcp'],
        policy: AccessPolicy.parse(POLICY),
        onDenied: (call) => denied.push(call),
      }),
    });
    cleanup.add(() => gateway.dispose());
    await gateway.start();
    resource = `${gateway.url}/mcp`;
    idp.allowResource(resource);
    idp.allowResource('http://127.0.0.1:1/another-api');
  });
  after(() => cleanup.run());

  const post = (token: string | undefined, path = '/mcp') =>
    rawRequest(gateway.port, {
      path,
      headers: initializeHeaders(token ? { Authorization: `Bearer ${token}` } : {}),
      body: INITIALIZE_BODY,
    });

  async function connect(user: string, era: 'legacy' | 'modern', path = '/mcp'): Promise<Client> {
    const token = await idp.token(user, resource, 'mcp');
    const client = new Client(
      { name: `${user}-agent`, version: '1.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_VERSION } } } : {},
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    cleanup.add(() => client.close());
    return client;
  }

  it('answers a request without a token with a challenge that names its protected resource metadata', async () => {
    const response = await post(undefined);
    assert.equal(response.status, 401);
    const challenge = String(response.headers['www-authenticate']);
    const metadataUrl = `${gateway.url}/.well-known/oauth-protected-resource/mcp`;
    assert.match(challenge, /^Bearer /);
    assert.ok(challenge.includes(`resource_metadata="${metadataUrl}"`), challenge);
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource/mcp/alpha',
      '/.well-known/oauth-protected-resource',
    ]) {
      const metadata = await rawRequest(gateway.port, { method: 'GET', path });
      assert.equal(metadata.status, 200, path);
      const document = JSON.parse(metadata.body) as { resource: string; authorization_servers: string[]; scopes_supported: string[] };
      assert.equal(document.resource, resource);
      assert.deepEqual(document.authorization_servers, [idp.issuer]);
      assert.deepEqual(document.scopes_supported, ['mcp']);
    }
    // The static token is not a user: it is refused for MCP.
    assert.equal((await post(gateway.token)).status, 401);
  });

  it('lets an SDK client find the provider from the challenge, get a token and call', async () => {
    const client = new Client({ name: 'discovering-agent', version: '1.0.0' });
    const authProvider = new ClientCredentialsProvider({ clientId: 'alice', clientSecret: 'alice-secret', expectedIssuer: idp.issuer });
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider }));
    cleanup.add(() => client.close());
    const result = await client.callTool({ name: 'alpha__echo', arguments: { text: 'signed in' } });
    assert.equal(textOf(result), 'signed in');
  });

  it('refuses a token for another audience, signed by a foreign key, expired, without the scope, or not a JWT', async () => {
    const refusal = async (token: string) => {
      const response = await post(token);
      return { status: response.status, challenge: String(response.headers['www-authenticate']), body: response.body };
    };
    const good = await idp.token('alice', resource, 'mcp');
    assert.equal((await refusal(good)).status, 200);

    const otherAudience = await refusal(await idp.token('alice', 'http://127.0.0.1:1/another-api', 'mcp'));
    assert.equal(otherAudience.status, 401);
    assert.match(otherAudience.challenge, /error="invalid_token"/);
    assert.match(otherAudience.body, /another audience/);

    // Everything right but the key: the provider's issuer and key id, signed by someone else's key.
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const header = JSON.parse(Buffer.from(good.split('.')[0] ?? '', 'base64url').toString('utf8')) as { kid: string };
    const now = Math.floor(clock.now() / 1000);
    const forged = signedJwt(
      { alg: 'RS256', typ: 'at+jwt', kid: header.kid },
      { iss: idp.issuer, aud: resource, sub: 'alice', scope: 'mcp', groups: ['eng'], client_id: 'alice', iat: now, exp: now + 300 },
      privateKey,
    );
    const foreign = await refusal(forged);
    assert.equal(foreign.status, 401);
    assert.match(foreign.body, /signature does not verify/);

    const noScope = await refusal(await idp.token('alice', resource, 'mcp:admin'));
    assert.equal(noScope.status, 403);
    assert.match(noScope.challenge, /error="insufficient_scope"/);
    assert.match(noScope.challenge, /scope="mcp"/);

    const garbage = await refusal('not-a-jwt');
    assert.equal(garbage.status, 401);
    assert.match(garbage.challenge, /error="invalid_token"/);

    // Expired on the gateway's clock: ten minutes of life, an hour later.
    clock.advance(60 * 60_000);
    try {
      const expired = await refusal(good);
      assert.equal(expired.status, 401);
      assert.match(expired.body, /expired/);
    } finally {
      clock.advance(-60 * 60_000);
    }
    assert.equal((await refusal(good)).status, 200, 'the same token is good again on the clock it was issued on');
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(`shows and lets each user call what the policy allows them, and nothing else (${era})`, async () => {
      const names = async (user: string) => (await (await connect(user, era)).listTools()).tools.map((tool) => tool.name).sort();
      const all = (await setup.source.snapshot()).servers.flatMap((server) => server.tools.map((tool) => tool.qualifiedName)).sort();
      assert.deepEqual(await names('alice'), all);
      assert.deepEqual(await names('bob'), ['alpha__count', 'alpha__echo']);
      assert.deepEqual(
        await names('carol'),
        all.filter((name) => name !== 'alpha__cwd'),
      );
      assert.deepEqual(await names('mallory'), []);

      denied.length = 0;
      const bob = await connect('bob', era);
      assert.equal(textOf(await bob.callTool({ name: 'alpha__echo', arguments: { text: 'allowed' } })), 'allowed');
      // Refused as a tool that does not exist: nothing tells bob what he may not call.
      await assert.rejects(bob.callTool({ name: 'alpha__cwd', arguments: {} }), /Unknown tool "alpha__cwd"/);
      await assert.rejects(bob.callTool({ name: 'beta__echo', arguments: { text: 'x' } }), /Unknown tool "beta__echo"/);
      const carol = await connect('carol', era);
      await assert.rejects(carol.callTool({ name: 'alpha__cwd', arguments: {} }), /Unknown tool "alpha__cwd"/);
      assert.equal(textOf(await carol.callTool({ name: 'beta__echo', arguments: { text: 'eng' } })), 'eng');
      assert.deepEqual(
        denied.map(({ server, tool, rule, caller }) => ({ server, tool, rule, who: caller?.split(' via ')[0] })),
        [
          // beta__echo never maps to a tool for bob: his view has no beta at all.
          { server: 'alpha', tool: 'cwd', rule: 'no rule allows it', who: 'bob' },
          { server: 'alpha', tool: 'cwd', rule: 'no cwd for carol', who: 'carol' },
        ],
      );
      assert.match(denied[0]?.caller ?? '', /^bob via bob-agent@1\.0\.0$/);

      // A server's own endpoint exists only for users who may see the server.
      await assert.rejects(connect('bob', era, '/mcp/beta'));
      const ownEndpoint = await connect('bob', era, '/mcp/alpha');
      assert.deepEqual((await ownEndpoint.listTools()).tools.map((tool) => tool.name).sort(), ['count', 'echo']);
      await assert.rejects(ownEndpoint.callTool({ name: 'cwd', arguments: {} }), /Unknown tool "cwd"/);
    });
  }

  it('lists at /servers what each user may use, with its endpoint, state and tool count, and only for a valid token', async () => {
    const listing = async (user: string | undefined, method = 'GET') => {
      const token = user ? await idp.token(user, resource, 'mcp') : undefined;
      const response = await rawRequest(gateway.port, {
        method,
        path: '/servers',
        headers: { Host: `127.0.0.1:${gateway.port}`, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      });
      return { status: response.status, headers: response.headers, body: response.body };
    };
    const anonymous = await listing(undefined);
    assert.equal(anonymous.status, 401);
    assert.match(String(anonymous.headers['www-authenticate']), /resource_metadata=/);
    const servers = async (user: string) => {
      const answer = await listing(user);
      assert.equal(answer.status, 200, answer.body);
      return (JSON.parse(answer.body) as { servers: { name: string; path: string; state: string; tools: number }[] }).servers;
    };
    const all = await servers('alice');
    assert.deepEqual(
      all.map(({ name, path, state }) => ({ name, path, state })),
      [
        { name: 'alpha', path: '/mcp/alpha', state: 'running' },
        { name: 'beta', path: '/mcp/beta', state: 'running' },
      ],
    );
    const alphaTools = all[0]?.tools ?? 0;
    assert.ok(alphaTools > 3);
    assert.deepEqual(await servers('bob'), [{ name: 'alpha', path: '/mcp/alpha', state: 'running', tools: 2 }]);
    // carol may not call alpha's cwd: one tool fewer.
    assert.deepEqual(
      (await servers('carol')).map((server) => [server.name, server.tools]),
      [
        ['alpha', alphaTools - 1],
        ['beta', alphaTools],
      ],
    );
    assert.deepEqual(await servers('mallory'), []);
    assert.equal((await listing('alice', 'POST')).status, 405);
  });

  it('gives a 2025 session only to the user who opened it', async () => {
    const alice = await idp.token('alice', resource, 'mcp');
    const bob = await idp.token('bob', resource, 'mcp');
    const opened = await post(alice);
    assert.equal(opened.status, 200);
    const session = String(opened.headers['mcp-session-id']);
    const list = (token: string) =>
      rawRequest(gateway.port, {
        path: '/mcp',
        headers: initializeHeaders({ Authorization: `Bearer ${token}`, 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-11-25' }),
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
    assert.equal((await list(bob)).status, 404);
    const own = await list(alice);
    assert.equal(own.status, 200);
    assert.match(own.body, /alpha__cwd/);
  });

  it('keeps a 2026-07-28 task its user’s: another user’s tasks/get finds no such task', async () => {
    const send = async (user: string, id: number, method: string, params: Record<string, unknown>) =>
      modernRequest(resource, await idp.token(user, resource, 'mcp'), id, method, params);
    const started = await send('alice', 1, 'tools/call', { name: 'alpha__slow', arguments: { ms: 5_000 } });
    assert.equal(started.result?.resultType, 'task', JSON.stringify(started));
    const taskId = String(started.result?.taskId);
    const own = await send('alice', 2, 'tasks/get', { taskId });
    assert.equal(own.error, undefined, JSON.stringify(own));
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      const other = await send('carol', 3, method, { taskId });
      assert.match(other.error?.message ?? '', /Unknown task/, `${method}: ${JSON.stringify(other)}`);
    }
    const stillRunning = await send('alice', 4, 'tasks/get', { taskId });
    assert.equal(stillRunning.result?.status, 'working', 'carol’s cancel did not reach alice’s task');
    await send('alice', 5, 'tasks/cancel', { taskId });
  });
});

describe('gateway: a team gateway’s policy covers what servers offer besides tools', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  after(() => cleanup.run());

  it('lists, reads and gets prompts only of the servers a user may see', async () => {
    const idp = await startTeamIdp();
    cleanup.add(() => idp.close());
    const runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {} });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start([stdioDefinition(['--features'], { name: 'alpha' }), stdioDefinition(['--features'], { name: 'beta' })]);
    await waitForRunning(runtime.manager, ['alpha', 'beta']);
    const verifier = await createJwtVerifier({ issuer: idp.issuer });
    const policy = AccessPolicy.parse({
      rules: [
        { match: { groups: ['eng'] }, allow: { servers: ['*'] } },
        { match: { groups: ['support'] }, allow: { servers: ['alpha'], tools: ['echo'] } },
      ],
    });
    const gateway = runtime.gateway({ identity: oauthIdentity({ verifier, policy }) });
    await gateway.start();
    const resource = `${gateway.url}/mcp`;
    idp.allowResource(resource);
    const connect = async (user: string, path = '/mcp') => {
      const token = await idp.token(user, resource, 'mcp');
      const client = new Client({ name: user, version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      cleanup.add(() => client.close());
      return client;
    };
    const prompts = async (client: Client) => (await client.listPrompts()).prompts.map((prompt) => prompt.name.split('__')[0]);
    const alice = await connect('alice');
    assert.deepEqual([...new Set(await prompts(alice))].sort(), ['alpha', 'beta']);
    const bob = await connect('bob');
    assert.deepEqual([...new Set(await prompts(bob))], ['alpha']);
    assert.ok((await bob.listResources()).resources.length > 0, 'alpha’s resources');
    const readme = await bob.readResource({ uri: 'fixture://readme' });
    assert.match(JSON.stringify(readme.contents), /A resource served by the fixture/);
    const betaPrompt = (await alice.listPrompts()).prompts.find((prompt) => prompt.name.startsWith('beta__'));
    assert.ok(betaPrompt);
    await assert.rejects(bob.getPrompt({ name: betaPrompt.name, arguments: {} }));
    await assert.rejects(connect('bob', '/mcp/beta'));
    // mallory matches no rule: nothing at all.
    const mallory = await connect('mallory');
    assert.deepEqual(await prompts(mallory), []);
    assert.deepEqual((await mallory.listResources()).resources, []);
    await assert.rejects(mallory.readResource({ uri: 'fixture://readme' }));
  });
});
