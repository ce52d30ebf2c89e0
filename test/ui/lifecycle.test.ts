// A lazy server in the real editor, as a user sees it: it learns its tools once, then waits idle
// (a healthy row and status bar, its cached tools listed), and running one of its tools from the
// palette starts it.
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { eventually } from '../core/support/poll';
import {
  activityBarEntry,
  editorLogLines,
  openWorkbench,
  rowTooltip,
  runFromPalette,
  runToolFromPalette,
  screenshot,
  treeRow,
  type Workbench,
} from './workbench';

const fixture = path.resolve(__dirname, '../fixtures/stdio-server.mjs');

describe('a lazy server (UI)', function () {
  this.timeout(240_000);
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    workbench = await openWorkbench('basic', {
      userSettings: {
        'mcpSwitchboard.servers': {
          always: { command: process.execPath, args: [fixture, '--name', 'always'] },
          later: { command: process.execPath, args: [fixture, '--name', 'later'], lifecycle: 'lazy', idleStopMinutes: 15 },
        },
      },
    });
  });

  after(async () => {
    await workbench?.close();
  });

  it("agrees with the editor's own MCP: List Servers, which lists both running with their tools before any chat request", async () => {
    const { page } = workbench;
    await page.locator('.statusbar-item', { hasText: '2/2' }).waitFor({ timeout: 60_000 });
    await runFromPalette(page, 'MCP: List Servers', { opensQuickInput: true });
    await editorListsRunning(workbench, ['always', 'later']);
    await screenshot(page, 'editor-list-servers');
    await page.keyboard.press('Escape');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    // Chat's Configure Tools: each server checked, with its tools under it (not only Update Tools).
    // The picker lists what the editor has when it opens and does not update while open; on a busy
    // machine the editor may still be fetching the servers' tools, so it is opened again until they
    // are there (as a user would), within a bound.
    const tree = page.locator('.quick-input-widget', { hasText: 'Configure Tools' });
    const serverRow = (name: string) =>
      tree.locator('.monaco-list-row', { has: page.locator('.label-name', { hasText: new RegExp(`^${name}$`) }) }).first();
    // What the picker showed the last time it was opened, for the failure message.
    let lastSeen = '(never opened)';
    await eventually(
      async () => {
        await page.locator('.chat-input-toolbars [aria-label^="Configure Tools"]').first().click();
        await tree.waitFor({ timeout: 30_000 });
        await collapseTopLevel(tree);
        const listed = await serverRow('always')
          .waitFor({ timeout: 5_000 })
          .then(
            () => true,
            () => false,
          );
        // Both servers listed, and checked: the lazy one's row is there before its cached tools are.
        const checked = async (name: string) =>
          (await serverRow(name).count()) > 0 && (await serverRow(name).getAttribute('aria-checked')) === 'true';
        if (listed && (await checked('always')) && (await checked('later'))) return true;
        const rows = await tree.locator('.monaco-list-row').all();
        lastSeen = JSON.stringify(
          await Promise.all(rows.map(async (row) => `${await row.innerText()} [checked: ${await row.getAttribute('aria-checked')}]`)),
        );
        await screenshot(page, 'editor-configure-tools-failed');
        await page.keyboard.press('Escape');
        await tree.waitFor({ state: 'hidden', timeout: 10_000 });
        return undefined;
      },
      () => `the editor's Configure Tools to list the servers (it last showed ${lastSeen})`,
      90_000,
    ).catch(async (error: unknown) => {
      // And what the editor says of its connection to each server.
      await runFromPalette(page, 'MCP: List Servers', { opensQuickInput: true }).catch(() => undefined);
      const output = await editorServerOutput(page, 'always').catch((why: unknown) => `(not read: ${String(why)})`);
      const logs = editorLogLines(workbench.userDataDir, /./, /mcp/i);
      throw new Error(`${String(error)}\nthe editor's output for always:\n${output}\nSwitchboard's logs:\n${logs}`);
    });
    for (const name of ['always', 'later']) {
      const row = serverRow(name);
      await row.waitFor({ timeout: 30_000 });
      assert.equal(await row.getAttribute('aria-checked'), 'true', `${name} is checked`);
    }
    await tree
      .locator('.monaco-list-row', { has: page.locator('.label-name', { hasText: /^always$/ }) })
      .first()
      .locator('.monaco-tl-twistie')
      .click();
    await tree.locator('.monaco-list-row', { hasText: 'echo' }).first().waitFor({ timeout: 15_000 });
    assert.equal(await tree.locator('.monaco-list-row', { hasText: 'Update Tools' }).count(), 0);
    await screenshot(page, 'editor-configure-tools');
    await page.keyboard.press('Escape');
  });

  it('shows it ready with its cached tools, counts it healthy in the status bar, and starts it for a tool run from the palette', async () => {
    const { page } = workbench;
    // Both healthy: one running, one idle after learning its tools.
    await page.locator('.statusbar-item', { hasText: '2/2' }).waitFor({ timeout: 60_000 });
    await activityBarEntry(page, 'MCP Switchboard').click();
    const later = treeRow(page, 'later');
    await later
      .locator('.label-description', { hasText: /^ready · \d+ tools$/ })
      .waitFor({ timeout: 30_000 })
      .catch(async (error: unknown) => {
        // What the row said instead, and the window as it was.
        await screenshot(page, 'idle-server-failed');
        const said = await later
          .locator('.label-description')
          .innerText()
          .catch(() => '(no row)');
        throw new Error(`${String(error)}\nthe row of later read: ${said}`);
      });
    await later.click();
    await treeRow(page, 'echo').first().waitFor({ timeout: 30_000 });
    const hover = await rowTooltip(page, later, 'Idle since');
    assert.match(await hover.innerText(), /later — ready · \d+ tools cached · starts when used[\s\S]*Offers: \d+ tools \(cached\)/);
    await screenshot(page, 'idle-server');
    await page.mouse.move(700, 600);

    await runToolFromPalette(page, 'later__echo', '{"text":"woken from the palette"}');
    const output = page.locator('.part.panel .view-lines', { hasText: 'woken from the palette' });
    await output.waitFor({ timeout: 30_000 });
    await later.locator('.label-description', { hasText: /^running · / }).waitFor({ timeout: 30_000 });
    assert.match(await later.locator('.label-description').innerText(), /^running · \d+ tools$/);
  });
  it("leaves the editor's own output for a Switchboard server free of 'Failed to parse message' warnings", async () => {
    const { page } = workbench;
    await page.locator('.statusbar-item', { hasText: '2/2' }).waitFor({ timeout: 60_000 });
    // MCP: List Servers → always → Show Output: the editor's log of its connection to the gateway.
    // The palette lists recently used commands first: the row is clicked, not Enter on the first one.
    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget input').fill('>MCP: List Servers');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'MCP: List Servers' }).first().click();
    const picker = page.locator('.quick-input-widget');
    // The editor's list re-renders while its servers change state: click once both read Running,
    // or the click can land on the row that moved under it.
    await editorListsRunning(workbench, ['always', 'later']);
    await picker
      .locator('.monaco-list-row', { hasText: 'always' })
      .filter({ hasText: /Running/i })
      .first()
      .click();
    await picker.locator('.monaco-list-row', { hasText: 'Show Output' }).first().click();
    const log = page.locator('.part.panel .view-lines');
    // Every request of the editor to this server went over a 2025 session's POST streams, each
    // opened by a priming event.
    await log.filter({ hasText: 'Connection state: Running' }).waitFor({ timeout: 30_000 });
    // The editor draws spaces as no-break spaces: \s matches both (a plain space would not).
    await log.filter({ hasText: /Discovered\s\d+\stools/ }).waitFor({ timeout: 30_000 });
    const text = await log.filter({ hasText: 'Connection state' }).first().innerText();
    await screenshot(page, 'editor-server-output');
    assert.match(text, /Connection\sstate:\sRunning/);
    assert.doesNotMatch(text, /Failed\sto\sparse\smessage/, text);
    await runFromPalette(page, 'View: Hide Panel');
  });
});

