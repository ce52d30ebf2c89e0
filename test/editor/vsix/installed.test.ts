import assert from 'node:assert/strict';
import fs from 'node:fs';
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

  // About 0.85 MB of it is the sandbox runtime and its seccomp helpers for x64 and arm64.
  it('stays under 2 MB packaged', () => {
    const bytes = Number(process.env.SWITCHBOARD_VSIX_BYTES ?? '');
    assert.ok(bytes > 0, 'the runner measures the .vsix it installed');
    assert.ok(bytes < 2 * 1024 * 1024, `${bytes} bytes`);
  });

  it('ships the sandbox runtime, with its seccomp helper still executable after the install', () => {
    const sandbox = path.join(switchboardExtension().extensionPath, 'dist', 'sandbox');
    assert.ok(fs.existsSync(path.join(sandbox, 'srt.mjs')));
    assert.ok(fs.existsSync(path.join(sandbox, 'LICENSE')));
    for (const arch of ['x64', 'arm64']) {
      const helper = path.join(sandbox, 'vendor', 'seccomp', arch, 'apply-seccomp');
      assert.doesNotThrow(() => fs.accessSync(helper, fs.constants.X_OK), `${helper} is executable`);
    }
  });

  it('ships the bundle and no sources, tests or node_modules', () => {
    const root = switchboardExtension().extensionPath;
    assert.ok(fs.existsSync(path.join(root, 'dist', 'extension.js')));
    for (const unwanted of ['src', 'test', 'node_modules', 'scripts', 'tsconfig.json']) {
      assert.ok(!fs.existsSync(path.join(root, unwanted)), `${unwanted} is not in the package`);
    }
  });
});
