// Share with Other Agents… in the real editor, the way that needs nothing else: the folder's
// .mcp.json gets an entry that starts Switchboard itself (serve --stdio) through a launcher at a
// path that survives the extension's updates, and an agent that starts that entry as written gets
// Switchboard on stdio.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Page } from 'playwright-core';
import { activityBarEntry, openWorkbench, runFromPalette, screenshot, type Workbench } from './workbench';

async function answer(page: Page, title: RegExp | string, text: string): Promise<void> {
  await page.locator('.quick-input-widget', { hasText: title }).waitFor({ timeout: 15_000 });
  await page.locator('.quick-input-widget input').fill(text);
  await page.keyboard.press('Enter');
}

describe('Share with Other Agents (UI)', function () {
  this.timeout(180_000);
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    workbench = await openWorkbench('basic');
    await activityBarEntry(workbench.page, 'MCP Switchboard').click();
  });

  after(async () => {
    await workbench?.close();
  });

  it("writes an entry the agent starts itself, naming the editor's launcher, and an agent that starts it gets Switchboard", async () => {
    const { page, workspace, userDataDir } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Share with Other Agents…', { opensQuickInput: true });
    await answer(page, 'whose config', "This folder's .mcp.json");
    await answer(page, 'how does the agent reach it', 'The agent starts it');
    const done = page.locator('.monaco-dialog-box', { hasText: '"switchboard" added to' });
    await done.waitFor({ timeout: 15_000 });
    assert.match(await done.innerText(), /Nothing to run/);
    await screenshot(page, 'share-stdio');
    await page.keyboard.press('Escape');

    const entry = (
      JSON.parse(fs.readFileSync(path.join(workspace, '.mcp.json'), 'utf8')) as {
        mcpServers: Record<string, { command: string; args: string[] }>;
      }
    ).mcpServers.switchboard;
    assert.ok(entry);
    // In the editor's user folder (its global storage), not in the extension's versioned folder.
    assert.ok(entry.command.startsWith(userDataDir), entry.command);
    assert.match(entry.command, /\/bin\/mcp-switchboard$/);
    assert.deepEqual(entry.args, ['serve', '--stdio', '--folder', workspace]);

    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-agent-'));
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: {
        ...(process.env as Record<string, string>),
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        XDG_CACHE_HOME: path.join(home, '.cache'),
      },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'agent', version: '1.0.0' });
    try {
      await client.connect(transport);
      assert.equal(client.getServerVersion()?.name, 'mcp-switchboard');
      assert.ok(Array.isArray((await client.listTools()).tools));
    } finally {
      await client.close();
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
