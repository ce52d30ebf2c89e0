import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { SwitchboardApi } from '../../../src/extension';
import { isKind, stateOf, switchboardApi, waitFor, waitForServer } from '../support';
import { eventually } from '../../core/support/poll';

// The runner starts the editor with these servers in the user settings (test/harness/run-editor-tests.mjs).
const CONFIGURED = [
  'ok',
  'modern',
  'failing',
  'hanging',
  'off',
  'broken',
  'secretive',
  'keyed-url',
  'keyed-args',
  'rich',
  'sleepy',
  'research',
];
const scratch = process.env.SWITCHBOARD_TEST_SCRATCH ?? '';
const secret = process.env.SWITCHBOARD_TEST_SECRET ?? '';

function row(api: SwitchboardApi, name: string) {
  const found = api.tree().find((item) => item.label === name);
  assert.ok(found, `no row for ${name}`);
  return found;
}

function sinceOf(api: SwitchboardApi, name: string): number | undefined {
  const state = stateOf(api, name);
  return state && 'since' in state ? state.since : undefined;
}

describe('servers in the real editor', function () {
  this.timeout(60_000);
  let api: SwitchboardApi;

  before(async () => {
    api = await switchboardApi();
    await Promise.all([
      waitForServer(api, 'ok', isKind('running')),
      waitForServer(api, 'secretive', isKind('running')),
      waitForServer(api, 'failing', isKind('error')),
      waitForServer(api, 'hanging', isKind('error')),
    ]);
  });

  it('runs the user-level stdio servers in the machine host when sharing is on (the default), in the window when off (the own run of this suite)', () => {
    const shared = process.env.SWITCHBOARD_TEST_SHARED === '1';
    const definition = api.servers().find((view) => view.name === 'ok')?.definition;
    assert.equal(definition?.transport === 'http' && definition.hosted !== undefined, shared, JSON.stringify(definition?.transport));
    // The process itself: the extension host's child, or the machine host's.
    const { pid } = JSON.parse(fs.readFileSync(path.join(scratch, 'ok.json'), 'utf8')) as { pid: number };
    const parent = Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
    assert.equal(parent === process.pid, !shared, `the server's parent is ${parent}, the extension host ${process.pid}`);
  });

  it('shows one row per server, in configuration order, with an icon and a description per state', () => {
    const rows = api.tree();
    assert.deepEqual(
      rows.map((item) => item.label),
      CONFIGURED,
    );
    // Every tool offered reads `N tools`; some kept from chat, `N of M offered` (the figure of every surface).
    assert.match(row(api, 'ok').description, /^running · (\d+ tools|\d+ of \d+ offered)$/);
    assert.equal(row(api, 'ok').icon, 'pass-filled');
    assert.match(row(api, 'failing').description, /^exited/);
    assert.equal(row(api, 'failing').icon, 'error');
    assert.equal(row(api, 'hanging').description, 'timed out');
    assert.equal(row(api, 'off').description, 'disabled');
    assert.equal(row(api, 'off').icon, 'circle-slash');
    assert.match(row(api, 'broken').description, /^invalid: command$/);
    assert.equal(row(api, 'broken').icon, 'bracket-error');
  });

  it("shows a running server's own icon, and the state icon when it is not running", async () => {
    await waitForServer(api, 'rich', isKind('running'));
    assert.equal(row(api, 'rich').icon, 'own:data');
    assert.equal(row(api, 'failing').icon, 'error', 'a server in trouble shows what is wrong');
  });

  it('puts the stderr tail and the transport into the tooltip of a failed server', () => {
    const tooltip = row(api, 'failing').tooltip;
    assert.match(tooltip, /fixture refused to start/);
    assert.match(tooltip, /\*\*Transport:\*\* stdio/);
    assert.doesNotMatch(tooltip, /Last error/, 'the error is in the header already; once is enough');
  });

  it("lists a running server's tools as checkable rows, marking read-only ones", () => {
    const tools = row(api, 'ok').children;
    assert.ok(tools.length >= 5, `tools: ${tools.map((tool) => tool.label).join(', ')}`);
    const echo = tools.find((tool) => tool.label === 'echo');
    assert.equal(echo?.checked, true);
    assert.match(echo?.description ?? '', /read-only/);
    assert.equal(tools.find((tool) => tool.label === 'add')?.description.includes('read-only'), false);
  });

  it('unchecks a tool listed in mcpSwitchboard.tools.disabled', async () => {
    const settings = vscode.workspace.getConfiguration('mcpSwitchboard');
    await settings.update('tools.disabled', ['ok/add'], vscode.ConfigurationTarget.Global);
    try {
      const add = row(api, 'ok').children.find((tool) => tool.label === 'add');
      assert.equal(add?.checked, false);
      assert.match(add?.description ?? '', /switched off/);
    } finally {
      await settings.update('tools.disabled', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('a tool another rule keeps from chat has no checkbox and a slashed icon, and the row counts what chat gets', async () => {
    const before = row(api, 'ok');
    const total = before.children.length;
    const offeredBefore = Number(/^running · (\d+)( tools| of \d+ offered)$/.exec(before.description)?.[1]);
    assert.ok(offeredBefore > 1, before.description);
    const settings = vscode.workspace.getConfiguration('mcpSwitchboard');
    await settings.update('tools.deny', ['ok/add'], vscode.ConfigurationTarget.Global);
    try {
      await eventually(
        () =>
          row(api, 'ok')
            .children.find((tool) => tool.label === 'add')
            ?.description.includes('global deny')
            ? true
            : undefined,
        'the deny rule to reach the tree',
        10_000,
      );
      const after = row(api, 'ok');
      const add = after.children.find((tool) => tool.label === 'add');
      assert.equal(add?.checked, undefined, 'no checkbox: it cannot be switched on here, and must not look offered');
      assert.equal(add?.icon, 'circle-slash');
      // The row says the rule in a few words; the tooltip says it in full.
      assert.equal(add?.description, 'global deny "ok/add"');
      assert.match(
        (add?.tooltip ?? '').replace(/&nbsp;/g, ' '),
        /Not in chat's list: denied by the mcpSwitchboard\.tools\.deny pattern "ok\/add"\./,
      );
      assert.equal(after.children.length, total, 'the row still lists every tool');
      assert.equal(
        after.description,
        `running · ${offeredBefore - 1} of ${total} offered`,
        'the row counts the tools chat gets: one fewer',
      );
    } finally {
      await settings.update('tools.deny', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it("a server's Tools group says how many of them chat is offered when a rule keeps some back", async () => {
    const group = () => row(api, 'rich').children.find((child) => child.label === 'Tools');
    const total = Number(group()?.description);
    assert.ok(total > 1, JSON.stringify(group()));
    const settings = vscode.workspace.getConfiguration('mcpSwitchboard');
    await settings.update('tools.deny', ['rich/echo'], vscode.ConfigurationTarget.Global);
    try {
      await eventually(
        () => (group()?.description === `${total - 1} of ${total} offered` ? true : undefined),
        () => `the Tools group to count what chat gets: ${JSON.stringify(group()?.description)}`,
        10_000,
      );
    } finally {
      await settings.update('tools.deny', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('Stop Server and Start Server take a server name and change its state', async () => {
    await vscode.commands.executeCommand('mcpSwitchboard.stopServer', 'ok');
    assert.equal(stateOf(api, 'ok')?.kind, 'stopped');
    assert.match(row(api, 'ok').contextValue ?? '', /\bstartable\b/);
    await vscode.commands.executeCommand('mcpSwitchboard.startServer', 'ok');
    await waitForServer(api, 'ok', isKind('running'));
    assert.match(row(api, 'ok').contextValue ?? '', /\bstoppable\b/);
  });

  it('Reconnect Server restarts one server and leaves the others alone', async () => {
    const before = sinceOf(api, 'ok');
    const other = sinceOf(api, 'secretive');
    await vscode.commands.executeCommand('mcpSwitchboard.reconnectServer', 'ok');
    await waitForServer(api, 'ok', (state) => state.kind === 'running' && state.since !== before);
    assert.equal(sinceOf(api, 'secretive'), other);
  });

  it('Reconnect Failed Servers brings back a failed server once its cause is fixed, and only that one', async () => {
    const healthy = sinceOf(api, 'ok');
    fs.rmSync(path.join(scratch, 'failing.flag'));
    await vscode.commands.executeCommand('mcpSwitchboard.reconnectFailed');
    await waitForServer(api, 'failing', isKind('running'));
    assert.equal(sinceOf(api, 'ok'), healthy);
    assert.match(row(api, 'failing').description, /^running/);
  });

  it('Reconnect All Servers reconnects every running server', async () => {
    const before = { ok: sinceOf(api, 'ok'), secretive: sinceOf(api, 'secretive') };
    await vscode.commands.executeCommand('mcpSwitchboard.reconnectAll');
    await waitForServer(api, 'ok', (state) => state.kind === 'running' && state.since !== before.ok);
    await waitForServer(api, 'secretive', (state) => state.kind === 'running' && state.since !== before.secretive);
  });

  it('Disable Server writes enabled:false to the entry in its own scope, and Enable Server removes it', async () => {
    await vscode.commands.executeCommand('mcpSwitchboard.disableServer', 'ok');
    const entry = () =>
      (vscode.workspace.getConfiguration('mcpSwitchboard').inspect<Record<string, { enabled?: boolean }>>('servers')?.globalValue ?? {}).ok;
    assert.equal(entry()?.enabled, false);
    await waitForServer(api, 'ok', isKind('disabled'));
    await vscode.commands.executeCommand('mcpSwitchboard.enableServer', 'ok');
    assert.equal(entry()?.enabled, undefined);
    await waitForServer(api, 'ok', isKind('running'));
  });

  it('Copy Server JSON copies the entry as written, with variables unresolved', async () => {
    await vscode.commands.executeCommand('mcpSwitchboard.copyServerJson', 'secretive');
    const copied = JSON.parse(await vscode.env.clipboard.readText()) as Record<string, { env: Record<string, string> }>;
    assert.equal(copied.secretive?.env.API_TOKEN, '${env:SWITCHBOARD_TEST_SECRET}');
  });

  it('Open Settings Entry opens the user settings file at the entry', async () => {
    await vscode.commands.executeCommand('mcpSwitchboard.openSettingsEntry', 'failing');
    const editor = await waitFor(
      () => (vscode.window.activeTextEditor?.document.fileName.endsWith('settings.json') ? vscode.window.activeTextEditor : undefined),
      vscode.window.onDidChangeActiveTextEditor as vscode.Event<unknown>,
    );
    const line = editor.document.lineAt(editor.selection.active.line).text;
    assert.match(line, /"failing"/);
  });

  it('names an unknown server instead of failing silently', async () => {
    const errors: string[] = [];
    // The command reports through a notification; it must not throw into the caller.
    await vscode.commands
      .executeCommand('mcpSwitchboard.reconnectServer', 'does-not-exist')
      .then(undefined, (error: unknown) => errors.push(String(error)));
    assert.deepEqual(errors, []);
  });

  it('never writes a secret value to any log channel', async () => {
    assert.ok(secret.length > 0, 'the runner passes a secret');
    const logFolder = path.dirname(api.logFolder);
    const files = () =>
      fs
        .readdirSync(logFolder, { recursive: true })
        .map(String)
        .map((file) => path.join(logFolder, file))
        .filter((file) => fs.statSync(file).isFile());
    // The channel files are flushed asynchronously (no event says when); wait until the redacted start line is on disk.
    const redactedLineSeen = () => files().some((file) => file.includes('secretive') && fs.readFileSync(file, 'utf8').includes('***'));
    await eventually(() => (redactedLineSeen() ? true : undefined), 'the redacted line on disk', 15_000).catch(() => undefined);
    assert.ok(redactedLineSeen(), `a redacted line for "secretive" reached its log file; files: ${files().join(', ')}`);
    // The URL key and the flag value are redacted too, in the logs and in the states the UI shows.
    await Promise.all([waitForServer(api, 'keyed-url', isKind('error')), waitForServer(api, 'keyed-args', isKind('error'))]);
    for (const name of ['keyed-url', 'keyed-args']) {
      const shown = JSON.stringify(api.tree().find((item) => item.label === name));
      assert.ok(!shown.includes(secret), `${name}'s row or tooltip shows the secret: ${shown}`);
    }
    const keyedSeen = () => files().some((file) => fs.readFileSync(file, 'utf8').includes('api_key=***'));
    await eventually(() => (keyedSeen() ? true : undefined), 'the redacted URL on disk', 30_000).catch(() => undefined);
    assert.ok(keyedSeen(), 'the URL with its key redacted reached a log file');
    const leaks = files().filter((file) => fs.readFileSync(file, 'utf8').includes(secret));
    assert.deepEqual(leaks, []);
  });
});
