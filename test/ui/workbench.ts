// A real workbench in Chromium with the extension loaded from this repository, for tests that click.
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { StartOptions } from '../harness/editor.mjs' with { 'resolution-mode': 'import' };

// The harness is ESM (shared with the .mjs runners); this file is CommonJS, so it loads it with import().
const harness = () => import('../harness/editor.mjs');
const repoRoot = path.resolve(__dirname, '../..');
export const screenshotsDir = path.join(repoRoot, 'test-artifacts', 'screenshots');

export interface Workbench {
  readonly page: Page;
  readonly workspace: string;
  /** code-server's user-data folder; the user settings are in User/settings.json. */
  readonly userDataDir: string;
  /** The editor's XDG_CONFIG_HOME, one per run: Switchboard's consent file (shared with the CLI) is under it. */
  readonly configHome: string;
  close(): Promise<void>;
}

export interface OpenOptions extends StartOptions {
  /** Runs on the workspace copy before the editor starts, e.g. to write settings with absolute paths. */
  prepareWorkspace?: (dir: string) => void;
}

/** The workbenches open now: a failing test keeps their logs and a screenshot (the hook below). */
const openWorkbenches = new Set<Workbench>();

// One root hook for every UI test: a failure that happens only under CI's load leaves the editor's
// logs (the extension host's and Switchboard's output channels) and the screen in test-artifacts,
// named after the test, before its workbench closes and its user-data folder goes.
if (typeof afterEach === 'function') {
  afterEach(async function () {
    const test = this.currentTest;
    if (test?.state !== 'failed') return;
    const name = test.fullTitle().replace(/\W+/g, '-').replace(/^-|-$/g, '').slice(0, 80);
    let index = 0;
    for (const workbench of openWorkbenches) {
      const suffix = openWorkbenches.size > 1 ? `-${++index}` : '';
      try {
        keepEditorLogs(workbench.userDataDir, `${name}${suffix}`);
        await screenshot(workbench.page, `failed-${name}${suffix}`);
      } catch (error) {
        console.warn(`could not keep the editor's logs of "${test.fullTitle()}": ${String(error)}`);
      }
    }
  });
}

export async function openWorkbench(workspaceName = 'basic', options: OpenOptions = {}): Promise<Workbench> {
  const { copyWorkspace, launchBrowser, startCodeServer } = await harness();
  const workspace = copyWorkspace(workspaceName);
  options.prepareWorkspace?.(workspace);
  const server = await startCodeServer({ workspace, ...options });
  const browser = await launchBrowser();
  const page = await browser.context.newPage();
  await page.goto(server.workbenchUrl({ developmentPath: repoRoot }));
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  const workbench: Workbench = {
    page,
    workspace,
    userDataDir: server.userDataDir,
    configHome: path.join(server.stateDir, 'config'),
    async close() {
      openWorkbenches.delete(workbench);
      await browser.close();
      await server.stop();
      fs.rmSync(path.dirname(workspace), { recursive: true, force: true, maxRetries: 3 });
    },
  };
  openWorkbenches.add(workbench);
  return workbench;
}

/** Runs a command from the palette by its full title, as a user would. */
export async function runFromPalette(page: Page, title: string, options: { opensQuickInput?: boolean } = {}): Promise<void> {
  // On a busy machine a toast or a restart's dialog can take the palette's focus while it opens
  // (it goes inert, then away) before anything is chosen: the user opens it again. Nothing has run
  // until Enter, so trying again is safe; the third time, say what was on the screen.
  for (let attempt = 1; ; attempt++) {
    try {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ timeout: 10_000 });
      await input.fill(`>${title}`, { timeout: 10_000 });
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 10_000 });
      break;
    } catch (error) {
      // A dialog is the product asking something: Escape would answer it, so that is no retry.
      const dialogOpen = (await page.locator('.monaco-dialog-box').count()) > 0;
      if (attempt < 3 && !dialogOpen) {
        await page.keyboard.press('Escape');
        continue;
      }
      const dialogs = await page.locator('.monaco-dialog-box').allInnerTexts();
      const notices = await page.locator('.notification-toast, .notifications-center .notification-list-item').allInnerTexts();
      await screenshot(page, 'palette-lost');
      throw new Error(
        `the palette closed before "${title}" could be chosen; dialogs: ${JSON.stringify(dialogs)}; notifications: ${JSON.stringify(notices)}\n${String(error)}`,
      );
    }
  }
  await page.keyboard.press('Enter');
  if (options.opensQuickInput) {
    // The command's own picker replaces the palette; wait until the palette's text is gone.
    await page
      .locator('.quick-input-widget input')
      .and(page.locator(`[aria-label*="${title}"]`))
      .waitFor({ state: 'detached' })
      .catch(() => undefined);
    return;
  }
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
}

