// Servers from other clients' files, in the real editor: Import Servers from a portable .mcp.json
// and from Codex's config.toml, and a Codex file enabled as a source, live: an edit there adds,
// disables and removes servers without a reload.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import readline from 'node:readline';
import type { Page } from 'playwright-core';
import {
  activityBarEntry,
  editorLogLines,
  openWorkbench,
  rowTooltip,
  runFromPalette,
  screenshot,
  treeRow,
  type Workbench,
} from './workbench';

const fixture = path.resolve(__dirname, '../fixtures/stdio-server.mjs');
const node = process.execPath;

async function answer(page: Page, title: RegExp | string, text?: string): Promise<void> {
  await page.locator('.quick-input-widget', { hasText: title }).waitFor({ timeout: 15_000 });
  if (text !== undefined) await page.locator('.quick-input-widget input').fill(text);
  await page.keyboard.press('Enter');
}

function codexTable(name: string, extra = ''): string {
  return `[mcp_servers.${name}]\ncommand = ${JSON.stringify(node)}\nargs = [${JSON.stringify(fixture)}, "--name", "${name}"]\n${extra}\n`;
}

describe('Import Servers from .mcp.json and Codex (UI)', function () {
  this.timeout(180_000);
  const codexHome = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-codex-'));
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    fs.writeFileSync(
      path.join(codexHome, 'config.toml'),
      // `twin` runs what `from-portable` runs: once that is imported, Import says so.
      `model = "gpt-5-codex"\n\n${codexTable('from-codex', 'startup_timeout_sec = 20\noauth_resource = "https://x.example/"')}\n` +
        `[mcp_servers.twin]\ncommand = ${JSON.stringify(node)}\nargs = [${JSON.stringify(fixture)}, "--name", "from-portable"]\n`,
    );
    workbench = await openWorkbench('basic', {
      env: { CODEX_HOME: codexHome },
      prepareWorkspace: (dir) => {
        fs.writeFileSync(
          path.join(dir, '.mcp.json'),
          JSON.stringify(
            { mcpServers: { 'from-portable': { type: 'stdio', command: node, args: [fixture, '--name', 'from-portable'] } } },
            null,
            2,
          ),
        );
      },
    });
    await activityBarEntry(workbench.page, 'MCP Switchboard').click();
  });

  after(async () => {
    await workbench?.close();
    fs.rmSync(codexHome, { recursive: true, force: true });
  });

  it('lists the portable .mcp.json and Codex with what they hold, and imports from the .mcp.json', async () => {
    const { page } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Import Servers…', { opensQuickInput: true });
    const picker = page.locator('.quick-input-widget', { hasText: 'from where' });
    await picker.waitFor({ timeout: 15_000 });
    assert.match(await picker.locator('.monaco-list-row', { hasText: 'portable' }).innerText(), /1 server/);
    assert.match(await picker.locator('.monaco-list-row', { hasText: 'Codex' }).innerText(), /2 servers/);
    await answer(page, 'from where', 'portable');
    await answer(page, 'these will be added');
    await answer(page, 'save to', 'User settings');
    await treeRow(page, 'from-portable')
      .locator('.label-description', { hasText: /^running/ })
      .waitFor({ timeout: 30_000 });
  });

  it("imports from Codex's config.toml, naming the field that is not carried over", async () => {
    const { page, userDataDir } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Import Servers…', { opensQuickInput: true });
    await answer(page, 'from where', 'Codex');
    const preview = page.locator('.quick-input-widget', { hasText: 'these will be added' });
    await preview.waitFor({ timeout: 15_000 });
    const row = preview.locator('.monaco-list-row', { hasText: 'from-codex' });
    assert.match(await row.innerText(), /not carried over: oauth_resource/);
    assert.match(await row.innerText(), /"connectMs":20000/);
    // The same server as one already imported, under another name: said, and not picked.
    const twin = preview.locator('.monaco-list-row', { hasText: 'twin' });
    assert.match(await twin.innerText(), /runs the same as "from-portable", which you have/);
    assert.equal(await row.getAttribute('aria-checked'), 'true', 'from-codex is picked');
    assert.equal(await twin.getAttribute('aria-checked'), 'false', 'twin is not');
    await screenshot(page, 'import-codex');
    await page.keyboard.press('Enter');
    await answer(page, 'save to', 'User settings');
    await treeRow(page, 'from-codex')
      .locator('.label-description', { hasText: /^running/ })
      .waitFor({ timeout: 30_000 });
    const settings = fs.readFileSync(path.join(userDataDir, 'User', 'settings.json'), 'utf8');
    assert.match(settings, /"from-codex"/);
    assert.doesNotMatch(settings, /"twin"/);
    assert.doesNotMatch(settings, /oauth_resource/);
  });

  it('Add Server… writes to the portable .mcp.json, turns that source on, and the server runs after consent', async () => {
    const { page, workspace } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Add Server…', { opensQuickInput: true });
    await answer(page, 'command line or URL', `"${node}" "${fixture}" --name added-portable`);
    await answer(page, 'name', 'added-portable');
    await answer(page, 'where to save it', '.mcp.json');
    // A folder's .mcp.json is workspace-defined: asked like any workspace server.
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'added-portable' });
    await dialog.waitFor({ timeout: 30_000 });
    await dialog.locator('.monaco-button', { hasText: /^Allow$/ }).click();
    await treeRow(page, 'added-portable')
      .locator('.label-description', { hasText: /^running/ })
      .waitFor({ timeout: 30_000 });
    const written = JSON.parse(fs.readFileSync(path.join(workspace, '.mcp.json'), 'utf8')) as { mcpServers: Record<string, unknown> };
    assert.deepEqual(Object.keys(written.mcpServers), ['from-portable', 'added-portable']);
    assert.match(fs.readFileSync(path.join(workspace, '.vscode', 'settings.json'), 'utf8'), /"mcpJsonPortable"/);
  });

  it('Copy Server for Another Client… says what it copied and what the user must still do', async () => {
    const { page } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Copy Server for Another Client…', { opensQuickInput: true });
    await answer(page, 'for another client', 'from-codex');
    await answer(page, 'for which client', 'Gemini');
    await runFromPalette(page, 'Notifications: Show Notifications');
    await page
      .locator('.notifications-center .notification-list-item', { hasText: 'Copied "from-codex" for Gemini CLI' })
      .first()
      .waitFor({ timeout: 15_000 });
    await runFromPalette(page, 'Notifications: Hide Notifications');
  });
});

