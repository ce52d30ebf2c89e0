// MCP authorization against a real OpenID provider (oidc-provider from npm) in front of a fixture
// MCP server that checks every bearer token with it: the SDK runs the protocol, these tests prove
// what the host decides. No browser opens except on signIn(); tokens are refreshed before they
// expire and once on a 401; a refused refresh is forgotten and the server waits for a sign-in; a
// wider scope asked by the server is a sign-in, never a loop.
import assert from 'node:assert/strict';
import { MemorySecretStore, CallbackRouter, type SignInBrowser } from '../../../src/core/auth';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { DEFAULT_OAUTH, type HttpServerDefinition, type OAuthSettings } from '../../../src/core/config/types';
import { isSwitchboardError } from '../../../src/core/connection';
import { type ServerState } from '../../../src/core/state/serverState';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime/runtime';
import { describeState } from '../../../src/core/presentation/stateText';
import { Cleanup, httpDefinition, MemoryLogger, textOf } from '../connection/helpers';
import { FakeClock } from '../support/fakeClock';
import { ScriptedBrowser } from '../support/providerLogin';
// @ts-expect-error: a JavaScript fixture without types.
import { startOAuthFixture } from '../../fixtures/oauth-server.mjs';

interface OAuthFixture {
  readonly issuer: string;
  readonly mcpUrl: string;
  stats(): {
    registrations: number;
    unauthorized: number;
    insufficientScope: number;
    refusedWhileDown: number;
    grants: Record<string, number>;
  };
  close(): Promise<void>;
}