/**
 * Runs a palette command that opens a picker, and picks the row with `row`. On a busy machine a
 * toast can take the picker's focus before the row is clicked (the picker closes, its rows stay in
 * the page hidden): the user runs the command again. Nothing was chosen, so that is safe.
 */
export async function pickFromCommand(page: Page, title: string, row: string | RegExp): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await runFromPalette(page, title, { opensQuickInput: true });
    const target = page.locator('.quick-input-widget .monaco-list-row', { hasText: row }).first();
    try {
      await target.waitFor({ state: 'visible', timeout: 10_000 });
      await target.click({ timeout: 5_000 });
      return;
    } catch (error) {
      if (attempt >= 3) {
        await screenshot(page, 'picker-lost');
        throw error;
      }
      await page.keyboard.press('Escape');
    }
  }
}

/**
 * *Run Tool…* from the palette: picks `qualifiedName` (`server__tool`) and enters `args` (JSON),
 * through the form's *Edit as JSON* (a tool without arguments, `{}`, runs at once: no form). What
 * follows (a confirmation, the result in the output) is the caller's to check.
 */
export async function runToolFromPalette(page: Page, qualifiedName: string, args: string): Promise<void> {
  await runFromPalette(page, 'MCP Switchboard: Run Tool…', { opensQuickInput: true });
  await page.locator('.quick-input-widget', { hasText: 'Run which MCP tool?' }).waitFor();
  const input = page.locator('.quick-input-widget input');
  await input.fill(qualifiedName);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: qualifiedName }).first().waitFor();
  await page.keyboard.press('Enter');
  if (args === '{}') return;
  const title = `Arguments for ${qualifiedName.replace('__', '/')}`;
  await page.locator('.quick-input-widget', { hasText: title }).waitFor();
  await input.fill('Edit as JSON');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Edit as JSON' }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget', { hasText: `${title} (JSON)` }).waitFor();
  await input.fill(args);
  await page.keyboard.press('Enter');
}

/** A row of the Servers view (or any tree) by its label. */
export function treeRow(page: Page, label: string): Locator {
  return page.locator('.monaco-list-row', { has: page.locator('.label-name', { hasText: new RegExp(`^${label}$`) }) }).first();
}

/**
 * Expands a tree row as a user does: clicks it, and clicks again if it did not open. On a busy
 * machine the tree can re-render the row between the press and the release (a refresh from the
 * extension), and that click is lost; a row the extension makes unexpandable still fails here.
 */
export async function expandTreeRow(page: Page, label: string): Promise<Locator> {
  const row = treeRow(page, label);
  for (let attempt = 1; ; attempt++) {
    await row.click();
    try {
      await page
        .locator('.monaco-list-row[aria-expanded="true"]', { has: page.locator('.label-name', { hasText: new RegExp(`^${label}$`) }) })
        .first()
        .waitFor({ timeout: 10_000 });
      return row;
    } catch (error) {
      if (attempt === 3) throw new Error(`the row "${label}" did not expand after ${attempt} clicks: ${String(error)}`);
    }
  }
}

/**
 * Clicks a tree row once no row's tooltip is shown. A row's tooltip opens where the mouse rests
 * after a click, below that row, and stays while the mouse is on it: clicking the row beneath moves
 * the mouse onto the tooltip, which then takes every click (a busy machine shows it in time to).
 */
