import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { activityBarEntry, openWorkbench, runFromPalette, screenshot, treeRow, type Workbench } from './workbench';

const fixture = path.resolve(__dirname, '../fixtures/stdio-server.mjs');

async function answer(page: Page, title: RegExp | string, text?: string): Promise<void> {
  await page.locator('.quick-input-widget', { hasText: title }).waitFor({ timeout: 15_000 });
  if (text !== undefined) await page.locator('.quick-input-widget input').fill(text);
  await page.keyboard.press('Enter');
}

describe('adding and importing servers from the palette (UI)', function () {
  this.timeout(180_000);
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    workbench = await openWorkbench('basic', {
      prepareWorkspace: (dir) => {
        fs.writeFileSync(
          path.join(dir, '.vscode', 'mcp.json'),
          JSON.stringify(
            {
              servers: { imported: { type: 'stdio', command: process.execPath, args: [fixture, '--name', 'imported'] } },
            },
            null,
            2,
          ),
        );
      },
    });
    await activityBarEntry(workbench.page, 'MCP Switchboard').click();
  });

  after(async () => {
    await workbench?.close();
  });

  it('Add Server… turns a pasted command line into a running server', async () => {
    const { page } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Add Server…', { opensQuickInput: true });
    await answer(page, 'command line or URL', `"${process.execPath}" "${fixture}" --name added`);
    await answer(page, 'name', 'added-server');
    await answer(page, 'where to save it', 'User settings');
    await treeRow(page, 'added-server')
      .locator('.label-description', { hasText: /^running/ })
      .waitFor({ timeout: 30_000 });
  });

  it('Add Server… says at once that a command is not on PATH, and still lets it be added', async () => {
    const { page } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Add Server…', { opensQuickInput: true });
    await page.locator('.quick-input-widget', { hasText: 'command line or URL' }).waitFor({ timeout: 15_000 });
    const input = page.locator('.quick-input-widget input');
    await input.fill('npx-typo-switchboard -y some-server');
    await page
      .locator('.quick-input-widget', { hasText: "`npx-typo-switchboard` is not on the editor's PATH" })
      .waitFor({ timeout: 15_000 });
    await screenshot(page, 'add-server-not-on-path');
    // A command that is there says nothing.
    await input.fill(`"${process.execPath}" "${fixture}"`);
    await page.locator('.quick-input-widget', { hasText: 'is not on the editor' }).waitFor({ state: 'detached', timeout: 15_000 });
    // A warning, not a refusal: it may be installed later.
    await input.fill('npx-typo-switchboard -y some-server');
    await page.locator('.quick-input-widget', { hasText: 'is not on the editor' }).waitFor({ timeout: 15_000 });
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget', { hasText: 'Add MCP Server (2/3): name' }).waitFor({ timeout: 15_000 });
    await page.keyboard.press('Escape');
  });

  it('Add Server… suggests the name a package serves, and says at once that a name is taken', async () => {
    const { page } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Add Server…', { opensQuickInput: true });
    await answer(page, 'command line or URL', 'npx -y @modelcontextprotocol/server-memory');
    const nameBox = page.locator('.quick-input-widget', { hasText: 'name' });
    await nameBox.waitFor({ timeout: 15_000 });
    assert.equal(await page.locator('.quick-input-widget input').inputValue(), 'memory');
    await page.locator('.quick-input-widget input').fill('added-server');
    await page
      .locator('.quick-input-widget', { hasText: 'A server named "added-server" already exists in your user settings' })
      .waitFor({ timeout: 15_000 });
    await screenshot(page, 'add-server-name-taken');
    await page.keyboard.press('Escape');
  });

  it('Add Server… suggests a free name when the one a command serves is taken, and says so', async () => {
    const { page } = workbench;
    const line = `"${process.execPath}" "${fixture}" --name twice`;
    await runFromPalette(page, 'MCP Switchboard: Add Server…', { opensQuickInput: true });
    await answer(page, 'command line or URL', line);
    await page.locator('.quick-input-widget', { hasText: 'name' }).waitFor({ timeout: 15_000 });
    assert.equal(await page.locator('.quick-input-widget input').inputValue(), 'stdio');
    await answer(page, 'name', 'stdio');
    await answer(page, 'where to save it', 'User settings');
    await treeRow(page, 'stdio').waitFor({ timeout: 30_000 });
    await runFromPalette(page, 'MCP Switchboard: Add Server…', { opensQuickInput: true });
    await answer(page, 'command line or URL', line);
    await page.locator('.quick-input-widget', { hasText: '"stdio" is taken, so "stdio-2" is suggested' }).waitFor({ timeout: 15_000 });
    assert.equal(await page.locator('.quick-input-widget input').inputValue(), 'stdio-2');
    await page.keyboard.press('Escape');
  });

  it('Import Servers… previews the servers of .vscode/mcp.json and adds the chosen ones', async () => {
    const { page } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Import Servers…', { opensQuickInput: true });
    const picker = page.locator('.quick-input-widget', { hasText: 'from where' });
    await picker.waitFor({ timeout: 15_000 });
    // Only sources whose files exist are offered, each with what it holds.
    assert.match(await picker.locator('.monaco-list-row', { hasText: '.vscode/mcp.json' }).innerText(), /1 server/);
    const cursorFile = path.join(os.homedir(), '.cursor', 'mcp.json');
    assert.equal(await picker.locator('.monaco-list-row', { hasText: 'Cursor' }).count(), fs.existsSync(cursorFile) ? 1 : 0);
    await answer(page, 'from where', '.vscode/mcp.json');
    const preview = page.locator('.quick-input-widget', { hasText: 'these will be added' });
    await preview.waitFor({ timeout: 15_000 });
    const row = preview.locator('.monaco-list-row', { hasText: 'imported' });
    const shown = await row.innerText();
    assert.match(shown, /stdio-server\.mjs --name imported/, 'the preview shows the command line a person reads');
    assert.doesNotMatch(shown, /"command"/, 'not the entry as raw JSON');
    await screenshot(page, 'import-preview');
    await page.keyboard.press('Enter');
    await answer(page, 'save to', 'User settings');
    await treeRow(page, 'imported')
      .locator('.label-description', { hasText: /^running/ })
      .waitFor({ timeout: 30_000 });
  });

  it('Remove Server… deletes the entry where it is defined, after saying where, and the row goes', async () => {
    const { page, userDataDir } = workbench;
    const userSettings = path.join(userDataDir, 'User', 'settings.json');
    assert.match(fs.readFileSync(userSettings, 'utf8'), /"added-server"/);
    await runFromPalette(page, 'MCP Switchboard: Remove Server…', { opensQuickInput: true });
    await answer(page, 'Remove which server?', 'added-server');
    const confirm = page.locator('.monaco-dialog-box', { hasText: 'Remove the MCP server "added-server"?' });
    await confirm.waitFor({ timeout: 15_000 });
    assert.match(await confirm.innerText(), /deleted from user settings/);
    await confirm.locator('.monaco-button', { hasText: /^Remove$/ }).click();
    // Hidden, not detached: the palette's closed picker keeps an (invisible) row of that name.
    await treeRow(page, 'added-server').waitFor({ state: 'hidden', timeout: 30_000 });
    assert.doesNotMatch(fs.readFileSync(userSettings, 'utf8'), /"added-server"/);
    assert.equal(await treeRow(page, 'imported').count(), 1, 'the other servers stay');
  });
});
