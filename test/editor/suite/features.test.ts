import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SwitchboardApi } from '../../../src/extension';
import { isKind, switchboardApi, toolText, waitForServer } from '../support';

describe('resources, prompts and what servers ask, in the real editor', function () {
  this.timeout(60_000);
  let api: SwitchboardApi;

  before(async () => {
    api = await switchboardApi();
    await waitForServer(api, 'rich', isKind('running'));
  });

  it("groups a server's tools, resources and prompts with counts, and keeps a tools-only server flat", () => {
    const rich = api.tree().find((row) => row.label === 'rich');
    assert.deepEqual(
      rich?.children.map((group) => `${group.label} ${group.description}`),
      ['Tools 20', 'Resources 4', 'Prompts 2'],
    );
    const resources = rich?.children.find((group) => group.label === 'Resources')?.children ?? [];
    assert.deepEqual(
      resources.map((row) => row.description),
      ['fixture://readme', 'fixture://logo.png', 'fixture://counter', 'fixture://notes/{topic}'],
    );
    assert.match(rich?.tooltip ?? '', /\*\*Offers:\*\* 20 tools · 3 resources · 1 template · 2 prompts/);
    const ok = api.tree().find((row) => row.label === 'ok');
    assert.ok(
      ok?.children.some((row) => row.label === 'echo'),
      'a server with tools only lists them directly',
    );
  });

  it('opens a resource read-only from the Servers view', async () => {
    await vscode.commands.executeCommand('mcpSwitchboard.openResource', 'rich', 'fixture://readme');
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.getText(), '# Fixture\n\nA resource served by the fixture.');
    assert.equal(editor?.document.languageId, 'markdown');
    assert.equal(editor?.document.uri.scheme, 'mcp-switchboard-resource');
  });

  it('refuses sampling without asking when mcpSwitchboard.sampling says deny for the server', async () => {
    const settings = vscode.workspace.getConfiguration('mcpSwitchboard');
    await settings.update('sampling', { rich: 'deny' }, vscode.ConfigurationTarget.Global);
    try {
      // The tool reports the refusal as an error result, which the dispatcher raises.
      await assert.rejects(
        Promise.resolve(
          vscode.lm.invokeTool('mcpSwitchboard_callTool', {
            input: { tool: 'rich__ask_model', arguments: { prompt: 'hi' } },
            toolInvocationToken: undefined,
          }),
        ),
        /declined the sampling request of server "rich": sampling is denied for server "rich" \(mcpSwitchboard\.sampling\)/,
      );
    } finally {
      await settings.update('sampling', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it("answers a server's roots request with the workspace folders", async () => {
    const result = await vscode.lm.invokeTool('mcpSwitchboard_callTool', {
      input: { tool: 'rich__list_roots', arguments: {} },
      toolInvocationToken: undefined,
    });
    const roots = (JSON.parse(toolText(result)) as { roots: { uri: string; name: string }[] }).roots;
    assert.deepEqual(
      roots.map((root) => root.uri),
      (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.toString()),
    );
    assert.ok(roots.length > 0);
  });
});
