import assert from 'node:assert/strict';
import { expandVariables, type InputLookup, type VariableScope } from '../../../src/core/config/variables';
import { assertDiagnostics, expectInvalid, expectValid, FOLDER, HOME, loadOne } from './helpers';

const ENV: Readonly<Record<string, string>> = {
  TOKEN: 'abc',
  EMPTY: '',
  SELF: '${env:SELF}',
  PING: '${env:PONG}',
  PONG: '${env:PING}',
};

const INPUTS: Readonly<Record<string, InputLookup>> = {
  key: { kind: 'value', value: 'k-123' },
  absent: { kind: 'missing' },
  broken: { kind: 'error', message: 'prompt failed' },
};

function scope(overrides: Partial<VariableScope> = {}): VariableScope {
  return {
    workspaceFolders: [
      { name: 'app', path: '/ws/app' },
      { name: 'lib', path: '/ws/lib' },
    ],
    userHome: '/home/me',
    pathSeparator: '/',
    lookupEnv: (name) => ENV[name],
    lookupInput: async (id) => INPUTS[id] ?? { kind: 'missing' },
    ...overrides,
  };
}

interface Row {
  readonly text: string;
  readonly value: string | undefined;
  readonly errors?: readonly string[];
  readonly warnings?: readonly string[];
  readonly secrets?: readonly string[];
  readonly missing?: readonly string[];
  readonly scope?: Partial<VariableScope>;
}

const rows: readonly Row[] = [
  { text: 'plain text', value: 'plain text' },
  { text: 'cost: $5 and {braces}', value: 'cost: $5 and {braces}' },
  { text: '${workspaceFolder}/src', value: '/ws/app/src' },
  { text: '${workspaceFolder:lib}/index.js', value: '/ws/lib/index.js' },
  { text: '${userHome}${pathSeparator}.config${/}x', value: '/home/me/.config/x' },
  { text: '--token=${env:TOKEN}', value: '--token=abc', secrets: ['abc'] },
  { text: '${env:EMPTY}', value: '' },
  { text: '${env:NOPE:-fallback}', value: 'fallback' },
  { text: '${env:NOPE:-}', value: '' },
  { text: '${env:EMPTY:-used-for-empty}', value: 'used-for-empty' },
  { text: '${env:TOKEN:-unused}', value: 'abc', secrets: ['abc'] },
  { text: '${env:NOPE:-a:b-c}', value: 'a:b-c' },
  { text: '${env:TOKEN}-${env:TOKEN}', value: 'abc-abc', secrets: ['abc', 'abc'] },
  { text: '${env:EMPTY:-plain default}', value: 'plain default' },
  { text: '${input:key}', value: 'k-123', secrets: ['k-123'] },
  { text: 'Bearer ${input:absent}', value: undefined, missing: ['absent'] },
  { text: '${input:broken}', value: undefined, errors: ['${input:broken}: prompt failed'] },
  { text: '${env:NOPE}', value: undefined, errors: ['environment variable NOPE is not set'] },
  { text: '${foo}', value: undefined, errors: ['unknown variable ${foo}'] },
  { text: '${config:editor.fontSize}', value: undefined, errors: ['unknown variable ${config:editor.fontSize}'] },
  { text: '${workspaceFolder:nope}', value: undefined, errors: ['no workspace folder is named "nope" (open: "app", "lib")'] },
  { text: '${workspaceFolder}', value: undefined, errors: ['no workspace folder is open'], scope: { workspaceFolders: [] } },
  { text: '${env:}', value: undefined, errors: ['needs a variable name'] },
  { text: '${input:}', value: undefined, errors: ['needs an input id'] },
  { text: '${env:A:-${env:TOKEN}}', value: undefined, errors: ['nested variable reference'] },
  { text: '${env:SELF}', value: '${env:SELF}', warnings: ['the value of ${env:SELF} contains "${"'] },
  { text: '${env:PING}', value: '${env:PONG}', warnings: ['expanded once'] },
  { text: 'half ${env:TOKEN', value: 'half ${env:TOKEN', warnings: ['unterminated'] },
  { text: '${unknown} and ${env:NOPE}', value: undefined, errors: ['unknown variable ${unknown}', 'NOPE is not set'] },
];

describe('config: variable expansion', () => {
  for (const row of rows) {
    it(`${JSON.stringify(row.text)} -> ${row.value === undefined ? 'fails' : JSON.stringify(row.value)}`, async () => {
      const result = await expandVariables(row.text, scope(row.scope));
      assert.equal(result.value, row.value);
      const messages = (severity: string) =>
        result.problems.filter((problem) => problem.severity === severity).map((problem) => problem.message);
      const errors = messages('error');
      const warnings = messages('warning');
      assert.equal(errors.length, (row.errors ?? []).length, `errors: ${errors.join(' | ')}`);
      row.errors?.forEach((fragment, index) => assert.ok(errors[index]?.includes(fragment), `${errors[index]} should include ${fragment}`));
      assert.equal(warnings.length, (row.warnings ?? []).length, `warnings: ${warnings.join(' | ')}`);
      row.warnings?.forEach((fragment, index) =>
        assert.ok(warnings[index]?.includes(fragment), `${warnings[index]} should include ${fragment}`),
      );
      assert.deepEqual(result.secretValues, row.secrets ?? []);
      assert.deepEqual(result.missingInputs, row.missing ?? []);
    });
  }

  it('is single-pass: a self-referencing value does not loop and is not re-expanded', async () => {
    let lookups = 0;
    const counting = scope({ lookupEnv: (name) => (lookups++, ENV[name]) });
    const result = await expandVariables('${env:SELF}/${env:SELF}', counting);
    assert.equal(result.value, '${env:SELF}/${env:SELF}');
    assert.equal(lookups, 2);
  });
});

