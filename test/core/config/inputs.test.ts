import assert from 'node:assert/strict';
import path from 'node:path';
import {
  createEnvInputResolver,
  inputEnvVarName,
  loadConfiguration,
  type InputRequest,
  type InputResolver,
} from '../../../src/core/config';
import { assertDiagnostics, baseInput, expectInvalid, expectValid, loadOne, loadServers, TempDirs } from './helpers';

function recordingResolver(values: Readonly<Record<string, string>>): InputResolver & { requests: InputRequest[] } {
  const requests: InputRequest[] = [];
  return {
    requests,
    async resolve(request) {
      requests.push(request);
      return values[request.id];
    },
  };
}

describe('config: input ids for the CLI resolver', () => {
  for (const [id, name] of [
    ['token', 'MCP_SWITCHBOARD_INPUT_TOKEN'],
    ['github-token', 'MCP_SWITCHBOARD_INPUT_GITHUB_TOKEN'],
    ['api.key v2', 'MCP_SWITCHBOARD_INPUT_API_KEY_V2'],
    ['Mixed_Case9', 'MCP_SWITCHBOARD_INPUT_MIXED_CASE9'],
  ] as const) {
    it(`${id} -> ${name}`, () => assert.equal(inputEnvVarName(id), name));
  }

  it('reads the value from the given environment', async () => {
    const resolver = createEnvInputResolver({ MCP_SWITCHBOARD_INPUT_GITHUB_TOKEN: 'ghp_1' });
    const request = { id: 'github-token', server: 's', source: { kind: 'user' }, enabled: true } as const;
    assert.equal(await resolver.resolve(request), 'ghp_1');
    assert.equal(await resolver.resolve({ ...request, id: 'other' }), undefined);
  });
});

describe('config: inputs and secrets', () => {
  const dirs = new TempDirs();
  afterEach(() => dirs.cleanup());

  it('a missing input blocks the server with needsInput and no other error', async () => {
    const { server, diagnostics } = await loadOne({ url: 'https://x.test', headers: { Authorization: 'Bearer ${input:api-token}' } });
    assertDiagnostics(diagnostics, [
      { severity: 'error', path: 'servers.srv.headers.Authorization', messageIncludes: 'needs a value for ${input:api-token}' },
    ]);
    assert.deepEqual(expectInvalid(server).needsInput, ['api-token']);
  });

  it('needsInput is unset when the server is broken for another reason too', async () => {
    const { server } = await loadOne({ command: 'x', args: ['${input:a}', '${env:UNSET_ONE}'] });
    assert.equal(expectInvalid(server).needsInput, undefined);
  });

  it('lists every missing input id once', async () => {
    const { server } = await loadOne({ command: 'x', args: ['${input:a}', '${input:b}', '${input:a}'] });
    assert.deepEqual(expectInvalid(server).needsInput, ['a', 'b']);
  });

  it('resolves through the CLI resolver and records input values as secrets', async () => {
    const resolver = createEnvInputResolver({ MCP_SWITCHBOARD_INPUT_PAT: 'p@t' });
    const server = expectValid((await loadOne({ command: 'x', args: ['--pat', '${input:pat}'] }, {}, resolver)).server);
    assert.deepEqual(server.transport === 'stdio' && server.args, ['--pat', 'p@t']);
    assert.deepEqual(server.secrets, ['p@t']);
  });

  it('treats env and header values with secret-looking keys as secrets, and nothing else', async () => {
    const stdio = expectValid(
      (
        await loadOne({
          command: 'x',
          env: {
            GITHUB_TOKEN: 't1',
            API_KEY: 'k1',
            CLIENT_SECRET: 's1',
            DB_PASSWORD: 'p1',
            AUTH_MODE: 'a1',
            LOG_LEVEL: 'debug',
            EMPTY_TOKEN: '',
          },
        })
      ).server,
    );
    assert.deepEqual([...stdio.secrets].sort(), ['a1', 'k1', 'p1', 's1', 't1']);
    const http = expectValid(
      (await loadOne({ url: 'https://x.test', headers: { Authorization: 'Bearer z', 'X-Api-Key': 'k2', Accept: 'json' } })).server,
    );
    assert.deepEqual([...http.secrets].sort(), ['Bearer z', 'k2']);
  });

  it('treats a secret-looking ${env:NAME} as a secret wherever it is used', async () => {
    const server = expectValid(
      (await loadOne({ command: 'x', args: ['--token', '${env:GH_TOKEN}', '${env:REGION}'] }, { env: { GH_TOKEN: 'ghp_x', REGION: 'eu' } }))
        .server,
    );
    assert.deepEqual(server.secrets, ['ghp_x']);
  });

  it('asks once per input id, passes the mcp.json definition, and tells the resolver when a server is disabled', async () => {
    const workspace = dirs.make();
    dirs.write(
      workspace,
      '.vscode/mcp.json',
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'tok', description: 'Your API token', password: true }],
        servers: { one: { command: 'a', env: { T: '${input:tok}' } }, two: { command: 'b', args: ['${input:tok}'], enabled: false } },
      }),
    );
    const resolver = recordingResolver({ tok: 'secret-1' });
    const loaded = await loadConfiguration(
      baseInput({ sources: ['mcpJson'], workspaceFolders: [{ name: 'w', path: workspace }] }),
      resolver,
    );
    assert.equal(resolver.requests.length, 1);
    assert.deepEqual(resolver.requests[0], {
      id: 'tok',
      description: 'Your API token',
      password: true,
      server: 'one',
      source: { kind: 'mcpJson', file: path.join(workspace, '.vscode', 'mcp.json') },
      enabled: true,
    });
    const [one, two] = loaded.servers.map(expectValid);
    assert.deepEqual(one?.transport === 'stdio' && one.env, { T: 'secret-1' });
    assert.deepEqual(two?.transport === 'stdio' && two.args, ['secret-1']);
    assert.deepEqual(two?.secrets, ['secret-1']);

    const disabled = recordingResolver({});
    await loadServers({ off: { command: 'x', args: ['${input:z}'], enabled: false } }, {}, disabled);
    assert.equal(disabled.requests[0]?.enabled, false);
  });

  it('never asks for inputs of an entry that is already broken', async () => {
    const resolver = recordingResolver({ tok: 'v' });
    await loadServers({ broken: { command: 'x', args: ['${input:tok}'], enabled: 'no' } }, {}, resolver);
    assert.equal(resolver.requests.length, 0);
  });

  it('a resolver that throws becomes an error diagnostic, not an exception', async () => {
    for (const resolver of [
      { resolve: async () => Promise.reject(new Error('user cancelled')) },
      {
        resolve: () => {
          throw new Error('sync boom');
        },
      },
    ] as InputResolver[]) {
      const { server, diagnostics } = await loadOne({ command: 'x', args: ['${input:tok}'] }, {}, resolver);
      assert.equal(expectInvalid(server).needsInput, undefined);
      assert.equal(diagnostics.length, 1);
      assert.match(diagnostics[0]?.message ?? '', /input resolver failed: (user cancelled|sync boom)/);
    }
  });
});
