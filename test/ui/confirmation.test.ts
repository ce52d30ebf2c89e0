import assert from 'node:assert/strict';
import path from 'node:path';
import { openWorkbench, runFromPalette, screenshot, type Workbench } from './workbench';

const fixture = path.resolve(__dirname, '../fixtures/stdio-server.mjs');

describe('invoking a tool that is not read-only (UI)', function () {
  this.timeout(180_000);
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    workbench = await openWorkbench('basic', {
      userSettings: { 'mcpSwitchboard.servers': { ok: { command: process.execPath, args: [fixture] } } },
    });
  });

  after(async () => {
    await workbench?.close();
  });

  it('shows a confirmation naming the server, tool and arguments; accepting it returns the upstream result', async () => {
    const { page } = workbench;
    await page.locator('.statusbar-item', { hasText: '1/1' }).waitFor({ timeout: 60_000 });
    await runFromPalette(page, 'MCP Switchboard: Run Tool…', { opensQuickInput: true });
    await page.locator('.quick-input-widget', { hasText: 'Run which MCP tool?' }).waitFor();
    const input = page.locator('.quick-input-widget input');
    await input.fill('ok__add');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'ok__add' }).first().waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget', { hasText: 'Arguments for ok/add' }).waitFor();
    await input.fill('{"a": 2, "b": 3}');
    await page.keyboard.press('Enter');

    const dialog = page.locator('.monaco-dialog-box', { hasText: 'add' });
    await dialog.waitFor({ timeout: 30_000 });
    const text = await dialog.innerText();
    assert.match(text, /server "ok"/);
    assert.match(text, /"a": 2/);
    await screenshot(page, 'tool-confirmation');
    await dialog.locator('.monaco-button').filter({ hasText: /^(Yes|Allow|Continue|Run)/ }).first().click();

    const output = page.locator('.part.panel .view-lines', { hasText: 'ok/add returned' });
    await output.waitFor({ timeout: 30_000 });
    assert.match((await output.innerText()).replace(/\s+/g, ' '), /ok\/add returned: 5/);
  });
});
