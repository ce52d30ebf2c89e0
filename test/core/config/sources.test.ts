import assert from 'node:assert/strict';
import path from 'node:path';
import {
  claudeDesktopConfigPath,
  loadConfiguration,
  type ConfigFileSystem,
  type ConfigurationInput,
  type SettingsEntry,
} from '../../../src/core/config';
import { parseSourceList } from '../../../src/core/config/sources';
import { assertDiagnostics, baseInput, expectInvalid, expectValid, noInputs, TempDirs, USER } from './helpers';

describe('config: mcpSwitchboard.sources', () => {
  const rows: ReadonlyArray<readonly [string, unknown, string[], number]> = [
    ['undefined means settings only', undefined, ['settings'], 0],
    ['all four', ['settings', 'mcpJson', 'cursor', 'claudeDesktop'], ['settings', 'mcpJson', 'cursor', 'claudeDesktop'], 0],
    ['empty list', [], [], 0],
    ['not an array falls back to settings', 'mcpJson', ['settings'], 1],
    ['unknown names are skipped', ['mcpJson', 'vscodeInsiders', 3], ['mcpJson'], 2],
  ];
  for (const [title, value, expected, diagnostics] of rows) {
    it(title, () => {
      const parsed = parseSourceList(value, USER);
      assert.deepEqual([...parsed.sources].sort(), [...expected].sort());
      assert.equal(parsed.diagnostics.length, diagnostics);
    });
  }
});

describe('config: Claude Desktop location', () => {
  const rows: ReadonlyArray<readonly [NodeJS.Platform, string, Record<string, string>, string]> = [
    ['linux', '/home/u', {}, '/home/u/.config/Claude/claude_desktop_config.json'],
    ['darwin', '/Users/u', {}, '/Users/u/Library/Application Support/Claude/claude_desktop_config.json'],
    ['win32', 'C:\\Users\\u', { APPDATA: 'D:\\Roaming' }, 'D:\\Roaming\\Claude\\claude_desktop_config.json'],
    ['win32', 'C:\\Users\\u', {}, 'C:\\Users\\u\\AppData\\Roaming\\Claude\\claude_desktop_config.json'],
  ];
  for (const [platform, userHome, env, expected] of rows) {
    it(`${platform}${env.APPDATA ? ' with APPDATA' : ''}`, () => {
      assert.equal(claudeDesktopConfigPath({ platform, userHome, env }), expected);
    });
  }
});

