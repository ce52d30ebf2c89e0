// A tool that requires a task (the reference server's simulate-research-query, 2025-11-25 tasks),
// run from the palette as a user would: the server's row says a task is running, a row under it
// shows the task's latest status, and its Cancel Task button ends it.
import assert from 'node:assert/strict';
import path from 'node:path';
import { activityBarEntry, openWorkbench, runFromPalette, runToolFromPalette, screenshot, treeRow, type Workbench } from './workbench';

const everything = path.resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const TOOL = 'research__simulate-research-query';

/** The task's row: its accessible label says it is a task, unlike the tool's row of the same name. */
function taskRow(page: Workbench['page']) {
  return page.locator('.monaco-list-row[aria-label^="task of simulate-research-query"]').first();
}

describe('a tool that runs as a task (UI)', function () {
  this.timeout(180_000);
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    workbench = await openWorkbench('basic', {
      userSettings: {
        'mcpSwitchboard.servers': {
          research: { command: process.execPath, args: [everything, 'stdio'], tools: { allow: ['simulate-research-query'] } },
        },
      },
    });
  });

  after(async () => {
    await workbench?.close();
  });

  async function startTask(topic: string, ambiguous = false): Promise<void> {
    const { page } = workbench;
    await runToolFromPalette(page, TOOL, JSON.stringify({ topic, ambiguous }));
    const confirmation = page.locator('.monaco-dialog-box', { hasText: 'simulate-research-query' });
    await confirmation.waitFor({ timeout: 30_000 });
    await confirmation
      .locator('.monaco-button')
      .filter({ hasText: /^(Yes|Allow|Continue|Run)/ })
      .first()
      .click();
  }

  it('shows the running task under its server with its latest status, and the row says so', async () => {
    const { page } = workbench;
    await page.locator('.statusbar-item', { hasText: '1/1' }).waitFor({ timeout: 60_000 });
    await activityBarEntry(page, 'MCP Switchboard').click();
    await treeRow(page, 'research').click();
    await startTask('tides');
    const task = taskRow(page);
    await task.locator('.label-name', { hasText: /Analyzing content|Synthesizing findings/ }).waitFor({ timeout: 30_000 });
    assert.equal((await treeRow(page, 'research').locator('.label-description').innerText()).trim(), 'running · 1 task');
    await screenshot(page, 'task-running');
    // It ends by itself; the row goes with it and the result is in the log.
    await task.waitFor({ state: 'detached', timeout: 30_000 });
    await page
      .locator('.part.panel .view-lines', { hasText: 'simulated research report from the Everything MCP Server' })
      .waitFor({ timeout: 30_000 });
    assert.match((await treeRow(page, 'research').locator('.label-description').innerText()).trim(), /^running · 1 of \d+ offered$/);
  });

  it('Cancel Task on the task row ends the task and the call', async () => {
    const { page } = workbench;
    // An ambiguous topic makes the server ask for a clarification half-way (input_required) and
    // wait for it, so the task is still running when the click lands, however busy the machine.
    await startTask('owls', true);
    const task = taskRow(page);
    const question = page.locator('.quick-input-widget', { hasText: 'MCP server "research" asks' });
    await question.waitFor({ timeout: 30_000 });
    await task.locator('.label-name', { hasText: 'Requesting clarification' }).waitFor({ timeout: 30_000 });
    await task.hover();
    await task.locator('.actions .action-label[aria-label^="Cancel Task"]').click();
    await task.waitFor({ state: 'detached', timeout: 15_000 });
    // The question of the cancelled task goes with it.
    await question.waitFor({ state: 'hidden', timeout: 15_000 });
    // The call ends too: Run Tool says it was cancelled. (A headless, unfocused workbench files
    // notifications in the center instead of toasting them.)
    await runFromPalette(page, 'Notifications: Show Notifications');
    await page
      .locator('.notifications-center .notification-list-item', { hasText: 'simulate-research-query task was cancelled' })
      .first()
      .waitFor({ timeout: 30_000 });
  });
});
