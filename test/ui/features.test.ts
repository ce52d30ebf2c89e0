// Resources, elicitation and sampling in the real editor, clicked through as a user would: the
// Servers view groups a server's tools, resources and prompts and opens a resource; the editor's
// own MCP client browses resources, uses prompts with completions, and answers in its own UI what
// a server asks during its request; a tool called through Switchboard that asks for input shows
// Switchboard's form; a tool that asks for a language model gets one only after consent (a test
// model from test/harness/fake-model-extension).
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { eventually } from '../core/support/poll';
import {
  activityBarEntry,
  clickTreeRow,
  editorLogLines,
  openWorkbench,
  runFromPalette,
  runToolFromPalette,
  screenshot,
  treeRow,
  type Workbench,
} from './workbench';

const fixture = path.resolve(__dirname, '../fixtures/stdio-server.mjs');
const fakeModel = path.resolve(__dirname, '../harness/fake-model-extension');
/** The server's own icon (a blue ring): its row shows it while it runs. */
const ROW_ICON =
  'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSIxNiIgaGVpZ2h0PSIxNiI+PGNpcmNsZSBjeD0iOCIgY3k9IjgiIHI9IjciIGZpbGw9IiMzYjgyZjYiLz48Y2lyY2xlIGN4PSI4IiBjeT0iOCIgcj0iMyIgZmlsbD0iI2ZmZiIvPjwvc3ZnPg==';

/** Runs a tool from the palette; one that is not read-only is confirmed first, as the editor asks. */
async function runTool(page: Page, name: string, args: string, readOnly = false): Promise<void> {
  await runToolFromPalette(page, name, args);
  if (readOnly) return;
  const confirmation = page.locator('.monaco-dialog-box', { hasText: name.split('__')[1] ?? name });
  await confirmation.waitFor({ timeout: 30_000 });
  await confirmation
    .locator('.monaco-button')
    .filter({ hasText: /^(Yes|Allow|Continue|Run)/ })
    .first()
    .click();
}

/** Answers the quick input titled `title` by typing `text` and pressing Enter. */
async function answer(page: Page, title: string | RegExp, text: string): Promise<void> {
  const widget = page.locator('.quick-input-widget', { hasText: title });
  await widget.waitFor({ timeout: 30_000 });
  const input = page.locator('.quick-input-widget input');
  await input.fill(text);
  await page.keyboard.press('Enter');
  await widget.waitFor({ state: 'hidden' }).catch(() => undefined);
}

async function outputLine(page: Page, text: string): Promise<string> {
  const output = page.locator('.part.panel .view-lines', { hasText: text });
  await output.waitFor({ timeout: 30_000 });
  return (await output.innerText()).replace(/\s+/g, ' ');
}

