// Share with Other Agents… in the real editor: the folder's .mcp.json, which this editor reads too,
// is written only after a warning that its tools would be listed twice, and holds nothing of this
// machine: an entry that starts Switchboard from npm (serve --stdio) for the folder the agent runs
// in; an agent that starts that entry gets Switchboard on stdio.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { parse as parseJsonc } from 'jsonc-parser';
import type { Page } from 'playwright-core';
import { applyJsonEdit } from '../../src/core/base/jsoncEdit';
import { activityBarEntry, editorLogLines, openWorkbench, runFromPalette, screenshot, treeRow, type Workbench } from './workbench';

const fixture = path.resolve(__dirname, '../fixtures/stdio-server.mjs');
/** The folder's own .mcp.json, commented and laid out by hand: Share must leave it as it is. */
const OWN_MCP_JSON = [
  '{',
  '  // the team’s own server',
  '  "mcpServers": {',
  `    "portable-one": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(fixture)}, "--name", "portable-one"] }`,
  '  }',
  '}',
  '',
].join('\n');

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
    workbench = await openWorkbench('basic', { prepareWorkspace: (dir) => fs.writeFileSync(path.join(dir, '.mcp.json'), OWN_MCP_JSON) });
    await activityBarEntry(workbench.page, 'MCP Switchboard').click();
  });

  after(async () => {
    await workbench?.close();
  });

  it('warns that this editor reads .mcp.json too, and writes one that holds nothing of this machine, which starts Switchboard for the folder', async () => {
    const { page, workspace } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Share with Other Agents…', { opensQuickInput: true });
    await answer(page, 'whose config', "This folder's .mcp.json");
    const warning = page.locator('.monaco-dialog-box', { hasText: 'list every tool twice' });
    await warning.waitFor({ timeout: 15_000 });
    // (In the order the platform puts dialog buttons.)
    assert.deepEqual(
      (await warning.locator('.monaco-button').allInnerTexts())
        .map((text) => text.trim())
        .filter((text) => text !== 'Cancel')
        .sort(),
      ["Use Claude Code's Own File", 'Write .mcp.json Anyway'],
    );
    await screenshot(page, 'share-portable-warning');
    await warning.locator('.monaco-button', { hasText: 'Write .mcp.json Anyway' }).click();
    await answer(page, 'how does the agent reach it', 'The agent starts it');
    const done = page.locator('.monaco-dialog-box', { hasText: '"switchboard" added to' });
    await done.waitFor({ timeout: 15_000 });
    assert.match(await done.innerText(), /Nothing to run/);
    await screenshot(page, 'share-stdio');
    await page.keyboard.press('Escape');

    const text = fs.readFileSync(path.join(workspace, '.mcp.json'), 'utf8');
    assert.equal(
      applyJsonEdit(text, { location: ['mcpServers', 'switchboard'], value: undefined }),
      OWN_MCP_JSON,
      'only its entry changed',
    );
    const entry = (parseJsonc(text) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers.switchboard;
    // Committed and read on other machines: no path of this one.
    assert.deepEqual(entry, { type: 'stdio', command: 'npx', args: ['-y', 'mcp-switchboard', 'serve', '--stdio', '--folder', '.'] });
    for (const local of [workspace, process.execPath, os.homedir()])
      assert.ok(!JSON.stringify(entry).includes(local), `${local} in ${JSON.stringify(entry)}`);

    // An agent starts it in the folder (the CLI of this checkout standing in for the npm package).
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-agent-'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.resolve(__dirname, '../../dist/cli.js'), ...entry.args.slice(2)],
      cwd: workspace,
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

  it('reading that .mcp.json itself, Switchboard skips its own entry with one line in its log, and starts the rest', async () => {
    const { page, workspace, userDataDir } = workbench;
    fs.writeFileSync(path.join(workspace, '.vscode', 'settings.json'), '{ "mcpSwitchboard.sources": ["settings", "mcpJsonPortable"] }\n');
    await treeRow(page, 'portable-one').waitFor({ timeout: 30_000 });
    // Whatever the editor does with the other row (consent for a workspace server) it has decided by now.
    await page.waitForTimeout(1_500);
    assert.equal(await treeRow(page, 'switchboard').count(), 0, 'no row for itself');
    const skipped = editorLogLines(userDataDir, /server "switchboard" from \.mcp\.json .* is skipped: it starts MCP Switchboard itself/);
    assert.equal(skipped.split('\n').length, 1, skipped);
    assert.notEqual(skipped, '(nothing)');
    // The consent it asks for the folder's own server names the file that asks.
    await page
      .locator('.monaco-dialog-box', { hasText: "This workspace's .mcp.json asks MCP Switchboard to run" })
      .waitFor({ timeout: 15_000 });
    await screenshot(page, 'share-skipped-itself');
  });
});
