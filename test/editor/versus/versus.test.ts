// bench/versus.mjs runs this in the real editor, once with the editor's own MCP client and once with
// Switchboard, each in a fresh profile: the 20 stdio servers, started as a user would (the
// editor's Start Server), measured from the moment the window opened. Writes its numbers to
// SWITCHBOARD_BENCH_OUT; the assertions only say that the measurement happened.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import inspector from 'node:inspector';
import v8 from 'node:v8';
import vm from 'node:vm';
import * as vscode from 'vscode';

const servers = Number(process.env.SWITCHBOARD_BENCH_SERVERS ?? '0');
const openedAt = Number(process.env.SWITCHBOARD_WINDOW_OPENED_AT ?? '0');
const SERVER_SCRIPT = /@modelcontextprotocol\/server-(everything|memory|filesystem)\/dist\/index\.js/;

/**
 * The MCP tools the editor knows (the dispatcher tools aside). It names them by what each server
 * calls itself (`mcp_everything_re_echo` for every server-everything), so they are counted, not
 * told apart by server.
 */
function mcpTools(): number {
  return vscode.lm.tools.filter((tool) => tool.name.startsWith('mcp_')).length;
}

/** When the kernel started process `pid`, in its ticks (10 ms) since boot. */
function startTicks(pid: string): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}

/**
 * The kernel's start times on this process's clock: boot time is given in whole seconds, so it is
 * placed by this process's own start, which `performance.timeOrigin` also marks (to 10 ms).
 */
const bootAt = performance.timeOrigin - startTicks('self') * 10;

/** Processes whose command line matches `pattern`: when the kernel started each (ms since the epoch), and its resident memory (bytes). */
function processesMatching(pattern: RegExp): { startedAt: number; rss: number }[] {
  const found: { startedAt: number; rss: number }[] = [];
  for (const pid of fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (!pattern.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) continue;
      const rssKb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '0');
      found.push({ startedAt: bootAt + startTicks(pid) * 10, rss: rssKb * 1024 });
    } catch {
      // The process ended while it was read.
    }
  }
  return found;
}

/** The 20 servers' processes. */
function serverProcesses(): { startedAt: number; rss: number }[] {
  return processesMatching(SERVER_SCRIPT);
}

/**
 * Switchboard's machine host (the servers shared by every window run in it): its proportional set
 * size (bytes), 0 when there is none. PSS, not RSS: it runs the extension host's own Node binary,
 * whose pages the two share, and RSS would count them twice.
 */
function machineHostPss(): number {
  let pss = 0;
  for (const pid of fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--machine-host')) continue;
      pss += Number(/^Pss:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? '0') * 1024;
    } catch {
      // The process ended while it was read.
    }
  }
  return pss;
}

/** The extension host's resident memory by kind of mapping (MB): where RSS outside the V8 heap is. */
function mapsSummary(): Record<string, number> {
  const sums: Record<string, number> = {};
  let kind = 'anon';
  for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (header) {
      const name = header[1] ?? '';
      kind =
        name === '' ? 'anon' : name.startsWith('[') ? name : name.endsWith('.node') || name.includes('.so') ? 'native libraries' : 'files';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) sums[kind] = (sums[kind] ?? 0) + Number(rss[1]) / 1024;
  }
  return Object.fromEntries(Object.entries(sums).map(([key, mb]) => [key, Math.round(mb)]));
}

