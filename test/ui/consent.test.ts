// A denied workspace server is not a dead end: its row offers Allow…, which asks again for that
// server alone; its tooltip says so; Start on the row asks too.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '../core/support/poll';
import { activityBarEntry, editorLogLines, openWithWorkspaceServers, rowTooltip, screenshot, treeRow, type Workbench } from './workbench';

const fixture = path.resolve(__dirname, '../fixtures/stdio-server.mjs');

describe('Allow… after Deny (UI)', function () {
  this.timeout(180_000);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-allow-'));
  const marker = path.join(scratch, 'denied.json');
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    workbench = await openWithWorkspaceServers(() => ({ denied: { command: process.execPath, args: [fixture, '--marker', marker] } }));
  });

  after(async () => {
    await workbench?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** The answers in the consent file the editor shares with the CLI (core/consent), in order. */
  const sharedAnswers = (): string[] => {
    const file = path.join(workbench.configHome, 'mcp-switchboard', 'consent.json');
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as { answers: Record<string, { answer: string; server: string }> };
    return Object.values(stored.answers)
      .filter((entry) => entry.server.startsWith('denied in '))
      .map((entry) => entry.answer);
  };

  const consentDialog = () => workbench.page.locator('.monaco-dialog-box', { hasText: '"denied"' });

  async function answer(button: string): Promise<void> {
    await consentDialog().waitFor({ timeout: 60_000 });
    await consentDialog()
      .locator('.monaco-button', { hasText: new RegExp(`^${button}$`) })
      .click();
    await consentDialog().waitFor({ state: 'detached', timeout: 15_000 });
  }

  it('Deny: the row says so, and the tooltip says how to be asked again', async () => {
    const { page } = workbench;
    await answer('Deny');
    await activityBarEntry(page, 'MCP Switchboard').click();
    const row = treeRow(page, 'denied');
    await row.locator('.label-description', { hasText: 'denied by you' }).waitFor({ timeout: 30_000 });
    const hover = await rowTooltip(page, row, 'Consent');
    assert.match(await hover.innerText(), /click Allow… on the row \(or Start\) to be asked again for this server alone/);
    assert.equal(fs.existsSync(marker), false);
    assert.deepEqual(sharedAnswers(), ['denied'], 'the editor keeps its answer where doctor and serve read it');
  });

  it('Allow… on the row asks again; Deny again keeps it blocked, Allow starts it', async () => {
    const { page } = workbench;
    const row = treeRow(page, 'denied');
    await row.hover();
    await row.locator('.actions .action-label[aria-label^="Allow…"]').click();
    await answer('Deny');
    await row.locator('.label-description', { hasText: 'denied by you' }).waitFor({ timeout: 30_000 });
    assert.equal(fs.existsSync(marker), false);
    await row.hover();
    await screenshot(page, 'allow-after-deny');
    await row.locator('.actions .action-label[aria-label^="Allow…"]').click();
    await answer('Allow');
    await row.locator('.label-description', { hasText: /^running/ }).waitFor({ timeout: 30_000 });
    assert.equal(fs.existsSync(marker), true);
    // The same entry, the answer replaced: `serve` in this folder now runs it without asking.
    assert.deepEqual(sharedAnswers(), ['granted']);
  });
});

describe("one consent dialog for the workspace's servers (UI)", function () {
  this.timeout(180_000);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-batch-'));
  const markers = ['one', 'two', 'three'].map((name) => path.join(scratch, `${name}.json`));
  let workbench: Workbench;
  let workspace = '';

  before(async function () {
    this.timeout(120_000);
    workbench = await openWithWorkspaceServers((dir) => {
      workspace = dir;
      // Spelled with `..`, as `${workspaceFolder}/../x` expands: the dialog shows the real path.
      const roundabout = (file: string) => `${dir}/../${path.relative(path.dirname(dir), file)}`;
      return Object.fromEntries(
        ['one', 'two', 'three'].map((name, index) => [
          name,
          { command: process.execPath, args: [fixture, '--marker', roundabout(markers[index] as string)] },
        ]),
      );
    });
  });

  after(async () => {
    await workbench?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('lists them all in one dialog, with readable paths and what each answer means; Allow All starts them all', async () => {
    const { page } = workbench;
    // The view is open as the dialog comes up: its rows say what they wait for (no welcome page).
    await activityBarEntry(page, 'MCP Switchboard').click();
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'start 3 MCP servers' });
    await dialog.waitFor({ timeout: 60_000 });
    for (const name of ['one', 'two', 'three'])
      await treeRow(page, name)
        .locator('.label-description', { hasText: /^waiting for consent$/ })
        .waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('.welcome-view-content', { hasText: 'No MCP servers are configured yet' }).isVisible(), false);
    const text = await dialog.innerText();
    for (const name of ['one', 'two', 'three']) assert.match(text, new RegExp(`• ${name}: `));
    assert.ok(text.includes(markers[0] as string), `the marker path is shown resolved: ${text}`);
    assert.ok(!text.includes(`${workspace}/..`), 'no path is shown through ..');
    assert.match(text, /Deny All: they stay blocked until you click Allow… on a row\. Cancel: nothing is remembered/);
    await screenshot(page, 'consent-all');
    await dialog.locator('.monaco-button', { hasText: /^Allow All$/ }).click();
    for (const name of ['one', 'two', 'three'])
      await treeRow(page, name)
        .locator('.label-description', { hasText: /^running/ })
        .waitFor({ timeout: 60_000 });
    assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'no second dialog');
    for (const marker of markers) assert.equal(fs.existsSync(marker), true);
  });
});

