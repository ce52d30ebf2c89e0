// A team gateway's members do not trust each other. What one user may not see never reaches them:
// not as a list, a call or a refusal, and not as a notification either, whatever its kind (a log
// message, a list change of tools, resources or prompts, a resource update, progress), on every
// endpoint, in both eras. And access is decided by the token of each request: a session opened
// while its user was in a group does not keep that group's access, and a notification stream ends
// with the token that opened it.
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { oauthIdentity, type McpGateway } from '../../../src/core/gateway';
import { KEEP_ALIVE_MS } from '../../../src/core/gateway/sessions/sessionTransport';
import { AccessPolicy, createJwtVerifier } from '../../../src/core/identity';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime/runtime';
import type { TeamIdp } from '../../fixtures/team-idp.mjs' with { 'resolution-mode': 'import' };
import { Cleanup, MemoryLogger, stdioDefinition } from '../connection/helpers';
import { connectInEra, MODERN_VERSION, type Era } from '../support/eraClient';
import { FakeClock } from '../support/fakeClock';
import { eventually, waitForRunning } from './helpers';

const startTeamIdp = async (): Promise<TeamIdp> => (await import('../../fixtures/team-idp.mjs')).startTeamIdp();

// alice is in eng and sees both servers; bob is in support and sees `open` only. `admin` needs the
// step-up scope mcp:admin.
const POLICY = {
  rules: [
    { name: 'engineers', match: { groups: ['eng'] }, allow: { servers: ['secret', 'open'] } },
    { name: 'support', match: { groups: ['support'] }, allow: { servers: ['open'] } },
    { name: 'admins', match: { groups: ['eng'], scopes: ['mcp:admin'] }, allow: { servers: ['admin'] } },
    { name: 'no cwd for support', match: { groups: ['support'] }, deny: { servers: ['open'], tools: ['cwd'] } },
  ],
};

/** Everything a client was sent without asking, as method and params. */
interface Received {
  readonly method: string;
  readonly params?: unknown;
}

const NOTIFICATIONS = [
  'notifications/message',
  'notifications/tools/list_changed',
  'notifications/resources/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/updated',
] as const;