describe('bench: the editor side by side with its own MCP client', function () {
  this.timeout(300_000);

  it('measures the time until every server is running with its tools in chat, and the memory then', async () => {
    assert.ok(servers > 0 && openedAt > 0, 'run by bench/versus.mjs');
    // The extension host's CPU, to read by hand (SWITCHBOARD_BENCH_PROFILE=<file.cpuprofile>).
    const profiler = process.env.SWITCHBOARD_BENCH_PROFILE ? new inspector.Session() : undefined;
    const post = (method: string) =>
      new Promise<unknown>((resolve, reject) => profiler?.post(method, (error, result) => (error ? reject(error) : resolve(result))));
    if (profiler) {
      profiler.connect();
      await post('Profiler.enable');
      await post('Profiler.start');
    }
    const deadline = Date.now() + Number(process.env.SWITCHBOARD_BENCH_WAIT_MS ?? 240_000);
    let starting: Thenable<unknown> | undefined;
    // The editor knows every tool list when all 20 processes run and its tool count has not
    // changed for 3 s; the moment of its last change is the measurement.
    let count = 0;
    let changedAt = Date.now();
    // Where the time goes, to read by hand: each change of the editor's tool count, and (with
    // Switchboard) each server's state changes, in ms from the window.
    const timeline: string[] = [];
    const extension = vscode.extensions.getExtension('switchboard-labs.mcp-switchboard');
    type Api = {
      onDidChangeState: vscode.Event<{ server: string; state: { kind: string }; at: number }>;
      activation: { startedAt: number; ms: number };
    };
    let watching: vscode.Disposable | undefined;
    // Activation is the editor's business (on startup): watched once it has happened, not forced.
    const watch = () => {
      if (watching || !extension?.isActive || process.env.SWITCHBOARD_BENCH_CLIENT !== 'switchboard') return;
      const api = extension.exports as Api;
      timeline.push(`${api.activation.startedAt - openedAt} activate (${Math.round(api.activation.ms)} ms)`);
      watching = api.onDidChangeState((event) => timeline.push(`${event.at - openedAt} ${event.server} ${event.state.kind}`));
    };
    // As a user starts them: the editor's Start Server for every server it knows (ours published by
    // Switchboard's provider, its own from mcp.json), asked again until all run.
    while (Date.now() < deadline) {
      watch();
      const now = mcpTools();
      if (now !== count) {
        count = now;
        changedAt = Date.now();
        timeline.push(`${changedAt - openedAt} editor has ${count} tools`);
      }
      if (count > 0 && Date.now() - changedAt >= 3_000 && serverProcesses().length >= servers) break;
      starting ??= vscode.commands
        .executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true, autoTrustChanges: true })
        .then(
          () => (starting = undefined),
          () => (starting = undefined),
        );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const toolsAt = changedAt;
    watching?.dispose();
    // Since the extension host started, not since this test did: the test starts when the editor
    // gets to it, seconds apart in two windows, and a count from there compared nothing.
    const cpu = process.cpuUsage();
    if (profiler) {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      fs.writeFileSync(process.env.SWITCHBOARD_BENCH_PROFILE as string, JSON.stringify(profile));
      profiler.disconnect();
    }
    assert.ok(
      count > 0 && serverProcesses().length >= servers,
      `every server runs and the editor has tools: ${count} tools, ${serverProcesses().length} processes`,
    );
    const processes = serverProcesses();
    const starts = processes.map((process) => process.startedAt).sort((a, b) => a - b);
    // The extension host settles after the burst: memory read a few seconds on.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const rss = process.memoryUsage().rss;
    const hostPss = machineHostPss();
    // And after a full collection, in both windows alike: what is held, not when V8 last collected.
    v8.setFlagsFromString('--expose-gc');
    (vm.runInNewContext('gc') as () => void)();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const result = {
      client: process.env.SWITCHBOARD_BENCH_CLIENT,
      windowToToolsMs: toolsAt - openedAt,
      toolsInChat: count,
      processes: processes.length,
      windowToFirstProcessMs: (starts[0] ?? toolsAt) - openedAt,
      windowToLastProcessMs: (starts.at(-1) ?? toolsAt) - openedAt,
      firstToLastProcessMs: (starts.at(-1) ?? 0) - (starts[0] ?? 0),
      extensionHostRssMb: rss / 2 ** 20,
      extensionHostRssAfterGcMb: process.memoryUsage().rss / 2 ** 20,
      machineHostPssMb: hostPss / 2 ** 20,
      withMachineHostMb: (rss + hostPss) / 2 ** 20,
      ...Object.fromEntries(
        Object.entries(process.memoryUsage())
          .filter(([key]) => key !== 'rss')
          .map(([key, bytes]) => [`extensionHost_${key}Mb`, Math.round(bytes / 2 ** 20)]),
      ),
      serversRssMb: serverProcesses().reduce((sum, entry) => sum + entry.rss, 0) / 2 ** 20,
      extensionHostMaps: mapsSummary(),
      extensionHostCpuMs: Math.round((cpu.user + cpu.system) / 1000),
      processStartsMs: starts.map((at) => at - openedAt),
      // Where a shared window's servers run: when it started, on the same clock.
      machineHostStartedMs: (processesMatching(/--machine-host/)[0]?.startedAt ?? openedAt) - openedAt,
      timeline,
    };
    if (process.env.SWITCHBOARD_BENCH_OUT) fs.writeFileSync(process.env.SWITCHBOARD_BENCH_OUT, JSON.stringify(result));
    // Where the extension host's memory goes, to look at by hand (SWITCHBOARD_BENCH_HEAP=<file>).
    if (process.env.SWITCHBOARD_BENCH_HEAP) v8.writeHeapSnapshot(process.env.SWITCHBOARD_BENCH_HEAP);
  });
});