describe('config: variables in every field', () => {
  it('expands command, args, env, cwd, url and headers', async () => {
    const env = { HOME, BIN: '/usr/bin/node', PORT: '9000' };
    const stdio = expectValid(
      (
        await loadOne(
          {
            command: '${env:BIN}',
            args: ['${workspaceFolder}/server.js', '--home=${userHome}', 'a${pathSeparator}b'],
            env: { DATA: '${workspaceFolder:project}/data' },
            cwd: '${userHome}/work',
          },
          { env },
        )
      ).server,
    );
    assert.equal(stdio.transport, 'stdio');
    if (stdio.transport !== 'stdio') return;
    assert.equal(stdio.command, '/usr/bin/node');
    assert.deepEqual(stdio.args, [`${FOLDER}/server.js`, `--home=${HOME}`, 'a/b']);
    assert.deepEqual(stdio.env, { DATA: `${FOLDER}/data` });
    assert.equal(stdio.cwd, `${HOME}/work`);

    const http = expectValid(
      (await loadOne({ url: 'http://localhost:${env:PORT}/mcp', headers: { 'X-Port': '${env:PORT}' } }, { env })).server,
    );
    assert.equal(http.transport !== 'stdio' && http.url, 'http://localhost:9000/mcp');
    assert.deepEqual(http.transport !== 'stdio' && http.headers, { 'X-Port': '9000' });
  });

  const fieldCases: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
    ['command', { command: '${nope}' }, 'servers.srv.command'],
    ['args', { command: 'x', args: ['ok', '${nope}'] }, 'servers.srv.args[1]'],
    ['env', { command: 'x', env: { A: '${nope}' } }, 'servers.srv.env.A'],
    ['envFile', { command: 'x', envFile: '${nope}/.env' }, 'servers.srv.envFile'],
    ['cwd', { command: 'x', cwd: '${nope}' }, 'servers.srv.cwd'],
    ['url', { url: 'https://${nope}/' }, 'servers.srv.url'],
    ['headers', { url: 'https://x.test', headers: { Authorization: 'Bearer ${nope}' } }, 'servers.srv.headers.Authorization'],
  ];
  for (const [field, raw, path] of fieldCases) {
    it(`reports an unknown variable in ${field} at ${path}`, async () => {
      const { server, diagnostics } = await loadOne(raw);
      assertDiagnostics(diagnostics, [{ severity: 'error', server: 'srv', path, messageIncludes: 'unknown variable ${nope}' }]);
      expectInvalid(server);
    });
  }

  it('an undefined env var names the variable and invalidates only that server', async () => {
    const { server, diagnostics } = await loadOne({ command: 'x', args: ['${env:MISSING_VAR}'] });
    assertDiagnostics(diagnostics, [{ severity: 'error', path: 'servers.srv.args[0]', messageIncludes: 'MISSING_VAR' }]);
    assert.equal(expectInvalid(server).needsInput, undefined);
  });

  it('a circular-looking env value is used literally with a warning; the server stays valid', async () => {
    const { server, diagnostics } = await loadOne({ command: 'x', args: ['${env:A}'] }, { env: { A: '${env:A}' } });
    assertDiagnostics(diagnostics, [{ severity: 'warning', path: 'servers.srv.args[0]', messageIncludes: 'expanded once' }]);
    const valid = expectValid(server);
    assert.deepEqual(valid.transport === 'stdio' && valid.args, ['${env:A}']);
  });

  it('on Windows env names are case-insensitive and the path separator is a backslash', async () => {
    const server = expectValid(
      (
        await loadOne(
          { command: 'x', args: ['${env:appdata}${pathSeparator}y'], cwd: 'C:\\work' },
          { platform: 'win32', env: { APPDATA: 'C:\\Users\\me\\AppData\\Roaming' }, workspaceFolders: [] },
        )
      ).server,
    );
    assert.deepEqual(server.transport === 'stdio' && server.args, ['C:\\Users\\me\\AppData\\Roaming\\y']);
  });

  it('on Linux env names are case-sensitive', async () => {
    const { diagnostics } = await loadOne({ command: 'x', args: ['${env:token}'] });
    assertDiagnostics(diagnostics, [{ severity: 'error', path: 'servers.srv.args[0]', messageIncludes: 'token is not set' }]);
  });
});