describe('OAuth sign-in against oidc-provider', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  let fixture: OAuthFixture;
  let clock: FakeClock;
  let store: MemorySecretStore;
  let logger: MemoryLogger;
  let runtime: SwitchboardRuntime;
  let browser: ScriptedBrowser;

  before(async () => {
    fixture = (await startOAuthFixture()) as OAuthFixture;
  });
  after(() => fixture.close());
  afterEach(() => cleanup.run());

  function remote(oauth: Partial<OAuthSettings> = {}, name = 'notes'): HttpServerDefinition {
    return httpDefinition(fixture.mcpUrl, { name, oauth: { ...DEFAULT_OAUTH, ...oauth } });
  }

  async function startWith(definition: HttpServerDefinition): Promise<ServerState> {
    clock = new FakeClock(Date.now());
    store = new MemorySecretStore();
    logger = new MemoryLogger();
    runtime = createRuntime({ logger, storage: new MemoryToolCacheStorage(), settings: {}, secrets: store, connection: { clock } });
    cleanup.add(() => runtime.dispose());
    browser = new ScriptedBrowser(new CallbackRouter(clock));
    const [view] = await runtime.manager.start([definition]);
    await runtime.manager.waitForState((servers) => servers.every((server) => server.state.kind !== 'starting'), { timeoutMs: 20_000 });
    return runtime.manager.server(definition.name)?.state ?? (view?.state as ServerState);
  }

  const state = (name = 'notes') => runtime.manager.server(name)?.state;
  const whoami = async (name = 'notes') =>
    JSON.parse(textOf(await runtime.manager.forwardToolCall(name, 'whoami', {}))) as { subject: string; scope: string };
  const saved = async () =>
    Object.fromEntries(await Promise.all((await store.keys()).map(async (key) => [key, JSON.parse((await store.get(key)) ?? '{}')])));

  it('waits for a sign-in without opening a browser or registering a client, then signs in and calls', async () => {
    const before = fixture.stats().registrations;
    const first = await startWith(remote());
    assert.equal(first.kind, 'needsSignIn', JSON.stringify(first));
    assert.equal(describeState(first), 'needs sign-in');
    assert.equal(browser.opened.length, 0);
    assert.equal(fixture.stats().registrations, before, 'a background connect registered a client');

    const result = await runtime.signIns.signIn('notes', browser);
    assert.equal(result.signedIn, 'signedIn');
    assert.equal(result.state.kind, 'running', JSON.stringify(result.state));
    assert.equal(browser.opened.length, 1);
    const [request] = browser.opened;
    assert.ok(request);
    assert.equal(request.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(request.searchParams.get('resource'), fixture.mcpUrl);
    assert.ok(request.searchParams.get('state'));
    assert.match(request.searchParams.get('scope') ?? '', /mcp:read/);
    assert.equal(fixture.stats().registrations, before + 1, 'dynamic registration, once');

    const me = await whoami();
    assert.equal(me.subject, 'alice');
    assert.match(me.scope, /mcp:read/);
    // Kept by issuer, and never written to the log.
    const record = (await saved())[`oauth:${fixture.mcpUrl}`];
    const tokens = record.tokens[fixture.issuer].tokens;
    assert.ok(tokens.access_token && tokens.refresh_token, 'an access and a refresh token');
    assert.ok(record.clients[fixture.issuer].client.client_id);
    // Every level, the traffic trace included.
    const log = logger.entries.map((entry) => entry.message).join('\n');
    assert.ok(log.includes('tools/call'), 'the trace was logged at all');
    for (const secret of [tokens.access_token, tokens.refresh_token, ...browser.codes])
      assert.ok(secret && !log.includes(secret), 'a token or code reached the log');
  });

  it('refreshes an access token the server no longer accepts, once, without the user', async () => {
    await startWith(remote());
    await runtime.signIns.signIn('notes', browser);
    const refreshes = fixture.stats().grants.refresh_token ?? 0;
    await fetch(new URL('/control/revoke-access', fixture.mcpUrl), { method: 'POST' });
    assert.equal((await whoami()).subject, 'alice');
    assert.equal(fixture.stats().grants.refresh_token ?? 0, refreshes + 1);
    assert.equal(browser.opened.length, 1, 'no second sign-in');
    assert.equal(state()?.kind, 'running');
  });

  it('refreshes before the access token expires, with no 401 first', async () => {
    await startWith(remote());
    await runtime.signIns.signIn('notes', browser);
    await whoami();
    const { unauthorized } = fixture.stats();
    const refreshes = fixture.stats().grants.refresh_token ?? 0;
    clock.advance(3600 * 1000 - 30_000); // the fixture's tokens live an hour; 30 s are left
    await whoami();
    assert.equal(fixture.stats().grants.refresh_token ?? 0, refreshes + 1, 'refreshed ahead of expiry');
    assert.equal(fixture.stats().unauthorized, unauthorized, 'the server never had to refuse a token');
  });

  it('goes on with the old token while the provider is down, trying a refresh again only after 30 s', async () => {
    await startWith(remote());
    await runtime.signIns.signIn('notes', browser);
    await whoami();
    await fetch(new URL('/control/as-down', fixture.mcpUrl), { method: 'POST' });
    cleanup.add(() => fetch(new URL('/control/as-up', fixture.mcpUrl), { method: 'POST' }).then(() => undefined));
    const refused = () => fixture.stats().refusedWhileDown;
    const before = refused();
    clock.advance(3600 * 1000 - 30_000);
    assert.equal((await whoami()).subject, 'alice', 'the token the server still accepts is used');
    const tried = refused() - before;
    assert.ok(tried >= 1, 'a refresh was tried');
    await whoami();
    assert.equal(refused() - before, tried, 'no second try within 30 s');
    clock.advance(30_000);
    await whoami();
    assert.ok(refused() - before > tried, 'tried again after 30 s');
    assert.equal(state()?.kind, 'running');
  });

  it('forgets a refresh token the provider revoked and waits for a sign-in: no loop, no browser', async () => {
    await startWith(remote());
    await runtime.signIns.signIn('notes', browser);
    await fetch(new URL('/control/revoke-refresh', fixture.mcpUrl), { method: 'POST' });
    await assert.rejects(whoami(), (error: unknown) => isSwitchboardError(error, 'NEEDS_SIGN_IN'));
    assert.equal(state()?.kind, 'needsSignIn');
    assert.equal(browser.opened.length, 1, 'only the first, asked-for sign-in opened a browser');
    const record = (await saved())[`oauth:${fixture.mcpUrl}`];
    assert.deepEqual(Object.keys(record?.tokens ?? {}), [], 'the refused tokens are forgotten');
    // A later call does not loop into the provider either: the server waits for Sign In, and says so.
    const unauthorized = fixture.stats().unauthorized;
    await assert.rejects(
      whoami(),
      (error: unknown) =>
        isSwitchboardError(error, 'NEEDS_SIGN_IN') && /needs a sign-in .* run `mcp-switchboard login notes`/.test(error.message),
    );
    assert.equal(fixture.stats().unauthorized, unauthorized, 'the call went nowhere near the server');
    const again = await runtime.signIns.signIn('notes', browser);
    assert.equal(again.state.kind, 'running');
  });

  it('forgets a client registration the provider no longer knows, and registers anew at the next sign-in', async () => {
    await startWith(remote());
    await runtime.signIns.signIn('notes', browser);
    const registrations = fixture.stats().registrations;
    await fetch(new URL('/control/forget-clients', fixture.mcpUrl), { method: 'POST' });
    await fetch(new URL('/control/revoke-access', fixture.mcpUrl), { method: 'POST' });
    await assert.rejects(whoami(), (error: unknown) => isSwitchboardError(error, 'NEEDS_SIGN_IN'));
    assert.equal(state()?.kind, 'needsSignIn');
    assert.deepEqual(await store.keys(), [], 'the unknown registration and its tokens are forgotten');
    assert.equal(browser.opened.length, 1);
    assert.equal((await runtime.signIns.signIn('notes', browser)).state.kind, 'running');
    assert.equal(fixture.stats().registrations, registrations + 1);
  });

  it('steps up: a tool that needs more scope asks for a sign-in with the wider scope', async () => {
    await startWith(remote());
    await runtime.signIns.signIn('notes', browser);
    await assert.rejects(runtime.manager.forwardToolCall('notes', 'write_note', { text: 'hi' }), (error: unknown) =>
      isSwitchboardError(error, 'NEEDS_SIGN_IN'),
    );
    const waiting = state();
    assert.equal(waiting?.kind, 'needsSignIn');
    assert.equal(waiting?.kind === 'needsSignIn' && waiting.reason, 'scope');
    assert.ok(waiting);
    assert.match(describeState(waiting), /more access asked \(mcp:read mcp:write/);
    assert.equal(browser.opened.length, 1);

    const result = await runtime.signIns.signIn('notes', browser);
    assert.equal(result.state.kind, 'running');
    assert.match(browser.opened[1]?.searchParams.get('scope') ?? '', /mcp:write/);
    assert.equal(textOf(await runtime.manager.forwardToolCall('notes', 'write_note', { text: 'hi' })), 'noted: hi');
  });

  it('joins a second Sign In click to the first: one browser tab', async () => {
    await startWith(remote());
    const [a, b] = await Promise.all([runtime.signIns.signIn('notes', browser), runtime.signIns.signIn('notes', browser)]);
    assert.equal(a, b);
    assert.equal(browser.opened.length, 1);
  });

  it('keeps a connect that races a sign-in in the background: one browser tab, one registration', async () => {
    clock = new FakeClock(Date.now());
    store = new MemorySecretStore();
    logger = new MemoryLogger();
    runtime = createRuntime({
      logger,
      storage: new MemoryToolCacheStorage(),
      settings: {},
      secrets: store,
      connection: { clock },
      startupGateMs: 0,
    });
    cleanup.add(() => runtime.dispose());
    browser = new ScriptedBrowser(new CallbackRouter(clock));
    const registrations = fixture.stats().registrations;
    // Sign In is clicked while the first connect is still on its way to the 401.
    await runtime.manager.start([remote()]);
    const [connecting, signedIn] = await Promise.all([runtime.manager.reconnect('notes'), runtime.signIns.signIn('notes', browser)]);
    assert.ok(connecting.kind === 'needsSignIn' || connecting.kind === 'running', JSON.stringify(connecting));
    assert.equal(signedIn.state.kind, 'running');
    assert.equal(browser.opened.length, 1, 'the background connect opened a browser too');
    assert.equal(fixture.stats().registrations, registrations + 1, 'the background connect registered a client too');
  });

  it('keeps its PKCE verifier and state when a background connect runs while the browser is open', async () => {
    await startWith(remote());
    const registrations = fixture.stats().registrations;
    // The window reconnects while the user is still on the provider's page: that connect gets as
    // far as building an authorization request of its own (the sign-in registered the client).
    const patient: SignInBrowser = {
      redirectUrl: browser.redirectUrl,
      open: async (url) => {
        const meanwhile = await runtime.manager.reconnect('notes');
        assert.equal(meanwhile.kind, 'needsSignIn');
        await browser.open(url);
      },
      waitForCallback: (state) => browser.waitForCallback(state),
    };
    const result = await runtime.signIns.signIn('notes', patient);
    assert.equal(result.state.kind, 'running');
    assert.equal(browser.opened.length, 1);
    assert.equal(fixture.stats().registrations, registrations + 1);
  });

  it('signs out: tokens and registration forgotten, the server waits for a sign-in again', async () => {
    await startWith(remote());
    await runtime.signIns.signIn('notes', browser);
    const after = await runtime.signIns.signOut('notes');
    assert.equal(after?.kind, 'needsSignIn');
    assert.deepEqual(await store.keys(), []);
  });

  it('signs out of every server at once: every saved sign-in forgotten, each server asks again', async () => {
    await startWith(remote());
    await runtime.signIns.signIn('notes', browser);
    // A sign-in kept for a server of another window or folder goes too.
    await store.set(
      'oauth:https://elsewhere.example/mcp',
      JSON.stringify({ v: 1, tokens: {}, clients: { i: { client: { client_id: 'x' } } } }),
    );
    await store.set('unrelated', 'kept');
    assert.equal(await runtime.signIns.signOutAll(['notes']), 2);
    assert.deepEqual(await store.keys(), ['unrelated']);
    assert.equal(state()?.kind, 'needsSignIn');
  });

  it('client_credentials: a pre-registered client signs in unattended', async () => {
    const before = fixture.stats().grants.client_credentials ?? 0;
    const first = await startWith(
      remote({ grant: 'client_credentials', clientId: 'switchboard-ci', clientSecret: 'ci-secret', scopes: ['mcp:read'] }),
    );
    assert.equal(first.kind, 'running', JSON.stringify(first));
    assert.equal(browser.opened.length, 0);
    assert.equal(fixture.stats().grants.client_credentials, before + 1);
    assert.equal((await whoami()).subject, 'switchboard-ci');
  });

  it('a wrong client secret is an error naming the client, not a sign-in prompt loop', async () => {
    const first = await startWith(
      remote({ grant: 'client_credentials', clientId: 'switchboard-ci', clientSecret: 'wrong', scopes: ['mcp:read'] }),
    );
    assert.notEqual(first.kind, 'running');
    assert.equal(browser.opened.length, 0);
  });
});
