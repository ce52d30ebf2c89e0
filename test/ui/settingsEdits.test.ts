// Switchboard writes a user's settings file as a careful person would: in place, keeping every
// comment, the order, the formatting and whatever else the file holds, and a choice undone leaves
// the file byte for byte as it was. In the real editor, through the commands a user runs, on a
// commented workspace settings file: Run Sandboxed and back, Disable and Enable, a tool's switch
// off and on, a tool set picked and cleared, and Remove Server (only its entry goes). Run
// Sandboxed on an allowed workspace server is itself the consent for that change (no dialog), and
// the server goes on serving until the sandboxed one is up.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { eventually } from '../core/support/poll';
import {
  activityBarEntry,
  openWorkbench,
  pickFromCommand,
  rowTooltip,
  runFromPalette,
  screenshot,
  treeRow,
  type Workbench,
} from './workbench';

const fixture = path.resolve(__dirname, '../fixtures/stdio-server.mjs');

/** A settings file as people write them: comments everywhere, their own layout, other settings around. */
function commentedSettings(): string {
  const node = JSON.stringify(process.execPath);
  const server = JSON.stringify(fixture);
  return `// Workspace settings. Keep the comments!
{
  "editor.tabSize": 4, // unrelated, and stays
  /* Our MCP servers: */
  "mcpSwitchboard.servers": {
    // The one we use every day.
    "daily": {
      "command": ${node},
      "args": [ ${server},   "--name", "daily" ], // odd spacing on purpose
    },
    "spare": { "command": ${node}, "args": [${server}, "--name", "spare"] }, // to be removed
    // Last one: a comment after it.
    "last": { "command": ${node}, "args": [${server}] }
  },
  "mcpSwitchboard.tools.disabled": [
    // reviewed by the team
    "daily/zzz_not_a_tool"
  ],
  "mcpSwitchboard.toolSets": { "review": { "tools": ["daily/echo"] } },
  "files.trimTrailingWhitespace": true,
}
`;
}

