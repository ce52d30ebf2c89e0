// A failure notice offers the fix that matches the failure: for a command that is not found, the
// settings entry comes first and a reconnect (which cannot fix a typo) is not offered.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { activityBarEntry, openWorkbench, rowOverflow, rowTooltip, runFromPalette, treeRow, type Workbench } from './workbench';

describe('the failure notice of a missing command (UI)', function () {
  this.timeout(180_000);
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    workbench = await openWorkbench('basic', {
      userSettings: { 'mcpSwitchboard.servers': { typo: { command: 'npx-typo-switchboard', args: ['-y', 'some-server'] } } },
    });
  });

  after(async () => {
    await workbench?.close();
  });

  it('offers Open Settings Entry first, no Reconnect, and the button opens the entry', async () => {
    const { page } = workbench;
    // First the failure itself (on a busy machine activation takes a while), then its notice.
    await activityBarEntry(page, 'MCP Switchboard').click();
    await treeRow(page, 'typo').locator('.label-description', { hasText: 'command not found' }).waitFor({ timeout: 60_000 });
    // A headless, unfocused workbench files notifications in the center instead of toasting them.
    await runFromPalette(page, 'Notifications: Show Notifications');
    const notice = page.locator('.notifications-center .notification-list-item', { hasText: 'MCP server "typo" failed' }).first();
    await notice.waitFor({ timeout: 30_000 });
    assert.match(await notice.innerText(), /command `npx-typo-switchboard` not found on PATH/);
    const buttons = await notice.locator('.monaco-button').allInnerTexts();
    assert.deepEqual(
      buttons.map((text) => text.trim()),
      ['Open Settings Entry', 'Show Logs'],
    );
    await notice.locator('.monaco-button', { hasText: 'Open Settings Entry' }).click();
    await page.locator('.tab.active', { hasText: 'settings.json' }).waitFor({ timeout: 30_000 });
  });

  it('says what failed on the row in words that fit, offers the entry on hover, and lists the PATH in the tooltip', async () => {
    const { page } = workbench;
    const row = treeRow(page, 'typo');
    assert.equal((await row.locator('.label-description').innerText()).trim(), 'command not found');
    assert.equal((await rowOverflow(row)).hiddenPx, 0);
    await row.hover();
    assert.ok(await row.locator('.actions .action-label[aria-label^="Open Settings Entry"]').isVisible());
    const tooltip = await rowTooltip(page, row, 'Searched (PATH, in order)');
    const text = await tooltip.innerText();
    // Every folder on its own line (the extension host's PATH ends with the system's), and the
    // editor's own marked as such.
    assert.match(text, /^\/usr\/bin$/m);
    assert.match(text, /remote-cli {3}\(the editor's own\)$/m);
    await page.mouse.move(700, 600);
  });

  it('says so when the fixed command runs, since the failure notice cannot be taken back', async () => {
    const { page } = workbench;
    // As the user would: in the settings.json that Open Settings Entry opened, fixed and saved.
    const settings = path.join(workbench.userDataDir, 'User', 'settings.json');
    const current = JSON.parse(fs.readFileSync(settings, 'utf8')) as Record<string, unknown>;
    const fixture = path.resolve(__dirname, '../fixtures/stdio-server.mjs');
    const fixed = JSON.stringify(
      { ...current, 'mcpSwitchboard.servers': { typo: { command: process.execPath, args: [fixture, '--name', 'typo'] } } },
      null,
      2,
    );
    await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText(fixed);
    await page.keyboard.press('ControlOrMeta+S');
    await treeRow(page, 'typo')
      .locator('.label-description', { hasText: /^running/ })
      .waitFor({ timeout: 60_000 });
    await runFromPalette(page, 'Notifications: Show Notifications');
    await page
      .locator('.notifications-center .notification-list-item', { hasText: 'MCP server "typo" is running again' })
      .first()
      .waitFor({ timeout: 30_000 });
  });
});
