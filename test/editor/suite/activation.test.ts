import assert from 'node:assert/strict';
import path from 'node:path';
import * as vscode from 'vscode';
import { contributedCommands, switchboardExtension } from '../support';

// Bundled to out/test/editor/suite/, four levels below the repository.
const repoRoot = path.resolve(__dirname, '../../../..');

describe('activation from the development folder', () => {
  it('loads the extension from this repository and activates it', async () => {
    const extension = switchboardExtension();
    assert.equal(path.resolve(extension.extensionPath), repoRoot);
    await extension.activate();
    assert.equal(extension.isActive, true);
  });

  it('registers every command it contributes', async () => {
    const extension = switchboardExtension();
    await extension.activate();
    const expected = contributedCommands(extension);
    assert.ok(expected.length > 0, 'the manifest contributes commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(
      expected.filter((command) => !registered.has(command)),
      [],
    );
  });

  it('registers the activity-bar container and the Servers view', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    // The workbench creates these commands only for containers and views it accepted.
    assert.ok(registered.has('workbench.view.extension.mcpSwitchboard'), 'view container');
    assert.ok(registered.has('mcpSwitchboard.servers.focus'), 'Servers view');
    await vscode.commands.executeCommand('mcpSwitchboard.servers.focus');
  });

  it('Open Settings opens the settings editor', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('mcpSwitchboard.openSettings');
    const active = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.equal(active?.label, 'Settings');
  });
});
