import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { contributedCommands, switchboardExtension } from '../support';

const expectedExtensionsDir = process.env.SWITCHBOARD_EXPECTED_EXTENSIONS_DIR ?? '';

describe('the packaged .vsix, installed into a fresh extensions folder', () => {
  it('is the installed copy, not the repository', () => {
    assert.notEqual(expectedExtensionsDir, '', 'the runner names the extensions folder');
    const extension = switchboardExtension();
    const relative = path.relative(fs.realpathSync(expectedExtensionsDir), fs.realpathSync(extension.extensionPath));
    assert.ok(!relative.startsWith('..') && !path.isAbsolute(relative), `${extension.extensionPath} is inside ${expectedExtensionsDir}`);
  });

  it('activates and registers its commands', async () => {
    const extension = switchboardExtension();
    await extension.activate();
    assert.equal(extension.isActive, true);
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(
      contributedCommands(extension).filter((command) => !registered.has(command)),
      [],
    );
  });

  it('is the package of this platform, under 1 MB', () => {
    const bytes = Number(process.env.SWITCHBOARD_VSIX_BYTES ?? '');
    assert.ok(bytes > 0, 'the runner measures the .vsix it installed');
    assert.ok(bytes < 1_000_000, `${bytes} bytes`);
    assert.equal(process.env.SWITCHBOARD_VSIX_TARGET, `${process.platform}-${process.arch}`);
  });

  it("ships the sandbox runtime with this platform's seccomp helper only, still executable after the install", () => {
    const sandbox = path.join(switchboardExtension().extensionPath, 'dist', 'sandbox');
    assert.ok(fs.existsSync(path.join(sandbox, 'srt.mjs')));
    assert.ok(fs.existsSync(path.join(sandbox, 'LICENSE')));
    const helpers = fs.readdirSync(path.join(sandbox, 'vendor', 'seccomp'));
    assert.deepEqual(helpers, [process.arch]);
    const helper = path.join(sandbox, 'vendor', 'seccomp', process.arch, 'apply-seccomp');
    assert.doesNotThrow(() => fs.accessSync(helper, fs.constants.X_OK), `${helper} is executable`);
  });

  it("carries the core once: its bundle is also the CLI, run on the editor's runtime", () => {
    const root = switchboardExtension().extensionPath;
    assert.ok(!fs.existsSync(path.join(root, 'dist', 'cli.js')), 'no second bundle');
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-vsix-cli-'));
    fs.mkdirSync(path.join(folder, '.vscode'));
    fs.writeFileSync(
      path.join(folder, '.vscode', 'settings.json'),
      JSON.stringify({
        'mcpSwitchboard.servers': { echo: { command: process.env.SWITCHBOARD_NODE, args: [process.env.SWITCHBOARD_FIXTURE] } },
      }),
    );
    const doctor = spawnSync(
      process.execPath,
      [path.join(root, 'dist', 'extension.js'), 'doctor', '--folder', folder, '--json', '--trust-workspace'],
      {
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    fs.rmSync(folder, { recursive: true, force: true });
    assert.equal(doctor.status, 0, doctor.stderr);
    const report = JSON.parse(doctor.stdout) as { servers: { name: string; state: string; tools: unknown[] }[] };
    assert.deepEqual(
      report.servers.map((server) => [server.name, server.state, server.tools.length > 0]),
      [['echo', 'running', true]],
    );
  });

  it('ships the bundle and no sources, tests or node_modules', () => {
    const root = switchboardExtension().extensionPath;
    assert.ok(fs.existsSync(path.join(root, 'dist', 'extension.js')));
    for (const unwanted of ['src', 'test', 'node_modules', 'scripts', 'tsconfig.json']) {
      assert.ok(!fs.existsSync(path.join(root, unwanted)), `${unwanted} is not in the package`);
    }
  });
});
