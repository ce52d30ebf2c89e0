// A server's skills (the MCP skills extension) in the real editor, as a user meets them: the
// server's Skills group in the Servers view, Install Skill's review of every file before anything
// is written, the skill's files in the workspace's .github/skills where the editor's chat reads
// skills, and, when the server lists a changed skill, a notice whose review shows what changed and
// asks again before the installed copy is replaced.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '../core/support/poll';
import { activityBarEntry, expandTreeRow, openWorkbench, runFromPalette, screenshot, treeRow, type Workbench } from './workbench';

const fixture = path.resolve(__dirname, '../fixtures/skills-server.mjs');
const source = path.resolve(__dirname, '../fixtures/skills');

describe('skills from a server (UI)', function () {
  this.timeout(240_000);
  let workbench: Workbench;
  let served: string;

  before(async function () {
    this.timeout(120_000);
    served = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-ui-skills-'));
    fs.cpSync(source, served, { recursive: true });
    workbench = await openWorkbench('basic', {
      userSettings: { 'mcpSwitchboard.servers': { docs: { command: process.execPath, args: [fixture, '--skills-dir', served] } } },
    });
  });

  after(async () => {
    await workbench?.close();
    fs.rmSync(served, { recursive: true, force: true });
  });

  const installed = () => path.join(workbench.workspace, '.github', 'skills', 'release-notes');

  it("lists the server's skills, reviews every file before installing, and puts the skill where the editor reads skills", async () => {
    const { page } = workbench;
    await page.locator('.statusbar-item', { hasText: '1/1' }).waitFor({ timeout: 60_000 });
    await activityBarEntry(page, 'MCP Switchboard').click();
    await expandTreeRow(page, 'docs');
    const group = treeRow(page, 'Skills');
    await group.waitFor({ timeout: 30_000 });
    assert.equal((await group.locator('.label-description').innerText()).trim(), '2');
    await group.click();
    const row = treeRow(page, 'release-notes');
    await row.waitFor({ timeout: 30_000 });
    await treeRow(page, 'refunds').waitFor({ timeout: 30_000 });
    await row.hover();
    await row.locator('.actions .action-label[aria-label^="Install Skill"]').click();

    const dialog = page.locator('.monaco-dialog-box', { hasText: 'Install the skill "release-notes" from server "docs"?' });
    await dialog.waitFor({ timeout: 30_000 });
    const text = await dialog.innerText();
    assert.match(text, /Files \(2, 388 B\)/);
    assert.match(text, /templates\/notes\.md\s+70 B\s+sha256:/);
    assert.match(text, /From server "docs": skill:\/\/release-notes\/SKILL\.md/);
    await screenshot(page, 'skill-review');
    assert.equal(fs.existsSync(installed()), false, 'nothing is written before the answer');
    await dialog.locator('.monaco-button', { hasText: 'This Workspace (.github/skills)' }).click();

    await eventually(() => fs.existsSync(path.join(installed(), 'templates', 'notes.md')) || undefined, 'the installed skill', 30_000);
    for (const file of ['SKILL.md', 'templates/notes.md'])
      assert.deepEqual(fs.readFileSync(path.join(installed(), file)), fs.readFileSync(path.join(source, 'release-notes', file)), file);
    await page
      .locator('.monaco-list-row', { hasText: 'release-notes' })
      .locator('.label-description', { hasText: /^installed$/ })
      .waitFor({ timeout: 30_000 });
    await screenshot(page, 'skill-installed');

    // Asked again for an installed skill, Install reviews it again, for the places it is not in yet.
    await runFromPalette(page, 'MCP Switchboard: Install Skill…', { opensQuickInput: true });
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'release-notes' }).first().click();
    const again = page.locator('.monaco-dialog-box', { hasText: 'Install the skill "release-notes" from server "docs"?' });
    await again.waitFor({ timeout: 30_000 });
    const buttons = (await again.locator('.monaco-button').allInnerTexts())
      .map((label) => label.trim())
      .filter((label) => label !== 'Cancel');
    assert.deepEqual(buttons, ['All Your Workspaces (~/.copilot/skills)']);
    await again.locator('.monaco-button', { hasText: 'Cancel' }).click();
  });

  it('a changed skill is announced, its review shows what changed and asks again, and only then is the copy replaced', async () => {
    const { page } = workbench;
    fs.appendFileSync(path.join(served, 'release-notes', 'templates', 'notes.md'), '\n### Security\n- \n');
    // The server lists it again when asked to: Invalidate Tool Cache refetches what every server offers.
    await runFromPalette(page, 'MCP Switchboard: Invalidate Tool Cache');
    await page
      .locator('.monaco-list-row', { hasText: 'release-notes' })
      .locator('.label-description', { hasText: /^changed$/ })
      .waitFor({ timeout: 30_000 });
    // Until the review, the installed copy is the one approved.
    assert.doesNotMatch(fs.readFileSync(path.join(installed(), 'templates', 'notes.md'), 'utf8'), /Security/);
    // A headless, unfocused workbench files notifications in the center instead of toasting them.
    await runFromPalette(page, 'Notifications: Show Notifications');
    const notice = page.locator('.notifications-center .notification-list-item', {
      hasText: 'the skill "release-notes" of server "docs" changed since you installed it',
    });
    await notice.first().waitFor({ timeout: 30_000 });
    assert.equal(await notice.count(), 1, 'one notice per change');
    await notice.locator('.monaco-button', { hasText: 'Review…' }).click();
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'The skill "release-notes" of server "docs" changed. Update it?' });
    await dialog.waitFor({ timeout: 30_000 });
    assert.match(await dialog.innerText(), /Changed since you installed it \(1\):\s+~ templates\/notes\.md \(changed\)/);
    await screenshot(page, 'skill-changed-review');
    await dialog.locator('.monaco-button', { hasText: 'Update' }).click();
    await eventually(
      () => /### Security/.test(fs.readFileSync(path.join(installed(), 'templates', 'notes.md'), 'utf8')) || undefined,
      'the updated skill',
      30_000,
    );
    await page
      .locator('.monaco-list-row', { hasText: 'release-notes' })
      .locator('.label-description', { hasText: /^installed$/ })
      .waitFor({ timeout: 30_000 });
  });

  it('a skill its server no longer serves is announced once, and Remove Skill removes only it', async () => {
    const { page } = workbench;
    const refunds = path.join(workbench.workspace, '.github', 'skills', 'refunds');
    await runFromPalette(page, 'MCP Switchboard: Install Skill…', { opensQuickInput: true });
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'refunds' }).first().click();
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'Install the skill "refunds" from server "docs"?' });
    await dialog.waitFor({ timeout: 30_000 });
    // Its frontmatter asks for tools to run without asking: the review says so first, before anything is written.
    const review = await dialog.innerText();
    assert.match(review, /⚠ It asks your agents to run shell commands \(Bash\(curl:\*\)\) without asking you \(allowed-tools\)\./);
    assert.ok(review.indexOf('⚠') < review.indexOf('Files ('), 'the warning comes before the files');
    await screenshot(page, 'skill-review-risky');
    await dialog.locator('.monaco-button', { hasText: 'This Workspace (.github/skills)' }).click();
    await eventually(() => fs.existsSync(path.join(refunds, 'examples', 'email.md')) || undefined, 'refunds installed', 30_000);

    fs.rmSync(path.join(served, 'acme'), { recursive: true });
    await runFromPalette(page, 'MCP Switchboard: Invalidate Tool Cache');
    await runFromPalette(page, 'Notifications: Show Notifications');
    const notice = page.locator('.notifications-center .notification-list-item', {
      hasText: 'server "docs" no longer serves the skill "refunds" you installed from it',
    });
    await notice.first().waitFor({ timeout: 30_000 });
    await runFromPalette(page, 'Notifications: Hide Notifications');
    // Remove Skill asks first, naming the skill, its server and the folder that goes.
    await runFromPalette(page, 'MCP Switchboard: Remove Skill', { opensQuickInput: true });
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'refunds' }).first().click();
    const confirm = page.locator('.monaco-dialog-box', { hasText: 'Remove the skill "refunds" of server "docs"?' });
    await confirm.waitFor({ timeout: 30_000 });
    assert.match(
      await confirm.innerText(),
      new RegExp(`Its folder will be deleted:\\s+${refunds.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`),
    );
    assert.ok(fs.existsSync(refunds), 'nothing is removed before the answer');
    await confirm.locator('.monaco-button', { hasText: /^Remove$/ }).click();
    await eventually(() => !fs.existsSync(refunds) || undefined, 'refunds removed', 30_000);
    assert.ok(fs.existsSync(path.join(installed(), 'SKILL.md')), 'release-notes stays');
  });

  it("Share with Other Agents offers the installed skill to the agent's skill folder, read again from its server", async () => {
    const { page, workspace } = workbench;
    const answer = async (title: string, text: string) => {
      await page.locator('.quick-input-widget', { hasText: title }).waitFor({ timeout: 15_000 });
      await page.locator('.quick-input-widget input').fill(text);
      await page.keyboard.press('Enter');
    };
    await runFromPalette(page, 'MCP Switchboard: Share with Other Agents…', { opensQuickInput: true });
    await answer('whose config', "This folder's .mcp.json");
    // This editor reads .mcp.json too: written all the same, as the test asks.
    const warning = page.locator('.monaco-dialog-box', { hasText: 'list every tool twice' });
    await warning.waitFor({ timeout: 15_000 });
    await warning.locator('.monaco-button', { hasText: 'Write .mcp.json Anyway' }).click();
    await answer('how does the agent reach it', 'The agent starts it');
    await answer('the skills you installed from your servers', 'Share 1 skill too');
    const done = page.locator('.monaco-dialog-box', { hasText: '"switchboard" added to' });
    await done.waitFor({ timeout: 30_000 });
    assert.match(await done.innerText(), /Skills: 1 put in Claude Code, this workspace \(\.claude\/skills\)/);
    await page.keyboard.press('Escape');
    const shared = path.join(workspace, '.claude', 'skills', 'release-notes');
    for (const file of ['SKILL.md', 'templates/notes.md'])
      assert.deepEqual(fs.readFileSync(path.join(shared, file)), fs.readFileSync(path.join(installed(), file)), file);
  });

  it('Remove Server says that its installed skills go too, and removes them, and nothing else', async () => {
    const mine = path.join(workbench.workspace, '.github', 'skills', 'mine');
    fs.mkdirSync(mine, { recursive: true });
    fs.writeFileSync(path.join(mine, 'SKILL.md'), '---\nname: mine\ndescription: my own\n---\n');
    const { page } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Remove Server…', { opensQuickInput: true });
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'docs' }).first().click();
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'Remove the MCP server "docs"?' });
    await dialog.waitFor({ timeout: 30_000 });
    assert.match(await dialog.innerText(), /The skills installed from it \(release-notes\) are removed too/);
    await dialog.locator('.monaco-button', { hasText: /^Remove$/ }).click();
    await eventually(() => !fs.existsSync(installed()) || undefined, "the removed server's skill uninstalled", 60_000);
    // The copy shared with Claude Code goes too, and then the folders it was the last thing in: the
    // wait is for that end (the skill's folder goes first, its emptied parents a moment later).
    await eventually(
      () => !fs.existsSync(path.join(workbench.workspace, '.claude')) || undefined,
      'the copy shared with Claude Code removed, and .claude/skills with it',
      30_000,
    );
    assert.equal(fs.readFileSync(path.join(mine, 'SKILL.md'), 'utf8'), '---\nname: mine\ndescription: my own\n---\n');
    assert.deepEqual(fs.readdirSync(path.join(workbench.workspace, '.github', 'skills')), ['mine']);
  });
});