export async function clickTreeRow(page: Page, label: string): Promise<void> {
  const tooltip = page.locator('.context-view .rendered-markdown');
  if ((await tooltip.count()) > 0) {
    await page.mouse.move(0, 0);
    await tooltip
      .first()
      .waitFor({ state: 'detached', timeout: 10_000 })
      .catch(() => page.keyboard.press('Escape'));
  }
  await treeRow(page, label).click();
}

/**
 * How many pixels of a row's name and description are cut off (0: all of it shows). The label
 * container clips with an ellipsis, so what overflows it is what the user cannot read.
 */
export async function rowOverflow(row: Locator): Promise<{ text: string; hiddenPx: number }> {
  return row
    .locator('.monaco-icon-label-container')
    .first()
    .evaluate((element) => ({ text: element.textContent ?? '', hiddenPx: element.scrollWidth - element.clientWidth }));
}

export function activityBarEntry(page: Page, title: string): Locator {
  return page.locator(`.activitybar [aria-label^="${title}"]`).first();
}

export async function screenshot(target: Page | Locator, name: string): Promise<string> {
  fs.mkdirSync(screenshotsDir, { recursive: true });
  const file = path.join(screenshotsDir, `${name}.png`);
  await target.screenshot({ path: file });
  return file;
}

/**
 * Keeps the editor's logs of this workbench (its window, extension host and every extension's
 * output channels) in test-artifacts/logs/<name>, for a failure that only happens in CI: the
 * user-data folder is removed when the workbench closes.
 */
export function keepEditorLogs(userDataDir: string, name: string): string {
  const target = path.join(repoRoot, 'test-artifacts', 'logs', name);
  fs.rmSync(target, { recursive: true, force: true });
  fs.cpSync(path.join(userDataDir, 'logs'), target, { recursive: true });
  return target;
}

/**
 * Lines of the editor's logs (every window and extension host log under the user-data folder) that
 * match, for a failure message. `file` picks the log files by path (all of them by default).
 */
export function editorLogLines(userDataDir: string, pattern: RegExp, file: RegExp = /\.log$/, maxLines = 60): string {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const where = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(where);
      else if (entry.name.endsWith('.log') && file.test(where))
        found.push(
          ...fs
            .readFileSync(where, 'utf8')
            .split('\n')
            .filter((line) => pattern.test(line))
            .map((line) => `${entry.name}: ${line}`),
        );
    }
  };
  walk(path.join(userDataDir, 'logs'));
  return found.slice(-maxLines).join('\n') || '(nothing)';
}

/**
 * Hovers a row until its tooltip (containing `text`) shows. A row that re-renders while the hover
 * opens (its description changed) closes it, so this moves away and hovers again, bounded.
 */
export async function rowTooltip(page: Page, row: Locator, text: string, timeoutMs = 30_000): Promise<Locator> {
  const hover = page.locator('.monaco-hover', { hasText: text }).first();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await page.mouse.move(700, 700);
    await row.hover();
    if (
      await hover.waitFor({ timeout: 3_000 }).then(
        () => true,
        () => false,
      )
    )
      return hover;
    if (Date.now() > deadline) throw new Error(`no tooltip with "${text}" within ${timeoutMs} ms`);
  }
}

/**
 * The `consent` workspace with these servers in its folder settings: workspace-defined, so each
 * asks for consent before it runs. `servers` gets the workspace copy's folder.
 */
export function openWithWorkspaceServers(servers: (dir: string) => Record<string, unknown>, options: OpenOptions = {}): Promise<Workbench> {
  return openWorkbench('consent', {
    ...options,
    prepareWorkspace: (dir) => {
      fs.writeFileSync(path.join(dir, '.vscode', 'settings.json'), JSON.stringify({ 'mcpSwitchboard.servers': servers(dir) }, null, 2));
      options.prepareWorkspace?.(dir);
    },
  });
}
