// Turning the sandbox on for every server (mcpSwitchboard.sandbox.enabled in the user settings)
// restarts a running server sandboxed, in the real editor, without a reload of the window. Before,
// the setting was read when servers loaded but a change to it reloaded nothing, and the servers
// kept running unsandboxed until the window was reloaded.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { activityBarEntry, openWorkbench, runFromPalette, treeRow, type Workbench } from './workbench';

const probe = path.resolve(__dirname, '../fixtures/sandbox-probe-server.mjs');

/** As a user would: the user settings.json opened in the editor, its text replaced, and saved. */
async function saveUserSettings(page: Page, settings: Record<string, unknown>): Promise<void> {
  await runFromPalette(page, 'Preferences: Open User Settings (JSON)');
  const editor = page.locator('.editor-instance .monaco-editor .view-lines').first();
  await editor.waitFor({ timeout: 30_000 });
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(JSON.stringify(settings, null, 2));
  await page.keyboard.press('ControlOrMeta+S');
}

describe('the sandbox setting takes effect at once (UI)', function () {
  if (process.platform !== 'linux') return;
  this.timeout(180_000);
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    workbench = await openWorkbench('basic', {
      userSettings: { 'mcpSwitchboard.servers': { mine: { command: process.execPath, args: [probe] } } },
    });
    await activityBarEntry(workbench.page, 'MCP Switchboard').click();
  });

  after(async () => {
    await workbench?.close();
  });

  it('sandbox.enabled on: the running server restarts sandboxed; off: unsandboxed again', async () => {
    const { page, userDataDir } = workbench;
    const row = treeRow(page, 'mine');
    await row.locator('.label-description', { hasText: /^running · \d+ tools?$/ }).waitFor({ timeout: 60_000 });
    assert.equal(await row.locator('.codicon-lock').count(), 0, 'not sandboxed before the setting');
    const file = path.join(userDataDir, 'User', 'settings.json');
    const settings = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    await saveUserSettings(page, { ...settings, 'mcpSwitchboard.sandbox.enabled': true });
    // Sandboxed: still "running" in words (one vocabulary), with the lock icon.
    await row.locator('.codicon-lock').waitFor({ timeout: 60_000 });
    await row.locator('.label-description', { hasText: /^running · \d+ tools?$/ }).waitFor({ timeout: 60_000 });
    await saveUserSettings(page, { ...settings, 'mcpSwitchboard.sandbox.enabled': false });
    await row.locator('.codicon-lock').waitFor({ state: 'detached', timeout: 60_000 });
    await row.locator('.label-description', { hasText: /^running · \d+ tools?$/ }).waitFor({ timeout: 60_000 });
  });
});
