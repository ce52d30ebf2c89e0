import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { activityBarEntry, openWorkbench, runFromPalette, screenshot, treeRow, type Workbench } from './workbench';

const fixture = path.resolve(__dirname, '../fixtures/stdio-server.mjs');

describe('Restricted Mode, then trust granted (UI)', function () {
  this.timeout(180_000);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-trust-'));
  const marker = path.join(scratch, 'workspace-server.json');
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    workbench = await openWorkbench('consent', {
      trust: false,
      prepareWorkspace: (dir) => {
        fs.writeFileSync(
          path.join(dir, '.vscode', 'settings.json'),
          JSON.stringify(
            {
              'mcpSwitchboard.servers': { 'workspace-server': { command: process.execPath, args: [fixture, '--marker', marker] } },
            },
            null,
            2,
          ),
        );
      },
    });
  });

  after(async () => {
    await workbench?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('shows a workspace server as blocked while the workspace is not trusted, and never starts it', async () => {
    const { page } = workbench;
    // Opened from a URL, this build starts the folder in Restricted Mode without asking.
    await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).waitFor({ timeout: 60_000 });
    await activityBarEntry(page, 'MCP Switchboard').click();
    await treeRow(page, 'workspace-server').locator('.label-description', { hasText: 'untrusted workspace' }).waitFor({ timeout: 30_000 });
    await screenshot(page, 'restricted-mode');
    assert.equal(fs.existsSync(marker), false);
  });

  it('starts it without a reload once the user trusts the workspace (consent still applies)', async () => {
    const { page } = workbench;
    await runFromPalette(page, 'Workspaces: Manage Workspace Trust');
    await page.getByRole('button', { name: 'Trust', exact: true }).click();
    // Trusted now, so the workspace-defined command needs the user's consent before it runs.
    const consent = page.locator('.monaco-dialog-box', { hasText: 'workspace-server' });
    await consent.waitFor({ timeout: 30_000 });
    await consent.locator('.monaco-button', { hasText: 'Allow' }).click();
    await page.keyboard.press('Escape');
    await treeRow(page, 'workspace-server')
      .locator('.label-description', { hasText: /^running/ })
      .waitFor({ timeout: 30_000 });
    assert.equal(fs.existsSync(marker), true);
  });
});
