import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { SwitchboardApi } from '../../../src/extension';
import { eventually } from '../../core/support/poll';
import { isKind, switchboardApi, toolText, waitForServer } from '../support';

const scratch = process.env.SWITCHBOARD_TEST_SCRATCH ?? '';

function toolNames(): string[] {
  return vscode.lm.tools.map((tool) => tool.name);
}

/**
 * Resolves once the editor's tool list satisfies `predicate`. The stable API has no event for
 * changes to vscode.lm.tools, so this is the shared bounded poll.
 */
async function waitForTools(
  predicate: (names: string[]) => boolean,
  timeoutMs = 20_000,
  options: { startServers?: boolean } = {},
): Promise<string[]> {
  return eventually(
    async () => {
      if (predicate(toolNames())) return toolNames();
      // The editor does not start a server it has never run (chat's next request would): this does.
      // One start may wait long for a server the editor has not collected yet (a busy machine):
      // bounded, so that the poll asks again rather than hang on it.
      if (options.startServers)
        await Promise.race([
          vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true, autoTrustChanges: true }),
          new Promise((resolve) => setTimeout(resolve, 10_000)),
        ]);
      return undefined;
    },
    () =>
      `the tools (now: ${toolNames()
        .filter((name) => name.startsWith('mcp'))
        .join(', ')})`,
    timeoutMs,
  );
}

async function invoke(name: string, input: object): Promise<vscode.LanguageModelToolResult> {
  return vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
}