describe('a team gateway: what a user may not see never reaches them, and each request has its own token’s access', function () {
  this.timeout(90_000);
  const cleanup = new Cleanup();
  let idp: TeamIdp;
  let runtime: SwitchboardRuntime;
  let gateway: McpGateway;
  let resource: string;
  const clock = new FakeClock(Date.now());

  before(async () => {
    idp = await startTeamIdp();
    cleanup.add(() => idp.close());
    runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {} });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start([
      stdioDefinition(['--features'], { name: 'secret' }),
      stdioDefinition(['--features'], { name: 'open' }),
      stdioDefinition([], { name: 'admin' }),
    ]);
    await waitForRunning(runtime.manager, ['secret', 'open', 'admin']);
    gateway = runtime.gateway({
      identity: oauthIdentity({
        verifier: await createJwtVerifier({ issuer: idp.issuer, clock }),
        requiredScopes: ['mcp'],
        policy: AccessPolicy.parse(POLICY),
      }),
      clock,
    });
    await gateway.start();
    resource = `${gateway.url}/mcp`;
    idp.allowResource(resource);
  });
  after(() => cleanup.run());

  /** A client of `path` as `user`, listening to every notification a client can ask for; what it was sent. */
  async function listener(user: string, path: string, era: Era): Promise<{ client: Client; received: Received[] }> {
    const token = await idp.token(user, resource, 'mcp');
    const received: Received[] = [];
    const { client, listening } = await connectInEra(cleanup, { token }, `${gateway.url}${path}`, era, {
      toolsListChanged: true,
      resourcesListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ['fixture://counter'],
    });
    for (const method of NOTIFICATIONS) client.setNotificationHandler(method, (notification) => void received.push(notification));
    await listening;
    if (era === 'legacy') {
      await client.setLoggingLevel('debug');
      await client.subscribeResource({ uri: 'fixture://counter' });
    }
    return { client, received };
  }

  /** Everything the features fixture can announce, made to happen on `server` by a user who may. */
  async function announceAll(caller: Client, server: string, tag: string): Promise<void> {
    const call = (name: string, args: Record<string, unknown> = {}) => caller.callTool({ name: `${server}__${name}`, arguments: args });
    await call('log', { level: 'error', message: `${tag} log line` });
    await call('add_tool', { name: `${tag}_tool` });
    await call('add_resource', { name: `${tag}_resource` });
    await call('add_prompt', { name: `${tag}_prompt` });
    await call('bump');
  }

  it('sends a user nothing about a server their policy hides: every kind, every endpoint, both eras', async () => {
    const alice = await listener('alice', '/mcp', 'legacy');
    // alice listens in 2026-07-28 first: a handler of her view exists before bob's requests come.
    const aliceModern = await listener('alice', '/mcp', 'modern');
    const aliceProgress: unknown[] = [];
    const bobs = [
      { what: 'legacy /mcp', ...(await listener('bob', '/mcp', 'legacy')) },
      { what: 'legacy /mcp/open', ...(await listener('bob', '/mcp/open', 'legacy')) },
      { what: 'modern /mcp', ...(await listener('bob', '/mcp', 'modern')) },
      { what: 'modern /mcp/open', ...(await listener('bob', '/mcp/open', 'modern')) },
    ];
    // What the hidden server announces, alice's progress included.
    await announceAll(alice.client, 'secret', 'SECRET');
    await alice.client.callTool(
      { name: 'secret__slow', arguments: { ms: 300, progressEveryMs: 50, progressSteps: 3 } },
      { onprogress: (progress) => aliceProgress.push(progress) },
    );
    assert.ok(aliceProgress.length > 0, 'the caller is told the progress of its own call');
    // The hidden server's changes have reached the catalog (alice's view shows them) before the
    // visible server's begin: whatever they would send anyone has been sent by then.
    await eventually(
      async () => {
        const tools = (await alice.client.listTools()).tools.map((tool) => tool.name);
        const resources = (await alice.client.listResources()).resources.map((entry) => entry.name);
        const prompts = (await alice.client.listPrompts()).prompts.map((prompt) => prompt.name);
        return tools.includes('secret__SECRET_tool') && resources.includes('SECRET_resource') && prompts.includes('secret__SECRET_prompt')
          ? true
          : undefined;
      },
      'the hidden server’s changes are in the catalog',
      10_000,
    );
    // Then the same of the server bob may see: its notices are the barrier after which anything
    // sent about the hidden one would have arrived (each client's notices come in order).
    await announceAll(alice.client, 'open', 'OPEN');
    for (const bob of bobs) {
      const logs = bob.what.startsWith('legacy');
      const expected = NOTIFICATIONS.filter((method) => logs || method !== 'notifications/message');
      await eventually(
        () => (expected.every((method) => bob.received.some((note) => note.method === method)) ? true : undefined),
        `${bob.what}: the visible server's notices arrive`,
        10_000,
      );
      const text = JSON.stringify(bob.received);
      assert.ok(!text.includes('SECRET') && !text.includes('secret'), `${bob.what} was sent: ${text}`);
      const count = (method: string) => bob.received.filter((note) => note.method === method).length;
      // One of each for the visible server's change; none for the hidden one's.
      assert.equal(count('notifications/tools/list_changed'), 1, `${bob.what}: ${text}`);
      assert.equal(count('notifications/resources/list_changed'), 1, `${bob.what}: ${text}`);
      assert.equal(count('notifications/prompts/list_changed'), 1, `${bob.what}: ${text}`);
      assert.equal(count('notifications/resources/updated'), 1, `${bob.what}: ${text}`);
      assert.equal(count('notifications/message'), logs ? 1 : 0, `${bob.what}: ${text}`);
    }
    // alice sees both servers: she was told of both.
    await eventually(
      () => (JSON.stringify(alice.received).includes('OPEN log line') ? true : undefined),
      'alice gets the visible server’s log',
      10_000,
    );
    assert.ok(JSON.stringify(alice.received).includes('SECRET log line'));
    await eventually(
      () => (aliceModern.received.filter((note) => note.method === 'notifications/tools/list_changed').length >= 2 ? true : undefined),
      'alice’s listener is told of both servers’ tool changes',
      10_000,
    );
  });

  it('refuses a tool the policy hides exactly as one that does not exist: nothing tells which hidden tools there are', async () => {
    const token = await idp.token('bob', resource, 'mcp');
    for (const era of ['legacy', 'modern'] as const) {
      for (const [path, hidden, missing] of [
        ['/mcp', 'open__cwd', 'open__no_such_tool'],
        ['/mcp/open', 'cwd', 'no_such_tool'],
        ['/mcp', 'secret__echo', 'nothing__echo'],
      ] as const) {
        const { client } = await connectInEra(cleanup, { token }, `${gateway.url}${path}`, era, {});
        const refusal = async (name: string) => {
          const error = (await client.callTool({ name, arguments: {} }).then(
            (result) => assert.fail(`${name} answered ${JSON.stringify(result)}`),
            (caught: unknown) => caught,
          )) as { code?: unknown; message?: unknown; data?: unknown };
          return JSON.stringify({ code: error.code, message: error.message, data: error.data }).replaceAll(name, '<name>');
        };
        assert.equal(await refusal(hidden), await refusal(missing), `${era} ${path}`);
      }
      // The same beside tools: a prompt of a server the policy hides.
      const { client } = await connectInEra(cleanup, { token }, `${gateway.url}/mcp`, era, {});
      const promptRefusal = async (name: string) => {
        const error = (await client.getPrompt({ name, arguments: { name: 'Ada' } }).then(
          (result) => assert.fail(`${name} answered ${JSON.stringify(result)}`),
          (caught: unknown) => caught,
        )) as { code?: unknown; message?: unknown; data?: unknown };
        return JSON.stringify({ code: error.code, message: error.message, data: error.data }).replaceAll(name, '<name>');
      };
      assert.equal(await promptRefusal('secret__greet'), await promptRefusal('nothing__greet'), `${era} prompts`);
    }
  });

  /** A 2025 session on `path`, opened with `token`; then requests on it with whatever token the test gives. */
  async function openSession(
    path: string,
    token: string,
  ): Promise<{ id: string; send: (token: string, method: string, params?: unknown) => Promise<Response> }> {
    const url = `${gateway.url}${path}`;
    const headers = (bearer: string, session?: string) => ({
      Authorization: `Bearer ${bearer}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(session ? { 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-11-25' } : {}),
    });
    const opened = await fetch(url, {
      method: 'POST',
      headers: headers(token),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
      }),
    });
    assert.equal(opened.status, 200, await opened.clone().text());
    const id = opened.headers.get('mcp-session-id') ?? '';
    await fetch(url, {
      method: 'POST',
      headers: headers(token, id),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    let next = 1;
    return {
      id,
      send: (bearer, method, params = {}) =>
        fetch(url, { method: 'POST', headers: headers(bearer, id), body: JSON.stringify({ jsonrpc: '2.0', id: next++, method, params }) }),
    };
  }

  it('decides each request by its own token: a session outlives neither a group left nor a scope not asked for', async () => {
    const callSecret = { name: 'secret__echo', arguments: { text: 'carol-was-here' } };
    // carol's group changes while her session is open.
    idp.setGroups('carol', ['eng']);
    const inGroup = await idp.token('carol', resource, 'mcp');
    const session = await openSession('/mcp', inGroup);
    const first = await session.send(inGroup, 'tools/call', callSecret);
    assert.equal(first.status, 200);
    assert.match(await first.text(), /carol-was-here/);
    idp.setGroups('carol', ['support']);
    const outOfGroup = await idp.token('carol', resource, 'mcp');
    const after = await session.send(outOfGroup, 'tools/call', callSecret);
    assert.equal(after.status, 404, 'the session served the old access: it is gone');
    // It is gone for the old token too: nobody is served the old view from it any more.
    assert.equal((await session.send(inGroup, 'tools/list')).status, 404);
    // A new session with the token she has now: the hidden server is unknown to it.
    const fresh = await openSession('/mcp', outOfGroup);
    const refused = await (await fresh.send(outOfGroup, 'tools/call', callSecret)).text();
    assert.match(refused, /"error"/);
    assert.doesNotMatch(refused, /carol-was-here/);
    // Her own server endpoint's session likewise.
    idp.setGroups('carol', ['eng']);
    const onServer = await openSession('/mcp/secret', await idp.token('carol', resource, 'mcp'));
    idp.setGroups('carol', ['support']);
    assert.equal((await onServer.send(await idp.token('carol', resource, 'mcp'), 'tools/list')).status, 404);

    // A step-up scope: a session opened with mcp:admin does not serve a token without it.
    const stepped = await idp.token('alice', resource, 'mcp mcp:admin');
    const admin = await openSession('/mcp', stepped);
    const allowed = await admin.send(stepped, 'tools/call', { name: 'admin__echo', arguments: { text: 'root' } });
    assert.match(await allowed.text(), /root/);
    const plain = await idp.token('alice', resource, 'mcp');
    assert.equal((await admin.send(plain, 'tools/call', { name: 'admin__echo', arguments: { text: 'root' } })).status, 404);
    // Another user's token never finds the session at all.
    const other = await openSession('/mcp', stepped);
    assert.equal((await other.send(await idp.token('bob', resource, 'mcp'), 'tools/list')).status, 404);
  });

  it('ends a notification stream when the token that opened it expires, in both eras', async () => {
    const expiry = (token: string) =>
      (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { exp: number }).exp * 1000;
    const url = `${gateway.url}/mcp`;
    const legacyToken = await idp.token('alice', resource, 'mcp');
    const modernToken = await idp.token('alice', resource, 'mcp');
    const streams = [
      { era: 'legacy', ...(await legacyStream(url, legacyToken)), done: false },
      { era: 'modern', ...(await modernStream(url, modernToken)), done: false },
    ];
    for (const stream of streams) void stream.ended.then(() => (stream.done = true));
    const first = Math.min(expiry(legacyToken), expiry(modernToken));
    const last = Math.max(expiry(legacyToken), expiry(modernToken));
    clock.advance(first - clock.now() - 1_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const stream of streams) assert.equal(stream.done, false, `${stream.era}: the stream is open while its token is valid`);
    // Past the expiry by a whole keepalive interval: the 2025 stream's keepalive falls due after the
    // expiry ended the response, and must write nothing (a write after end is an uncaught error).
    clock.advance(last - clock.now() + KEEP_ALIVE_MS + 1_000);
    await eventually(() => (streams.every((stream) => stream.done) ? true : undefined), 'both streams end with their tokens', 10_000);
  });

  /** A 2025 session's GET stream; `ended` resolves when the gateway ends it. */
  async function legacyStream(url: string, token: string): Promise<{ ended: Promise<void> }> {
    const session = await openSession('/mcp', token);
    const stream = await fetch(url, {
      headers: {
        Authorization: `Bearer ${token}`,
        Accept: 'text/event-stream',
        'Mcp-Session-Id': session.id,
        'Mcp-Protocol-Version': '2025-11-25',
      },
    });
    assert.equal(stream.status, 200);
    return { ended: drained(stream) };
  }

  /** A 2026-07-28 `subscriptions/listen` stream; `ended` resolves when the gateway ends it. */
  async function modernStream(url: string, token: string): Promise<{ ended: Promise<void> }> {
    const stream = await fetch(url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Protocol-Version': MODERN_VERSION,
        'Mcp-Method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'subscriptions/listen',
        params: {
          notifications: { toolsListChanged: true },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
            'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    assert.equal(stream.status, 200);
    return { ended: drained(stream) };
  }
});

/** Reads a response to its end. */
async function drained(response: Response): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  for (;;) {
    const { done } = await reader.read().catch(() => ({ done: true }));
    if (done) return;
  }
}
