// `mcp-switchboard registry search` and `registry add`, run as the built CLI against the local
// registry; the added server is then checked with doctor, as the command suggests.
import assert from 'node:assert/strict';
import { applyJsonEdit } from '../../../src/core/base/jsoncEdit';
import fs from 'node:fs';
import path from 'node:path';
import { inputEnvVarName } from '../../../src/core/config';
import { runCli } from '../doctor/helpers';
import { startHttpFixture } from '../connection/helpers';
import { tempDir } from '../support/cleanup';
import { cliSuite } from '../support/cliSuite';
import { startRegistry } from '../support/registryFixture';

describe('mcp-switchboard registry (CLI)', function () {
  this.timeout(60_000);
  const cleanup = cliSuite();

  it("searches, adds a server to the folder's settings with its input, and doctor then runs it", async () => {
    const mcp = await startHttpFixture(cleanup);
    const registry = await startRegistry(cleanup, ['--local-remote', mcp.url('/mcp')]);
    const searched = await runCli(['registry', 'search', 'weather', '--registry', registry]);
    assert.equal(searched.code, 0, searched.stderr);
    assert.match(searched.stdout, /^NAME\s+VERSION\s+INSTALL\s+DESCRIPTION$/m);
    assert.match(searched.stdout, /^io\.switchboard\.test\/weather\s+1\.2\.0\s+remote\s+A remote MCP server/m);

    const folder = tempDir(cleanup);
    fs.mkdirSync(path.join(folder, '.vscode'));
    fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), '{\n  // kept\n  "editor.tabSize": 2\n}\n');
    const added = await runCli(['registry', 'add', 'io.switchboard.test/weather', '--folder', folder, '--registry', registry]);
    assert.equal(added.code, 0, added.stderr);
    const id = 'weather-x-api-key';
    assert.match(
      added.stdout,
      new RegExp(`asks for \\$\\{input:${id}\\} \\(secret\\): Any value; for doctor and serve set ${inputEnvVarName(id)}`),
    );
    const settings = fs.readFileSync(path.join(folder, '.vscode', 'settings.json'), 'utf8');
    assert.match(settings, /\/\/ kept/);
    // Only the entry was added: without it, the file is byte for byte what it was.
    assert.equal(
      applyJsonEdit(settings, { location: ['mcpSwitchboard.servers'], value: undefined }),
      '{\n  // kept\n  "editor.tabSize": 2\n}\n',
    );
    assert.match(settings, /"X-Api-Key": "\$\{input:weather-x-api-key\}"/);

    const doctor = await runCli(['doctor', '--folder', folder], { env: { [inputEnvVarName(id)]: 'key-123' } });
    assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
    assert.match(doctor.stdout, /^weather\s+running/m);
  });

  it('says what went wrong: a registry that is down, a package it cannot run, an unknown name', async () => {
    const down = await startRegistry(cleanup, ['--fault', 'down']);
    const failed = await runCli(['registry', 'search', 'x', '--registry', down]);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /answered HTTP 503/);
    const registry = await startRegistry(cleanup, []);
    const folder = tempDir(cleanup);
    const bundle = await runCli(['registry', 'add', 'io.github.example/bundle-only', '--folder', folder, '--registry', registry]);
    assert.equal(bundle.code, 1);
    assert.match(bundle.stderr, /cannot be added: mcpb .*: a mcpb package, which Switchboard cannot run/);
    assert.equal(fs.existsSync(path.join(folder, '.vscode', 'settings.json')), false);
    const unknown = await runCli(['registry', 'add', 'io.example/none', '--folder', folder, '--registry', registry]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /is not in the registry \(404\)/);
  });
});
