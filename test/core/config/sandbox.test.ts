// The sandbox fields of an entry (the editor's `sandboxEnabled` and `sandbox` block), the `sandbox`
// block of an mcp.json, the user's defaults, and what each resolves to.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { hashServerConnection, sandboxOf, type ServerDefinition, type StdioServerDefinition } from '../../../src/core/config';
import { workspaceConsentSandbox } from '../../../src/core/config/sandboxSetting';
import { Cleanup, tempDir } from '../support/cleanup';
import { baseInput, expectInvalid, expectValid, FOLDER, HOME, loadOne, loadServers, noInputs } from './helpers';
import { loadConfiguration } from '../../../src/core/config';

const NODE = { command: 'node', args: ['server.js'] };

function stdio(server: ServerDefinition): StdioServerDefinition {
  assert.equal(server.transport, 'stdio');
  return server as StdioServerDefinition;
}

describe('sandbox settings of an entry', () => {
  it('off by default: no sandbox, no rules', async () => {
    const server = stdio(expectValid((await loadOne(NODE)).server));
    assert.equal(server.sandbox, undefined);
    assert.equal(sandboxOf(server), undefined);
  });

  it('`sandboxEnabled: true` alone: the folder is writable, nothing else, no network', async () => {
    const sandbox = sandboxOf(expectValid((await loadOne({ ...NODE, sandboxEnabled: true })).server));
    assert.deepEqual(sandbox, {
      enabled: true,
      origin: 'builtIn',
      rules: { filesystem: { allowWrite: [FOLDER], denyRead: [], denyWrite: [] }, network: { allowedDomains: [], deniedDomains: [] } },
    });
  });

  it('a `sandbox` block turns it on; paths are resolved (variables, ~, relative to the folder)', async () => {
    const sandbox = sandboxOf(
      expectValid(
        (
          await loadOne({
            ...NODE,
            sandbox: {
              filesystem: {
                allowWrite: ['${workspaceFolder}/out', '~/cache', 'build'],
                denyRead: ['~/.ssh', '/etc/**/*.pem'],
                denyWrite: ['.env'],
              },
              network: { allowedDomains: ['api.github.com', '*.npmjs.org'], deniedDomains: ['evil.example.com:443'] },
            },
          })
        ).server,
      ),
    );
    assert.ok(sandbox);
    assert.equal(sandbox.origin, 'entry');
    assert.deepEqual(sandbox.rules.filesystem, {
      allowWrite: [`${FOLDER}/out`, `${HOME}/cache`, `${FOLDER}/build`, FOLDER],
      denyRead: [`${HOME}/.ssh`, '/etc/**/*.pem'],
      denyWrite: [`${FOLDER}/.env`],
    });
    assert.deepEqual(sandbox.rules.network, { allowedDomains: ['api.github.com', '*.npmjs.org'], deniedDomains: ['evil.example.com:443'] });
  });

  it('`sandbox: false` and `sandboxEnabled: false` win over the user default', async () => {
    const defaults = { sandboxDefaults: { enabled: true } };
    assert.equal(sandboxOf(expectValid((await loadOne({ ...NODE, sandbox: false }, defaults)).server)), undefined);
    assert.equal(sandboxOf(expectValid((await loadOne({ ...NODE, sandboxEnabled: false }, defaults)).server)), undefined);
    assert.ok(sandboxOf(expectValid((await loadOne(NODE, defaults)).server)));
  });

  it('`sandboxEnabled: false` with rules warns that the rules are not used', async () => {
    const { server, diagnostics } = await loadOne({ ...NODE, sandboxEnabled: false, sandbox: { network: { allowedDomains: ['a.com'] } } });
    assert.equal(sandboxOf(expectValid(server)), undefined);
    assert.ok(
      diagnostics.some((d) => d.severity === 'warning' && d.path === 'servers.srv.sandbox' && /not used/.test(d.message)),
      JSON.stringify(diagnostics),
    );
  });

  it('user rules (`mcpSwitchboard.sandbox.rules`) apply to sandboxed servers without their own', async () => {
    const defaults = { sandboxDefaults: { enabled: true, rules: { network: { allowedDomains: ['registry.npmjs.org'] } } } };
    const sandbox = sandboxOf(expectValid((await loadOne(NODE, defaults)).server));
    assert.equal(sandbox?.origin, 'userDefault');
    assert.deepEqual(sandbox?.rules.network.allowedDomains, ['registry.npmjs.org']);
    const own = sandboxOf(expectValid((await loadOne({ ...NODE, sandbox: { network: { allowedDomains: ['x.org'] } } }, defaults)).server));
    assert.deepEqual(own?.rules.network.allowedDomains, ['x.org']);
  });

  it('a broken user default is a warning and gives nothing more than the built-in rules', async () => {
    const loaded = await loadServers(
      { srv: NODE },
      { sandboxDefaults: { enabled: 'yes', rules: { network: { allowedDomains: 'everything' } } } },
    );
    assert.equal(sandboxOf(expectValid(loaded.servers[0] as ServerDefinition)), undefined);
    assert.ok(loaded.diagnostics.some((d) => d.path === 'mcpSwitchboard.sandbox.enabled'));
    assert.ok(loaded.diagnostics.some((d) => d.path === 'mcpSwitchboard.sandbox.rules'));
  });

  const invalid: Array<[string, Record<string, unknown>, RegExp]> = [
    ['a domain with a scheme', { sandbox: { network: { allowedDomains: ['https://x.com'] } } }, /is not a host name/],
    ['a bare * as an allowed domain', { sandbox: { network: { allowedDomains: ['*'] } } }, /is not a host name/],
    ['a path list that is a string', { sandbox: { filesystem: { allowWrite: '/tmp' } } }, /expected an array/],
    ['a sandbox that is a string', { sandbox: 'yes' }, /expected true, false or an object/],
  ];
  for (const [what, fields, message] of invalid) {
    it(`refuses ${what}`, async () => {
      const server = expectInvalid((await loadOne({ ...NODE, ...fields })).server);
      assert.ok(
        server.diagnostics.some((d) => d.severity === 'error' && message.test(d.message)),
        JSON.stringify(server.diagnostics),
      );
    });
  }

  for (const [what, rule] of [
    ['the root', '/'],
    ['the home folder', '~'],
    ['the home folder, spelled out', HOME + '/'],
    ['a folder above the home folder', '/home'],
  ] as const) {
    it(`refuses an allowWrite rule that opens ${what}, naming the rule and what to write instead`, async () => {
      const server = expectInvalid((await loadOne({ ...NODE, sandbox: { filesystem: { allowWrite: ['~/data', rule] } } })).server);
      const refusal = server.diagnostics.find((d) => d.severity === 'error');
      assert.equal(refusal?.path, 'servers.srv.sandbox.filesystem.allowWrite[1]');
      assert.match(refusal?.message ?? '', /would let the server write the whole (home folder|disk).*List the folders it needs instead/);
    });
  }

  it('a working folder that is the home folder is not made writable, with a warning', async () => {
    const { server, diagnostics } = await loadOne({ ...NODE, cwd: HOME, sandboxEnabled: true });
    assert.deepEqual(sandboxOf(expectValid(server))?.rules.filesystem.allowWrite, []);
    assert.ok(
      diagnostics.some((d) => d.severity === 'warning' && d.path === 'servers.srv.cwd' && /holds the home folder/.test(d.message)),
      JSON.stringify(diagnostics),
    );
  });

  it('a denyRead pattern is kept with a warning that it covers only files present at start', async () => {
    const { server, diagnostics } = await loadOne({ ...NODE, sandbox: { filesystem: { denyRead: ['**/.env', '~/.aws'] } } });
    assert.deepEqual(sandboxOf(expectValid(server))?.rules.filesystem.denyRead, [`${FOLDER}/**/.env`, `${HOME}/.aws`]);
    const warnings = diagnostics.filter((d) => d.severity === 'warning');
    assert.equal(warnings.length, 1, JSON.stringify(diagnostics));
    assert.equal(warnings[0]?.path, 'servers.srv.sandbox.filesystem.denyRead[0]');
    assert.match(warnings[0]?.message ?? '', /a file made later is readable. Deny the folder/);
  });

  it('`*` may be denied', async () => {
    const sandbox = sandboxOf(expectValid((await loadOne({ ...NODE, sandbox: { network: { deniedDomains: ['*'] } } })).server));
    assert.deepEqual(sandbox?.rules.network.deniedDomains, ['*']);
  });

  it('unknown keys in the block are warnings', async () => {
    const { diagnostics } = await loadOne({ ...NODE, sandbox: { filesystem: { allowWrite: [] }, proxy: 'x' } });
    assert.ok(
      diagnostics.some((d) => d.severity === 'warning' && /sandbox\.proxy/.test(d.message)),
      JSON.stringify(diagnostics),
    );
  });

  it('on an http server it is a warning and ignored', async () => {
    const { server, diagnostics } = await loadOne({ url: 'https://example.com/mcp', sandboxEnabled: true });
    expectValid(server);
    assert.ok(diagnostics.some((d) => d.path === 'servers.srv.sandboxEnabled' && /only applies to stdio/.test(d.message)));
  });

  it('npx without the npm registry allowed: a warning naming the domain to add', async () => {
    const { diagnostics } = await loadOne({ command: 'npx', args: ['-y', 'pkg'], sandboxEnabled: true });
    assert.ok(
      diagnostics.some((d) => d.severity === 'warning' && /add "registry\.npmjs\.org" to sandbox\.network\.allowedDomains/.test(d.message)),
      JSON.stringify(diagnostics),
    );
    const allowed = await loadOne({ command: 'npx', args: ['-y', 'pkg'], sandbox: { network: { allowedDomains: ['*.npmjs.org'] } } });
    assert.ok(!allowed.diagnostics.some((d) => /registry\.npmjs\.org/.test(d.message)));
    const uvx = await loadOne({ command: 'uvx', args: ['pkg'], sandboxEnabled: true });
    assert.ok(
      uvx.diagnostics.some((d) => /"pypi\.org", "files\.pythonhosted\.org"/.test(d.message)),
      JSON.stringify(uvx.diagnostics),
    );
  });

  it('a sandbox that turns on, off, or changes its rules restarts the server; rules of an unsandboxed one do not', async () => {
    const hash = async (raw: unknown) => hashServerConnection(expectValid((await loadOne(raw)).server));
    const plain = await hash(NODE);
    const on = await hash({ ...NODE, sandboxEnabled: true });
    const wider = await hash({ ...NODE, sandbox: { network: { allowedDomains: ['a.com'] } } });
    assert.notEqual(plain, on);
    assert.notEqual(on, wider);
    assert.equal(plain, await hash({ ...NODE, sandboxEnabled: false, sandbox: { network: { allowedDomains: ['a.com'] } } }));
  });

  it("Run Sandboxed: the folder only, the entry's domains and denials, whatever it asks to write", () => {
    const listed = {
      filesystem: { allowWrite: ['/', '/home'], denyRead: ['/secret'], denyWrite: ['/x'] },
      network: { allowedDomains: ['a.com'], deniedDomains: ['b.com'] },
    };
    assert.deepEqual(workspaceConsentSandbox(listed, FOLDER), {
      enabled: true,
      origin: 'workspaceConsent',
      rules: {
        filesystem: { allowWrite: [FOLDER], denyRead: ['/secret'], denyWrite: ['/x'] },
        network: { allowedDomains: ['a.com'], deniedDomains: ['b.com'] },
      },
    });
  });
});

