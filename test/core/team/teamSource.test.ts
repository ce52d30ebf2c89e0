// A team gateway as a source of the user's own host: its URL in `mcpSwitchboard.sources` makes one
// row per server the gateway lists for that user, each at its endpoint, all behind one sign-in (the
// editor's own OAuth flow, at a real OpenID provider that signs JWT access tokens). Until the user
// signs in, the gateway is one row that says so. Against a real `serve`-like gateway with a policy,
// and a hostile one whose listing is too large, not JSON or too long.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallbackRouter, MemorySecretStore } from '../../../src/core/auth';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { createEnvInputResolver, loadConfiguration, type ConfigDiagnostic, type ServerDefinition } from '../../../src/core/config';
import { McpGateway, oauthIdentity } from '../../../src/core/gateway';
import { AccessPolicy, createJwtVerifier } from '../../../src/core/identity';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime/runtime';
import { MAX_TEAM_SERVERS } from '../../../src/core/team';
import type { TeamIdp } from '../../fixtures/team-idp.mjs' with { 'resolution-mode': 'import' };
import { Cleanup, MemoryLogger, startGateway, toolsServer, waitForRunning, type Setup } from '../gateway/helpers';
import { ScriptedBrowser } from '../support/providerLogin';
import { FakeClock } from '../support/fakeClock';

const startTeamIdp = async (): Promise<TeamIdp> => (await import('../../fixtures/team-idp.mjs')).startTeamIdp({ interactive: true });

const POLICY = {
  rules: [
    { name: 'engineers', match: { groups: ['eng'] }, allow: { servers: ['*'] } },
    { name: 'support', match: { groups: ['support'] }, allow: { servers: ['alpha'], tools: ['echo', 'count'] } },
  ],
};

