// The registry client against a local registry (test/fixtures/registry-server.mjs) serving
// real-shaped server.json documents, and the entries made from them: each loads as a valid server.
import assert from 'node:assert/strict';
import { loadConfiguration, type ServerDefinition, type StdioServerDefinition } from '../../../src/core/config';
import { RegistryClient, RegistryError } from '../../../src/core/registry/registryClient';
import { entryFromRegistry, installOptions, registryServerName } from '../../../src/core/registry/registryEntry';
import { Cleanup } from '../support/cleanup';
import { baseInput, expectValid } from '../config/helpers';
import { startRegistry } from '../support/registryFixture';

/** The entry as Switchboard loads it, with every `${input:}` answered. */
async function load(name: string, entry: unknown): Promise<ServerDefinition> {
  const loaded = await loadConfiguration(baseInput({ entries: [{ name, raw: entry, source: { kind: 'user' } }] }), {
    resolve: async (request) => `answer-for-${request.id}`,
  });
  return expectValid(loaded.servers[0] as ServerDefinition);
}

describe('the MCP Registry (v0.1) client', function () {
  this.timeout(20_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('searches the latest versions, following the cursor page by page', async () => {
    const client = new RegistryClient(await startRegistry(cleanup, ['--page-size', '2']));
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.search('modelcontextprotocol', cursor);
      names.push(...page.servers.map((item) => `${item.server.name}@${item.server.version}`));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    assert.deepEqual(names.sort(), [
      'io.github.modelcontextprotocol/everything@2026.1.14',
      'io.github.modelcontextprotocol/fetch@2025.4.7',
      'io.github.modelcontextprotocol/filesystem@2026.1.14',
    ]);
    assert.equal(pages, 2);
    const latest = await client.latest('io.github.github/github-mcp-server');
    assert.equal(latest.server.version, '0.24.1');
    assert.deepEqual(latest.meta['io.modelcontextprotocol.registry/official'], {
      status: 'active',
      publishedAt: '2026-01-14T10:00:00Z',
      isLatest: true,
    });
  });

  it('makes an entry per package type and remote, asking for what is required; each loads as a valid server', async () => {
    const client = new RegistryClient(await startRegistry(cleanup));
    const entryOf = async (name: string, kind: 'package' | 'remote' = 'package') => {
      const { server } = await client.latest(name);
      const option = installOptions(server).find((candidate) => candidate.choice.kind === kind);
      assert.ok(option && !option.unsupported, `${name}: ${option?.unsupported}`);
      return entryFromRegistry(server, option.choice);
    };

    const everything = await entryOf('io.github.modelcontextprotocol/everything');
    assert.deepEqual(everything.entry, { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything@2026.1.14'] });
    assert.equal(everything.name, 'everything');

    const filesystem = await entryOf('io.github.modelcontextprotocol/filesystem');
    assert.deepEqual(filesystem.entry.args, [
      '-y',
      '@modelcontextprotocol/server-filesystem@2026.1.14',
      '${input:filesystem-allowed-directory}',
    ]);
    assert.deepEqual(filesystem.inputs, [
      { id: 'filesystem-allowed-directory', secret: false, description: 'A directory the server may access' },
    ]);
    assert.deepEqual(
      ((await load('filesystem', filesystem.entry)) as StdioServerDefinition).args.at(-1),
      'answer-for-filesystem-allowed-directory',
    );

    const fetchServer = await entryOf('io.github.modelcontextprotocol/fetch');
    assert.deepEqual(fetchServer.entry, {
      command: 'uvx',
      args: ['mcp-server-fetch==2025.4.7', '--user-agent', 'ModelContextProtocol/1.0'],
    });

    const github = await entryOf('io.github.github/github-mcp-server');
    assert.equal(github.name, 'github');
    assert.deepEqual(github.entry, {
      command: 'docker',
      args: ['run', '-i', '--rm', '-e', 'GITHUB_PERSONAL_ACCESS_TOKEN', '-e', 'GITHUB_TOOLSETS', 'ghcr.io/github/github-mcp-server:0.24.1'],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${input:github-github-personal-access-token}', GITHUB_TOOLSETS: 'repos,issues' },
    });
    const loadedGithub = await load('github', github.entry);
    assert.ok(loadedGithub.secrets.includes('answer-for-github-github-personal-access-token'), 'the token is a secret: redacted in logs');

    const remote = await entryOf('io.github.github/github-mcp-server', 'remote');
    assert.deepEqual(remote.entry, {
      type: 'http',
      url: 'https://api.githubcopilot.com/mcp/',
      headers: { Authorization: 'Bearer ${input:github-token}' },
    });
    assert.deepEqual(remote.inputs, [{ id: 'github-token', secret: true, description: 'A GitHub token' }]);

    const nuget = await entryOf('io.github.example/nuget-sample');
    assert.deepEqual(nuget.entry, { command: 'dnx', args: ['Example.McpServer@0.3.0', '--yes', '--', '--region', 'eu'] });
    for (const made of [everything, fetchServer, nuget, remote]) await load(made.name, made.entry);
  });

  it('says which package it cannot run, and why', async () => {
    const client = new RegistryClient(await startRegistry(cleanup));
    const { server } = await client.latest('io.github.example/bundle-only');
    const [option] = installOptions(server);
    assert.match(option?.unsupported ?? '', /a mcpb package, which Switchboard cannot run/);
    assert.equal(registryServerName('io.github.someone/mcp-server-weather'), 'weather');
  });

  it('reports a registry that is down, answers garbage, or lists a document that is not server.json', async () => {
    await assert.rejects(
      new RegistryClient(await startRegistry(cleanup, ['--fault', 'down'])).search(''),
      (error: unknown) => error instanceof RegistryError && error.code === 'HTTP_ERROR' && /HTTP 503/.test(error.message),
    );
    await assert.rejects(
      new RegistryClient(await startRegistry(cleanup, ['--fault', 'garbage'])).search(''),
      (error: unknown) => error instanceof RegistryError && error.code === 'BAD_RESPONSE' && /not JSON/.test(error.message),
    );
    const page = await new RegistryClient(await startRegistry(cleanup, ['--fault', 'bad-document'])).search('');
    assert.ok(page.servers.length > 0);
    assert.deepEqual(page.skipped, ['io.example/broken: description: Invalid input: expected string, received undefined']);
    await assert.rejects(
      new RegistryClient('http://127.0.0.1:9').search(''),
      (error: unknown) => error instanceof RegistryError && error.code === 'UNREACHABLE',
    );
    await assert.rejects(
      new RegistryClient(await startRegistry(cleanup)).latest('io.example/nope'),
      (error: unknown) => error instanceof RegistryError && error.code === 'NOT_FOUND',
    );
  });

  it('gives up on a registry that does not answer, after its timeout', async () => {
    const never = (_url: string, init: { signal: AbortSignal }) =>
      new Promise<Response>((_resolve, reject) => init.signal.addEventListener('abort', () => reject(init.signal.reason)));
    await assert.rejects(
      new RegistryClient('http://registry.test', never, 30).search('x'),
      (error: unknown) => error instanceof RegistryError && error.code === 'TIMEOUT',
    );
  });
});
