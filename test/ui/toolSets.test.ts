// Tool sets in the real editor: a workspace that defines them shows the one in use on the status
// bar with the number of tools chat is offered; a click switches it, written to the workspace's
// settings, and what chat is offered follows (the tree says why a tool is out).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { eventually } from '../core/support/poll';
import { activityBarEntry, openWorkbench, runFromPalette, screenshot, treeRow, type Workbench } from './workbench';

const fixture = path.resolve(__dirname, '../fixtures/stdio-server.mjs');

describe('tool sets (UI)', function () {
  this.timeout(180_000);
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    workbench = await openWorkbench('basic', {
      userSettings: {
        'mcpSwitchboard.servers': {
          alpha: { command: process.execPath, args: [fixture, '--name', 'alpha'] },
          beta: { command: process.execPath, args: [fixture, '--name', 'beta'] },
        },
      },
      prepareWorkspace: (dir) =>
        fs.writeFileSync(
          path.join(dir, '.vscode', 'settings.json'),
          JSON.stringify(
            {
              'mcpSwitchboard.toolSets': {
                review: { servers: ['alpha'], description: 'Only alpha' },
                echoes: { tools: ['*/echo'] },
              },
              'mcpSwitchboard.toolSet': 'review',
            },
            null,
            2,
          ),
        ),
    });
  });

  after(async () => {
    await workbench?.close();
  });

  it('shows the set in use with what chat is offered, and switching it changes both and the settings', async () => {
    const { page, workspace } = workbench;
    await page.locator('.statusbar-item', { hasText: '2/2' }).waitFor({ timeout: 60_000 });
    const item = page.locator('.statusbar-item', { hasText: /review · \d+/ });
    await item.waitFor({ timeout: 30_000 });
    const alphaTools = Number(/review · (\d+)/.exec(await item.innerText())?.[1]);
    assert.ok(alphaTools > 1, `alpha's tools are offered (${alphaTools})`);
    // What a screen reader says: words, not the tooltip's markdown.
    const spoken = (await item.getAttribute('aria-label')) ?? (await item.locator('[aria-label]').first().getAttribute('aria-label')) ?? '';
    assert.equal(spoken, `Tool set review, ${alphaTools} tools offered to chat. Switch tool set.`);

    await activityBarEntry(page, 'MCP Switchboard').click();
    await treeRow(page, 'beta').click();
    await treeRow(page, 'echo').hover();
    await page.locator('.monaco-list-row', { hasText: 'echo' }).first().waitFor();
    await page
      .locator('.monaco-list-row', { has: page.locator('.label-description', { hasText: 'not in tool set "review"' }) })
      .first()
      .waitFor({ timeout: 30_000 });

    await item.click();
    const picker = page.locator('.quick-input-widget', { hasText: 'Which tools do agents see here?' });
    await picker.waitFor({ timeout: 30_000 });
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'echoes' }).first().click();
    await page.locator('.statusbar-item', { hasText: 'echoes · 2' }).waitFor({ timeout: 30_000 });
    await eventually(
      () =>
        /"mcpSwitchboard\.toolSet": "echoes"/.test(fs.readFileSync(path.join(workspace, '.vscode', 'settings.json'), 'utf8'))
          ? true
          : undefined,
      'the workspace settings name the new set',
      30_000,
    );
  });
});

