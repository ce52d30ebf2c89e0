// A team gateway's upstream that acts for each user with their own account (`oauth.perUser:
// "tokenExchange"`): each user's call reaches it with a token of that user, exchanged (RFC 8693) by
// the gateway at the upstream's authorization server (a real OpenID provider with a token-exchange
// grant), while the gateway's own requests (listing tools) carry its own client-credentials token.
// Users calling at the same time never get each other's token; a refused exchange fails that
// user's call only; without a user the server cannot be called at all.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Page } from 'playwright-core';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { DEFAULT_OAUTH } from '../../../src/core/config/types';
import { oauthIdentity } from '../../../src/core/gateway';
import { createJwtVerifier, PerUserTokens, principalOf, TokenExchange, UserSignIns, type TeamLogin } from '../../../src/core/identity';
import { systemClock } from '../../../src/core/base/clock';
import { Sealer } from '../../../src/core/base/sealer';
import { RedisTaskStore } from '../../../src/core/cluster';
import { startRedis } from '../support/services';
import { loginAtProvider } from '../support/providerLogin';
// @ts-expect-error: a JavaScript fixture without types.
import { startOAuthFixture } from '../../fixtures/oauth-server.mjs';

interface OAuthFixture {
  readonly mcpUrl: string;
  close(): Promise<void>;
}
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime/runtime';
import type { TeamIdp } from '../../fixtures/team-idp.mjs' with { 'resolution-mode': 'import' };
import { Cleanup, httpDefinition, MemoryLogger, startHttpFixture, textOf, type HttpFixture } from '../connection/helpers';
import { MODERN_VERSION } from '../support/eraClient';
import { FakeClock } from '../support/fakeClock';
import { waitForRunning } from '../support/waitFor';

const startTeamIdp = async (): Promise<TeamIdp> => (await import('../../fixtures/team-idp.mjs')).startTeamIdp({ interactive: true });

/** The team's provider as the gateway knows it, for the browser that opens a sign-in link. */
async function teamLoginOf(issuer: string): Promise<TeamLogin> {
  const verifier = await createJwtVerifier({ issuer });
  return {
    issuer: verifier.issuer,
    metadata: verifier.metadata,
    verify: async (idToken) => principalOf(await verifier.verifyAccessToken(idToken)),
  };
}

