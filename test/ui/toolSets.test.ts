// Tool sets in the real editor: a workspace that defines them shows the one in use on the status
// bar with the number of tools chat is offered; a click switches it, written to the workspace's
// settings, and what chat is offered follows (the tree says why a tool is out).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { eventually } from '../core/support/poll';
import { activityBarEntry, openWorkbench, treeRow, type Workbench } from './workbench';

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

    await activityBarEntry(page, 'MCP Switchboard').click();
    await treeRow(page, 'beta').click();
    await treeRow(page, 'echo').hover();
    await page.locator('.monaco-list-row', { hasText: 'echo' }).first().waitFor();
    await page
      .locator('.monaco-list-row', { has: page.locator('.label-description', { hasText: 'filtered: not in the tool set "review"' }) })
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
