import assert from 'node:assert/strict';
import { activityBarEntry, openWorkbench, runFromPalette, screenshot, type Workbench } from './workbench';

describe('the workbench, clicked as a user would (UI)', function () {
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    workbench = await openWorkbench('basic');
  });

  after(async () => {
    await workbench?.close();
  });

  it('shows the Switchboard activity-bar entry and the welcome content of the empty Servers view', async () => {
    const { page } = workbench;
    const entry = activityBarEntry(page, 'MCP Switchboard');
    await entry.waitFor({ timeout: 30_000 });
    await entry.click();
    const welcome = page.locator('.welcome-view-content', { hasText: 'No MCP servers are configured yet.' });
    // The welcome replaces "no data provider" only once the extension registered its tree.
    await welcome.waitFor({ timeout: 30_000 });
    assert.ok(await welcome.getByRole('button', { name: 'Add Server', exact: true }).isVisible());
    assert.ok(await welcome.getByRole('button', { name: 'Add Server from Registry' }).isVisible());
    assert.ok(await welcome.getByRole('button', { name: 'Import Servers' }).isVisible());
    await screenshot(page, 'welcome-view');
  });

  it('runs "Show Server Logs…" from the palette and shows the activation line in the main log', async () => {
    const { page } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Show Server Logs…', { opensQuickInput: true });
    await page.locator('.quick-input-widget', { hasText: 'Show logs of' }).waitFor();
    await page.keyboard.press('Enter');
    const output = page.locator('.part.panel .view-lines', { hasText: 'MCP Switchboard' });
    await output.waitFor({ timeout: 15_000 });
    // Monaco renders spaces as no-break spaces.
    assert.match((await output.innerText()).replace(/\s+/g, ' '), /MCP Switchboard \d+\.\d+\.\d+ activated/);
    await screenshot(page, 'show-logs');
  });

  it('runs "Open Settings" from the palette and lands on the extension settings', async () => {
    const { page } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Open Settings');
    const setting = page.locator('.settings-editor .setting-item', { hasText: 'Servers' }).first();
    await setting.waitFor({ timeout: 15_000 });
    assert.ok(await page.locator('.tabs-container .tab', { hasText: 'Settings' }).isVisible());
    await screenshot(page, 'open-settings');
  });
});