describe('a team gateway calls a per-user upstream with each user’s own token (RFC 8693 token exchange)', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  let idp: TeamIdp;
  let upstream: HttpFixture;
  let refusing: HttpFixture;
  let legacy: HttpFixture;
  let runtime: SwitchboardRuntime;
  let resource: string;
  const clock = new FakeClock(Date.now());

  const perUser = {
    ...DEFAULT_OAUTH,
    grant: 'client_credentials' as const,
    clientId: 'gateway',
    clientSecret: 'gateway-secret',
    scopes: ['mcp'],
    perUser: 'tokenExchange' as const,
  };

  before(async () => {
    idp = await startTeamIdp();
    cleanup.add(() => idp.close());
    upstream = await startHttpFixture(cleanup, ['--require-jwt', idp.issuer, '--name', 'tickets']);
    idp.allowExchange(upstream.url('/mcp'));
    // Its authorization server is the same provider, but it does not take exchanged tokens for it.
    refusing = await startHttpFixture(cleanup, ['--require-jwt', idp.issuer, '--name', 'vault']);
    idp.allowResource(refusing.url('/mcp'));
    // A legacy server (HTTP+SSE only): the connection falls back to it, and per-message headers do not exist there.
    legacy = await startHttpFixture(cleanup, ['--require-jwt', idp.issuer, '--name', 'legacy', '--sse-only']);
    idp.allowExchange(legacy.url('/mcp'));
    runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {} });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start([
      httpDefinition(upstream.url('/mcp'), { name: 'tickets', oauth: perUser }),
      httpDefinition(refusing.url('/mcp'), { name: 'vault', oauth: perUser }),
      httpDefinition(legacy.url('/mcp'), { name: 'legacy', transport: 'sse', oauth: perUser }),
    ]);
    // The gateway's own sign-in (client credentials) lists the tools.
    await waitForRunning(runtime.manager, ['tickets', 'vault', 'legacy']);
    const gateway = runtime.gateway({
      identity: oauthIdentity({ verifier: await createJwtVerifier({ issuer: idp.issuer, clock }), requiredScopes: ['mcp'] }),
      upstreamTokens: new TokenExchange({ clock, logger: new MemoryLogger() }),
    });
    await gateway.start();
    resource = `${gateway.url}/mcp`;
    idp.allowResource(resource);
  });
  after(() => cleanup.run());

  async function connect(user: string, era: 'legacy' | 'modern'): Promise<Client> {
    const token = await idp.token(user, resource, 'mcp');
    const client = new Client(
      { name: `${user}-agent`, version: '1.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_VERSION } } } : {},
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    );
    cleanup.add(() => client.close());
    return client;
  }

  const whoami = async (client: Client, tool = 'tickets__whoami') =>
    textOf((await client.callTool({ name: tool, arguments: {} })) as CallToolResult);

  for (const era of ['legacy', 'modern'] as const) {
    it(`reaches the upstream as the user who called, never as another (${era})`, async () => {
      const alice = await connect('alice', era);
      const bob = await connect('bob', era);
      const exchangesBefore = idp.exchanges();
      // Interleaved, at the same time: each answer must name its own caller.
      const calls = Array.from({ length: 40 }, (_, index): [string, Client] => (index % 2 === 0 ? ['alice', alice] : ['bob', bob]));
      const answers = await Promise.all(calls.map(async ([user, client]) => [user, await whoami(client)]));
      for (const [user, answer] of answers) assert.equal(answer, user);
      // One exchange per user, remembered for the next calls (none in the other era's run is new).
      assert.ok(idp.exchanges() - exchangesBefore <= 2, `${idp.exchanges() - exchangesBefore} exchanges`);
      const subjects = (await upstream.stats()) as unknown as { subjects: Record<string, number> };
      assert.ok((subjects.subjects.alice ?? 0) >= 20 && (subjects.subjects.bob ?? 0) >= 20, JSON.stringify(subjects.subjects));
      // The gateway's own requests (initialize, the tool list) went as the gateway's client.
      assert.ok((subjects.subjects.gateway ?? 0) > 0, JSON.stringify(subjects.subjects));
      // The header that carried each user's token to the transport stopped there: only Authorization left.
      assert.equal((subjects as { switchboardHeaders?: string[] }).switchboardHeaders, undefined);
    });
  }

  it('opens a new upstream session with the gateway’s own credential, even when a user’s call found the old one gone', async () => {
    for (const era of ['legacy', 'modern'] as const) {
      const alice = await connect('alice', era);
      assert.equal(await whoami(alice), 'alice');
      const before = ((await upstream.stats()) as unknown as { opened?: Array<{ what: string }> }).opened?.length ?? 0;
      await fetch(upstream.url('/control/expire'), { method: 'POST' });
      // Her call meets the expired session: the connection opens a new one and sends it again.
      assert.equal(await whoami(alice), 'alice');
      const opened = ((await upstream.stats()) as unknown as { opened: Array<{ what: string; subject: string }> }).opened.slice(before);
      assert.ok(
        opened.some((entry) => entry.what === 'initialize'),
        `${era}: a new session was opened: ${JSON.stringify(opened)}`,
      );
      // The session and its stream are shared by every user's calls: never opened as one of them.
      for (const entry of opened) assert.equal(entry.subject, 'gateway', `${era}: ${JSON.stringify(opened)}`);
    }
  });

  it("fails only that user's call when the upstream's authorization server refuses the exchange, and the server stays up", async () => {
    const carol = await connect('carol', 'modern');
    const result = (await carol.callTool({ name: 'vault__whoami', arguments: {} }).catch((error: unknown) => error)) as
      Error | CallToolResult;
    const message = result instanceof Error ? result.message : textOf(result);
    assert.match(message, /no credential of carol for `vault`: the token exchange at .* was refused \(invalid_target/);
    assert.equal(runtime.manager.server('vault')?.state.kind, 'running');
    // The gateway's own token is never used for her call instead.
    const subjects = (await refusing.stats()) as unknown as { subjects: Record<string, number> };
    assert.equal(subjects.subjects.carol, undefined);
    assert.ok((subjects.subjects.gateway ?? 0) > 0);
  });

  it("refuses a user's call to a server that answers over legacy SSE, which cannot carry their token: it never goes as the gateway", async () => {
    const state = runtime.manager.server('legacy')?.state;
    assert.ok(state?.kind === 'running' && state.transport === 'sse', JSON.stringify(state));
    const alice = await connect('alice', 'modern');
    const before = ((await legacy.stats()) as unknown as { calls?: number }).calls ?? 0;
    const result = (await alice.callTool({ name: 'legacy__whoami', arguments: {} }).catch((error: unknown) => error)) as
      Error | CallToolResult;
    const message = result instanceof Error ? result.message : textOf(result);
    assert.match(message, /legacy SSE, which cannot carry each user's own credential; it needs streamable HTTP/);
    assert.equal(((await legacy.stats()) as unknown as { calls?: number }).calls ?? 0, before, 'the call reached the server');
    assert.equal(runtime.manager.server('legacy')?.state.kind, 'running');
  });

  it('exchanges again once the upstream refused a remembered token (forget), and only for that user and server', async () => {
    const exchange = new TokenExchange({ clock, logger: new MemoryLogger() });
    const definition = httpDefinition(upstream.url('/mcp'), { name: 'tickets', oauth: perUser });
    const verifier = await createJwtVerifier({ issuer: idp.issuer, clock });
    const userOf = async (name: string) => {
      const token = await idp.token(name, resource, 'mcp');
      const principal = principalOf(await verifier.verifyAccessToken(token));
      assert.ok(principal);
      return { token, principal };
    };
    const alice = await userOf('alice');
    const bob = await userOf('bob');
    const before = idp.exchanges();
    const first = await exchange.tokenFor(alice.principal, alice.token, definition);
    await exchange.tokenFor(bob.principal, bob.token, definition);
    assert.equal(await exchange.tokenFor(alice.principal, alice.token, definition), first, 'remembered');
    assert.equal(idp.exchanges() - before, 2);
    exchange.forget(alice.principal, definition);
    assert.notEqual(await exchange.tokenFor(alice.principal, alice.token, definition), undefined);
    await exchange.tokenFor(bob.principal, bob.token, definition);
    assert.equal(idp.exchanges() - before, 3, "alice's token was exchanged again; bob's is still remembered");
  });

  it('refuses a call made for nobody: the server acts only for a signed-in user', async () => {
    await assert.rejects(
      runtime.catalog.callExposedTool('tickets', 'whoami', {}),
      /server `tickets` acts for each user with their own account; only a signed-in user of a team gateway can use it/,
    );
  });
});

describe('a team gateway keeps each user’s own sign-in to an upstream that does not know the team’s provider', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  let idp: TeamIdp;
  let upstream: OAuthFixture;
  let runtime: SwitchboardRuntime;
  let gatewayUrl: string;
  let resource: string;
  const signInLog = new MemoryLogger();

  before(async () => {
    idp = await startTeamIdp();
    cleanup.add(() => idp.close());
    upstream = (await startOAuthFixture()) as OAuthFixture;
    cleanup.add(() => upstream.close());
    runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {} });
    cleanup.add(() => runtime.dispose());
    // The gateway's own account lists the tools (the fixture's client credentials).
    const oauth = {
      ...DEFAULT_OAUTH,
      grant: 'client_credentials' as const,
      clientId: 'switchboard-ci',
      clientSecret: 'ci-secret',
      perUser: 'signIn' as const,
    };
    await runtime.manager.start([httpDefinition(upstream.mcpUrl, { name: 'notes', oauth })]);
    await waitForRunning(runtime.manager, ['notes']);
    const clock = new FakeClock(Date.now());
    const signIns = new UserSignIns({
      clock: systemClock,
      logger: signInLog,
      teamLogin: await teamLoginOf(idp.issuer),
      publicBase: () => gatewayUrl,
      server: (name) => {
        const definition = runtime.manager.server(name)?.definition;
        return definition?.transport === 'http' ? definition : undefined;
      },
    });
    const gateway = runtime.gateway({
      identity: oauthIdentity({ verifier: await createJwtVerifier({ issuer: idp.issuer, clock }), requiredScopes: ['mcp'] }),
      upstreamTokens: new PerUserTokens(new TokenExchange({ clock, logger: new MemoryLogger() }), signIns),
    });
    await gateway.start();
    gatewayUrl = gateway.url;
    resource = `${gateway.url}/mcp`;
    idp.allowResource(resource);
  });
  after(() => cleanup.run());

  async function connect(user: string): Promise<Client> {
    const token = await idp.token(user, resource, 'mcp');
    const client = new Client({ name: `${user}-agent`, version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    );
    cleanup.add(() => client.close());
    return client;
  }

  /** The link a call was answered with instead of a result (-32042, URL elicitation). */
  async function signInLink(client: Client): Promise<URL> {
    const error = (await client.callTool({ name: 'notes__whoami', arguments: {} }).then(
      () => undefined,
      (caught: unknown) => caught,
    )) as { code?: number; data?: { elicitations?: { mode: string; url: string }[] } } | undefined;
    assert.equal(error?.code, -32042, JSON.stringify(error));
    const link = error?.data?.elicitations?.[0];
    assert.equal(link?.mode, 'url');
    return new URL(link?.url ?? '');
  }

  /** Up to the page that says who the browser is signed in to the team as: that page, the link it goes on to, and the cookie it set. */
  async function confirmAt(
    link: URL,
    member: string,
    bases = { start: gatewayUrl, whoami: gatewayUrl },
  ): Promise<{ page: Response; text: string; next?: URL; cookie?: string }> {
    const start = await fetch(link, { redirect: 'manual' });
    assert.equal(start.status, 302);
    const team = await loginAtProvider(new URL(start.headers.get('location') ?? ''), `${bases.start}/oauth/whoami`, member);
    const page = await fetch(`${bases.whoami}/oauth/whoami?${team.toString()}`, { redirect: 'manual' });
    const text = await page.text();
    const href = /<a href="([^"]+)"/.exec(text)?.[1];
    const cookie = page.headers.getSetCookie()[0]?.split(';')[0];
    return {
      page,
      text,
      ...(href ? { next: new URL(href.replace(/&#(\d+);/g, (_match, code: string) => String.fromCharCode(Number(code)))) } : {}),
      ...(cookie ? { cookie } : {}),
    };
  }

  /** The upstream's login (as `login`) from the page's link, back to the gateway's callback with `cookie` (the browser's). */
  async function finishAt(
    next: URL,
    login: string,
    cookie: string | undefined,
    bases = { whoami: gatewayUrl, callback: gatewayUrl },
  ): Promise<Response> {
    const query = await loginAtProvider(next, `${bases.whoami}/oauth/callback`, login);
    return fetch(`${bases.callback}/oauth/callback?${query.toString()}`, { headers: cookie ? { cookie } : {} });
  }

  /**
   * A person at their browser: the gateway's link, the team's login page (as `member`), the
   * upstream's own login page (as `login`), back to the gateway. The last page the gateway showed.
   */
  async function signInAt(
    link: URL,
    member: string,
    login: string,
    bases = { start: gatewayUrl, whoami: gatewayUrl, callback: gatewayUrl },
  ): Promise<Response> {
    const confirmed = await confirmAt(link, member, bases);
    if (confirmed.page.status !== 200 || !confirmed.next)
      return new Response(confirmed.text, { status: confirmed.page.status, headers: confirmed.page.headers });
    return finishAt(confirmed.next, login, confirmed.cookie, bases);
  }

  it("asks each user to sign in themselves, then calls as them; another user's sign-in is never theirs", async () => {
    const alice = await connect('alice');
    const link = await signInLink(alice);
    assert.equal(`${link.origin}${link.pathname}`, `${gatewayUrl}/oauth/start`);
    const done = await signInAt(link, 'alice', 'alice.upstream');
    assert.equal(done.status, 200, (await done.clone().text()) + JSON.stringify(signInLog.entries));
    assert.match(await done.text(), /You are signed in to notes/);
    const answer = JSON.parse(textOf((await alice.callTool({ name: 'notes__whoami', arguments: {} })) as CallToolResult)) as {
      subject: string;
    };
    assert.equal(answer.subject, 'alice.upstream');
    // bob has signed in nowhere: he gets a link of his own, not alice's account.
    const bob = await connect('bob');
    const bobsLink = await signInLink(bob);
    await signInAt(bobsLink, 'bob', 'bob.upstream');
    const bobs = JSON.parse(textOf((await bob.callTool({ name: 'notes__whoami', arguments: {} })) as CallToolResult)) as {
      subject: string;
    };
    assert.equal(bobs.subject, 'bob.upstream');
    const again = JSON.parse(textOf((await alice.callTool({ name: 'notes__whoami', arguments: {} })) as CallToolResult)) as {
      subject: string;
    };
    assert.equal(again.subject, 'alice.upstream');
  });

  it("shares a user's sign-in with another replica through Redis, sealed: there it needs no second sign-in", async () => {
    const redis = await startRedis(cleanup);
    const key = Buffer.from('the-key-both-replicas-of-this-gateway-share-0123');
    const store = await RedisTaskStore.connect(`redis://127.0.0.1:${redis.port}`, {
      onError: () => undefined,
      sealer: new Sealer(key, 'mcp-switchboard finished task'),
    });
    cleanup.add(() => store.close());
    const replica = async (): Promise<string> => {
      const own = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {} });
      cleanup.add(() => own.dispose());
      const definition = runtime.manager.server('notes')?.definition;
      assert.ok(definition?.transport === 'http');
      await own.manager.start([definition]);
      await waitForRunning(own.manager, ['notes']);
      let url = '';
      const signIns = new UserSignIns({
        clock: systemClock,
        logger: new MemoryLogger(),
        teamLogin: await teamLoginOf(idp.issuer),
        publicBase: () => url,
        server: (name) => (name === 'notes' ? definition : undefined),
        sealer: new Sealer(key, 'mcp-switchboard user sign-in'),
        values: store.values,
      });
      const clock = new FakeClock(Date.now());
      const gateway = own.gateway({
        identity: oauthIdentity({ verifier: await createJwtVerifier({ issuer: idp.issuer, clock }), requiredScopes: ['mcp'] }),
        upstreamTokens: new PerUserTokens(new TokenExchange({ clock, logger: new MemoryLogger() }), signIns),
      });
      await gateway.start();
      url = gateway.url;
      idp.allowResource(`${gateway.url}/mcp`);
      return gateway.url;
    };
    const [first, second] = [await replica(), await replica()];
    const onReplica = async (base: string, user: string) => {
      const client = new Client({ name: `${user}-agent`, version: '1.0.0' });
      const token = await idp.token(user, `${base}/mcp`, 'mcp');
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
      );
      cleanup.add(() => client.close());
      return client;
    };
    const dave = await onReplica(first, 'mallory');
    const link = await signInLink(dave);
    // The link is the first replica's; its redirects come back to the second one, which opens them.
    const done = await signInAt(link, 'mallory', 'mallory.upstream', { start: first, whoami: second, callback: second });
    assert.equal(done.status, 200, await done.clone().text());
    // Both replicas now call as her, with no second sign-in.
    for (const base of [first, second]) {
      const client = await onReplica(base, 'mallory');
      const answer = JSON.parse(textOf((await client.callTool({ name: 'notes__whoami', arguments: {} })) as CallToolResult)) as {
        subject: string;
      };
      assert.equal(answer.subject, 'mallory.upstream');
    }
    // What Redis holds is sealed: neither her tokens nor who she is can be read there.
    const { createClient } = await import('@redis/client');
    const reader = createClient({ url: `redis://127.0.0.1:${redis.port}` });
    await reader.connect();
    cleanup.add(() => reader.close());
    const keys = await reader.keys('mcp-switchboard:secret:*');
    assert.ok(keys.length >= 1);
    const issued = (await (await fetch(new URL('/control/issued-tokens', upstream.mcpUrl))).json()) as string[];
    for (const stored of keys) {
      const value = String(await reader.get(stored));
      assert.ok(!issued.some((token) => value.includes(token)) && !value.includes('mallory') && !stored.includes('mallory'), value);
    }
  });

  it("refuses a link opened by another member: nobody can make someone else's upstream account serve them", async () => {
    const carol = await connect('carol');
    const carolsLink = await signInLink(carol);
    // carol sends her link to bob, who signs in to the team as himself.
    const refused = await signInAt(carolsLink, 'bob', 'bob.upstream');
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /made for another member of the team/);
    // Nothing was kept for carol: she still gets a link, and bob's account never serves her.
    await signInLink(carol);
  });

  it('says who the browser is signed in as before it goes on, and binds the rest to that browser (no login CSRF)', async () => {
    const carol = await connect('carol');
    const link = await signInLink(carol);
    const confirmed = await confirmAt(link, 'carol');
    assert.equal(confirmed.page.status, 200);
    assert.match(confirmed.text, /signed in to the team as <b>carol<\/b>/);
    assert.match(confirmed.text, /sign in to <b>notes<\/b> with your own account/);
    assert.match(confirmed.cookie ?? '', /^__Host-mcp-switchboard-sign-in-[0-9a-f]+=/);
    assert.match(confirmed.page.headers.getSetCookie()[0] ?? '', /HttpOnly; SameSite=Lax; Max-Age=\d+; Secure/);
    assert.ok(confirmed.next);
    // She forwards the upstream's link to bob, whose browser signs in there as himself: the
    // callback comes from a browser without her cookie, and is refused.
    const forwarded = await finishAt(confirmed.next, 'bob.upstream', undefined);
    assert.equal(forwarded.status, 403);
    assert.match(await forwarded.text(), /not started in this browser/);
    // A browser with a sign-in of its own under way (mallory's) is refused too: its cookie does not open her state.
    const own = await confirmAt(await signInLink(await connect('mallory')), 'mallory');
    const crossed = await finishAt(confirmed.next, 'bob.upstream', own.cookie);
    assert.equal(crossed.status, 400);
    // Nothing was kept for her: her next call still asks her to sign in, and never as bob.upstream.
    await signInLink(carol);
  });

  it('binds a sign-in to the browser that began it, in two real browsers (Chromium)', async function () {
    this.timeout(90_000);
    const { launchBrowser } = await import('../../harness/editor.mjs');
    const victim = await launchBrowser();
    cleanup.add(() => victim.close());
    const colleague = await launchBrowser();
    cleanup.add(() => colleague.close());
    /** The provider's development pages: a person types a name and a password, then allows what is asked. */
    const logIn = async (page: Page, login: string) => {
      await page.locator('input[name="login"]').fill(login);
      await page.locator('input[name="password"]').fill('secret');
      await page.locator('button[type="submit"]').click();
      // Either the provider asks to allow what is asked, or it sends the browser on to the gateway.
      const consent = page.getByRole('button', { name: 'Continue' });
      const settled = await Promise.race([
        consent.waitFor().then(() => 'consent' as const),
        page.waitForURL((url) => url.href.startsWith(gatewayUrl)).then(() => 'gateway' as const),
      ]).catch(() => 'neither' as const);
      if (settled === 'consent') await consent.click();
    };
    const dana = await connect('carol');
    const link = await signInLink(dana);
    const own = await victim.context.newPage();
    await own.goto(link.href);
    await logIn(own, 'carol');
    await own.getByText('signed in to the team as').waitFor();
    assert.match(await own.locator('body').innerText(), /You are signed in to the team as carol\./);
    const cookies = await victim.context.cookies(gatewayUrl);
    assert.ok(
      cookies.some((cookie) => cookie.name.startsWith('__Host-mcp-switchboard-sign-in-') && cookie.secure && cookie.httpOnly),
      JSON.stringify(cookies),
    );
    // She sends the page's link to a colleague, whose browser signs in at the upstream as himself.
    const forwarded = String(await own.getByRole('link', { name: 'Continue to notes' }).getAttribute('href'));
    const theirs = await colleague.context.newPage();
    await theirs.goto(forwarded);
    await logIn(theirs, 'bob.upstream');
    await theirs.getByText('not started in this browser').waitFor();
    await signInLink(dana);
    // In her own browser the same link completes her own sign-in.
    await own.getByRole('link', { name: 'Continue to notes' }).click();
    await logIn(own, 'carol.upstream');
    await own.getByText('You are signed in to notes').waitFor();
    const answer = JSON.parse(textOf((await dana.callTool({ name: 'notes__whoami', arguments: {} })) as CallToolResult)) as {
      subject: string;
    };
    assert.equal(answer.subject, 'carol.upstream');
  });

  it('refuses a kept sign-in moved in Redis under another user’s key', async () => {
    const redis = await startRedis(cleanup);
    const key = Buffer.from('the-key-both-replicas-of-this-gateway-share-0123');
    const store = await RedisTaskStore.connect(`redis://127.0.0.1:${redis.port}`, {
      onError: () => undefined,
      sealer: new Sealer(key, 'mcp-switchboard finished task'),
    });
    cleanup.add(() => store.close());
    const definition = runtime.manager.server('notes')?.definition;
    assert.ok(definition?.transport === 'http');
    let url = '';
    const own = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {} });
    cleanup.add(() => own.dispose());
    await own.manager.start([definition]);
    await waitForRunning(own.manager, ['notes']);
    const signIns = new UserSignIns({
      clock: systemClock,
      logger: new MemoryLogger(),
      teamLogin: await teamLoginOf(idp.issuer),
      publicBase: () => url,
      server: (name) => (name === 'notes' ? definition : undefined),
      sealer: new Sealer(key, 'mcp-switchboard user sign-in'),
      values: store.values,
    });
    const clock = new FakeClock(Date.now());
    const gateway = own.gateway({
      identity: oauthIdentity({ verifier: await createJwtVerifier({ issuer: idp.issuer, clock }), requiredScopes: ['mcp'] }),
      upstreamTokens: new PerUserTokens(new TokenExchange({ clock, logger: new MemoryLogger() }), signIns),
    });
    await gateway.start();
    url = gateway.url;
    idp.allowResource(`${url}/mcp`);
    const onGateway = async (user: string) => {
      const client = new Client({ name: `${user}-agent`, version: '1.0.0' });
      const token = await idp.token(user, `${url}/mcp`, 'mcp');
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
      );
      cleanup.add(() => client.close());
      return client;
    };
    const mallory = await onGateway('mallory');
    const done = await signInAt(await signInLink(mallory), 'mallory', 'mallory.upstream', { start: url, whoami: url, callback: url });
    assert.equal(done.status, 200, await done.clone().text());
    // Whoever can write Redis copies her entry to the key under which bob's would be kept.
    const { createClient } = await import('@redis/client');
    const writer = createClient({ url: `redis://127.0.0.1:${redis.port}` });
    await writer.connect();
    cleanup.add(() => writer.close());
    const [entry] = await writer.keys('mcp-switchboard:secret:*');
    assert.ok(entry);
    const bobsKey = createHash('sha256')
      .update(JSON.stringify([`${idp.issuer} bob`, definition.name, definition.url]))
      .digest('hex');
    await writer.set(`mcp-switchboard:secret:${bobsKey}`, String(await writer.get(entry)));
    // bob, on a replica that never saw him (this one, whose memory holds only mallory's): asked to sign in, not served as her.
    await signInLink(await onGateway('bob'));
  });

  it('refuses a link that was tampered with, or a callback without its sealed state', async () => {
    const mallory = await connect('mallory');
    const link = await signInLink(mallory);
    const flow = link.searchParams.get('flow') ?? '';
    link.searchParams.set('flow', `${flow.slice(0, -4)}AAAA`);
    const tampered = await fetch(link, { redirect: 'manual' });
    assert.equal(tampered.status, 400);
    assert.match(await tampered.text(), /not valid any more/);
    const forged = await fetch(`${gatewayUrl}/oauth/callback?code=x&state=y`);
    assert.equal(forged.status, 403, 'from a browser that holds no sign-in of the gateway');
    const withCookie = await fetch(`${gatewayUrl}/oauth/callback?code=x&state=y`, {
      headers: { cookie: '__Host-mcp-switchboard-sign-in-0011aabbccdd=some-browser-secret' },
    });
    assert.equal(withCookie.status, 400);
  });
  // Last in this suite: mallory signs in here, and the tests above need her not signed in.
  it('gives a 2026-07-28 client the sign-in link as a URL elicitation, and calls as the user once they signed in', async () => {
    const token = await idp.token('mallory', resource, 'mcp');
    const connectModern = async (declaresUrl: boolean) => {
      const client = new Client(
        { name: 'mallory-modern', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: MODERN_VERSION } }, capabilities: declaresUrl ? { elicitation: { url: {} } } : {} },
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
      );
      cleanup.add(() => client.close());
      return client;
    };
    // Without URL elicitation: told what it lacks, with the link in words.
    const plain = await connectModern(false);
    const refused = (await plain.callTool({ name: 'notes__whoami', arguments: {} }).then(
      (result) => assert.fail(JSON.stringify(result)),
      (caught: unknown) => caught,
    )) as { code?: number; message?: string };
    assert.equal(refused.code, -32021, JSON.stringify(refused));
    assert.match(refused.message ?? '', new RegExp(`open ${gatewayUrl}/oauth/start\\?flow=\\S+ in a browser, then call again`));
    // With it: the client is asked to open the link; the person signs in; the call goes on as them.
    const client = await connectModern(true);
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { mode?: string; url?: string };
      assert.equal(params.mode, 'url');
      asked.push(params.url ?? '');
      const done = await signInAt(new URL(params.url ?? ''), 'mallory', 'mallory.upstream');
      assert.equal(done.status, 200, await done.clone().text());
      return { action: 'accept' };
    });
    const answer = JSON.parse(textOf((await client.callTool({ name: 'notes__whoami', arguments: {} })) as CallToolResult)) as {
      subject: string;
    };
    assert.equal(answer.subject, 'mallory.upstream');
    assert.equal(asked.length, 1);
    assert.ok(asked[0]?.startsWith(`${gatewayUrl}/oauth/start?flow=`), asked[0]);
  });
});