describe('twenty workspace servers, allowed at once (UI)', function () {
  if (process.platform !== 'linux') return;
  this.timeout(240_000);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-twenty-'));
  const names = Array.from({ length: 20 }, (_, index) => `s${String(index + 1).padStart(2, '0')}`);
  const markerOf = (name: string) => path.join(scratch, `${name}.json`);
  let workbench: Workbench;
  /** When the workbench had rendered. */
  let renderedAt = 0;

  before(async function () {
    this.timeout(120_000);
    workbench = await openWithWorkspaceServers(() =>
      Object.fromEntries(names.map((name) => [name, { command: process.execPath, args: [fixture, '--marker', markerOf(name)] }])),
    );
    renderedAt = Date.now();
  });

  after(async () => {
    await workbench?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** When the kernel started the process (/proc/<pid>/stat, field 22, in clock ticks): not when node got to run it. */
  function startTicks(pid: number): number {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[19]);
  }

  it('starts them together after Allow All (their processes within 2 s, 1 s the goal); each row says how many tools chat has, and Configure Tools lists each with its tools', async () => {
    const { page } = workbench;
    await activityBarEntry(page, 'MCP Switchboard').click();
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'start 20 MCP servers' });
    await dialog.waitFor({ timeout: 60_000 });
    console.log(`      the workbench rendered → the consent dialog: ${Date.now() - renderedAt} ms`);
    // activate() began → the extension asked for the dialog, both on the extension host's clock, in
    // its main log (written a little later than said: read until both lines are there).
    const since = await eventually(() => {
      const lines = editorLogLines(workbench.userDataDir, /after the extension host started/, /MCP Switchboard\.log$/);
      const began = /activate\(\) took \S+ ms \(began (\d+) ms after/.exec(lines)?.[1];
      const asked = /asking to start 20 workspace servers \((\d+) ms after/.exec(lines)?.[1];
      return began !== undefined && asked !== undefined ? Number(asked) - Number(began) : undefined;
    }, 'the activation and consent lines in the main log');
    console.log(`      activation → the consent dialog asked for: ${since} ms`);
    assert.ok(since <= 1_000, `the consent dialog was asked for ${since} ms after activation`);
    await dialog.locator('.monaco-button', { hasText: /^Allow All$/ }).click();
    await page.locator('.statusbar-item', { hasText: '20/20' }).waitFor({ timeout: 90_000 });
    const pids = names.map((name) => (JSON.parse(fs.readFileSync(markerOf(name), 'utf8')) as { pid: number }).pid);
    const ticks = pids.map(startTicks);
    // USER_HZ is 100 on Linux: ticks are hundredths of a second.
    const spreadMs = (Math.max(...ticks) - Math.min(...ticks)) * 10;
    console.log(`      first to twentieth process: ${spreadMs} ms`);
    // The goal is 1 s (what the editor's own client does here: 470-660 ms in bench:versus), and
    // runs here take 520-1,230 ms: on a busy 2-core machine the booting servers compete with the
    // editor for the CPU. 2 s still fails every time the starts are serial (5.8-8 s before).
    assert.ok(spreadMs <= 2_000, `the first to the twentieth process took ${spreadMs} ms`);
    // Chat gets some of every server's tools (the budget is shared), and the row says where the
    // rest are. The list shows only the rows that fit: it is read as it scrolls.
    const offering = /^running · ([1-9]\d* tools?|[1-9]\d* of \d+ offered, the rest by search)$/;
    const rows = new Map<string, string>();
    for (let pass = 0; pass < 40 && !names.every((name) => offering.test(rows.get(name) ?? '')); pass++) {
      for (const row of await page.locator('.monaco-list-row').all()) {
        const name = (
          await row
            .locator('.label-name')
            .innerText()
            .catch(() => '')
        ).trim();
        if (names.includes(name))
          rows.set(
            name,
            (
              await row
                .locator('.label-description')
                .innerText()
                .catch(() => '')
            ).trim(),
          );
      }
      // Down a few rows at a time to the end, then from the top again.
      const box = await page
        .locator('.monaco-list-row', { hasText: /^s\d\d/ })
        .first()
        .boundingBox();
      if (box) await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.wheel(0, pass % 8 === 7 ? -2_000 : 100);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await screenshot(page, 'twenty-scrolled');
    for (const name of names) assert.match(rows.get(name) ?? '(not seen)', offering, `${name}: ${JSON.stringify([...rows])}`);
    await screenshot(page, 'twenty-servers');
    // Chat's Configure Tools: every server, with tools under it (the budget gives each some). The
    // picker shows what the editor had when it opened, so it is opened again until all are there.
    const picker = page.locator('.quick-input-widget', { hasText: 'Configure Tools' });
    let missing: string[] = [];
    await eventually(
      async () => {
        await page.locator('.chat-input-toolbars [aria-label^="Configure Tools"]').first().click();
        await picker.waitFor({ timeout: 30_000 });
        missing = [];
        for (const name of names) {
          await picker.locator('input.input').first().fill(name);
          const row = picker
            .locator('.monaco-list-row', { has: page.locator('.label-name', { hasText: new RegExp(`^${name}$`) }) })
            .first();
          const listed = await row.waitFor({ timeout: 2_000 }).then(
            () => true,
            () => false,
          );
          // A server with tools is a group that opens; one without would be a leaf.
          if (!listed || (await row.getAttribute('aria-expanded')) === null) missing.push(name);
        }
        await page.keyboard.press('Escape');
        await picker.waitFor({ state: 'hidden', timeout: 10_000 });
        return missing.length === 0 ? true : undefined;
      },
      () => `every server with tools in Configure Tools (missing: ${missing.join(', ')})`,
      90_000,
    );
  });
});