describe('settings edits keep the user’s file (UI)', function () {
  this.timeout(300_000);
  let workbench: Workbench;
  let settingsFile = '';
  let original = '';

  before(async function () {
    this.timeout(120_000);
    workbench = await openWorkbench('consent', {
      prepareWorkspace: (dir) => {
        settingsFile = path.join(dir, '.vscode', 'settings.json');
        fs.writeFileSync(settingsFile, commentedSettings());
      },
    });
    original = fs.readFileSync(settingsFile, 'utf8');
    const { page } = workbench;
    await activityBarEntry(page, 'MCP Switchboard').click();
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'start 3 MCP servers' });
    await dialog.waitFor({ timeout: 60_000 });
    await dialog.locator('.monaco-button', { hasText: /^Allow All$/ }).click();
    for (const name of ['daily', 'spare', 'last'])
      await treeRow(page, name)
        .locator('.label-description', { hasText: /^running/ })
        .waitFor({ timeout: 60_000 });
  });

  after(async () => {
    await workbench?.close();
  });

  const current = () => fs.readFileSync(settingsFile, 'utf8');

  /** Runs a palette command that asks which server, and picks `server`. */
  async function onServer(title: string, server: string): Promise<void> {
    const { page } = workbench;
    // The command's own picker, not the palette's input it replaces. On a busy machine the picker
    // can lose the focus as it opens (the Tool Catalog's preview settling beside it) and close: the
    // user runs the command again. Nothing has run until a server is chosen.
    for (let attempt = 1; ; attempt++) {
      await runFromPalette(page, title, { opensQuickInput: true });
      try {
        await page.locator('.quick-input-widget input:not([aria-label*="command to run"])').fill(server, { timeout: 10_000 });
        await page.locator('.quick-input-widget .monaco-list-row', { hasText: server }).first().waitFor({ timeout: 10_000 });
        break;
      } catch (error) {
        if (attempt >= 3) throw error;
        await page.keyboard.press('Escape');
      }
    }
    await page.keyboard.press('Enter');
  }

  /**
   * A command from a row's context menu (Enable and Disable are there, not in the palette). The
   * item is hovered, then chosen with Enter: the menu takes no click in the moment it opens.
   */
  async function fromRowMenu(server: string, title: string): Promise<void> {
    const { page } = workbench;
    const row = treeRow(page, server);
    // A menu that loses the focus as it opens (a toast on a busy machine) closes without acting: once more.
    for (let attempt = 1; ; attempt++) {
      await page.mouse.move(5, 5);
      await row.click({ button: 'right' });
      const item = page.locator('.context-view .action-menu-item', { hasText: title }).first();
      try {
        await item.waitFor({ timeout: 10_000 });
        await item.hover();
        await item.locator('xpath=ancestor-or-self::*[contains(@class, "focused")]').first().waitFor({ timeout: 5_000 });
        await page.keyboard.press('Enter');
        await item.waitFor({ state: 'detached', timeout: 10_000 });
        return;
      } catch (error) {
        const shown = await page.locator('.context-view .action-menu-item').allInnerTexts();
        await page.keyboard.press('Escape');
        if (attempt === 3) throw new Error(`"${title}" not in the menu of ${server}: ${JSON.stringify(shown)}\n${String(error)}`);
      }
    }
  }

  /** The status bar's count of running servers, sampled until `stop` resolves: every value it showed. */
  function watchStatusBar(stop: Promise<unknown>): Promise<string[]> {
    const seen = new Set<string>();
    const item = workbench.page.locator('.statusbar-item', { hasText: /^\s*\d+\/3\s*$/ }).first();
    return (async () => {
      let done = false;
      void stop.finally(() => (done = true));
      while (!done) {
        seen.add((await item.innerText().catch(() => '')).trim());
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return [...seen];
    })();
  }

  it('Run Sandboxed asks nothing more and keeps the server serving until the sandboxed one is up; Run Unsandboxed leaves the file as it was', async () => {
    const { page } = workbench;
    const row = treeRow(page, 'daily');
    const sandboxed = row.locator('.codicon-lock').waitFor({ timeout: 60_000 });
    const shown = watchStatusBar(sandboxed);
    await onServer('MCP Switchboard: Run Sandboxed', 'daily');
    await sandboxed;
    await row.locator('.label-description', { hasText: /^running/ }).waitFor({ timeout: 60_000 });
    assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'the menu choice was the consent: no dialog');
    const counts = await shown;
    assert.ok(
      counts.some((text) => /^3\/3$/.test(text)),
      `the status bar was read: ${counts.join(' | ')}`,
    );
    assert.ok(
      counts.every((text) => !/\b2\/3\b/.test(text)),
      `the server was never counted as down while its sandboxed one started: ${counts.join(' | ')}`,
    );
    const edited = current();
    assert.match(edited, /"sandboxEnabled": true/);
    // Only that: everything else byte for byte.
    assert.equal(edited.replace(/\n[ \t]*"sandboxEnabled": true,?/, ''), original);
    await screenshot(page, 'settings-edit-sandboxed');

    await onServer('MCP Switchboard: Run Unsandboxed', 'daily');
    await row.locator('.codicon-lock').waitFor({ state: 'detached', timeout: 60_000 });
    await eventually(() => (current() === original ? true : undefined), 'the file back to its bytes', 20_000);
  });

  it('Disable and Enable, a tool switched off and on, a tool set picked and cleared: each undone leaves the file as it was', async () => {
    const { page } = workbench;
    await fromRowMenu('daily', 'Disable Server');
    await eventually(() => (/"enabled": false/.test(current()) ? true : undefined), 'disabled in the entry', 20_000);
    await fromRowMenu('daily', 'Enable Server');
    await eventually(() => (current() === original ? true : undefined), 'the file back after Enable', 20_000);
    await treeRow(page, 'daily')
      .locator('.label-description', { hasText: /^running/ })
      .waitFor({ timeout: 60_000 });

    // A tool's switch: one line of the list, then gone again (the team's own item stays where it is).
    await treeRow(page, 'daily').click();
    const tool = treeRow(page, 'echo');
    await tool.waitFor({ timeout: 15_000 });
    await tool.locator('.custom-view-tree-node-item-checkbox').click();
    await eventually(() => (current().includes('"daily/echo"') ? true : undefined), 'the switch written', 20_000);
    await tool.locator('.label-description', { hasText: /switched off/ }).waitFor({ timeout: 20_000 });
    // One figure everywhere: the row, its tooltip and the status bar's say how many of how many chat is offered.
    const server = treeRow(page, 'daily');
    const figure = /\b(\d+) of (\d+) offered\b/.exec(await server.locator('.label-description').innerText());
    assert.ok(figure, await server.locator('.label-description').innerText());
    const tooltip = await rowTooltip(page, server, `${figure[0]}`);
    assert.match(await tooltip.innerText(), new RegExp(`running · ${figure[0]}`));
    await page.mouse.move(5, 5);
    await page
      .locator('.statusbar-item', { hasText: /^\s*\d+\/3\s*$/ })
      .first()
      .hover();
    await page
      .locator('.monaco-hover', { hasText: `running · ${figure[0]}` })
      .first()
      .waitFor({ timeout: 15_000 });
    await page.mouse.move(5, 5);
    assert.equal(current().replace(/\n[ \t]*"daily\/echo",?/, ''), original);
    await page.mouse.move(5, 5);
    await tool.locator('.custom-view-tree-node-item-checkbox').click();
    await eventually(
      () => (current() === original ? true : undefined),
      () => `the file back after the switch on:\n${current()}`,
      20_000,
    );

    // A tool set, from the status bar's command.
    await pickFromCommand(page, 'MCP Switchboard: Switch Tool Set…', 'review');
    await eventually(() => (/"mcpSwitchboard\.toolSet": "review"/.test(current()) ? true : undefined), 'the set in use written', 20_000);
    await pickFromCommand(page, 'MCP Switchboard: Switch Tool Set…', /All tools|No tool set|every tool/i);
    await eventually(() => (current() === original ? true : undefined), 'the file back after the set is cleared', 20_000);
  });

  /** Whether any frame (the markdown preview is a webview) shows `text`. */
  async function previewShows(text: string): Promise<boolean> {
    for (const frame of workbench.page.frames())
      if (
        (await frame
          .locator('h2', { hasText: text })
          .count()
          .catch(() => 0)) > 0
      )
        return true;
    return false;
  }

  it('Remove Server removes its entry and nothing else; the open Tool Catalog follows', async () => {
    const { page } = workbench;
    // The catalog is open while the server goes: it must not keep listing it.
    await runFromPalette(page, 'MCP Switchboard: Show Tool Catalog');
    await eventually(async () => ((await previewShows('spare')) ? true : undefined), 'the catalog lists spare', 20_000);
    await onServer('MCP Switchboard: Remove Server…', 'spare');
    const confirm = page.locator('.monaco-dialog-box', { hasText: 'Remove the MCP server "spare"?' });
    await confirm.waitFor({ timeout: 15_000 });
    await confirm.locator('.monaco-button', { hasText: /^Remove$/ }).click();
    await treeRow(page, 'spare').waitFor({ state: 'hidden', timeout: 30_000 });
    const entry = /\n\s*"spare": \{[^\n]*\},/;
    assert.match(original, entry);
    const after = current();
    assert.doesNotMatch(after, /"spare"/);
    // What was around it is as it was, comments included (the entry's own trailing comment goes with it or stays).
    const [before, rest] = original.split(entry) as [string, string];
    assert.ok(after.startsWith(before), after);
    assert.ok(after.endsWith(rest.replace(/^ \/\/ to be removed/, '')) || after.endsWith(rest), after);
    assert.match(after, /\/\/ The one we use every day\./);
    assert.match(after, /\/\/ Last one: a comment after it\./);
    await eventually(async () => ((await previewShows('spare')) ? undefined : true), 'the open catalog no longer lists spare', 20_000);
    assert.ok(await previewShows('daily'), 'and still lists the others');
  });
});