describe('a Codex config.toml as a live source (UI)', function () {
  this.timeout(180_000);
  const codexHome = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-codex-'));
  const config = path.join(codexHome, 'config.toml');
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    fs.writeFileSync(config, codexTable('first'));
    workbench = await openWorkbench('basic', {
      env: { CODEX_HOME: codexHome },
      userSettings: { 'mcpSwitchboard.sources': ['settings', 'codex'] },
    });
    await activityBarEntry(workbench.page, 'MCP Switchboard').click();
  });

  after(async () => {
    await workbench?.close();
    fs.rmSync(codexHome, { recursive: true, force: true });
  });

  it("runs its servers without consent (a file of the user's own), and follows edits to the file", async () => {
    const { page } = workbench;
    await treeRow(page, 'first')
      .locator('.label-description', { hasText: /^running/ })
      .waitFor({ timeout: 60_000 });
    fs.writeFileSync(config, `${codexTable('first', 'enabled = false')}\n${codexTable('second')}`);
    await treeRow(page, 'second')
      .locator('.label-description', { hasText: /^running/ })
      .waitFor({ timeout: 30_000 });
    await treeRow(page, 'first')
      .locator('.label-description', { hasText: /^disabled$/ })
      .waitFor({ timeout: 30_000 });
    fs.writeFileSync(config, codexTable('second'));
    await treeRow(page, 'first').waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal(await page.locator('.monaco-dialog-box').count(), 0, "no consent dialog for a file in the user's home");
  });
});

