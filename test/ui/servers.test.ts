import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import { eventually } from '../core/support/poll';
import { activityBarEntry, openWorkbench, rowOverflow, rowTooltip, runFromPalette, screenshot, treeRow, type Workbench } from './workbench';

const fixture = path.resolve(__dirname, '../fixtures/stdio-server.mjs');
const node = process.execPath;

function readPid(file: string): number | undefined {
  try {
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

/** The fixture rewrites its marker when a new process starts (another process: no event to wait for). */
function waitForNewPid(file: string, previous: number | undefined, timeoutMs = 20_000): Promise<number> {
  return eventually(
    () => {
      const pid = readPid(file);
      return pid !== undefined && pid !== previous ? pid : undefined;
    },
    `a new pid in ${file} (it names ${previous})`,
    timeoutMs,
  );
}

/** The first match of `find` in any frame (webviews are nested iframes, which appear when they load). */
function eventuallyInFrames(page: Page, find: (frame: Frame) => Locator, timeoutMs = 20_000): Promise<Locator> {
  return eventually(
    async () => {
      for (const frame of page.frames()) {
        const locator = find(frame).first();
        if ((await locator.count().catch(() => 0)) > 0) return locator;
      }
      return undefined;
    },
    'the element in a frame',
    timeoutMs,
  );
}

async function description(page: Page, label: string): Promise<string> {
  return (await treeRow(page, label).locator('.label-description').innerText()).trim();
}

async function waitForDescription(page: Page, label: string, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  const row = treeRow(page, label).locator('.label-description', { hasText: pattern });
  await row.waitFor({ timeout: timeoutMs });
  return row.innerText();
}

describe('the Servers view, clicked as a user would (UI)', function () {
  this.timeout(180_000);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-ui-'));
  const flakyFlag = path.join(scratch, 'flaky.flag');
  const alphaMarker = path.join(scratch, 'alpha.json');
  const guardedMarker = path.join(scratch, 'guarded.json');
  // alpha and flaky serve only while this file exists: a test removes it to hold their next start.
  const serveGate = path.join(scratch, 'serve.gate');
  let workspaceSettings = '';
  let workbench: Workbench;
  let page: Page;

  const guardedEntry = (...extra: string[]) => ({
    'mcpSwitchboard.servers': { guarded: { command: node, args: [fixture, '--name', 'guarded', '--marker', guardedMarker, ...extra] } },
  });

  before(async function () {
    this.timeout(120_000);
    fs.writeFileSync(flakyFlag, '');
    fs.writeFileSync(serveGate, '');
    workbench = await openWorkbench('consent', {
      userSettings: {
        'mcpSwitchboard.servers': {
          alpha: { command: node, args: [fixture, '--name', 'alpha', '--marker', alphaMarker, '--wait-for', serveGate] },
          flaky: {
            command: node,
            args: [fixture, '--fail-if-exists', flakyFlag, '--exit-message', 'flaky needs its flag removed', '--wait-for', serveGate],
            reconnect: { maxAttempts: 0 },
          },
        },
      },
      prepareWorkspace: (dir) => {
        workspaceSettings = path.join(dir, '.vscode', 'settings.json');
        fs.writeFileSync(workspaceSettings, JSON.stringify(guardedEntry(), null, 2));
      },
    });
    page = workbench.page;
    await activityBarEntry(page, 'MCP Switchboard').click();
  });

  after(async () => {
    await workbench?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('asks before starting a workspace-defined command, and Deny keeps it blocked and unspawned', async () => {
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'guarded' });
    await dialog.waitFor({ timeout: 30_000 });
    assert.match(await dialog.innerText(), new RegExp(`${path.basename(fixture)}.*--marker`, 's'));
    await screenshot(page, 'consent-dialog');
    await dialog.locator('.monaco-button', { hasText: 'Deny' }).click();
    await waitForDescription(page, 'guarded', /^denied by you$/);
    assert.equal(fs.existsSync(guardedMarker), false);
  });

  it('shows rows with state and description, and a status bar that follows', async () => {
    assert.match(await waitForDescription(page, 'alpha', /^running · \d+ tools/), /running/);
    assert.match(await waitForDescription(page, 'flaky', /^exited/), /exited \(1\)/);
    const status = page.locator('.statusbar-item', { hasText: '1/3' });
    await status.waitFor({ timeout: 15_000 });
    // One server in error: the warning background.
    assert.match((await status.getAttribute('class')) ?? '', /warning-kind/);
    await screenshot(page, 'servers-tree');
    await screenshot(page.locator('.part.statusbar'), 'status-bar');
  });

  it('shows every row whole at the default sidebar width, with its two hover buttons too', async () => {
    const sidebar = await page.locator('.part.sidebar').boundingBox();
    // The workbench's own default; the test does not resize it.
    assert.ok(sidebar && sidebar.width <= 320, `sidebar width ${sidebar?.width}`);
    const expected: Record<string, RegExp> = { alpha: /^running · \d+ tools$/, flaky: /^exited \(1\)$/, guarded: /^denied by you$/ };
    for (const [label, pattern] of Object.entries(expected)) {
      const row = treeRow(page, label);
      assert.match(await description(page, label), pattern);
      const still = await rowOverflow(row);
      assert.equal(still.hiddenPx, 0, `"${still.text}" is cut off by ${still.hiddenPx} px`);
      await row.hover();
      const buttons = row.locator('.actions .action-label');
      await buttons.first().waitFor();
      assert.ok((await buttons.count()) <= 2, `${label}: ${await buttons.count()} hover buttons`);
      const hovered = await rowOverflow(row);
      assert.equal(hovered.hiddenPx, 0, `"${hovered.text}" is cut off by ${hovered.hiddenPx} px under the hover buttons`);
    }
    // The primary button matches the state: Allow for the denied server, Reconnect for the failed one.
    await treeRow(page, 'guarded').hover();
    assert.ok(await treeRow(page, 'guarded').locator('.actions .action-label[aria-label^="Allow"]').isVisible());
    await page.mouse.move(700, 600);
  });

  it('warns once about a failed server, with Reconnect and Show Logs', async () => {
    // A headless, unfocused workbench files notifications in the center instead of toasting them.
    await runFromPalette(page, 'Notifications: Show Notifications');
    const notice = page.locator('.notifications-center .notification-list-item', { hasText: 'MCP server "flaky" failed' });
    await notice.first().waitFor({ timeout: 15_000 });
    assert.equal(await notice.count(), 1);
    assert.ok(await notice.locator('.monaco-button', { hasText: 'Reconnect' }).isVisible());
    assert.ok(await notice.locator('.monaco-button', { hasText: 'Show Logs' }).isVisible());
    await runFromPalette(page, 'Notifications: Hide Notifications');
  });

  it('shows a tooltip with transport, command and source on hover', async () => {
    await treeRow(page, 'alpha').hover();
    const hover = page.locator('.monaco-hover', { hasText: 'Transport' }).first();
    await hover.waitFor({ timeout: 15_000 });
    const text = await hover.innerText();
    assert.match(text, /Transport: stdio/);
    assert.match(text, /user settings/);
    await screenshot(page, 'server-tooltip');
    await page.mouse.move(700, 600);
  });

  it('reconnects a fixed server from its inline action, and the row and status bar turn healthy', async () => {
    fs.rmSync(flakyFlag);
    const row = treeRow(page, 'flaky');
    await row.hover();
    await row.locator('.actions .action-label[aria-label^="Reconnect Server"]').click();
    await waitForDescription(page, 'flaky', /^running · /);
    const status = page.locator('.statusbar-item', { hasText: '2/3' });
    await status.waitFor({ timeout: 15_000 });
    assert.doesNotMatch((await status.getAttribute('class')) ?? '', /warning-kind|error-kind/);
  });

  it('runs Reconnect All Servers from the palette, which restarts the server processes', async () => {
    const before = readPid(alphaMarker);
    assert.ok(before, 'alpha is running');
    // The new processes wait for the gate: the rows must say so, whatever the tree showed a moment
    // before (a row still saying running may not have heard of the restart yet).
    fs.rmSync(serveGate);
    await runFromPalette(page, 'MCP Switchboard: Reconnect All Servers');
    const after = await waitForNewPid(alphaMarker, before);
    assert.notEqual(after, before);
    await waitForDescription(page, 'alpha', /^starting/);
    await waitForDescription(page, 'flaky', /^starting/);
    fs.writeFileSync(serveGate, '');
    await waitForDescription(page, 'alpha', /^running/);
    await waitForDescription(page, 'flaky', /^running/);
  });

  it("runs Invalidate Tool Cache from the palette, which refetches every server's tools", async () => {
    await runFromPalette(page, 'MCP Switchboard: Invalidate Tool Cache', { opensQuickInput: true });
    await page.locator('.quick-input-widget', { hasText: 'Invalidate the tool cache of' }).waitFor();
    await page.locator('.quick-input-widget input').fill('All servers');
    await page.keyboard.press('Enter');
    // It says what it did.
    await runFromPalette(page, 'Notifications: Show Notifications');
    const notice = page.locator('.notifications-center .notification-list-item', { hasText: 'tool cache invalidated' });
    await notice.first().waitFor({ timeout: 15_000 });
    // flaky was fixed and reconnected above; guarded is still blocked (consent denied).
    assert.match(
      await notice.first().innerText(),
      /refetched alpha \(\d+ tools\), flaky \(\d+ tools\); cleared, not running: guarded \(blocked\)/,
    );
    await runFromPalette(page, 'Notifications: Hide Notifications');
    await runFromPalette(page, 'MCP Switchboard: Show Server Logs…', { opensQuickInput: true });
    await page.locator('.quick-input-widget', { hasText: 'Show logs of' }).waitFor();
    await page.locator('.quick-input-widget input').fill('alpha');
    await page.keyboard.press('Enter');
    await page.locator('.part.panel .view-lines', { hasText: 'tool cache invalidated' }).waitFor({ timeout: 15_000 });
  });

  it('unticks a tool, which writes the switch to the workspace settings', async () => {
    const row = treeRow(page, 'alpha');
    await row.click();
    const tool = treeRow(page, 'add');
    await tool.waitFor({ timeout: 10_000 });
    await tool.locator('.custom-view-tree-node-item-checkbox').click();
    await waitForDescription(page, 'add', /switched off/);
    assert.match(fs.readFileSync(workspaceSettings, 'utf8'), /"alpha\/add"/);
    await screenshot(page, 'tool-switched-off');
    // And it leaves what chat sees.
    await runFromPalette(page, 'MCP Switchboard: Show Tool Catalog');
    // A rendered, read-only preview: a table row in the preview's webview frame, and no unsaved editor.
    await page.locator('.tabs-container .tab', { hasText: 'Preview Tool Catalog.md' }).waitFor({ timeout: 20_000 });
    const tableRow = await eventuallyInFrames(page, (frame) => frame.locator('tr', { hasText: 'alpha__add' }));
    assert.match((await tableRow.innerText()).replace(/\s+/g, ' '), /alpha__add no disabled in mcpSwitchboard\.tools\./);
    assert.equal(await page.locator('.tabs-container .tab.dirty').count(), 0, 'nothing asks to be saved');
    await screenshot(page, 'tool-catalog');
  });

  it('asks again when the command changes, and Allow starts it', async () => {
    fs.writeFileSync(
      workspaceSettings,
      JSON.stringify({ ...JSON.parse(fs.readFileSync(workspaceSettings, 'utf8')), ...guardedEntry('--stderr-lines', '2') }, null, 2),
    );
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'guarded' });
    await dialog.waitFor({ timeout: 30_000 });
    assert.match(await dialog.innerText(), /--stderr-lines/);
    await dialog.locator('.monaco-button', { hasText: 'Allow' }).click();
    await waitForDescription(page, 'guarded', /^running/);
    assert.ok(readPid(guardedMarker), 'the workspace server started after consent');
    assert.equal(await description(page, 'alpha').then((text) => /^running/.test(text)), true);
    // It wrote two stderr lines at start; running fine, that is chatter for the log, not the tooltip.
    const hover = await rowTooltip(page, treeRow(page, 'guarded'), 'Transport');
    assert.doesNotMatch(await hover.innerText(), /stderr line/);
  });

  it('keeps the view title readable next to its toolbar', async () => {
    const title = page.locator('.sidebar .composite.title .title-label h2').first();
    await title.waitFor();
    assert.match(await title.innerText(), /MCP Switchboard/i);
    const { scrollWidth, clientWidth } = await title.evaluate((element) => ({
      scrollWidth: element.scrollWidth,
      clientWidth: element.clientWidth,
    }));
    assert.ok(scrollWidth <= clientWidth, `the title is cut: ${scrollWidth} px of text in ${clientWidth} px`);
    await screenshot(page.locator('.sidebar').first(), 'view-title');
  });

  it('opens a quick pick of servers and then their actions from the status bar', async () => {
    await page
      .locator('.statusbar-item', { hasText: /\d+\/3/ })
      .first()
      .click();
    const picker = page.locator('.quick-input-widget', { hasText: 'MCP Switchboard servers' });
    await picker.waitFor({ timeout: 15_000 });
    await picker.locator('.monaco-list-row', { hasText: 'alpha' }).first().click();
    const actions = page.locator('.quick-input-widget', { hasText: 'alpha:' });
    await actions.waitFor({ timeout: 15_000 });
    for (const action of ['Reconnect', 'Stop', 'Show Logs', 'Open Settings Entry', 'Invalidate Tool Cache']) {
      assert.ok(await actions.locator('.monaco-list-row', { hasText: action }).first().isVisible(), action);
    }
    await page.keyboard.press('Escape');
  });

  it('keeps a stopped server expandable, with its last known tools marked as not offered', async () => {
    await runFromPalette(page, 'MCP Switchboard: Stop Server…', { opensQuickInput: true });
    await page.locator('.quick-input-widget', { hasText: 'Stop which server?' }).waitFor({ timeout: 15_000 });
    await page.locator('.quick-input-widget input').fill('alpha');
    await page.keyboard.press('Enter');
    await waitForDescription(page, 'alpha', /^stopped/);
    const row = treeRow(page, 'alpha');
    assert.notEqual(await row.getAttribute('aria-expanded'), null, 'the stopped row can still be expanded');
    if ((await row.getAttribute('aria-expanded')) === 'false') await row.click();
    await treeRow(page, 'echo').locator('.label-description', { hasText: 'not offered: server stopped' }).waitFor({ timeout: 15_000 });
  });
});
