// Sandboxing a user's own server from its row, and the fix for a sandboxed server that its sandbox
// stopped: the failure says which host was refused, and one click allows exactly that host in the
// server's entry, after which it runs. In the real editor, with the real sandbox.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { eventually } from '../core/support/poll';
import { activityBarEntry, openWorkbench, runFromPalette, screenshot, treeRow, type Workbench } from './workbench';

const probe = path.resolve(__dirname, '../fixtures/sandbox-probe-server.mjs');

describe('sandbox fixes from the Servers view (UI)', function () {
  if (process.platform !== 'linux') return;
  this.timeout(180_000);
  let workbench: Workbench;
  let registry: http.Server;
  let port = 0;

  before(async function () {
    this.timeout(120_000);
    // What the server must reach before it serves, as npx must reach its registry.
    registry = http.createServer((_request, response) => response.end('package'));
    await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
    port = (registry.address() as AddressInfo).port;
    workbench = await openWorkbench('basic', {
      userSettings: {
        'mcpSwitchboard.servers': {
          mine: { command: process.execPath, args: [probe] },
          fetcher: { command: process.execPath, args: [probe, '--fetch-at-start', `http://127.0.0.1:${port}/`], sandboxEnabled: true },
        },
      },
    });
    await activityBarEntry(workbench.page, 'MCP Switchboard').click();
  });

  after(async () => {
    await workbench?.close();
    await new Promise<void>((resolve) => registry?.close(() => resolve()));
  });

  it("names the host the sandbox refused, and the notice's one click allows exactly it; the server then runs", async () => {
    const { page, userDataDir } = workbench;
    const row = treeRow(page, 'fetcher');
    await row.locator('.label-description', { hasText: 'network denied' }).waitFor({ timeout: 60_000 });
    await runFromPalette(page, 'Notifications: Show Notifications');
    const notice = page.locator('.notifications-center .notification-list-item', { hasText: 'MCP server "fetcher" failed' }).first();
    await notice.waitFor({ timeout: 30_000 });
    const text = await notice.innerText();
    // A user-level server runs in the machine host (sharing is on by default), which the message says first.
    assert.match(text, new RegExp(`failed: (in the machine host: )?sandbox denied network access to 127\\.0\\.0\\.1:${port}`), text);
    assert.doesNotMatch(text, /giving up/, "the cause, not the server's last words");
    const buttons = (await notice.locator('.monaco-button').allInnerTexts()).map((label) => label.trim());
    assert.deepEqual(buttons, ['Allow 127.0.0.1', 'Show Logs']);
    await screenshot(page, 'sandbox-denied-notice');
    await notice.locator('.monaco-button', { hasText: 'Allow 127.0.0.1' }).click();
    await row.locator('.label-description', { hasText: /^running · \d+ tools?$/ }).waitFor({ timeout: 60_000 });
    await row.locator('.codicon-lock').waitFor({ timeout: 10_000 });
    const settings = JSON.parse(fs.readFileSync(path.join(userDataDir, 'User', 'settings.json'), 'utf8')) as {
      'mcpSwitchboard.servers': { fetcher: { sandbox?: { network?: { allowedDomains?: string[] } } } };
    };
    assert.deepEqual(settings['mcpSwitchboard.servers'].fetcher.sandbox?.network?.allowedDomains, ['127.0.0.1']);
    // The notifications center stays open over the view otherwise.
    await runFromPalette(page, 'Notifications: Clear All Notifications');
  });

  it("Run Sandboxed and Run Unsandboxed from a server's row menu", async () => {
    const { page, userDataDir } = workbench;
    const row = treeRow(page, 'mine');
    await row.locator('.label-description', { hasText: /^running · \d+ tools?$/ }).waitFor({ timeout: 60_000 });
    assert.equal(await row.locator('.codicon-lock').count(), 0);
    const read = () =>
      (
        JSON.parse(fs.readFileSync(path.join(userDataDir, 'User', 'settings.json'), 'utf8')) as {
          'mcpSwitchboard.servers': { mine: { sandboxEnabled?: boolean } };
        }
      )['mcpSwitchboard.servers'].mine.sandboxEnabled;
    // The menu takes no click in the moment after it opens (the right click's own release), so the
    // item is hovered, then chosen with Enter, as from the keyboard. The mouse leaves first: the
    // second menu's item sits where the first one's was, and a hover that does not move the mouse
    // focuses nothing. A menu that loses the focus as it opens (a toast of the restart before, on a
    // busy machine) closes without acting: the user sees nothing change and tries once more. What
    // counts is the entry: the command writes `sandboxEnabled`, and the row follows the entry.
    const fromMenu = async (title: string, sandboxed: boolean | undefined) => {
      for (let attempt = 1; ; attempt++) {
        await row.click({ button: 'right' });
        const item = page.locator('.context-view .action-menu-item', { hasText: title }).first();
        await item.waitFor();
        await page.mouse.move(5, 5);
        await item.hover();
        await item.locator('xpath=ancestor-or-self::*[contains(@class, "focused")]').first().waitFor({ timeout: 5_000 });
        await page.keyboard.press('Enter');
        await item.waitFor({ state: 'detached', timeout: 10_000 });
        try {
          await eventually(() => (read() === sandboxed ? true : undefined), `sandboxEnabled ${sandboxed} in the entry`, 20_000);
          return;
        } catch (error) {
          if (attempt === 2) throw error;
        }
      }
    };
    await fromMenu('Run Sandboxed', true);
    await row.locator('.codicon-lock').waitFor({ timeout: 60_000 });
    await row.locator('.label-description', { hasText: /^running · \d+ tools?$/ }).waitFor({ timeout: 60_000 });
    // Undoing the choice restores the entry as it was: no `sandboxEnabled: false` left behind.
    await fromMenu('Run Unsandboxed', undefined);
    await row.locator('.codicon-lock').waitFor({ state: 'detached', timeout: 60_000 });
  });
});