describe('Find Tools… without a chat model (UI)', function () {
  this.timeout(180_000);
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    workbench = await openWorkbench('basic', {
      userSettings: {
        'mcpSwitchboard.servers': {
          alpha: { command: process.execPath, args: [fixture, '--name', 'alpha'] },
          beta: { command: process.execPath, args: [fixture, '--name', 'beta'] },
        },
        // One tool in chat's list: everything else is past the budget, found by search.
        'mcpSwitchboard.tools.maxExposed': 1,
      },
    });
  });

  after(async () => {
    await workbench?.close();
  });

  it('searches as #mcpTools does, says which tools are past the budget, and runs the one picked', async () => {
    const { page } = workbench;
    await page.locator('.statusbar-item', { hasText: '2/2' }).waitFor({ timeout: 60_000 });
    await runFromPalette(page, 'MCP Switchboard: Find Tools…', { opensQuickInput: true });
    await page.locator('.quick-input-widget', { hasText: 'What do you want to do?' }).waitFor({ timeout: 15_000 });
    await page.locator('.quick-input-widget input').fill('add two numbers');
    await page.keyboard.press('Enter');
    const picker = page.locator('.quick-input-widget', { hasText: 'for “add two numbers”, best first' });
    await picker.waitFor({ timeout: 15_000 });
    // alpha's add is the one tool in chat's list; beta's is past the budget, found all the same.
    const rows = page.locator('.quick-input-widget .monaco-list-row');
    assert.match(await rows.filter({ hasText: 'alpha__add' }).first().innerText(), /in chat’s list/);
    const found = rows.filter({ hasText: 'beta__add' }).first();
    assert.match(await found.innerText(), /past the budget: chat finds it by search/);
    // Each row says which words of the query it matched.
    assert.match(await found.innerText(), /matched add, two, numbers/);
    await screenshot(page, 'find-tools');
    const name = 'beta__add';
    await found.click();
    // Its arguments, as Run Tool asks them; then the editor's confirmation (it is not read-only).
    const title = `Arguments for ${name.replace('__', '/')}`;
    const input = page.locator('.quick-input-widget input');
    await page.locator('.quick-input-widget', { hasText: title }).waitFor({ timeout: 15_000 });
    await input.fill('Edit as JSON');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Edit as JSON' }).first().waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget', { hasText: `${title} (JSON)` }).waitFor();
    await input.fill('{"a": 2, "b": 3}');
    await page.keyboard.press('Enter');
    const confirmation = page.locator('.monaco-dialog-box', { hasText: 'add' });
    await confirmation.waitFor({ timeout: 30_000 });
    await confirmation
      .locator('.monaco-button')
      .filter({ hasText: /^(Yes|Allow|Continue|Run)/ })
      .first()
      .click();
    await page.locator('.part.panel .view-lines', { hasText: `${name.replace('__', '/')} returned: 5` }).waitFor({ timeout: 30_000 });
  });

  it('says once, in one line, that the budget cut the list and search finds the rest, with Find Tools… at hand', async () => {
    const { page } = workbench;
    await runFromPalette(page, 'Notifications: Show Notifications');
    const notices = page.locator('.notifications-center .notification-list-item', { hasText: 'chat is offered 1 of' });
    await notices.first().waitFor({ timeout: 15_000 });
    assert.equal(await notices.count(), 1, 'one notice, with the final counts');
    assert.match(
      await notices.first().innerText(),
      /MCP Switchboard: chat is offered 1 of (\d+) tools \(mcpSwitchboard\.tools\.maxExposed\); search finds the other (\d+)\./,
    );
    const buttons = (await notices.first().locator('.monaco-button').allInnerTexts()).map((text) => text.trim());
    assert.deepEqual(buttons, ['Find Tools…', 'Open Filter Settings']);
    await runFromPalette(page, 'Notifications: Hide Notifications');
  });

  it('Switch Tool Set… where none is defined says so in a short line, with a button to define them', async () => {
    const { page } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Switch Tool Set…');
    // A headless, unfocused workbench files notifications in the center instead of toasting them.
    await runFromPalette(page, 'Notifications: Show Notifications');
    const notice = page.locator('.notifications-center .notification-list-item', { hasText: 'no tool sets are defined here' }).first();
    await notice.waitFor({ timeout: 15_000 });
    assert.match(await notice.innerText(), /^MCP Switchboard: no tool sets are defined here.$/m);
    await notice.locator('.monaco-button', { hasText: 'Define Tool Sets' }).click();
    // The settings editor, on the setting itself.
    await page.locator('.settings-editor .setting-item', { hasText: 'Tool Sets' }).first().waitFor({ timeout: 30_000 });
  });
});