describe('the sandbox block of an mcp.json', () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  async function loadMcpJson(content: unknown) {
    const folder = tempDir(cleanup);
    fs.mkdirSync(path.join(folder, '.vscode'));
    fs.writeFileSync(path.join(folder, '.vscode', 'mcp.json'), JSON.stringify(content));
    return loadConfiguration(baseInput({ sources: ['mcpJson'], workspaceFolders: [{ name: 'p', path: folder }] }), noInputs);
  }

  it("is the rules of the file's sandboxed servers; an unsandboxed one stays unsandboxed", async () => {
    const loaded = await loadMcpJson({
      servers: { boxed: { ...NODE, sandboxEnabled: true }, open: NODE },
      sandbox: { network: { allowedDomains: ['api.example.com'] }, filesystem: { denyRead: ['/etc/secret'] } },
    });
    const [boxed, open] = loaded.servers.map((server) => expectValid(server));
    const sandbox = sandboxOf(boxed);
    assert.equal(sandbox?.origin, 'file');
    assert.deepEqual(sandbox?.rules.network.allowedDomains, ['api.example.com']);
    assert.deepEqual(sandbox?.rules.filesystem.denyRead, ['/etc/secret']);
    assert.equal(sandboxOf(open), undefined);
  });

  it('a broken block is an error naming its path, and its servers get the built-in rules', async () => {
    const loaded = await loadMcpJson({
      servers: { boxed: { ...NODE, sandboxEnabled: true } },
      sandbox: { network: { allowedDomains: [42] } },
    });
    assert.ok(
      loaded.diagnostics.some((d) => d.severity === 'error' && d.path === 'sandbox.network.allowedDomains[0]'),
      JSON.stringify(loaded.diagnostics),
    );
    const sandbox = sandboxOf(expectValid(loaded.servers[0] as ServerDefinition));
    assert.equal(sandbox?.origin, 'builtIn');
    assert.deepEqual(sandbox?.rules.network.allowedDomains, []);
  });
});