describe('a team gateway as a source: its servers as rows, one sign-in for all', function () {
  this.timeout(90_000);
  const cleanup = new Cleanup();
  let upstream: Setup;
  let idp: TeamIdp;
  let team: McpGateway;
  const clock = new FakeClock(Date.now());

  before(async () => {
    upstream = await startGateway(cleanup, [toolsServer('alpha'), toolsServer('beta'), toolsServer('gamma')]);
    idp = await startTeamIdp();
    cleanup.add(() => idp.close());
    team = new McpGateway({
      source: upstream.source,
      logger: upstream.logger,
      identity: oauthIdentity({
        verifier: await createJwtVerifier({ issuer: idp.issuer, clock }),
        requiredScopes: ['mcp'],
        policy: AccessPolicy.parse(POLICY),
      }),
    });
    cleanup.add(() => team.dispose());
    await team.start();
    idp.allowResource(`${team.url}/mcp`);
  });
  after(() => cleanup.run());

  /** The user's own host: a runtime with its own secret store, as the editor has. */
  function host(): { runtime: SwitchboardRuntime; store: MemorySecretStore } {
    const store = new MemorySecretStore();
    const runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {}, secrets: store });
    cleanup.add(() => runtime.dispose());
    return { runtime, store };
  }

  async function load(runtime: SwitchboardRuntime, sources: unknown[], entries: Record<string, unknown> = {}) {
    const loaded = await loadConfiguration(
      {
        entries: Object.entries(entries).map(([name, raw]) => ({ name, raw, source: { kind: 'user' as const } })),
        sources,
        workspaceFolders: [],
        teams: runtime.teams.list,
      },
      createEnvInputResolver({}),
    );
    await runtime.manager.update(loaded.servers);
    return loaded;
  }

  const states = (runtime: SwitchboardRuntime) => Object.fromEntries(runtime.manager.servers().map((view) => [view.name, view.state.kind]));

  it('shows the gateway as one row that needs a sign-in; Sign In there lists its servers, each running, with one login', async () => {
    const { runtime, store } = host();
    const teamRow = new URL(team.url).host.replace(/[^A-Za-z0-9_.-]+/g, '-');
    const first = await load(runtime, ['settings', team.url]);
    assert.deepEqual(
      first.servers.map((server) => server.name),
      [teamRow],
    );
    assert.deepEqual(states(runtime), { [teamRow]: 'needsSignIn' });
    const row = first.servers[0] as ServerDefinition;
    assert.ok(row.transport === 'http' && row.url === `${team.url}/mcp` && row.signInUrl === `${team.url}/mcp`, JSON.stringify(row));

    const browser = new ScriptedBrowser(new CallbackRouter(clock), 'alice');
    const signedIn = await runtime.signIns.signIn(teamRow, browser);
    assert.equal(signedIn.state.kind, 'running');
    assert.equal(browser.opened.length, 1);
    // The authorization request named the gateway's one resource, not a server's endpoint.
    assert.equal(browser.opened[0]?.searchParams.get('resource'), `${team.url}/mcp`);

    // Listed again (the editor does so after a sign-in): alice is an engineer and sees all three.
    const second = await load(runtime, ['settings', team.url]);
    assert.deepEqual(
      second.servers.map((server) => server.name),
      ['alpha', 'beta', 'gamma'],
    );
    for (const server of second.servers as ServerDefinition[]) {
      assert.equal(server.source.kind, 'team');
      assert.equal(server.source.url, team.url);
      assert.ok(server.transport === 'http' && server.url === `${team.url}/mcp/${server.name}`);
    }
    // A listing starts the rows; they run once they connected (a busy machine takes a moment).
    await waitForRunning(runtime.manager, ['alpha', 'beta', 'gamma']);
    assert.deepEqual(states(runtime), { alpha: 'running', beta: 'running', gamma: 'running' });
    const alpha = runtime.manager.server('alpha');
    assert.ok(alpha && alpha.tools.some((tool) => tool.name === 'echo'));
    // Through the gateway to the upstream, with the shared sign-in.
    const result = await runtime.manager.forwardToolCall('beta', 'echo', { text: 'through the team gateway' });
    assert.match(JSON.stringify(result), /through the team gateway/);
    assert.equal(browser.opened.length, 1, 'no row asked for a sign-in of its own');
    assert.equal((await store.keys()).length, 1, 'one saved sign-in, for the gateway');
  });

  it("lists only what the user's policy allows: support sees alpha, with only its allowed tools", async () => {
    const { runtime } = host();
    const teamRow = new URL(team.url).host.replace(/[^A-Za-z0-9_.-]+/g, '-');
    await load(runtime, [team.url]);
    await runtime.signIns.signIn(teamRow, new ScriptedBrowser(new CallbackRouter(clock), 'bob'));
    const loaded = await load(runtime, [team.url]);
    assert.deepEqual(
      loaded.servers.map((server) => server.name),
      ['alpha'],
    );
    // A listing starts the rows; they run once they connected (a busy machine takes a moment).
    await waitForRunning(runtime.manager, ['alpha']);
    assert.deepEqual(states(runtime), { alpha: 'running' });
    assert.deepEqual(
      runtime.manager
        .server('alpha')
        ?.tools.map((tool) => tool.name)
        .sort(),
      ['count', 'echo'],
    );
  });

  it('signs every row out at once: the rows of one sign-in all need it again', async () => {
    const { runtime, store } = host();
    const teamRow = new URL(team.url).host.replace(/[^A-Za-z0-9_.-]+/g, '-');
    await load(runtime, [team.url]);
    await runtime.signIns.signIn(teamRow, new ScriptedBrowser(new CallbackRouter(clock), 'carol'));
    await load(runtime, [team.url]);
    // A listing starts the rows; they run once they connected (a busy machine takes a moment).
    await waitForRunning(runtime.manager, ['alpha', 'beta', 'gamma']);
    assert.deepEqual(states(runtime), { alpha: 'running', beta: 'running', gamma: 'running' });
    await runtime.signIns.signOut('beta');
    assert.deepEqual(states(runtime), { alpha: 'needsSignIn', beta: 'needsSignIn', gamma: 'needsSignIn' });
    assert.deepEqual(await store.keys(), []);
  });

  it("keeps the user's own server of the same name, with a warning that names both places", async () => {
    const { runtime } = host();
    const teamRow = new URL(team.url).host.replace(/[^A-Za-z0-9_.-]+/g, '-');
    await load(runtime, ['settings', team.url]);
    await runtime.signIns.signIn(teamRow, new ScriptedBrowser(new CallbackRouter(clock), 'alice'));
    const mine = { command: process.execPath, args: ['-e', ''] };
    const loaded = await load(runtime, ['settings', team.url], { beta: mine });
    const beta = loaded.servers.find((server) => server.name === 'beta');
    assert.equal(beta?.source.kind, 'user');
    const warning = loaded.diagnostics.find((diagnostic) => diagnostic.server === 'beta');
    assert.match(warning?.message ?? '', /from the team gateway \(http:\/\/127\.0\.0\.1:\d+\) is ignored: user settings also defines it/);
  });

  it('refuses a source URL that is not https (off this machine), has credentials, a query or a fragment', async () => {
    const { runtime } = host();
    const loaded = await load(runtime, [
      'http://gateway.example.com',
      'https://user:pass@gateway.example.com',
      'https://gateway.example.com/?x=1',
      'https://gateway.example.com/#top',
    ]);
    assert.deepEqual(loaded.servers, []);
    assert.equal(
      loaded.diagnostics.filter((diagnostic) => /team gateway .* is ignored: it must be an https URL/.test(diagnostic.message)).length,
      4,
    );
  });

  it('reads a team gateway from user settings only: a workspace cannot choose where the sign-in goes', async () => {
    const loaded = await loadConfiguration(
      {
        entries: [],
        sources: ['settings', team.url],
        sourcesOrigin: { kind: 'workspace' },
        workspaceFolders: [],
        teams: host().runtime.teams.list,
      },
      createEnvInputResolver({}),
    );
    assert.deepEqual(loaded.servers, []);
    assert.deepEqual(loaded.teams, []);
    assert.match(loaded.diagnostics[0]?.message ?? '', /is ignored: a team gateway is read from user settings only/);
  });

  describe('a hostile gateway', () => {
    let answer: (response: http.ServerResponse) => void = (response) => response.end('{}');
    let hostile: string;

    before(async () => {
      const server = http.createServer((request, response) => {
        if (request.url === '/servers') return answer(response);
        response.writeHead(404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      cleanup.add(() => new Promise<void>((resolve) => server.close(() => resolve())));
      hostile = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    async function listingProblem(): Promise<ConfigDiagnostic | undefined> {
      const { runtime } = host();
      const loaded = await load(runtime, [hostile]);
      // The gateway stays one row, whose connection says what is wrong with it.
      assert.deepEqual(
        loaded.servers.map((server) => server.name),
        [new URL(hostile).host.replace(/[^A-Za-z0-9_.-]+/g, '-')],
      );
      return loaded.diagnostics.find((diagnostic) => diagnostic.message.startsWith(`team gateway ${hostile}:`));
    }

    it('refuses a listing over 1 MiB without reading it all', async () => {
      answer = (response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        const chunk = 'x'.repeat(64 * 1024);
        // Far more than the limit, if it were read to the end.
        for (let index = 0; index < 64; index++) response.write(chunk);
        response.end();
      };
      assert.match((await listingProblem())?.message ?? '', /its listing is over 1048576 bytes/);
    });

    it('refuses a listing that is not JSON, or lists too many servers', async () => {
      answer = (response) => response.end('<html>');
      assert.match((await listingProblem())?.message ?? '', /its listing is not JSON/);
      answer = (response) =>
        response.end(JSON.stringify({ servers: Array.from({ length: MAX_TEAM_SERVERS + 1 }, (_, index) => ({ name: `s${index}` })) }));
      assert.match((await listingProblem())?.message ?? '', /not a list of at most 500 named servers/);
    });

    it('says which HTTP status it answered', async () => {
      answer = (response) => response.writeHead(502).end();
      assert.match((await listingProblem())?.message ?? '', /GET \/servers answered HTTP 502/);
    });
  });
});
