// Other clients' files as sources: each format's fields mapped faithfully, what has no equivalent
// named, hostile files refused with a clear diagnostic. The files are real-shaped, from
// test/fixtures/client-configs/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { nodeFileSystem } from '../../../src/core/config/fileSystem';
import {
  isWorkspaceDefinedSource,
  loadConfiguration,
  sourceFiles,
  vscodeUserDir,
  type ConfigurationInput,
  type HttpServerDefinition,
  type ServerDefinition,
  type StdioServerDefinition,
} from '../../../src/core/config';
import { assertDiagnostics, baseInput, expectInvalid, expectValid, noInputs, TempDirs } from './helpers';

const corpus = path.resolve(__dirname, '../../fixtures/client-configs');
const read = (name: string) => fs.readFileSync(path.join(corpus, name), 'utf8');

describe("config: other clients' files as sources", () => {
  const dirs = new TempDirs();
  afterEach(() => dirs.cleanup());

  function machine(extra: Partial<ConfigurationInput> = {}) {
    const home = dirs.make('mcp-home-');
    const workspace = dirs.make('mcp-ws-');
    const env = {
      HOME: home,
      SENTRY_TOKEN: 'sentry-secret',
      GITHUB_TOKEN: 'gh-secret',
      GITHUB_PAT: 'pat-secret',
      FIGMA_OAUTH_TOKEN: 'figma-secret',
      FIGMA_TEAM: 'design',
      DATABASE_URL: 'postgres://db',
      PROJECT_API_KEY: 'k',
      EXAMPLE_KEY: 'ex',
    };
    const input = (sources: string[]) =>
      baseInput({ userHome: home, env, workspaceFolders: [{ name: 'ws', path: workspace }], sources, ...extra });
    return { home, workspace, input };
  }

  const byName = (servers: ReadonlyArray<ServerDefinition | { name: string }>, name: string) => {
    const found = servers.find((server) => server.name === name);
    assert.ok(found, `server ${name}`);
    return expectValid(found as ServerDefinition);
  };
  const stdio = (server: ServerDefinition) => {
    assert.equal(server.transport, 'stdio');
    return server as StdioServerDefinition;
  };
  const http = (server: ServerDefinition) => {
    assert.notEqual(server.transport, 'stdio');
    return server as HttpServerDefinition;
  };

  it("mcpJsonPortable: the wrapped and the bare .mcp.json, with Claude Code's ${VAR} and ${VAR:-default}", async () => {
    const { workspace, input } = machine();
    const file = dirs.write(workspace, '.mcp.json', read('portable.mcp.json'));
    const loaded = await loadConfiguration(input(['mcpJsonPortable']), noInputs);
    assert.deepEqual(loaded.diagnostics, []);
    const memory = stdio(byName(loaded.servers, 'memory'));
    assert.deepEqual(memory.args, ['-y', '@modelcontextprotocol/server-memory']);
    assert.match(memory.env.MEMORY_FILE_PATH ?? '', /\.memory\.json$/);
    assert.ok(!(memory.env.MEMORY_FILE_PATH ?? '').includes('${'));
    assert.deepEqual(memory.source, { kind: 'mcpJsonPortable', file });
    const sentry = http(byName(loaded.servers, 'sentry'));
    assert.equal(sentry.transport, 'http');
    assert.equal(sentry.headers.Authorization, 'Bearer sentry-secret');
    assert.equal(http(byName(loaded.servers, 'linear')).transport, 'sse');

    dirs.write(workspace, '.mcp.json', read('portable-bare.mcp.json'));
    const bare = await loadConfiguration(input(['mcpJsonPortable']), noInputs);
    assert.deepEqual(bare.diagnostics, []);
    assert.equal(http(byName(bare.servers, 'context7')).transport, 'http');
    assert.deepEqual(stdio(byName(bare.servers, 'git')).args, ['mcp-server-git', '--repository', workspace]);
  });

  it('an empty file is no source (a sandbox’s placeholder is one): no servers, no error', async () => {
    const { workspace, home, input } = machine();
    dirs.write(workspace, '.mcp.json', '');
    fs.mkdirSync(path.join(home, '.gemini'), { recursive: true });
    dirs.write(path.join(home, '.gemini'), 'settings.json', '  \n');
    const loaded = await loadConfiguration(input(['mcpJsonPortable', 'gemini']), noInputs);
    assert.deepEqual(loaded.servers, []);
    assert.deepEqual(loaded.diagnostics, []);
  });

  it("vscodeUserMcpJson: the editor's user mcp.json, with its inputs, from the given User folder or the platform default", async () => {
    const { home, input } = machine();
    const userDir = path.join(home, 'profile', 'User');
    dirs.write(userDir, 'mcp.json', read('vscode-user-mcp.json'));
    const asked: string[] = [];
    const loaded = await loadConfiguration(
      { ...input(['vscodeUserMcpJson']), editorUserDir: userDir },
      {
        resolve: async (request) => {
          asked.push(request.id);
          return 'pat-value';
        },
      },
    );
    assert.deepEqual(loaded.diagnostics, []);
    assert.equal(http(byName(loaded.servers, 'github')).headers.Authorization, 'Bearer pat-value');
    assert.deepEqual(asked, ['github-pat']);
    assert.equal(vscodeUserDir({ platform: 'linux', userHome: '/home/u', env: {} }), '/home/u/.config/Code/User');
    assert.equal(vscodeUserDir({ platform: 'darwin', userHome: '/Users/u', env: {} }), '/Users/u/Library/Application Support/Code/User');
    assert.equal(
      vscodeUserDir({ platform: 'win32', userHome: 'C:\\Users\\u', env: { APPDATA: 'D:\\Roaming' } }),
      'D:\\Roaming\\Code\\User',
    );
  });

  it("claudeCode: the open folder's project block first, then the user block; other projects are not read", async () => {
    const { home, workspace, input } = machine();
    const file = dirs.write(home, '.claude.json', read('claude.json').replace('{{WORKSPACE}}', workspace));
    const loaded = await loadConfiguration(input(['claudeCode']), noInputs);
    assert.deepEqual(
      loaded.servers.map((server) => server.name),
      ['postgres', 'shared-name', 'puppeteer'],
    );
    assert.deepEqual(stdio(byName(loaded.servers, 'postgres')).args, ['-y', '@modelcontextprotocol/server-postgres', 'postgres://db']);
    assert.equal(stdio(byName(loaded.servers, 'shared-name')).command, 'from-project-scope');
    assertDiagnostics(loaded.diagnostics, [
      {
        severity: 'warning',
        server: 'shared-name',
        path: 'mcpServers.shared-name',
        messageIncludes: `the Claude Code config (${file}) is ignored: the Claude Code config`,
      },
    ]);
    assert.equal(
      isWorkspaceDefinedSource(byName(loaded.servers, 'postgres').source, [workspace], path),
      false,
      "a file in the home folder is the user's own",
    );
  });

  describe('a large ~/.claude.json (its history beside the servers)', () => {
    /** About `megabytes` MB of history over many projects, with the open folder's block and the user's. */
    function bigClaudeJson(workspace: string, megabytes: number, extra = ''): string {
      const projects: Record<string, unknown> = {};
      const entry = { display: 'x'.repeat(1000), pastedContents: { 1: { type: 'text', content: 'y'.repeat(200) } } };
      for (let index = 0; index * 40 * 1300 < megabytes * 1024 * 1024; index++)
        projects[`/home/u/project-${index}`] = {
          history: Array.from({ length: 40 }, () => entry),
          mcpServers: { [`other-${index}`]: { command: 'never' } },
        };
      projects[workspace] = { mcpServers: { local: { command: 'node', args: ['local.js'] } }, allowedTools: [] };
      return JSON.stringify({
        numStartups: 7,
        projects,
        mcpServers: { global: { command: 'node', args: ['global.js'] } },
        tipsHistory: {},
      }).replace('"numStartups":7', `"numStartups":7${extra}`);
    }

    it("is read once, and gives the open folder's and the user's servers, not other projects'", async () => {
      const { home, workspace, input } = machine();
      dirs.write(home, '.claude.json', bigClaudeJson(workspace, 12));
      const reads: string[] = [];
      const counting = { readText: (file: string, maxBytes: number) => (reads.push(file), nodeFileSystem.readText(file, maxBytes)) };
      const loaded = await loadConfiguration({ ...input(['claudeCode']), fs: counting }, noInputs);
      assert.deepEqual(
        loaded.servers.map((server) => server.name),
        ['local', 'global'],
      );
      assert.deepEqual(loaded.diagnostics, []);
      assert.deepEqual(reads.filter((file) => file.endsWith('.claude.json')).length, 1);
    });

    it('one that does not parse still names the line of its error, once', async () => {
      const { home, workspace, input } = machine();
      dirs.write(home, '.claude.json', bigClaudeJson(workspace, 2, ',\n\n  "broken": ]'));
      const loaded = await loadConfiguration(input(['claudeCode']), noInputs);
      assert.deepEqual(loaded.servers, []);
      const errors = loaded.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
      assert.equal(errors.length > 0 && errors.every((diagnostic) => diagnostic.line === 3), true, JSON.stringify(errors.slice(0, 3)));
      assert.equal(
        new Set(errors.map((error) => `${error.line}:${error.column}:${error.message}`)).size,
        errors.length,
        'reported once, not once per block',
      );
    });

    it('servers that are not an object, or a value nested too deep in the history, are reported as for a small file', async () => {
      const { home, workspace, input } = machine();
      dirs.write(home, '.claude.json', bigClaudeJson(workspace, 2).replace('"mcpServers":{"global"', '"mcpServers":"nope","x":{"global"'));
      const wrong = await loadConfiguration(input(['claudeCode']), noInputs);
      assertDiagnostics(wrong.diagnostics, [
        { severity: 'error', path: 'mcpServers', messageIncludes: 'expected an object keyed by server name' },
      ]);
      dirs.write(home, '.claude.json', bigClaudeJson(workspace, 2, `,"deep":${'['.repeat(100)}${']'.repeat(100)}`));
      const deep = await loadConfiguration(input(['claudeCode']), noInputs);
      assert.deepEqual(
        deep.servers.map((server) => server.name),
        ['local', 'global'],
      );
      assert.ok(
        deep.diagnostics.some((diagnostic) => /nested more than 64 levels deep/.test(diagnostic.message)),
        JSON.stringify(deep.diagnostics),
      );
    });
  });

  it('copilotCli: type local is stdio, a tools list is an allow list, ["*"] is all', async () => {
    const { home, input } = machine();
    dirs.write(home, '.copilot/mcp-config.json', read('copilot-mcp-config.json'));
    const loaded = await loadConfiguration(input(['copilotCli']), noInputs);
    assert.deepEqual(loaded.diagnostics, []);
    const github = http(byName(loaded.servers, 'github'));
    assert.equal(github.headers.Authorization, 'Bearer gh-secret');
    assert.deepEqual(github.tools, {});
    assert.deepEqual(stdio(byName(loaded.servers, 'filesystem')).tools.allow, ['read_file', 'list_directory']);
  });

  it('codex: config.toml tables, secrets kept as variables, enabled, tool lists, timeouts in seconds; what has no equivalent is named', async () => {
    const { home, input } = machine();
    const file = dirs.write(home, '.codex/config.toml', read('codex-config.toml'));
    const loaded = await loadConfiguration(input(['codex']), noInputs);
    assert.deepEqual(
      loaded.servers.map((server) => server.name),
      ['docs', 'figma', 'paused', 'dotted.name'],
    );
    const docs = stdio(byName(loaded.servers, 'docs'));
    assert.deepEqual(docs.env, { DOCS_ROOT: '/srv/docs' });
    assert.deepEqual(docs.timeouts, { ...docs.timeouts, connectMs: 20_000, requestMs: 45_500 });
    const figma = http(byName(loaded.servers, 'figma'));
    assert.deepEqual(figma.headers, { 'X-Figma-Region': 'us-east-1', 'X-Team': 'design', Authorization: 'Bearer figma-secret' });
    assert.deepEqual(figma.tools, { allow: ['get_file', 'get_comments'], deny: ['post_comment'] });
    assert.equal(byName(loaded.servers, 'paused').enabled, false);
    assertDiagnostics(loaded.diagnostics, [
      {
        severity: 'warning',
        server: 'paused',
        path: 'mcp_servers.paused.oauth_resource',
        messageIncludes: 'Codex\'s field "oauth_resource" has no equivalent',
      },
    ]);
    assert.deepEqual(loaded.diagnostics[0]?.source, { kind: 'codex', file });
  });

  it('gemini: httpUrl is streamable HTTP, url is SSE, $VAR, include/exclude lists, timeout; trust is named, not carried', async () => {
    const { home, workspace, input } = machine();
    dirs.write(home, '.gemini/settings.json', read('gemini-user-settings.json'));
    const workspaceFile = dirs.write(workspace, '.gemini/settings.json', read('gemini-workspace-settings.json'));
    const loaded = await loadConfiguration(input(['gemini']), noInputs);
    assert.deepEqual(
      loaded.servers.map((server) => server.name),
      ['project-tool', 'github', 'events', 'fs'],
    );
    const github = http(byName(loaded.servers, 'github'));
    assert.equal(github.transport, 'http');
    assert.equal(github.headers.Authorization, 'Bearer pat-secret');
    assert.equal(github.timeouts.requestMs, 30_000);
    assert.equal(http(byName(loaded.servers, 'events')).transport, 'sse');
    assert.deepEqual(stdio(byName(loaded.servers, 'fs')).tools, { allow: ['read_file', 'list_directory'], deny: ['write_file'] });
    assertDiagnostics(loaded.diagnostics, [
      {
        severity: 'warning',
        server: 'fs',
        path: 'mcpServers.fs.trust',
        messageIncludes: '"trust": true (no confirmations) is not carried over',
      },
    ]);
    // The workspace's own file is written by whoever wrote the repository: trust and consent apply.
    assert.equal(isWorkspaceDefinedSource({ kind: 'gemini', file: workspaceFile }, [workspace], path), true);
  });

  it('windsurf: serverUrl, disabled and disabledTools', async () => {
    const { home, input } = machine();
    dirs.write(home, '.codeium/windsurf/mcp_config.json', read('windsurf-mcp_config.json'));
    const loaded = await loadConfiguration(input(['windsurf']), noInputs);
    assert.deepEqual(loaded.diagnostics, []);
    assert.equal(http(byName(loaded.servers, 'remote')).headers['X-Api-Key'], 'ex');
    const git = byName(loaded.servers, 'git');
    assert.equal(git.enabled, false);
    assert.deepEqual(git.tools.deny, ['git_push']);
  });

  it('precedence over every source is fixed, and a clash names both places', async () => {
    const { home, workspace, input } = machine();
    dirs.write(workspace, '.mcp.json', '{ "mcpServers": { "same": { "command": "portable" } } }');
    const codex = dirs.write(home, '.codex/config.toml', '[mcp_servers.same]\ncommand = "codex"\n');
    dirs.write(home, '.codeium/windsurf/mcp_config.json', '{ "mcpServers": { "same": { "command": "windsurf" } } }');
    const loaded = await loadConfiguration(input(['windsurf', 'codex', 'mcpJsonPortable']), noInputs);
    assert.equal(stdio(byName(loaded.servers, 'same')).command, 'portable');
    assert.equal(loaded.diagnostics.length, 2);
    assert.ok(loaded.diagnostics.some((item) => item.message.includes(`the Codex config (${codex}) is ignored: .mcp.json`)));
    assert.equal(isWorkspaceDefinedSource(byName(loaded.servers, 'same').source, [workspace], path), true);
  });

  describe('hostile files', () => {
    it('a TOML syntax error names its line and column, and the file adds nothing', async () => {
      const { home, input } = machine();
      dirs.write(home, '.codex/config.toml', read('codex-broken.toml'));
      const loaded = await loadConfiguration(input(['codex']), noInputs);
      assert.deepEqual(loaded.servers, []);
      assertDiagnostics(loaded.diagnostics, [
        { severity: 'error', path: '', messageIncludes: 'TOML error at line 4, column 2: trying to redefine' },
      ]);
    });

    it('nesting past the limit, in TOML and in JSON, is refused or cut, never a stack overflow', async () => {
      const { home, workspace, input } = machine();
      dirs.write(home, '.codex/config.toml', `[mcp_servers.deep]\ncommand = "x"\nargs = ${'['.repeat(5_000)}${']'.repeat(5_000)}\n`);
      dirs.write(
        workspace,
        '.mcp.json',
        `{ "mcpServers": { "deep": { "command": "x", "env": ${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)} } } }`,
      );
      const loaded = await loadConfiguration(input(['codex', 'mcpJsonPortable']), noInputs);
      assert.ok(
        loaded.diagnostics.some((item) => item.source?.kind === 'codex' && /TOML error/.test(item.message)),
        JSON.stringify(loaded.diagnostics),
      );
      assert.ok(
        loaded.diagnostics.some((item) => item.source?.kind === 'mcpJsonPortable' && /nested/.test(item.message)),
        JSON.stringify(loaded.diagnostics),
      );
      expectInvalid(loaded.servers.find((server) => server.name === 'deep') as ServerDefinition);
    });

    it("a file over its limit is refused unread; Claude Code's may be larger (it keeps history)", async () => {
      const { home, input } = machine();
      dirs.write(home, '.gemini/settings.json', `{ "mcpServers": {}, "pad": "${'x'.repeat(4 * 1024 * 1024 + 10)}" }`);
      dirs.write(home, '.claude.json', `{ "mcpServers": { "ok": { "command": "x" } }, "history": "${'x'.repeat(5 * 1024 * 1024)}" }`);
      const loaded = await loadConfiguration(input(['gemini', 'claudeCode']), noInputs);
      assertDiagnostics(loaded.diagnostics, [{ severity: 'error', path: '', messageIncludes: 'the limit is 4194304' }]);
      assert.deepEqual(
        loaded.servers.map((server) => server.name),
        ['ok'],
      );
    });

    it('UTF-16, a duplicate server and a wrong shape each say what is wrong', async () => {
      const { home, input } = machine();
      fs.mkdirSync(path.join(home, '.copilot'), { recursive: true });
      fs.writeFileSync(path.join(home, '.copilot', 'mcp-config.json'), Buffer.from(`\ufeff${read('copilot-mcp-config.json')}`, 'utf16le'));
      dirs.write(
        home,
        '.codeium/windsurf/mcp_config.json',
        '{ "mcpServers": { "twice": { "command": "a" }, "twice": { "command": "b" } } }',
      );
      dirs.write(home, '.gemini/settings.json', '{ "mcpServers": ["not", "a", "map"] }');
      const loaded = await loadConfiguration(input(['copilotCli', 'windsurf', 'gemini']), noInputs);
      assert.ok(loaded.diagnostics.some((item) => item.source?.kind === 'copilotCli' && /save it as UTF-8/.test(item.message)));
      assert.ok(loaded.diagnostics.some((item) => item.source?.kind === 'windsurf' && /twice/.test(item.message)));
      assert.ok(
        loaded.diagnostics.some(
          (item) =>
            item.source?.kind === 'gemini' && item.path === 'mcpServers' && /expected an object keyed by server name/.test(item.message),
        ),
      );
      assert.equal(stdio(byName(loaded.servers, 'twice')).command, 'b');
    });
  });

  it('lists every file it consults, so the editor can watch them (present or not)', () => {
    const files = sourceFiles(new Set(['mcpJsonPortable', 'codex', 'claudeCode']), {
      workspaceFolders: [{ name: 'w', path: '/w' }],
      userHome: '/h',
      platform: 'linux',
      paths: path.posix,
      env: { CODEX_HOME: '/codex' },
    });
    assert.deepEqual(
      files.map((file) => [file.kind, file.file, file.serversAt]),
      [
        ['mcpJsonPortable', '/w/.mcp.json', [['mcpServers'], []]],
        ['claudeCode', '/h/.claude.json', [['projects', '/w', 'mcpServers']]],
        ['claudeCode', '/h/.claude.json', [['mcpServers']]],
        ['codex', '/codex/config.toml', [['mcp_servers']]],
      ],
    );
  });
});