describe("tools in the editor's chat (gateway + definition provider + dispatcher tools)", function () {
  this.timeout(60_000);
  let api: SwitchboardApi;

  /** Servers the editor stopped for a new version and Switchboard started there again, in order. */
  const restarts: string[] = [];

  before(async function () {
    this.timeout(120_000);
    api = await switchboardApi();
    api.onDidRestartInEditor((server) => restarts.push(server));
    await waitForServer(api, 'ok', isKind('running'));
    // The editor does not start provider servers by itself; chat would, and so does this command.
    // It starts only the servers the editor has collected from our provider by then: on a fast
    // machine `ok` runs before that, and a start then finds nothing. So start until its tools are in.
    await waitForTools((all) => all.includes('mcp_ok_echo'), 90_000, { startServers: true });
  });

  it('puts the exposed tools into vscode.lm.tools as mcp_<server>_<tool>, and none of the denied ones', async () => {
    const names = await waitForTools((all) => all.includes('mcp_ok_echo'));
    assert.ok(names.includes('mcp_ok_add'));
    assert.ok(!names.includes('mcp_ok_fail'), 'ok/fail is denied by tools.deny');
    assert.ok(!names.some((name) => name.startsWith('mcp_broken_') || name.startsWith('mcp_off_')));
  });

  it('invokes a read-only tool through the gateway and returns the upstream result', async () => {
    const result = await invoke('mcp_ok_echo', { text: 'hello through the gateway' });
    assert.equal(toolText(result), 'hello through the gateway');
  });

  it('offers a server that speaks only MCP 2026-07-28 to chat, and calls it, through the gateway', async () => {
    const state = await waitForServer(api, 'modern', isKind('running'));
    assert.equal(state.kind === 'running' ? `${state.era} ${state.protocolVersion}` : state.kind, 'modern 2026-07-28');
    const row = api.tree().find((entry) => entry.label === 'modern');
    assert.match(row?.tooltip ?? '', /\*\*Protocol:\*\* 2026-07-28 · modern era \(sessionless\)/);
    const names = await waitForTools((all) => all.includes('mcp_modern_echo'), 20_000, { startServers: true });
    assert.ok(names.includes('mcp_modern_add'), names.join(', '));
    assert.equal(
      toolText(await invoke('mcp_modern_echo', { text: 'from the 2025 editor to a 2026 server' })),
      'from the 2025 editor to a 2026 server',
    );
  });

  it('calls a tool that requires a task from chat: the result comes back, and the tree shows the task while it runs', async () => {
    await waitForServer(api, 'research', isKind('running'));
    const name = (await waitForTools((all) => all.includes('mcp_research_simulate-research-query'), 30_000, { startServers: true })).find(
      (tool) => tool === 'mcp_research_simulate-research-query',
    );
    assert.ok(name);
    const call = invoke(name, { topic: 'tides' });
    const row = await eventually(
      () => {
        const server = api.tree().find((node) => node.label === 'research');
        const task = server?.children.find((child) => child.contextValue === 'task');
        return server && task && /^(Analyzing|Synthesizing|Generating)/.test(task.label) ? { server, task } : undefined;
      },
      'the task row with a later stage',
      20_000,
    );
    assert.equal(row.server.description, 'running · 1 task');
    assert.equal(row.task.description, 'simulate-research-query');
    assert.match(row.server.tooltip, /Tasks running:\*\* simulate\\-research\\-query: /);
    assert.match(toolText(await call), /^# Research Report: tides/);
    // The editor drove the task itself through the gateway (it declares tasks, and was told the
    // tool's taskSupport): the gateway logged a task of its client's. Log files flush on their own.
    const logFolder = path.dirname(api.logFolder);
    const drivenByEditor = () =>
      fs
        .readdirSync(logFolder, { recursive: true })
        .map(String)
        .map((file) => path.join(logFolder, file))
        .some(
          (file) =>
            fs.statSync(file).isFile() &&
            /tools\/call research\/simulate-research-query runs as task \S+, which its client drives/.test(fs.readFileSync(file, 'utf8')),
        );
    await eventually(() => (drivenByEditor() ? true : undefined), "the gateway's line for the editor's task", 15_000);
    await eventually(
      () =>
        api
          .tree()
          .find((node) => node.label === 'research')
          ?.children.some((child) => child.contextValue === 'task') === false
          ? true
          : undefined,
      'the task row to go',
      10_000,
    );
  });

  it('lists the catalog and calls a tool with the dispatcher tools', async () => {
    const listed = JSON.parse(toolText(await invoke('mcpSwitchboard_listTools', { server: 'ok' }))) as {
      tools: Array<{ qualifiedName: string; readOnly: boolean; serverState: string }>;
    };
    const echo = listed.tools.find((tool) => tool.qualifiedName === 'ok__echo');
    assert.deepEqual({ readOnly: echo?.readOnly, serverState: echo?.serverState }, { readOnly: true, serverState: 'running' });
    assert.ok(!listed.tools.some((tool) => tool.qualifiedName === 'ok__fail'));
    const called = await invoke('mcpSwitchboard_callTool', { tool: 'ok__echo', arguments: { text: 'dispatched' } });
    assert.equal(toolText(called), 'dispatched');
  });

  it('gives the dispatcher a clear error for a filtered or unknown tool', async () => {
    await assert.rejects(invoke('mcpSwitchboard_callTool', { tool: 'ok__fail', arguments: {} }), /not available: .*tools\.deny/);
    await assert.rejects(invoke('mcpSwitchboard_callTool', { tool: 'nope__nothing', arguments: {} }), /Unknown tool "nope__nothing"/);
  });

  it('finds a tool past the budget by search, and calls it; a plain list says how many more a query finds', async () => {
    const settings = vscode.workspace.getConfiguration('mcpSwitchboard');
    await settings.update('tools.maxExposed', 1, vscode.ConfigurationTarget.Global);
    try {
      await eventually(() => (api.catalog.snapshot().maxExposed === 1 ? true : undefined), 'the budget of 1', 10_000);
      const env = api.catalog
        .snapshot()
        .servers.flatMap((server) => server.tools)
        .find((tool) => tool.qualifiedName === 'ok__env');
      assert.equal(env?.filteredBy?.kind, 'budget', 'ok__env is past the budget');
      const found = JSON.parse(toolText(await invoke('mcpSwitchboard_listTools', { query: 'read an environment variable', limit: 3 }))) as {
        tools: Array<{ qualifiedName: string; inputSchema: { properties?: Record<string, unknown> } }>;
      };
      assert.equal(found.tools[0]?.qualifiedName, 'ok__env');
      assert.ok(found.tools[0]?.inputSchema.properties?.name, 'with its arguments');
      assert.ok(found.tools.length <= 3);
      // Called through the same gate; the server answers with its PATH (a call that had been refused would throw).
      const called = await invoke('mcpSwitchboard_callTool', { tool: 'ok__env', arguments: { name: 'PATH' } });
      assert.match(toolText(called), /\//);
      const listed = JSON.parse(toolText(await invoke('mcpSwitchboard_listTools', {}))) as { tools: unknown[]; more?: number };
      assert.ok(listed.tools.length > 1, 'every eligible tool is listed, not only the one in chat');
    } finally {
      await settings.update('tools.maxExposed', undefined, vscode.ConfigurationTarget.Global);
    }
    await waitForTools((all) => all.includes('mcp_ok_echo') && all.includes('mcp_ok_add'));
  });

  it('shows a tool the server adds at run time without a reload', async () => {
    const pid = (JSON.parse(fs.readFileSync(path.join(scratch, 'ok.json'), 'utf8')) as { pid: number }).pid;
    process.kill(pid, 'SIGUSR2'); // the fixture registers `added_1` and sends tools/list_changed
    await waitForTools((all) => all.includes('mcp_ok_added_1'));
  });

  it('removes a tool switched off in mcpSwitchboard.tools.disabled, and brings it back, live', async () => {
    // No start from the test. The editor's session on the server stays: its definition's version is
    // held while it is connected (a new one would make the editor stop the server and start it
    // again), and the gateway's tools/list_changed tells it of the new list.
    const settings = vscode.workspace.getConfiguration('mcpSwitchboard');
    const restartsBefore = restarts.filter((server) => server === 'ok').length;
    const version = api.publishedVersion('ok');
    await settings.update('tools.disabled', ['ok/add'], vscode.ConfigurationTarget.Global);
    try {
      await waitForTools((all) => !all.includes('mcp_ok_add') && all.includes('mcp_ok_echo'));
      assert.equal(api.publishedVersion('ok'), version, 'a new version while the editor is connected');
    } finally {
      await settings.update('tools.disabled', undefined, vscode.ConfigurationTarget.Global);
    }
    await waitForTools((all) => all.includes('mcp_ok_add'));
    assert.equal(restarts.filter((server) => server === 'ok').length, restartsBefore, 'the editor stopped the server for a new version');
  });

  it("Invalidate Tool Cache refetches the server's tool list", async () => {
    const fetchedAt = () => api.catalog.snapshot().servers.find((server) => server.name === 'ok')?.fetchedAt;
    const before = fetchedAt();
    assert.ok(before, 'the list was fetched once');
    await vscode.commands.executeCommand('mcpSwitchboard.invalidateToolCache', 'ok');
    assert.ok((fetchedAt() ?? 0) > before, `fetchedAt moved from ${before} to ${fetchedAt()}`);
  });

  it('Show Tool Catalog opens a read-only rendering that lists exposed and filtered tools with the reason', async () => {
    const untitledBefore = vscode.workspace.textDocuments.filter((document) => document.isUntitled).length;
    const uri = await vscode.commands.executeCommand<vscode.Uri>('mcpSwitchboard.showToolCatalog');
    assert.equal(uri?.scheme, 'mcp-switchboard', 'a virtual document, not an untitled one');
    const document = await vscode.workspace.openTextDocument(uri);
    assert.equal(document.isDirty, false, 'closing it asks nothing');
    assert.equal(vscode.workspace.textDocuments.filter((candidate) => candidate.isUntitled).length, untitledBefore);
    const report = document.getText();
    assert.match(report, /\| echo \| `mcp_ok_echo` \| `ok__echo` \| yes \| yes \|/);
    assert.match(report, /\| fail \| – \| `ok__fail` \|.*\| no \| denied by the tools\.deny pattern "fail"/);
    // The chat names are the editor's own: every one the report gives is in vscode.lm.tools.
    const chatNames = [...report.matchAll(/^\| [^|]+ \| `(mcp_[^`]+)` \|/gm)].map((match) => match[1] as string);
    assert.ok(chatNames.length > 1, report);
    const editorNames = await waitForTools((all) => chatNames.every((name) => all.includes(name)));
    assert.deepEqual(
      chatNames.filter((name) => !editorNames.includes(name)),
      [],
    );
  });

  it("publishes running servers to the editor's MCP client, and leaves failed ones out", async () => {
    await Promise.all([waitForServer(api, 'failing', isKind('error')), waitForServer(api, 'hanging', isKind('error'))]);
    const published = api.publishedServers();
    assert.ok(published.includes('ok'), published.join(', '));
    assert.ok(!published.includes('failing') && !published.includes('hanging'), `a failed server is published: ${published.join(', ')}`);
  });
});
