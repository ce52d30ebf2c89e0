// Entries that are Switchboard itself (the ones Share writes for other agents) are skipped with one
// diagnostic; everything that only looks alike is a server like any other.
import assert from 'node:assert/strict';
import { switchboardItself } from '../../../src/core/config';
import { baseInput, noInputs } from './helpers';
import { loadConfiguration } from '../../../src/core/config';

const stdio = (command: string, ...args: string[]) => ({ command, args });

describe('config: entries that are Switchboard itself', () => {
  const itself: Array<[string, unknown, string[]?]> = [
    ['the portable entry Share writes', stdio('npx', '-y', 'mcp-switchboard', 'serve', '--stdio', '--folder', '.')],
    ['a pinned package', stdio('npx', '--yes', 'mcp-switchboard@1.4.0', 'serve', '--stdio')],
    ['pnpm dlx', stdio('pnpm', 'dlx', 'mcp-switchboard', 'serve', '--stdio')],
    ["the editor's launcher", stdio('/home/u/.config/Code/User/globalStorage/x.mcp-switchboard/bin/mcp-switchboard', 'serve', '--stdio')],
    [
      'the launcher on Windows',
      stdio('C:\\Users\\u\\AppData\\Roaming\\Code\\User\\globalStorage\\x\\bin\\mcp-switchboard.cmd', 'serve', '--stdio'),
    ],
    ['the npm package run by node', stdio('/usr/bin/node', '/usr/lib/node_modules/mcp-switchboard/dist/cli.js', 'serve', '--stdio')],
    [
      'the extension run by node',
      stdio('node', '/home/u/.vscode/extensions/pub.mcp-switchboard-0.3.1/dist/extension.js', 'serve', '--stdio'),
    ],
    ['through cmd /c', stdio('cmd', '/c', 'npx', '-y', 'mcp-switchboard', 'serve', '--stdio')],
    [
      "this installation's CLI",
      stdio('/usr/bin/node', '/work/checkout/dist/cli.js', 'serve', '--stdio', '--folder', '/w'),
      ['/work/checkout/dist/cli.js'],
    ],
    [
      'the HTTP entry Share writes',
      { type: 'http', url: 'http://127.0.0.1:47800/mcp', headers: { Authorization: 'Bearer ${env:MCP_SWITCHBOARD_TOKEN}' } },
    ],
    ['the HTTP entry on localhost', { url: 'http://localhost:47800/mcp', headers: { Authorization: 'Bearer ${MCP_SWITCHBOARD_TOKEN}' } }],
  ];
  for (const [what, entry, launchers] of itself) {
    it(`recognizes ${what}`, () => assert.notEqual(switchboardItself(entry, launchers), undefined));
  }

  const others: Array<[string, unknown]> = [
    ['another package with serve --stdio', stdio('npx', '-y', '@acme/mcp', 'serve', '--stdio')],
    ['a package whose name starts alike', stdio('npx', '-y', 'mcp-switchboard-extras', 'serve', '--stdio')],
    ["Switchboard's doctor", stdio('npx', '-y', 'mcp-switchboard', 'doctor')],
    ['serve over HTTP', stdio('mcp-switchboard', 'serve', '--port', '9000')],
    ['another checkout, unknown to this one', stdio('/usr/bin/node', '/work/checkout/dist/cli.js', 'serve', '--stdio')],
    [
      'a remote gateway with the variable',
      { url: 'https://gw.example.com/mcp', headers: { Authorization: 'Bearer ${env:MCP_SWITCHBOARD_TOKEN}' } },
    ],
    ['a loopback server with another token', { url: 'http://127.0.0.1:47800/mcp', headers: { Authorization: 'Bearer ${env:OTHER}' } }],
    ['no entry at all', 'npx mcp-switchboard serve --stdio'],
  ];
  for (const [what, entry] of others) {
    it(`takes ${what} as a server`, () => assert.equal(switchboardItself(entry), undefined));
  }

  it('skips it with one warning that names it and why', async () => {
    const loaded = await loadConfiguration(
      baseInput({
        entries: [
          { name: 'switchboard', raw: stdio('npx', '-y', 'mcp-switchboard', 'serve', '--stdio'), source: { kind: 'user' } },
          { name: 'memory', raw: stdio('npx', '-y', '@modelcontextprotocol/server-memory'), source: { kind: 'user' } },
        ],
      }),
      noInputs,
    );
    assert.deepEqual(
      loaded.servers.map((server) => server.name),
      ['memory'],
    );
    assert.deepEqual(
      loaded.diagnostics.map((diagnostic) => `${diagnostic.severity} ${diagnostic.server}: ${diagnostic.message}`),
      [
        'warning switchboard: server "switchboard" from user settings is skipped: it starts MCP Switchboard itself (serve --stdio), an entry Share writes for other agents; Switchboard does not serve itself',
      ],
    );
  });

  it('does not hide a server of the same name that it would have taken precedence over', async () => {
    const loaded = await loadConfiguration(
      baseInput({
        entries: [
          { name: 'switchboard', raw: stdio('npx', '-y', 'mcp-switchboard', 'serve', '--stdio'), source: { kind: 'workspace' } },
          { name: 'switchboard', raw: stdio('my-own-switchboard-server'), source: { kind: 'user' } },
        ],
      }),
      noInputs,
    );
    assert.deepEqual(
      loaded.servers.map((server) => ('command' in server ? server.command : server.name)),
      ['my-own-switchboard-server'],
    );
  });
});
