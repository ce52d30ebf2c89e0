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
    assert.deepEqual(contributedCommands(extension).filter((command) => !registered.has(command)), []);
  });

  it('stays under 1 MB packaged', () => {
    const bytes = Number(process.env.SWITCHBOARD_VSIX_BYTES ?? '');
    assert.ok(bytes > 0, 'the runner measures the .vsix it installed');
    assert.ok(bytes < 1024 * 1024, `${bytes} bytes`);
  });

  it('ships the bundle and no sources, tests or node_modules', () => {
    const root = switchboardExtension().extensionPath;
    assert.ok(fs.existsSync(path.join(root, 'dist', 'extension.js')));
    for (const unwanted of ['src', 'test', 'node_modules', 'scripts', 'tsconfig.json']) {
      assert.ok(!fs.existsSync(path.join(root, unwanted)), `${unwanted} is not in the package`);
    }
  });
});
