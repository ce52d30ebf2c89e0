// Two windows of one code-server, on two folders, with sharing on: the user-level server runs once
// (in the machine host the first window started) for both, each window keeps its own workspace
// server, and what the shared server asks during one window's call (its roots) is that window's
// alone. Then an agent launched as Share with Other Agents launches it attaches to the same host.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { writeCliLauncher } from '../../src/editor/cliLauncher';
import { eventually } from '../core/support/poll';
import { activityBarEntry, rowOverflow, runToolFromPalette, screenshot, treeRow } from './workbench';
import { processesWith } from '../core/support/processesWith';

const repoRoot = path.resolve(__dirname, '../..');
const fixture = path.resolve(__dirname, '../fixtures/stdio-server.mjs');
const harness = () => import('../harness/editor.mjs');

describe('servers shared by two windows through the machine host (UI)', function () {
  this.timeout(300_000);
  const mark = crypto.randomBytes(4).toString('hex');
  const shared = `notes-${mark}`;
  // Each copy of the workspace is a folder `consent` in a temp folder of its own: that one names it.
  const repoMark = (folder: string) => `repo-${path.basename(path.dirname(folder))}-${mark}`;
  let stop: () => Promise<void> = async () => undefined;
  let pages: { page: Page; folder: string }[] = [];
  let hostDir = '';
  let userSettings = '';
  let storage = '';

  before(async function () {
    this.timeout(180_000);
    const { copyWorkspace, launchBrowser, startCodeServer } = await harness();
    const folders = [copyWorkspace('consent'), copyWorkspace('consent')];
    for (const folder of folders) {
      fs.writeFileSync(
        path.join(folder, '.vscode', 'settings.json'),
        JSON.stringify({ 'mcpSwitchboard.servers': { repo: { command: process.execPath, args: [fixture, '--name', repoMark(folder)] } } }),
      );
    }
    const server = await startCodeServer({
      workspace: folders[0],
      userSettings: {
        'mcpSwitchboard.shareServers': true,
        'mcpSwitchboard.servers': { notes: { command: process.execPath, args: [fixture, '--features', '--name', shared] } },
      },
    });
    hostDir = server.hostDir;
    userSettings = path.join(server.userDataDir, 'User', 'settings.json');
    storage = path.join(server.stateDir, 'launcher');
    const browser = await launchBrowser();
    stop = async () => {
      await browser.close();
      await server.stop();
      for (const folder of folders) fs.rmSync(path.dirname(folder), { recursive: true, force: true, maxRetries: 3 });
    };
    for (const folder of folders) {
      const page = await browser.context.newPage();
      await page.goto(server.workbenchUrl({ folder, developmentPath: repoRoot }));
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      // The folder's own server asks first, in each window.
      const dialog = page.locator('.monaco-dialog-box', { hasText: '"repo"' });
      await dialog.waitFor({ timeout: 90_000 });
      await dialog.locator('.monaco-button', { hasText: /^Allow$/ }).click();
      await dialog.waitFor({ state: 'detached', timeout: 15_000 });
      await activityBarEntry(page, 'MCP Switchboard').click();
      pages.push({ page, folder });
    }
  });

  after(async () => {
    await stop();
    pages = [];
  });

  it('runs the user-level server once for both windows, each its own workspace server, and each row says it is shared by 2 (and fits the sidebar)', async () => {
    for (const { page } of pages) {
      await treeRow(page, 'notes').locator('.label-description', { hasText: 'shared ×2' }).waitFor({ timeout: 90_000 });
      await treeRow(page, 'repo')
        .locator('.label-description', { hasText: /^running · / })
        .waitFor({ timeout: 60_000 });
    }
    await screenshot(pages[0]?.page as Page, 'shared-server-row');
    const overflow = await rowOverflow(treeRow(pages[0]?.page as Page, 'notes'));
    assert.equal(overflow.hiddenPx, 0, `the row's words fit the default sidebar: ${overflow.text}`);
    assert.equal(processesWith(shared).length, 1, 'one process of the shared server');
    for (const { folder } of pages) assert.equal(processesWith(repoMark(folder)).length, 1, `the workspace server of ${folder}`);
  });

  it("a call's roots are its own window's: the shared server asked during each window's call sees that window's folder only", async () => {
    for (const [index, { page, folder }] of pages.entries()) {
      await runToolFromPalette(page, 'notes__list_roots', '{}');
      // The output wraps long lines: the temp folder's own name is what tells the two apart.
      const output = page.locator('.part.panel .view-lines', { hasText: path.basename(path.dirname(folder)) });
      await output.waitFor({ timeout: 60_000 });
      const other = pages[1 - index]?.folder ?? '';
      assert.doesNotMatch(await page.locator('.part.panel .view-lines').innerText(), new RegExp(path.basename(path.dirname(other))));
    }
  });

  it("an agent launched as Share's launcher launches it attaches to the same host: still one process, and the rows count 3", async () => {
    const launcher = writeCliLauncher(storage, path.join(repoRoot, 'dist', 'extension.js'), userSettings);
    const folder = fs.mkdtempSync(path.join(path.dirname(storage), 'agent-'));
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: launcher,
        args: ['serve', '--stdio', '--folder', folder],
        env: { ...(process.env as Record<string, string>), MCP_SWITCHBOARD_HOST_DIR: hostDir },
        stderr: 'ignore',
      }),
    );
    try {
      const result = (await client.callTool({ name: 'notes__echo', arguments: { text: 'from the agent' } })) as CallToolResult;
      assert.deepEqual(result.content, [{ type: 'text', text: 'from the agent' }]);
      assert.equal(processesWith(shared).length, 1);
      await treeRow(pages[0]?.page as Page, 'notes')
        .locator('.label-description', { hasText: 'shared ×3' })
        .waitFor({ timeout: 30_000 });
    } finally {
      await client.close();
    }
    // The agent gone, the host forgets it: the rows count 2 again.
    await eventually(
      async () =>
        (
          await treeRow(pages[0]?.page as Page, 'notes')
            .locator('.label-description')
            .innerText()
        ).includes('shared ×2')
          ? true
          : undefined,
      'the rows count 2 again',
      30_000,
    );
  });
});
