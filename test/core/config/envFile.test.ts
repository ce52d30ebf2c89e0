import assert from 'node:assert/strict';
import path from 'node:path';
import { loadConfiguration } from '../../../src/core/config';
import { parseDotenv } from '../../../src/core/config/dotenv';
import { assertDiagnostics, baseInput, expectInvalid, expectValid, FOLDER, loadOne, noInputs, TempDirs } from './helpers';

describe('config: dotenv parsing', () => {
  const rows: ReadonlyArray<readonly [string, string, Record<string, string>, number?]> = [
    ['simple pairs', 'A=1\nB=two', { A: '1', B: 'two' }],
    ['export prefix and spaces around =', 'export A = 1\n  export B=2', { A: '1', B: '2' }],
    ['comments and blank lines', '# header\n\nA=1 # trailing\nB=x#not-a-comment', { A: '1', B: 'x#not-a-comment' }],
    ['double quotes with escapes', 'A="line1\\nline2 \\"q\\" \\\\"', { A: 'line1\nline2 "q" \\' }],
    ['single quotes are literal', "A='$x \\n # kept'", { A: '$x \\n # kept' }],
    ['comment after a quoted value', 'A="v" # note', { A: 'v' }],
    ['empty value', 'A=\nB=""', { A: '', B: '' }],
    ['multi-line double quotes', 'A="one\ntwo"\nB=3', { A: 'one\ntwo', B: '3' }],
    ['CRLF line endings', 'A=1\r\nB=2\r\n', { A: '1', B: '2' }],
    ['later duplicate wins', 'A=1\nA=2', { A: '2' }],
    ['${...} is not expanded', 'A=${HOME}', { A: '${HOME}' }],
    ['a line without = is reported and skipped', 'A=1\nnot a pair\nB=2', { A: '1', B: '2' }, 1],
    ['an unterminated quote is reported', 'A=1\nB="open', { A: '1' }, 1],
    ['text after a closing quote is reported', 'A="v" junk', { A: 'v' }, 1],
  ];
  for (const [title, text, values, problems = 0] of rows) {
    it(title, () => {
      const result = parseDotenv(text);
      assert.deepEqual(Object.fromEntries(result.values), values);
      assert.equal(result.problems.length, problems, JSON.stringify(result.problems));
    });
  }
});

describe('config: envFile', () => {
  const dirs = new TempDirs();
  afterEach(() => dirs.cleanup());

  it('merges envFile values first and env second, with variables in the envFile path', async () => {
    const workspace = dirs.make();
    dirs.write(workspace, 'conf/.env', 'SHARED=from-file\nONLY_FILE=1\nAPI_TOKEN=file-secret\n');
    const server = expectValid(
      (
        await loadOne(
          { command: 'x', envFile: '${workspaceFolder}/conf/.env', env: { SHARED: 'from-env', ONLY_ENV: '2' } },
          { workspaceFolders: [{ name: 'w', path: workspace }] },
        )
      ).server,
    );
    assert.deepEqual(server.transport === 'stdio' && server.env, {
      SHARED: 'from-env',
      ONLY_FILE: '1',
      API_TOKEN: 'file-secret',
      ONLY_ENV: '2',
    });
    assert.deepEqual(server.secrets, ['file-secret']);
  });

  it('resolves a relative envFile against the workspace folder that owns the entry', async () => {
    const first = dirs.make();
    const second = dirs.make();
    dirs.write(second, '.env', 'WHERE=second');
    dirs.write(second, '.vscode/mcp.json', JSON.stringify({ servers: { s: { command: 'x', envFile: '.env' } } }));
    const loaded = await loadConfiguration(
      baseInput({
        sources: ['mcpJson'],
        workspaceFolders: [
          { name: 'a', path: first },
          { name: 'b', path: second },
        ],
      }),
      noInputs,
    );
    const server = expectValid(loaded.servers[0] ?? assert.fail('no server'));
    assert.deepEqual(server.transport === 'stdio' && server.env, { WHERE: 'second' });
    assert.equal(server.transport === 'stdio' && server.cwd, second);
  });

  it('a missing envFile is an error for that server only', async () => {
    const workspace = dirs.make();
    const loaded = await loadConfiguration(
      baseInput({
        workspaceFolders: [{ name: 'w', path: workspace }],
        entries: [
          { name: 'bad', raw: { command: 'x', envFile: 'missing.env' }, source: { kind: 'user' } },
          { name: 'good', raw: { command: 'y' }, source: { kind: 'user' } },
        ],
      }),
      noInputs,
    );
    assertDiagnostics(loaded.diagnostics, [
      {
        severity: 'error',
        server: 'bad',
        path: 'servers.bad.envFile',
        messageIncludes: `envFile not found: ${path.join(workspace, 'missing.env')}`,
      },
    ]);
    expectInvalid(loaded.servers[0] ?? assert.fail());
    expectValid(loaded.servers[1] ?? assert.fail());
  });

  it('a directory as envFile is an error, malformed lines are warnings', async () => {
    const workspace = dirs.make();
    dirs.write(workspace, 'sub/keep', '');
    dirs.write(workspace, 'odd.env', 'A=1\n???\n');
    const input = { workspaceFolders: [{ name: 'w', path: workspace }] };
    const directory = await loadOne({ command: 'x', envFile: 'sub' }, input);
    assertDiagnostics(directory.diagnostics, [{ severity: 'error', path: 'servers.srv.envFile', messageIncludes: 'is not a file' }]);
    const odd = await loadOne({ command: 'x', envFile: 'odd.env' }, input);
    assertDiagnostics(odd.diagnostics, [
      { severity: 'warning', path: 'servers.srv.envFile', messageIncludes: 'line 2: expected KEY=VALUE' },
    ]);
    expectValid(odd.server);
  });

  it('a relative envFile with no workspace folder is an error', async () => {
    const { diagnostics } = await loadOne({ command: 'x', envFile: '.env' }, { workspaceFolders: [] });
    assertDiagnostics(diagnostics, [{ severity: 'error', path: 'servers.srv.envFile', messageIncludes: 'no workspace folder is open' }]);
  });
});

describe('config: cwd', () => {
  const rows: ReadonlyArray<readonly [string, Record<string, unknown>, Parameters<typeof loadOne>[1], string | undefined]> = [
    ['defaults to the first workspace folder', { command: 'x' }, {}, FOLDER],
    ['is unset with no workspace folder', { command: 'x' }, { workspaceFolders: [] }, undefined],
    ['keeps an absolute path', { command: 'x', cwd: '/opt/server' }, {}, '/opt/server'],
    ['anchors a relative path at the folder', { command: 'x', cwd: 'tools/server' }, {}, `${FOLDER}/tools/server`],
  ];
  for (const [title, raw, input, cwd] of rows) {
    it(title, async () => {
      const server = expectValid((await loadOne(raw, input)).server);
      assert.equal(server.transport === 'stdio' ? server.cwd : 'not stdio', cwd);
    });
  }
});
