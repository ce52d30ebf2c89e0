// A failure notice offers the fix that matches the failure: for a command that is not found, the
// settings entry comes first and a reconnect (which cannot fix a typo) is not offered.
import assert from 'node:assert/strict';
import { activityBarEntry, openWorkbench, runFromPalette, treeRow, type Workbench } from './workbench';

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
    await treeRow(page, 'typo').locator('.label-description', { hasText: /^error/ }).waitFor({ timeout: 60_000 });
    // A headless, unfocused workbench files notifications in the center instead of toasting them.
    await runFromPalette(page, 'Notifications: Show Notifications');
    const notice = page.locator('.notifications-center .notification-list-item', { hasText: 'MCP server "typo" failed' }).first();
    await notice.waitFor({ timeout: 30_000 });
    assert.match(await notice.innerText(), /command `npx-typo-switchboard` not found on PATH/);
    const buttons = await notice.locator('.monaco-button').allInnerTexts();
    assert.deepEqual(buttons.map((text) => text.trim()), ['Open Settings Entry', 'Show Logs']);
    await notice.locator('.monaco-button', { hasText: 'Open Settings Entry' }).click();
    await page.locator('.tab.active', { hasText: 'settings.json' }).waitFor({ timeout: 30_000 });
  });
});
