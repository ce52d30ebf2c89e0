import assert from 'node:assert/strict';
import path from 'node:path';
import { loadFolderConfiguration, readWorkspaceSettingsFile, settingsEntries, USER_SETTINGS_ENV } from '../../../src/core/config';
import { TempDirs } from './helpers';

describe('config: readWorkspaceSettingsFile', () => {
  const dirs = new TempDirs();
  afterEach(() => dirs.cleanup());

  it('returns the settings it reads from a JSONC file', async () => {
    const dir = dirs.make();
    const file = dirs.write(
      dir,
      '.vscode/settings.json',
      `{
      // comment
      "editor.tabSize": 2,
      "mcpSwitchboard.servers": { "git": { "command": "git-mcp", }, },
      "mcpSwitchboard.sources": ["settings", "mcpJson"],
      "mcpSwitchboard.defaultLifecycle": "lazy",
      "mcpSwitchboard.defaultIdleStopMinutes": 30,
      "mcpSwitchboard.sandbox.enabled": true,
      "mcpSwitchboard.sandbox.rules": { "network": { "allowedDomains": ["a.com"] } },
    }`,
    );
    const settings = await readWorkspaceSettingsFile(dir);
    assert.deepEqual(settings, {
      file,
      source: { kind: 'workspace', file },
      servers: { git: { command: 'git-mcp' } },
      sources: ['settings', 'mcpJson'],
      lifecycleDefaults: { lifecycle: 'lazy', idleStopMinutes: 30 },
      sandboxDefaults: { enabled: true, rules: { network: { allowedDomains: ['a.com'] } } },
      diagnostics: [],
      unreadable: false,
    });
  });

  it('returns nothing for a missing file or absent keys', async () => {
    const dir = dirs.make();
    const missing = await readWorkspaceSettingsFile(dir);
    assert.equal(missing.servers, undefined);
    assert.deepEqual(missing.diagnostics, []);
    assert.equal(missing.file, path.join(dir, '.vscode', 'settings.json'));
    dirs.write(dir, '.vscode/settings.json', '{ "files.eol": "\\n" }');
    const absent = await readWorkspaceSettingsFile(dir);
    assert.equal(absent.servers, undefined);
    assert.equal(absent.sources, undefined);
    assert.deepEqual(absent.diagnostics, []);
  });

  it('reports a parse error with line and column and returns no values', async () => {
    const dir = dirs.make();
    dirs.write(dir, '.vscode/settings.json', '{\n  "mcpSwitchboard.servers": {\n    "a": { "command" "x" }\n  }\n}');
    const settings = await readWorkspaceSettingsFile(dir);
    assert.equal(settings.servers, undefined);
    assert.equal(settings.diagnostics.length, 1);
    assert.deepEqual(
      { line: settings.diagnostics[0]?.line, column: settings.diagnostics[0]?.column, severity: settings.diagnostics[0]?.severity },
      { line: 3, column: 22, severity: 'error' },
    );
    assert.match(settings.diagnostics[0]?.message ?? '', /colon expected/);
  });

  it('reports a top level that is not an object', async () => {
    const dir = dirs.make();
    dirs.write(dir, '.vscode/settings.json', '"just a string"');
    const settings = await readWorkspaceSettingsFile(dir);
    assert.equal(settings.diagnostics.length, 1);
    assert.match(settings.diagnostics[0]?.message ?? '', /top level/);
  });
});

describe('config: settingsEntries', () => {
  const source = { kind: 'folder', file: '/f/.vscode/settings.json' } as const;

  it('keeps key order and the source', () => {
    const result = settingsEntries({ b: { command: 'b' }, a: 1 }, source);
    assert.deepEqual(result, {
      entries: [
        { name: 'b', raw: { command: 'b' }, source },
        { name: 'a', raw: 1, source },
      ],
      diagnostics: [],
    });
  });

  for (const value of [undefined, null]) {
    it(`${String(value)} means no servers`, () => assert.deepEqual(settingsEntries(value, source), { entries: [], diagnostics: [] }));
  }

  for (const value of [[], 'x', 3]) {
    it(`${JSON.stringify(value)} is an error`, () => {
      const result = settingsEntries(value, source);
      assert.deepEqual(result.entries, []);
      assert.equal(result.diagnostics.length, 1);
      assert.equal(result.diagnostics[0]?.path, 'mcpSwitchboard.servers');
    });
  }
});

describe("config: a folder with the editor's user settings (what serve --stdio gets from the editor's Share)", () => {
  const dirs = new TempDirs();
  afterEach(() => dirs.cleanup());

  it("adds the user's servers under the folder's, takes sandboxing from the user alone", async () => {
    const folder = dirs.make();
    dirs.write(
      folder,
      '.vscode/settings.json',
      JSON.stringify({
        'mcpSwitchboard.servers': { shared: { command: 'from-folder' }, own: { command: 'folder-only' } },
        // A workspace cannot turn sandboxing off, in the editor or here.
        'mcpSwitchboard.sandbox.enabled': false,
      }),
    );
    const editor = dirs.make();
    const userSettings = dirs.write(
      editor,
      'User/settings.json',
      JSON.stringify({
        'mcpSwitchboard.servers': { shared: { command: 'from-user' }, mine: { command: 'user-only' } },
        'mcpSwitchboard.sandbox.enabled': true,
      }),
    );
    const loaded = await loadFolderConfiguration(folder, { env: { [USER_SETTINGS_ENV]: userSettings } });
    assert.equal(loaded.kind, 'loaded');
    if (loaded.kind !== 'loaded') return;
    const byName = new Map(loaded.servers.map((server) => [server.name, server]));
    assert.deepEqual([...byName.keys()].sort(), ['mine', 'own', 'shared']);
    const command = (name: string) => {
      const server = byName.get(name);
      return server && 'transport' in server && server.transport === 'stdio' ? server.command : undefined;
    };
    assert.equal(command('shared'), 'from-folder', 'the folder wins a clash, silently, as the editor merges scopes');
    assert.equal(command('mine'), 'user-only');
    assert.deepEqual(byName.get('mine')?.source, { kind: 'user', file: userSettings });
    for (const name of ['mine', 'own', 'shared']) {
      const server = byName.get(name);
      assert.ok(server && 'sandbox' in server && server.sandbox?.enabled, `${name} runs sandboxed: the user's setting`);
    }
    // Without the user's file: the folder's servers only, as before.
    const alone = await loadFolderConfiguration(folder, { env: {} });
    assert.deepEqual(alone.kind === 'loaded' ? alone.servers.map((server) => server.name).sort() : [], ['own', 'shared']);
  });
});