describe('config: file sources', () => {
  const dirs = new TempDirs();
  afterEach(() => dirs.cleanup());

  function machine(): { home: string; workspace: string; input: (extra: Partial<ConfigurationInput>) => ConfigurationInput } {
    const home = dirs.make('mcp-home-');
    const workspace = dirs.make('mcp-ws-');
    return {
      home,
      workspace,
      input: (extra) => baseInput({ userHome: home, workspaceFolders: [{ name: 'ws', path: workspace }], ...extra }),
    };
  }

  it('reads every source with its kind and file, in precedence order', async () => {
    const { home, workspace, input } = machine();
    const mcpJson = dirs.write(
      workspace,
      '.vscode/mcp.json',
      '// editor format\n{ "servers": { "a": { "command": "a" }, }, "inputs": [] }',
    );
    const cursorWs = dirs.write(workspace, '.cursor/mcp.json', '{ "mcpServers": { "b": { "url": "https://b.test" } } }');
    const cursorHome = dirs.write(home, '.cursor/mcp.json', '{ "mcpServers": { "c": { "command": "c" } } }');
    const claude = dirs.write(
      home,
      '.config/Claude/claude_desktop_config.json',
      '{ "globalShortcut": "", "mcpServers": { "d": { "command": "d", "args": [] } } }',
    );
    const entries: SettingsEntry[] = [{ name: 's', raw: { command: 's' }, source: { kind: 'workspace', file: '/x/settings.json' } }];
    const loaded = await loadConfiguration(input({ entries, sources: ['claudeDesktop', 'cursor', 'mcpJson', 'settings'] }), noInputs);
    assert.deepEqual(loaded.diagnostics, []);
    assert.deepEqual(
      loaded.servers.map((server) => [server.name, server.source]),
      [
        ['s', { kind: 'workspace', file: '/x/settings.json' }],
        ['a', { kind: 'mcpJson', file: mcpJson }],
        ['b', { kind: 'cursor', file: cursorWs }],
        ['c', { kind: 'cursor', file: cursorHome }],
        ['d', { kind: 'claudeDesktop', file: claude }],
      ],
    );
    loaded.servers.forEach(expectValid);
  });

  it('ignores sources that are not enabled and files that do not exist', async () => {
    const { workspace, input } = machine();
    dirs.write(workspace, '.vscode/mcp.json', '{ "servers": { "a": { "command": "a" } } }');
    const settingsOnly = await loadConfiguration(input({}), noInputs);
    assert.deepEqual(settingsOnly, { servers: [], diagnostics: [], files: [], teams: [] });
    const allMissing = await loadConfiguration(input({ sources: ['cursor', 'claudeDesktop'] }), noInputs);
    assert.deepEqual({ ...allMissing, files: [] }, { servers: [], diagnostics: [], files: [], teams: [] });
    // Missing files are still consulted, and watched: creating one adds its servers.
    assert.equal(allMissing.files.length, 3);
  });

  it('warns when settings servers exist but "settings" is not a source', async () => {
    const { input } = machine();
    const loaded = await loadConfiguration(
      input({ sources: ['mcpJson'], entries: [{ name: 's', raw: { command: 's' }, source: USER }] }),
      noInputs,
    );
    assert.deepEqual(loaded.servers, []);
    assertDiagnostics(loaded.diagnostics, [
      { severity: 'warning', path: 'mcpSwitchboard.sources', messageIncludes: '"settings" is not listed' },
    ]);
  });

  it('settles name clashes deterministically and names both places', async () => {
    const { home, workspace, input } = machine();
    const mcpJson = dirs.write(
      workspace,
      '.vscode/mcp.json',
      '{ "servers": { "git": { "command": "from-mcp-json" }, "db": { "command": "db-mcp" } } }',
    );
    const cursor = dirs.write(
      home,
      '.cursor/mcp.json',
      '{ "mcpServers": { "db": { "command": "db-cursor" }, "web": { "url": "https://cursor.test" } } }',
    );
    const claude = dirs.write(
      home,
      '.config/Claude/claude_desktop_config.json',
      '{ "mcpServers": { "web": { "command": "web-claude" }, "git": { "command": "git-claude" } } }',
    );
    const entries: SettingsEntry[] = [
      { name: 'git', raw: { command: 'from-settings' }, source: { kind: 'user', file: '/u/settings.json' } },
    ];
    const loaded = await loadConfiguration(input({ entries, sources: ['settings', 'mcpJson', 'cursor', 'claudeDesktop'] }), noInputs);
    const winners = loaded.servers
      .map(expectValid)
      .map((server) => [server.name, server.transport === 'stdio' ? server.command : server.url]);
    assert.deepEqual(winners, [
      ['git', 'from-settings'],
      ['db', 'db-mcp'],
      ['web', 'https://cursor.test'],
    ]);
    assertDiagnostics(loaded.diagnostics, [
      {
        severity: 'warning',
        server: 'git',
        path: 'servers.git',
        messageIncludes: `.vscode/mcp.json (${mcpJson}) is ignored: user settings (/u/settings.json)`,
      },
      {
        severity: 'warning',
        server: 'db',
        path: 'mcpServers.db',
        messageIncludes: `the Cursor config (${cursor}) is ignored: .vscode/mcp.json (${mcpJson})`,
      },
      {
        severity: 'warning',
        server: 'web',
        path: 'mcpServers.web',
        messageIncludes: `the Claude Desktop config (${claude}) is ignored: the Cursor config (${cursor})`,
      },
      {
        severity: 'warning',
        server: 'git',
        path: 'mcpServers.git',
        messageIncludes: `the Claude Desktop config (${claude}) is ignored: user settings`,
      },
    ]);
    const clash = loaded.diagnostics.find((item) => item.path === 'mcpServers.db');
    assert.deepEqual(clash?.source, { kind: 'cursor', file: cursor });
  });

  it('the first workspace folder wins between two mcp.json files', async () => {
    const first = dirs.make();
    const second = dirs.make();
    dirs.write(first, '.vscode/mcp.json', '{ "servers": { "x": { "command": "first" } } }');
    dirs.write(second, '.vscode/mcp.json', '{ "servers": { "x": { "command": "second" } } }');
    const loaded = await loadConfiguration(
      baseInput({
        sources: ['mcpJson'],
        workspaceFolders: [
          { name: 'one', path: first },
          { name: 'two', path: second },
        ],
      }),
      noInputs,
    );
    assert.equal(loaded.servers.length, 1);
    const server = expectValid(loaded.servers[0] ?? assert.fail());
    assert.equal(server.transport === 'stdio' && server.command, 'first');
    assert.equal(loaded.diagnostics.length, 1);
  });

  it('a narrower settings scope overrides a wider one silently', async () => {
    const entries: SettingsEntry[] = [
      { name: 'x', raw: { command: 'user' }, source: { kind: 'user' } },
      { name: 'x', raw: { command: 'folder' }, source: { kind: 'folder' } },
      { name: 'x', raw: { command: 'workspace' }, source: { kind: 'workspace' } },
    ];
    const loaded = await loadConfiguration(baseInput({ entries }), noInputs);
    assert.deepEqual(loaded.diagnostics, []);
    assert.equal(loaded.servers.length, 1);
    const server = expectValid(loaded.servers[0] ?? assert.fail());
    assert.equal(server.transport === 'stdio' && server.command, 'folder');
  });

  it('a broken file reports its parse errors with positions and does not affect other sources', async () => {
    const { home, workspace, input } = machine();
    const mcpJson = dirs.write(workspace, '.vscode/mcp.json', '{\n  "servers": {\n    "a": { "command": "a" \n  }\n');
    dirs.write(home, '.cursor/mcp.json', '{ "mcpServers": { "b": { "command": "b" } } }');
    const loaded = await loadConfiguration(input({ sources: ['mcpJson', 'cursor'] }), noInputs);
    assert.deepEqual(
      loaded.servers.map((server) => server.name),
      ['b'],
    );
    assert.ok(loaded.diagnostics.length > 0);
    for (const diagnostic of loaded.diagnostics) {
      assert.equal(diagnostic.severity, 'error');
      assert.deepEqual(diagnostic.source, { kind: 'mcpJson', file: mcpJson });
      assert.equal(typeof diagnostic.line, 'number');
      assert.equal(typeof diagnostic.column, 'number');
    }
    assert.match(loaded.diagnostics[0]?.message ?? '', /^JSON parse error at line \d+, column \d+: /);
  });

  it('reports a wrong top-level shape', async () => {
    const { home, workspace, input } = machine();
    dirs.write(workspace, '.vscode/mcp.json', '[1, 2]');
    dirs.write(home, '.cursor/mcp.json', '{ "mcpServers": ["a"] }');
    const loaded = await loadConfiguration(input({ sources: ['mcpJson', 'cursor'] }), noInputs);
    assertDiagnostics(loaded.diagnostics, [
      { severity: 'error', path: '', messageIncludes: 'expected a JSON object at the top level, got an array' },
      { severity: 'error', path: 'mcpServers', messageIncludes: 'expected an object keyed by server name' },
    ]);
  });

  it('invalid entries in a file point at the file path and key', async () => {
    const { home, input } = machine();
    const claude = dirs.write(
      home,
      '.config/Claude/claude_desktop_config.json',
      '{ "mcpServers": { "bad": { "command": "x", "args": "y" } } }',
    );
    const loaded = await loadConfiguration(input({ sources: ['claudeDesktop'] }), noInputs);
    assertDiagnostics(loaded.diagnostics, [
      { severity: 'error', server: 'bad', path: 'mcpServers.bad.args', messageIncludes: 'expected an array' },
    ]);
    assert.deepEqual(expectInvalid(loaded.servers[0] ?? assert.fail()).source, { kind: 'claudeDesktop', file: claude });
  });

  it('uses an injected file system, and reports read failures', async () => {
    const files: Record<string, string> = { '/ws/.vscode/mcp.json': '{ "servers": { "fake": { "command": "f" } } }' };
    const fakeFs: ConfigFileSystem = {
      async readText(file) {
        if (file === '/home/u/.cursor/mcp.json') return { kind: 'error', message: 'permission denied' };
        const text = files[file];
        return text === undefined ? { kind: 'missing' } : { kind: 'ok', text };
      },
    };
    const loaded = await loadConfiguration(
      baseInput({
        fs: fakeFs,
        userHome: '/home/u',
        workspaceFolders: [{ name: 'ws', path: '/ws' }],
        sources: ['mcpJson', 'cursor'],
      }),
      noInputs,
    );
    assert.deepEqual(
      loaded.servers.map((server) => server.name),
      ['fake'],
    );
    assertDiagnostics(loaded.diagnostics, [{ severity: 'error', path: '', messageIncludes: 'permission denied' }]);
  });

  it('refuses a file over the size limit without reading it', async () => {
    const { workspace, input } = machine();
    dirs.write(workspace, '.vscode/mcp.json', `{ "servers": {}, "pad": "${'p'.repeat(4 * 1024 * 1024)}" }`);
    const loaded = await loadConfiguration(input({ sources: ['mcpJson'] }), noInputs);
    assertDiagnostics(loaded.diagnostics, [{ severity: 'error', path: '', messageIncludes: 'the limit is 4194304' }]);
  });

  it('does not read the same file twice when the home directory is the workspace', async () => {
    const home = dirs.make();
    const file = dirs.write(home, '.cursor/mcp.json', '{ "mcpServers": { "c": { "command": "c" } } }');
    const loaded = await loadConfiguration(
      baseInput({ userHome: home, workspaceFolders: [{ name: 'home', path: home }], sources: ['cursor'] }),
      noInputs,
    );
    assert.deepEqual(loaded.diagnostics, []);
    assert.deepEqual(
      loaded.servers.map((server) => server.source),
      [{ kind: 'cursor', file: path.join(home, '.cursor', 'mcp.json') }],
    );
    assert.equal(file, path.join(home, '.cursor', 'mcp.json'));
  });
});