/**
 * Collapses the picker's expanded top-level rows. Its list draws only the rows in view: the editor
 * opens a server expanded while its tool cache is unknown or outdated (and keeps it so when the
 * picker redraws), and the tools under it then push the next server's row out of the list.
 */
async function collapseTopLevel(tree: Locator): Promise<void> {
  const expanded = tree.locator('.monaco-list-row[aria-level="1"][aria-expanded="true"] .monaco-tl-twistie');
  for (let bound = 10; bound > 0 && (await expanded.count()) > 0; bound--) await expanded.first().click();
}

/**
 * Waits for the open *MCP: List Servers* picker to read Running for each server. On failure it says
 * what the picker read instead and what the editor logged of its connections to the gateway.
 */
async function editorListsRunning(workbench: Workbench, names: string[]): Promise<void> {
  const picker = workbench.page.locator('.quick-input-widget');
  try {
    for (const name of names) {
      await picker
        .locator('.monaco-list-row', { hasText: name })
        .filter({ hasText: /Running/i })
        .waitFor({ timeout: 30_000 });
    }
  } catch (error) {
    await screenshot(workbench.page, 'editor-list-servers-failed');
    const rows = await picker.locator('.monaco-list-row').allInnerTexts();
    const logs = editorLogLines(workbench.userDataDir, /./, /mcp/i);
    // The editor's log of its own connection is kept in the browser, not on disk: its output is read.
    const output = await editorServerOutput(workbench.page, names[0] ?? '').catch((why: unknown) => `(not read: ${String(why)})`);
    throw new Error(
      `${String(error)}\nthe list read: ${JSON.stringify(rows)}\nSwitchboard's logs:\n${logs}\nthe editor's output for ${names[0]}:\n${output}`,
    );
  }
}

/** From the open *MCP: List Servers* picker: the server's actions, Show Output, and the panel's text. */
async function editorServerOutput(page: Page, name: string): Promise<string> {
  const picker = page.locator('.quick-input-widget');
  await picker.locator('.monaco-list-row', { hasText: name }).first().click({ timeout: 5_000 });
  await picker.locator('.monaco-list-row', { hasText: 'Show Output' }).first().click({ timeout: 5_000 });
  const log = page.locator('.part.panel .view-lines').filter({ hasText: /Connection|Starting|state/i });
  await log.first().waitFor({ timeout: 5_000 });
  return log.first().innerText();
}
