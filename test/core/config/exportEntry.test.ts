// An entry copied for another client reads back, through that client's source, as the same server:
// the round trip is the test. Secrets stay variables in the text.
import assert from 'node:assert/strict';
import path from 'node:path';
import { inputEnvVarName, loadConfiguration, type ConfigurationInput, type ServerDefinition } from '../../../src/core/config';
import { EXPORT_FORMATS, exportEntry, type ExportFormat } from '../../../src/core/config/exportEntry';
import { baseInput, expectValid, TempDirs } from './helpers';

const WHERE: Record<ExportFormat, { source: string; file: string }> = {
  claudeCode: { source: 'mcpJsonPortable', file: '<ws>/.mcp.json' },
  copilotCli: { source: 'copilotCli', file: '<home>/.copilot/mcp-config.json' },
  codex: { source: 'codex', file: '<home>/.codex/config.toml' },
  gemini: { source: 'gemini', file: '<home>/.gemini/settings.json' },
};

/** What a server does, without where it came from. */
function essence(server: ServerDefinition) {
  const common = { name: server.name, enabled: server.enabled, tools: server.tools };
  if (server.transport === 'stdio')
    return { ...common, transport: server.transport, command: server.command, args: server.args, env: server.env };
  return { ...common, transport: server.transport, url: server.url, headers: server.headers };
}

describe('config: a server copied for another client', () => {
  const dirs = new TempDirs();
  afterEach(() => dirs.cleanup());
  const secret = 'ghp-secret-value';

  const entries: Record<string, Record<string, unknown>> = {
    local: {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '${workspaceFolder}'],
      env: { API_TOKEN: '${env:API_TOKEN}' },
      tools: { allow: ['read_file'] },
    },
    remote: { url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ${input:gh-token}' } },
  };

  for (const format of EXPORT_FORMATS) {
    for (const [name, raw] of Object.entries(entries)) {
      it(`${format}: "${name}" reads back as the same server, secrets as variables`, async () => {
        const home = dirs.make('export-home-');
        const workspace = dirs.make('export-ws-');
        const env = { HOME: home, API_TOKEN: 'tok', [inputEnvVarName('gh-token')]: secret };
        const input = (extra: Partial<ConfigurationInput>) =>
          baseInput({ userHome: home, env, workspaceFolders: [{ name: 'ws', path: workspace }], ...extra });
        const original = await loadConfiguration(input({ entries: [{ name, raw, source: { kind: 'user' } }] }), {
          resolve: async () => secret,
        });
        const exported = exportEntry(name, raw, format, { workspaceFolder: workspace, userHome: home });
        assert.ok(!exported.text.includes(secret), exported.text);
        const file = WHERE[format].file.replace('<ws>', workspace).replace('<home>', home);
        dirs.write(path.dirname(file), path.basename(file), exported.text);
        const back = await loadConfiguration(input({ sources: [WHERE[format].source] }), { resolve: async () => undefined });
        const lost = back.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
        assert.deepEqual(lost, [], exported.text);
        const expected = essence(expectValid(original.servers[0] as ServerDefinition));
        const actual = essence(expectValid(back.servers[0] as ServerDefinition));
        if (format === 'codex' && name === 'local') {
          // Codex passes API_TOKEN through by name (env_vars); Switchboard passes the whole
          // environment on, so the read-back entry needs no env of its own to get the same value.
          assert.match(exported.text, /^env_vars = \["API_TOKEN"\]$/m);
          assert.deepEqual({ ...actual, env: 'env' in expected ? expected.env : undefined }, expected);
        } else if (format === 'claudeCode' && name === 'local') {
          // Claude Code has no tool filter: the note says so, and the rest is the same.
          assert.deepEqual({ ...actual, tools: expected.tools }, expected);
          assert.ok(
            exported.notes.some((note) => note.includes('tools.allow')),
            exported.notes.join('\n'),
          );
        } else {
          assert.deepEqual(actual, expected);
        }
        if (name === 'remote')
          assert.ok(
            exported.notes.some((note) => note.includes(inputEnvVarName('gh-token'))),
            exported.notes.join('\n'),
          );
      });
    }
  }

  it('names what another client has no place for', () => {
    const exported = exportEntry('x', { command: 'x', lifecycle: 'lazy', sandboxEnabled: true }, 'codex', { userHome: '/h' });
    assert.deepEqual(exported.notes, [
      '"lifecycle" has no place in Codex\'s format and is left out',
      '"sandboxEnabled" has no place in Codex\'s format and is left out',
    ]);
    assert.equal(exported.text, '[mcp_servers.x]\ncommand = "x"\n');
  });
});
