// A workspace server run sandboxed from the consent dialog, in the real editor: the dialog says what
// Run Sandboxed allows, the row says `sandboxed`, and the server's tools really are confined (a
// write outside the workspace folder is refused, one inside it works).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import {
  activityBarEntry,
  openWithWorkspaceServers,
  rowTooltip,
  runToolFromPalette,
  screenshot,
  treeRow,
  type Workbench,
} from './workbench';

const probe = path.resolve(__dirname, '../fixtures/sandbox-probe-server.mjs');

async function writeFile(page: Page, target: string): Promise<void> {
  await runToolFromPalette(page, 'boxed__write_file', JSON.stringify({ path: target, text: 'from the sandbox' }));
  const confirmation = page.locator('.monaco-dialog-box', { hasText: 'write_file' });
  await confirmation.waitFor({ timeout: 30_000 });
  await confirmation
    .locator('.monaco-button')
    .filter({ hasText: /^(Yes|Allow|Continue|Run)/ })
    .first()
    .click();
}

describe('Run Sandboxed from the consent dialog (UI)', function () {
  if (process.platform !== 'linux') return;
  this.timeout(180_000);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-outside-'));
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    workbench = await openWithWorkspaceServers((dir) => {
      fs.mkdirSync(path.join(dir, 'notes'));
      return { boxed: { command: process.execPath, args: [probe] } };
    });
  });

  after(async () => {
    await workbench?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('offers Run Sandboxed with its rules, and the row then shows its lock', async () => {
    const { page, workspace } = workbench;
    const consent = page.locator('.monaco-dialog-box', { hasText: '"boxed"' });
    await consent.waitFor({ timeout: 60_000 });
    const text = await consent.innerText();
    assert.match(text, /Allow: with all your rights\./);
    assert.ok(text.includes(`Run Sandboxed: writes ${workspace} and temp; no network.`), text);
    await screenshot(page, 'consent-sandboxed');
    await consent.locator('.monaco-button', { hasText: 'Run Sandboxed' }).click();
    await activityBarEntry(page, 'MCP Switchboard').click();
    const row = treeRow(page, 'boxed');
    // One vocabulary: the state word stays "running"; the lock icon says it is sandboxed.
    await row.locator('.label-description', { hasText: /^running · \d+ tools?$/ }).waitFor({ timeout: 60_000 });
    await row.locator('.codicon-lock').waitFor({ timeout: 10_000 });
    const hover = await rowTooltip(page, row, 'Sandboxed');
    assert.ok(
      (await hover.innerText()).includes(`Sandboxed: writes ${workspace} and temp; no network (rules: Run Sandboxed)`),
      await hover.innerText(),
    );
    assert.doesNotMatch(
      await hover.innerText(),
      /allowedHosts|SandboxDebug/,
      "the sandbox runtime's own output is not the server's stderr",
    );
    await screenshot(page, 'sandboxed-row');
  });

  it('confines its tools: a write outside the workspace folder is refused, one inside works', async () => {
    const { page, workspace } = workbench;
    const outside = path.join(scratch, 'outside.txt');
    // In a folder of the workspace: its top level is read-only while a protected place (.mcp.json,
    // .git/, ...) is missing there, since nothing may be created to stand in for it.
    const inside = path.join(workspace, 'notes', 'inside.txt');
    await writeFile(page, outside);
    // What the tool answered, as Run Tool shows it in the log.
    const answered = page.locator('.part.panel .view-lines', { hasText: 'boxed/write_file returned' });
    await answered.waitFor({ timeout: 30_000 });
    assert.match((await answered.innerText()).replace(/\s+/g, ' '), /boxed\/write_file returned: refused: EROFS/);
    await writeFile(page, inside);
    // The tool's answer, not the file's appearance: the file exists, empty, before it is written.
    await page.locator('.part.panel .view-lines', { hasText: 'returned: ok: wrote' }).waitFor({ timeout: 30_000 });
    assert.equal(fs.readFileSync(inside, 'utf8'), 'from the sandbox');
    assert.equal(fs.existsSync(outside), false, 'the sandbox refused the write outside the workspace folder');
  });
});