describe('tools, resources, elicitation and sampling (UI)', function () {
  this.timeout(240_000);
  let workbench: Workbench;

  before(async function () {
    this.timeout(120_000);
    workbench = await openWorkbench('basic', {
      extraExtensions: [fakeModel],
      userSettings: {
        'mcpSwitchboard.servers': {
          rich: { command: process.execPath, args: [fixture, '--features', '--asking-prompt', '--icon', ROW_ICON] },
        },
      },
    });
  });

  after(async () => {
    await workbench?.close();
  });

  it("groups the server's tools, resources and prompts with counts, and opens a resource read-only", async () => {
    const { page } = workbench;
    await page.locator('.statusbar-item', { hasText: '1/1' }).waitFor({ timeout: 60_000 });
    await activityBarEntry(page, 'MCP Switchboard').click();
    await treeRow(page, 'rich').click();
    // A running server shows its own icon (a data: SVG here), as the browser draws it. The tree
    // draws the row again when its server's state arrives, so this waits for the drawing it expects.
    // The element is looked up again on every try: a handle held across a redraw would go stale.
    const icon = treeRow(page, 'rich').locator('.custom-view-tree-node-item-icon');
    const drawn = await eventually(
      async () => {
        const image = await icon
          .evaluate((element) => element.ownerDocument.defaultView?.getComputedStyle(element).backgroundImage ?? '')
          .catch(() => '');
        return image.startsWith('url("data:image/svg+xml') ? image : undefined;
      },
      "the server's own icon on its row",
      30_000,
    ).catch(() => 'none');
    assert.match(drawn ?? '', /^url\("data:image\/svg\+xml/);
    for (const [group, count] of [
      ['Tools', '20'],
      ['Resources', '4'],
      ['Prompts', '3'],
    ] as const) {
      const row = treeRow(page, group);
      await row.waitFor({ timeout: 30_000 });
      assert.equal((await row.locator('.label-description').innerText()).trim(), count, group);
    }
    // The server row's tooltip, shown where the mouse rests, covers the rows below it (as it did
    // now and then after the click above): the next click must still reach its row.
    await page.mouse.move(0, 0);
    await treeRow(page, 'rich').locator('.label-name').hover();
    await page.locator('.context-view .rendered-markdown').first().waitFor({ timeout: 30_000 });
    await clickTreeRow(page, 'Resources');
    // A binary image opens in the editor's image preview.
    await clickTreeRow(page, 'Logo');
    await page.locator('.tab', { hasText: 'logo.png' }).waitFor({ timeout: 30_000 });
    await clickTreeRow(page, 'Read me');
    const editor = page.locator('.editor-instance .view-lines', { hasText: 'A resource served by the fixture.' });
    await editor.waitFor({ timeout: 30_000 });
    await screenshot(page, 'server-resources');
    // Read-only: typing changes nothing.
    await editor.click();
    await page.keyboard.type('XYZ');
    assert.doesNotMatch(await editor.innerText(), /XYZ/);
  });

  it('clicking a prompt puts its slash command in the chat input', async () => {
    const { page } = workbench;
    // A hover left open by the test before would take the click.
    await page.mouse.move(700, 600);
    await page.keyboard.press('Escape');
    await treeRow(page, 'Prompts').click();
    await treeRow(page, 'summarize').click();
    await page.locator('.interactive-input-part', { hasText: '/mcp.rich.summarize' }).waitFor({ timeout: 30_000 });
    // Leave the input empty for the tests after this one.
    await page.locator('.interactive-input-part .monaco-editor').first().click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Backspace');
  });

  it("the editor's own MCP client browses the server's resources and uses its prompts, with completions, through Switchboard", async () => {
    const { page } = workbench;
    // The editor offers its MCP commands once it has loaded its server collections, which it does
    // when chat opens (the test before this one opened it). The resource the first test opened is
    // closed, so the text below can only come from the editor's own read.
    await runFromPalette(page, 'View: Close All Editors');
    await runFromPalette(page, 'MCP: Browse Resources', { opensQuickInput: true });
    const browse = page.locator('.quick-input-widget', { hasText: 'fixture://readme' });
    await browse.waitFor({ timeout: 30_000 });
    const listed = await browse.innerText();
    for (const expected of ['rich', 'Read me', 'fixture://logo.png', 'fixture://counter', 'fixture://notes/{topic}'])
      assert.ok(listed.includes(expected), `${expected} in:\n${listed}`);
    // Typing would replace the picker's prefix (and search files instead): the user clicks the row.
    await browse.locator('.monaco-list-row', { hasText: 'Read me' }).first().click();
    await page.locator('.tab', { hasText: /^readme/ }).waitFor({ timeout: 30_000 });
    await page
      .locator('.editor-instance .view-lines', { hasText: 'A resource served by the fixture.' })
      .last()
      .waitFor({ timeout: 30_000 });

    // Prompts are the editor's slash commands: /mcp.<server>.<prompt>.
    await page.locator('.interactive-input-part .monaco-editor').first().click();
    await page.keyboard.type('/mcp.rich');
    const suggestions = page.locator('.suggest-widget', { hasText: 'mcp.rich.greet' });
    await suggestions.waitFor({ timeout: 30_000 });
    assert.match(await suggestions.innerText(), /mcp\.rich\.summarize/);
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget', { hasText: 'Value for: name (1/2)' }).waitFor({ timeout: 30_000 });
    await page.locator('.quick-input-widget input').fill('Gr');
    // The argument's completion (completion/complete, answered by the fixture through the gateway).
    const grace = page.locator('.quick-input-widget .monaco-list-row', { hasText: /^Grace/ });
    await grace.waitFor({ timeout: 30_000 });
    await grace.click();
    await page.locator('.quick-input-widget', { hasText: 'Value for: style (2/2)' }).waitFor({ timeout: 30_000 });
    await page.locator('.quick-input-widget input').fill('formal');
    await page.keyboard.press('Enter');
    // prompts/get's message lands in the chat input (sending it would need a signed-in model).
    await page.locator('.interactive-input-part', { hasText: 'Good day, Grace!' }).waitFor({ timeout: 30_000 });
  });

  it("relays what a server asks during the editor's own request to the editor, which asks in its own UI; the answer reaches the server", async () => {
    const { page } = workbench;
    const chat = page.locator('.interactive-input-part .monaco-editor').first();
    await chat.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('/mcp.rich.personal');
    await page.locator('.suggest-widget', { hasText: 'mcp.rich.personal_greeting' }).waitFor({ timeout: 30_000 });
    await page.keyboard.press('Enter');
    // The server asks while the editor's prompts/get is served: the gateway relays the question to
    // the editor's own client, which posts a notification with Respond.
    await runFromPalette(page, 'Notifications: Show Notifications');
    const notice = page.locator('.notifications-center .notification-list-item', { hasText: 'What is your name?' });
    await notice.waitFor({ timeout: 30_000 });
    assert.match(await notice.innerText(), /MCP Server \(rich\)/);
    await notice.locator('.monaco-button', { hasText: 'Respond' }).click();
    await page.locator('.quick-input-widget', { hasText: 'Name (1/1)' }).waitFor({ timeout: 30_000 });
    await page.locator('.quick-input-widget input').fill('Grace');
    await page.keyboard.press('Enter');
    await page.locator('.interactive-input-part', { hasText: 'Hello, Grace, nice to meet you!' }).waitFor({ timeout: 30_000 });
  });

  it('Run Tool starts from the required arguments and does not send what the schema refuses', async () => {
    const { page } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Run Tool…', { opensQuickInput: true });
    await page.locator('.quick-input-widget', { hasText: 'Run which MCP tool?' }).waitFor();
    const input = page.locator('.quick-input-widget input');
    await input.fill('rich__add');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'rich__add' }).first().waitFor();
    await page.keyboard.press('Enter');
    // The form first: one row per argument, with its type and the value it starts from.
    const form = page.locator('.quick-input-widget', { hasText: 'Arguments for rich/add' });
    await form.waitFor();
    assert.match(await form.locator('.monaco-list-row', { hasText: /^a \*/ }).innerText(), /number = 0/);
    assert.match(await form.locator('.monaco-list-row', { hasText: /^b \*/ }).innerText(), /number = 0/);
    // Those zeros are placeholders, not the user's values: Run waits for both, and picking it asks
    // for the first one.
    const notYet = form.locator('.monaco-list-row', { hasText: 'Run' }).filter({ hasText: 'not yet: set a, b' });
    await notYet.click();
    await page.locator('.quick-input-widget', { hasText: 'Arguments for rich/add › a' }).waitFor();
    await page.keyboard.press('Escape');
    await notYet.waitFor();
    // The JSON is still there, the whole object in one box.
    await input.fill('Edit as JSON');
    await page.keyboard.press('Enter');
    const box = page.locator('.quick-input-widget', { hasText: 'Arguments for rich/add (JSON)' });
    await box.waitFor();
    assert.equal(await input.inputValue(), '{"a":0,"b":0}');
    assert.match(await box.innerText(), /a \(number, required\), b \(number, required\)/);
    await input.fill('{"a": 2}');
    // What to fix, in the argument's name (not the validator's `#: Instance does not have…`).
    const refusal = page.locator('.quick-input-widget', { hasText: "Does not fit the tool's schema: b is required" });
    await refusal.waitFor({ timeout: 15_000 });
    await screenshot(page, 'run-tool-validation');
    // Enter on a refused value keeps the box open (and sends nothing).
    await page.keyboard.press('Enter');
    assert.equal(await box.isVisible(), true);
    await page.keyboard.press('Escape');
  });

  it("Run Tool from a tool's own row: the row's button opens that tool's arguments, no list to pick from", async () => {
    const { page } = workbench;
    // The view as the tests before left it (a second click on its entry would close the sidebar).
    if (!(await treeRow(page, 'rich').isVisible())) await activityBarEntry(page, 'MCP Switchboard').click();
    if (!(await treeRow(page, 'Tools').isVisible())) await treeRow(page, 'rich').click();
    if (!(await treeRow(page, 'add').isVisible())) await treeRow(page, 'Tools').click();
    const row = treeRow(page, 'add');
    await row.waitFor({ timeout: 30_000 });
    // The row's buttons show on hover, as a user sees them.
    await row.hover();
    await row.locator('.actions .action-label[aria-label^="Run Tool"]').click();
    const box = page.locator('.quick-input-widget', { hasText: 'Arguments for rich/add' });
    await box.waitFor({ timeout: 15_000 });
    assert.equal(await page.locator('.quick-input-widget', { hasText: 'Run which MCP tool?' }).isVisible(), false);
    assert.equal(await box.locator('.monaco-list-row', { hasText: /^(a|b) \*/ }).count(), 2);
    await screenshot(page, 'run-tool-from-row');
    await page.keyboard.press('Escape');
  });

  it('Cancel on the confirmation is no failure: no error toast, no error in the log', async () => {
    const { page, userDataDir } = workbench;
    await runToolFromPalette(page, 'rich__add', '{"a": 1, "b": 2}');
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'add' });
    await dialog.waitFor({ timeout: 30_000 });
    await dialog.locator('.monaco-button', { hasText: /^Cancel$/ }).click();
    await dialog.waitFor({ state: 'detached', timeout: 10_000 });
    // The command has returned by the time its log line is written.
    await eventually(
      () => (/mcpSwitchboard\.runTool: cancelled/.test(editorLogLines(userDataDir, /runTool/, /MCP Switchboard\.log$/)) ? true : undefined),
      'the log says it was cancelled',
      15_000,
    );
    assert.equal(await page.locator('.notification-toast', { hasText: /Canceled|failed/ }).count(), 0, 'no error toast');
    assert.doesNotMatch(editorLogLines(userDataDir, /runTool/, /MCP Switchboard\.log$/), /\[error\].*runTool/);
  });

  it('Run Tool fills the form argument by argument, as each type needs, and Run sends them', async () => {
    const { page } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Run Tool…', { opensQuickInput: true });
    const input = page.locator('.quick-input-widget input');
    await input.fill('rich__add');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'rich__add' }).first().waitFor();
    await page.keyboard.press('Enter');
    const form = page.locator('.quick-input-widget', { hasText: 'Arguments for rich/add' });
    for (const [name, value] of [
      ['a', '2.5'],
      ['b', '4'],
    ] as const) {
      await form.waitFor();
      await form.locator('.monaco-list-row', { hasText: new RegExp(`^${name} \\*`) }).click();
      const box = page.locator('.quick-input-widget', { hasText: `Arguments for rich/add › ${name}` });
      await box.waitFor();
      // A number field refuses what is not one.
      await input.fill('two');
      await page.locator('.quick-input-widget', { hasText: 'Enter a number.' }).waitFor();
      await input.fill(value);
      await page.keyboard.press('Enter');
    }
    await form.locator('.monaco-list-row', { hasText: /^b \*/ }).filter({ hasText: 'number = 4' }).waitFor();
    await screenshot(page, 'run-tool-form');
    await form.locator('.monaco-list-row', { hasText: 'Run' }).filter({ hasText: 'with these arguments' }).click();
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'add' });
    await dialog.waitFor({ timeout: 30_000 });
    assert.match(await dialog.innerText(), /"a": 2.5/);
    await dialog
      .locator('.monaco-button')
      .filter({ hasText: /^(Yes|Allow|Continue|Run)/ })
      .first()
      .click();
    assert.match(await outputLine(page, 'rich/add returned: 6.5'), /rich\/add returned: 6\.5/);
  });

  it('asks before a tool that is not read-only, naming the server, tool and arguments; accepting returns the upstream result', async () => {
    const { page } = workbench;
    await runToolFromPalette(page, 'rich__add', '{"a": 2, "b": 3}');
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'add' });
    await dialog.waitFor({ timeout: 30_000 });
    const text = await dialog.innerText();
    assert.match(text, /server "rich"/);
    assert.match(text, /"a": 2/);
    await screenshot(page, 'tool-confirmation');
    await dialog
      .locator('.monaco-button')
      .filter({ hasText: /^(Yes|Allow|Continue|Run)/ })
      .first()
      .click();
    assert.match(await outputLine(page, 'rich/add returned: 5'), /rich\/add returned: 5/);
  });

  it("shows Switchboard's form when a tool asks for input, naming the server; the answer reaches the server", async () => {
    const { page } = workbench;
    await runTool(page, 'rich__ask_user', '{}');
    const start = page.locator('.quick-input-widget', { hasText: 'MCP server "rich" asks' });
    await start.waitFor({ timeout: 30_000 });
    assert.match(await start.innerText(), /Fill In \(4 fields\)/);
    assert.match(await start.innerText(), /Decline/);
    await page.keyboard.press('Enter');
    const name = page.locator('.quick-input-widget', { hasText: '"rich" asks (1/4): Name' });
    await name.waitFor();
    assert.equal(await page.locator('.quick-input-widget input').inputValue(), 'Ada', 'the default is filled in');
    await page.locator('.quick-input-widget input').fill('Grace');
    await screenshot(page, 'elicitation-form');
    await page.keyboard.press('Enter');
    await answer(page, '(2/4): Age (optional)', '36');
    await answer(page, '(3/4): Subscribe (optional)', 'Yes');
    await answer(page, '(4/4): Colour (optional)', 'green');
    const line = await outputLine(page, 'rich/ask_user returned');
    assert.match(line.replace(/\s/g, ''), /"action":"accept","content":\{"name":"Grace","age":36,"subscribe":true,"color":"green"\}/);
  });

  it('Decline in the form answers decline', async () => {
    const { page } = workbench;
    await runTool(page, 'rich__ask_user', '{}');
    await answer(page, 'MCP server "rich" asks', 'Decline');
    const line = await outputLine(page, '{"action":"decline"}');
    assert.match(line, /rich\/ask_user returned: \{"action":"decline"\}/);
  });

  it('names the domain of a URL a server asks to open, and opens nothing when declined', async () => {
    const { page } = workbench;
    await runTool(page, 'rich__ask_url', '{}');
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'asks you to open a page on login.example.com' });
    await dialog.waitFor({ timeout: 30_000 });
    assert.match(await dialog.innerText(), /Sign in to the fixture/);
    await dialog.locator('.monaco-button', { hasText: 'Decline' }).click();
    const line = await outputLine(page, 'rich/ask_url returned');
    assert.match(line, /\{"action":"decline"\}/);
  });

  it('sends nothing to a model when the user denies, and answers with the test model after Allow Once', async () => {
    const { page } = workbench;
    await runTool(page, 'rich__ask_model', '{"prompt":"Say hi"}', true);
    let consent = page.locator('.monaco-dialog-box', { hasText: 'asks to use a language model' });
    await consent.waitFor({ timeout: 30_000 });
    assert.match(await consent.innerText(), /User: Say hi/, 'the dialog shows what would be sent');
    assert.match(await consent.innerText(), /System: Answer briefly\./);
    await screenshot(page, 'sampling-consent');
    await consent.locator('.monaco-button', { hasText: 'Deny' }).click();
    const denied = await outputLine(page, 'did not allow');
    assert.match(denied, /declined the sampling request of server "rich": the user did not allow server "rich" to use a language model/);

    await runTool(page, 'rich__ask_model', '{"prompt":"Say hi"}', true);
    consent = page.locator('.monaco-dialog-box', { hasText: 'asks to use a language model' });
    await consent.waitFor({ timeout: 30_000 });
    await consent.locator('.monaco-button', { hasText: 'Allow Once' }).click();
    // The editor asks once whether Switchboard may use the test model's language models.
    const access = page.locator('.monaco-dialog-box', { hasText: /language model/i });
    const allowed = await Promise.race([
      access.waitFor({ timeout: 15_000 }).then(
        () => true,
        () => false,
      ),
      page
        .locator('.part.panel .view-lines', { hasText: 'fake model says' })
        .waitFor({ timeout: 15_000 })
        .then(
          () => false,
          () => false,
        ),
    ]);
    if (allowed)
      await access
        .locator('.monaco-button')
        .filter({ hasText: /^Allow/ })
        .first()
        .click();
    const line = await outputLine(page, 'fake model says');
    assert.match(line, /fake model says: Say hi/);
    assert.match(line, /"model":"switchboard-fake-model"/);
  });

  it('remembers "Always Allow" for the server', async () => {
    const { page } = workbench;
    await runTool(page, 'rich__ask_model', '{"prompt":"first"}', true);
    const consent = page.locator('.monaco-dialog-box', { hasText: 'asks to use a language model' });
    await consent.waitFor({ timeout: 30_000 });
    await consent.locator('.monaco-button', { hasText: 'Always Allow "rich"' }).click();
    await outputLine(page, 'fake model says: first');
    await runTool(page, 'rich__ask_model', '{"prompt":"second"}', true);
    // No dialog this time: the answer comes straight from the model.
    await outputLine(page, 'fake model says: second');
    assert.equal(await page.locator('.monaco-dialog-box', { hasText: 'asks to use a language model' }).count(), 0);
  });
});
