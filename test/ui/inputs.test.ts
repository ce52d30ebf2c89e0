import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { activityBarEntry, openWorkbench, runFromPalette, treeRow, type Workbench } from './workbench';

const fixture = path.resolve(__dirname, '../fixtures/stdio-server.mjs');
const secret = 'sk-input-secret-5d1e';

describe('${input:} values (UI)', function () {
  this.timeout(180_000);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-inputs-'));
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    workbench = await openWorkbench('basic', {
      userSettings: {
        'mcpSwitchboard.servers': {
          keyed: {
            command: process.execPath,
            args: [fixture, '--name', 'keyed', '--marker', path.join(scratch, 'keyed.json')],
            env: { API_TOKEN: '${input:api-token}' },
          },
        },
      },
    });
    await activityBarEntry(workbench.page, 'MCP Switchboard').click();
  });

  after(async () => {
    await workbench?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('asks once with a masked box, starts the server, and never writes the value to settings', async () => {
    const { page } = workbench;
    const box = page.locator('.quick-input-widget', { hasText: 'api-token' });
    await box.waitFor({ timeout: 60_000 });
    assert.equal(await box.locator('input').getAttribute('type'), 'password');
    await box.locator('input').fill(secret);
    await page.keyboard.press('Enter');
    await treeRow(page, 'keyed')
      .locator('.label-description', { hasText: /^running/ })
      .waitFor({ timeout: 30_000 });
    const userSettings = path.join(workbench.userDataDir, 'User', 'settings.json');
    const workspaceSettings = path.join(workbench.workspace, '.vscode', 'settings.json');
    for (const file of [userSettings, workspaceSettings]) {
      if (fs.existsSync(file)) assert.ok(!fs.readFileSync(file, 'utf8').includes(secret), `${file} must not hold the value`);
    }
    assert.match(fs.readFileSync(userSettings, 'utf8'), /\$\{input:api-token\}/, 'the entry still names the input');
  });

  it('uses the stored value on the next reconnect without asking, and asks again after Clear Stored Inputs', async () => {
    const { page } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Reconnect All Servers');
    await treeRow(page, 'keyed')
      .locator('.label-description', { hasText: /^running/ })
      .waitFor({ timeout: 30_000 });
    assert.equal(await page.locator('.quick-input-widget', { hasText: 'api-token' }).isVisible(), false);
    // Clearing reloads the configuration, which asks again at once: the palette is replaced by the prompt.
    await runFromPalette(page, 'MCP Switchboard: Clear Stored Inputs', { opensQuickInput: true });
    await page.locator('.quick-input-widget', { hasText: 'api-token' }).waitFor({ timeout: 30_000 });
    await page.keyboard.press('Escape');
    await treeRow(page, 'keyed')
      .locator('.label-description', { hasText: /^needs input$/ })
      .waitFor({ timeout: 30_000 });
  });
});
