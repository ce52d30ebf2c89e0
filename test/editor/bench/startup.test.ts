// bench/editor.mjs runs this in the real editor: how long activate() takes, and how long from the
// window opening until every server's tools are in vscode.lm.tools. Writes its numbers to
// SWITCHBOARD_BENCH_OUT; the assertions only say that the measurement happened.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import * as vscode from 'vscode';
import { switchboardApi } from '../support';

const servers = Number(process.env.SWITCHBOARD_BENCH_SERVERS ?? '0');
const openedAt = Number(process.env.SWITCHBOARD_WINDOW_OPENED_AT ?? '0');

/** Servers with at least one tool in vscode.lm.tools (named mcp_<server>_<tool> by the editor). */
function serversInChat(): number {
  const names = new Set<string>();
  for (const tool of vscode.lm.tools) {
    const match = /^mcp_(bench-\d+)_/.exec(tool.name);
    if (match?.[1]) names.add(match[1]);
  }
  return names.size;
}

describe('bench: the editor side of startup', function () {
  this.timeout(240_000);

  it("measures activate() and the time until every server's tools are in chat", async () => {
    assert.ok(servers > 0 && openedAt > 0, 'run by bench/editor.mjs');
    const api = await switchboardApi();
    const deadline = Date.now() + Number(process.env.SWITCHBOARD_BENCH_WAIT_MS ?? 90_000);
    const warming = process.env.SWITCHBOARD_BENCH_WARM === '1';
    // vscode.lm.tools has no change event: a short interval, since the measurement is what we are after.
    // Switchboard's part ends when it publishes every server, each with its tools; the rest is the
    // editor's own MCP client taking them in.
    let publishedAt: number | undefined;
    const published = () =>
      api.publishedServers().length === servers &&
      api.catalog.snapshot().servers.every((server) => server.tools.some((tool) => tool.exposed));
    while (serversInChat() < servers && Date.now() < deadline) {
      if (publishedAt === undefined && published()) publishedAt = Date.now();
      // The warming run: the editor starts provider servers only when chat (or this command) asks,
      // and then keeps their tools in its own cache for the next window.
      if (warming && api.publishedServers().length === servers) {
        await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true, autoTrustChanges: true });
      }
      await new Promise((resolve) => setTimeout(resolve, warming ? 500 : 10));
    }
    const toolsAt = Date.now();
    assert.equal(
      serversInChat(),
      servers,
      `every server reached chat; mcp tools now: ${vscode.lm.tools
        .map((tool) => tool.name)
        .filter((name) => name.startsWith('mcp'))
        .slice(0, 12)
        .join(', ')}; states: ${api
        .servers()
        .map((view) => view.state.kind)
        .join(',')}`,
    );
    const result = {
      activateMs: api.activation.ms,
      windowToActivateMs: api.activation.startedAt - openedAt,
      windowToToolsMs: toolsAt - openedAt,
      activateToToolsMs: toolsAt - api.activation.startedAt,
      activateToPublishedMs: (publishedAt ?? toolsAt) - api.activation.startedAt,
      running: api.servers().filter((view) => view.state.kind === 'running').length,
    };
    // The editor writes its tool cache when it saves its state, which it does when idle for a minute
    // (or on a shutdown that a closed browser does not give it): the warming run waits for that.
    if (warming) await new Promise((resolve) => setTimeout(resolve, 70_000));
    if (process.env.SWITCHBOARD_BENCH_OUT) fs.writeFileSync(process.env.SWITCHBOARD_BENCH_OUT, JSON.stringify(result));
  });
});