describe('dev.watch (UI)', function () {
  this.timeout(180_000);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-watch-'));
  const marker = path.join(scratch, 'marker.json');
  let workbench: Workbench;
  let serverFolder = '';

  const pid = () => {
    try {
      return (JSON.parse(fs.readFileSync(marker, 'utf8')) as { pid: number }).pid;
    } catch {
      return undefined;
    }
  };

  before(async function () {
    this.timeout(120_000);
    // The server's folder is the workspace, as for an author working on their server.
    workbench = await openWorkbench('basic', {
      userSettings: {
        'mcpSwitchboard.servers': {
          watched: { command: node, args: [fixture, '--name', 'watched', '--marker', marker], dev: { watch: 'src/**/*.js' } },
        },
      },
    });
    serverFolder = workbench.workspace;
    await activityBarEntry(workbench.page, 'MCP Switchboard').click();
  });

  after(async () => {
    await workbench?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('restarts the server when a watched file changes, and the row says why', async () => {
    const { page } = workbench;
    const row = treeRow(page, 'watched');
    await row.locator('.label-description', { hasText: /^running/ }).waitFor({ timeout: 60_000 });
    const before = pid();
    assert.ok(before, 'the server wrote its marker');
    // Not watched: nothing happens.
    fs.writeFileSync(path.join(serverFolder, 'notes.txt'), 'x');
    fs.mkdirSync(path.join(serverFolder, 'src', 'lib'), { recursive: true });
    // The editor's file watcher starts in the background and says nothing when it is ready: a change
    // it did not see yet is written again (each write is a real change), a bounded number of times.
    // Restarted by dev.watch: the icon says so for a minute; the words stay "running".
    const restarted = row.locator('.codicon-debug-restart');
    for (let attempt = 0; ; attempt++) {
      fs.writeFileSync(path.join(serverFolder, 'src', 'lib', 'tool.js'), `export const version = ${attempt};`);
      if (
        await restarted.waitFor({ timeout: 5_000 }).then(
          () => true,
          () => false,
        )
      )
        break;
      if (attempt >= 8)
        throw new Error(
          `no restart after 9 changes to src/lib/tool.js; the log says: ${editorLogLines(workbench.userDataDir, /dev\.watch|watched\] (starting|running)/)}`,
        );
    }
    assert.notEqual(pid(), before, 'a new process');
    const tooltip = await rowTooltip(page, row, 'Restarted by dev.watch');
    assert.match(await tooltip.innerText(), /Restarted by dev\.watch: src\/lib\/tool\.js changed/);
    assert.match(await tooltip.innerText(), /Restarts on changes to: src\/\*\*\/\*\.js/);
    await screenshot(page, 'dev-watch-restarted');
  });
});

describe('Add Server from Registry (UI)', function () {
  this.timeout(180_000);
  const children: ChildProcess[] = [];
  let workbench: Workbench;

  async function start(script: string, args: string[] = []): Promise<number> {
    const child = spawn(node, [path.resolve(__dirname, '../fixtures', script), ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
    children.push(child);
    const stdout = child.stdout;
    if (!stdout) throw new Error(`${script} has no stdout`);
    return new Promise<number>((resolve) =>
      readline.createInterface({ input: stdout }).once('line', (line) => resolve((JSON.parse(line) as { port: number }).port)),
    );
  }

  before(async function () {
    this.timeout(120_000);
    const mcpPort = await start('http-server.mjs');
    const registryPort = await start('registry-server.mjs', ['--local-remote', `http://127.0.0.1:${mcpPort}/mcp`]);
    workbench = await openWorkbench('basic', { userSettings: { 'mcpSwitchboard.registry.url': `http://127.0.0.1:${registryPort}` } });
    await activityBarEntry(workbench.page, 'MCP Switchboard').click();
  });

  after(async () => {
    await workbench?.close();
    for (const child of children) child.kill('SIGKILL');
  });

  it('searches as you type, adds the server picked, asks for its secret header when it starts, and it runs', async () => {
    const { page, userDataDir } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Add Server from Registry…', { opensQuickInput: true });
    const picker = page.locator('.quick-input-widget', { hasText: 'Add MCP Server from Registry (1/3)' });
    await picker.waitFor({ timeout: 15_000 });
    await page.locator('.quick-input-widget input').fill('weather');
    const row = picker.locator('.monaco-list-row', { hasText: 'Weather (test)' });
    await row.waitFor({ timeout: 15_000 });
    assert.match(await row.innerText(), /1\.2\.0 · remote/);
    assert.equal(await picker.locator('.monaco-list-row', { hasText: 'Everything' }).count(), 0, 'the search narrows the list');
    await screenshot(page, 'registry-picker');
    await row.click();
    await answer(page, 'Registry (2/3): name');
    await answer(page, 'where to save it', 'User settings');
    // The header the registry marks secret is asked for when the server first starts, masked.
    const ask = page.locator('.quick-input-widget', { hasText: 'weather-x-api-key' });
    await ask.waitFor({ timeout: 30_000 });
    assert.equal(await page.locator('.quick-input-widget input').getAttribute('type'), 'password');
    await page.locator('.quick-input-widget input').fill('key-123');
    await page.keyboard.press('Enter');
    await treeRow(page, 'weather')
      .locator('.label-description', { hasText: /^running/ })
      .waitFor({ timeout: 30_000 });
    const settings = fs.readFileSync(path.join(userDataDir, 'User', 'settings.json'), 'utf8');
    assert.match(settings, /"X-Api-Key": "\$\{input:weather-x-api-key\}"/);
    assert.doesNotMatch(settings, /key-123/);
  });
});

describe('Add Server from Registry, offline (UI)', function () {
  this.timeout(240_000);
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    // A port nobody listens on: the registry cannot be reached, as on a machine offline.
    const closed = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    workbench = await openWorkbench('basic', { userSettings: { 'mcpSwitchboard.registry.url': `http://127.0.0.1:${closed}` } });
    // The extension has activated (its view is there) before its command is looked for.
    await activityBarEntry(workbench.page, 'MCP Switchboard').click();
  });

  after(async () => {
    await workbench?.close();
  });

  it('says which registry cannot be reached and why, and offers a way on: try again, Add Server by hand, another registry', async () => {
    const { page } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Add Server from Registry…', { opensQuickInput: true });
    const picker = page.locator('.quick-input-widget', { hasText: 'Add MCP Server from Registry (1/3)' });
    const error = picker.locator('.monaco-list-row', { hasText: 'cannot be searched' });
    await error.waitFor({ timeout: 30_000 });
    assert.match(await error.innerText(), /127\.0\.0\.1:\d+ cannot be searched\s+connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
    for (const way of ['Try again', 'Add a server by its command line or URL instead', 'Use another registry']) {
      await picker.locator('.monaco-list-row', { hasText: way }).waitFor({ timeout: 5_000 });
    }
    assert.match(
      await picker.locator('.monaco-list-row', { hasText: 'Use another registry' }).innerText(),
      /mcpSwitchboard\.registry\.url/,
    );
    await screenshot(page, 'registry-offline');
    await picker.locator('.monaco-list-row', { hasText: 'Add a server by its command line or URL instead' }).click();
    await page.locator('.quick-input-widget', { hasText: 'Add MCP Server (1/3): command line or URL' }).waitFor({ timeout: 15_000 });
    await page.keyboard.press('Escape');
  });
});
