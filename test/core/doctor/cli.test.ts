// The doctor end to end: the built CLI, run as a child process against temp workspaces whose
// servers are fixture MCP servers. What a user sees is what is asserted: stdout, stderr, exit code.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { isProcessAlive } from '../../../src/core/connection';
import { Cleanup } from '../connection/helpers';
import { buildCli, fixture, REPO_ROOT, runCli, tableRow, tempWorkspace, waitForFile } from './helpers';

interface JsonServer {
  name: string;
  source: string;
  definedBy: string;
  state: string;
  connectMs: number | null;
  error?: string;
  protocol: { version: string; era: string } | null;
  diagnostics: { severity: string; path: string; message: string }[];
  tools: { name: string; title?: string; qualifiedName: string; readOnly: boolean; exposed: boolean; filteredBy?: string }[];
  capabilities: string[] | null;
  resources: { uri: string; name: string; mimeType?: string }[];
  resourceTemplates: { uriTemplate: string; name: string }[];
  prompts: { name: string; arguments: string[] }[];
  skills: { uri: string; name: string; files: number | 'dynamic' }[];
  lifecycle: { start: string; idleStopMinutes: number } | null;
}

function parseReport(stdout: string): { servers: JsonServer[] } {
  return JSON.parse(stdout) as { servers: JsonServer[] };
}

function serverIn(report: { servers: JsonServer[] }, name: string): JsonServer {
  const server = report.servers.find((candidate) => candidate.name === name);
  assert.ok(server, `no server ${name} in ${JSON.stringify(report)}`);
  return server;
}

describe('doctor CLI', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  before(function () {
    this.timeout(120_000);
    buildCli();
  });

  describe('report', () => {
    it('prints an aligned table with every server, its state, tools and connect time', async () => {
      const ws = tempWorkspace(cleanup, { alpha: fixture('--name', 'alpha'), beta: fixture('--startup-delay', '300') });
      const run = await runCli(['doctor', '--folder', ws.dir]);
      assert.equal(run.code, 0, run.stderr);
      const lines = run.stdout.split('\n');
      assert.match(lines[0] ?? '', /^SERVER\s+STATE\s+TOOLS\s+RESOURCES\s+PROMPTS\s+CONNECT\s+PROTOCOL\s+ERROR$/);
      for (const name of ['alpha', 'beta']) {
        const row = tableRow(run.stdout, name);
        assert.ok(row, `no row for ${name}:\n${run.stdout}`);
        assert.equal(row[1], 'running');
        assert.equal(row[2], '11/11', 'exposed/total');
        assert.match(row[5] ?? '', /^\d+ ms$/);
        assert.match(row.slice(6).join(' '), /^2025-\d\d-\d\d \(legacy\)/, 'the negotiated revision and its era');
      }
      // Aligned: every row's STATE starts where the header's does.
      const stateColumn = (lines[0] ?? '').indexOf('STATE');
      for (const name of ['alpha', 'beta']) {
        const line = lines.find((candidate) => candidate.startsWith(`${name} `)) ?? '';
        assert.equal(line.indexOf('running'), stateColumn, run.stdout);
      }
      assert.match(run.stdout, /2 of 2 enabled servers running\. 22 of 22 tools exposed to chat and the gateway\./);
      assert.match(run.stderr, /Connecting 2 servers/, 'progress goes to stderr');
    });

    it('--json prints JSON that parses, whatever the names in another agent’s file hold, and shows none of it raw', async () => {
      const ws = tempWorkspace(cleanup, {});
      const home = ws.file('home');
      fs.mkdirSync(home, { recursive: true });
      const names = ['tab\there', 'new\nline', 'esc\u001b[31mred', 'sep\u2028arator', 'rtl\u202eoverride', 'del\u007fc1\u0085'];
      const servers: Record<string, unknown> = Object.fromEntries(names.map((name) => [name, { command: 'not-a-command-here' }]));
      // Instructions longer than any terminal line: kept whole in JSON.
      servers.long = fixture('--instructions', `${'x'.repeat(9_000)}`);
      fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify({ mcpServers: servers }));
      fs.writeFileSync(ws.file('.vscode/settings.json'), JSON.stringify({ 'mcpSwitchboard.sources': ['settings', 'claudeCode'] }));
      const run = await runCli(['doctor', '--folder', ws.dir, '--json'], { env: { HOME: home } });
      const report = JSON.parse(run.stdout) as { servers: Array<{ name: string; instructions?: string }> };
      assert.deepEqual(report.servers.map((server) => server.name).sort(), [...names, 'long'].sort());
      assert.equal(report.servers.find((server) => server.name === 'long')?.instructions, 'x'.repeat(9_000));
      // eslint-disable-next-line no-control-regex -- what must never reach the terminal raw.
      assert.doesNotMatch(run.stdout, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028-\u202e]/u);
    });

    it('--json prints exactly the documented shape, and nothing else, on stdout', async () => {
      const ws = tempWorkspace(cleanup, {
        good: fixture(),
        broken: fixture('--exit-at-start', '4'),
        off: { ...fixture(), enabled: false },
      });
      const run = await runCli(['doctor', '--folder', ws.dir, '--json']);
      assert.equal(run.code, 1, run.stderr);
      const report = parseReport(run.stdout);
      assert.deepEqual(Object.keys(report), ['servers', 'machineHost']);
      assert.deepEqual(
        report.servers.map((server) => server.name),
        ['good', 'broken', 'off'],
      );

      const good = serverIn(report, 'good');
      assert.deepEqual(Object.keys(good), [
        'name',
        'source',
        'definedBy',
        'state',
        'connectMs',
        'protocol',
        'diagnostics',
        'tools',
        'capabilities',
        'instructions',
        'resources',
        'resourceTemplates',
        'prompts',
        'skills',
        'lifecycle',
        'sandbox',
      ]);
      assert.equal(good.state, 'running');
      assert.deepEqual(good.lifecycle, { start: 'eager', idleStopMinutes: 0 });
      assert.equal(typeof good.connectMs, 'number');
      assert.equal(good.source, `workspace settings (${path.join(ws.dir, '.vscode', 'settings.json')})`);
      assert.equal(good.definedBy, 'workspace', "the folder's own settings are the repository's");
      assert.deepEqual(good.diagnostics, []);
      const echo = good.tools.find((tool) => tool.name === 'echo');
      const add = good.tools.find((tool) => tool.name === 'add');
      assert.deepEqual(echo, { name: 'echo', qualifiedName: 'good__echo', readOnly: true, exposed: true });
      assert.deepEqual(add, { name: 'add', qualifiedName: 'good__add', readOnly: false, exposed: true });
      for (const tool of good.tools) assert.deepEqual(Object.keys(tool), ['name', 'qualifiedName', 'readOnly', 'exposed']);
      assert.deepEqual(
        good.tools.slice(0, 3).map((tool) => tool.name),
        ['echo', 'add', 'slow'],
        'in the order the server lists them',
      );

      const broken = serverIn(report, 'broken');
      assert.deepEqual(Object.keys(broken), [
        'name',
        'source',
        'definedBy',
        'state',
        'connectMs',
        'protocol',
        'error',
        'diagnostics',
        'tools',
        'capabilities',
        'instructions',
        'resources',
        'resourceTemplates',
        'prompts',
        'skills',
        'lifecycle',
        'sandbox',
      ]);
      assert.equal(broken.capabilities, null);
      assert.equal(broken.state, 'error');
      assert.equal(broken.connectMs, null);
      assert.match(broken.error ?? '', /exited with code 4/);

      const off = serverIn(report, 'off');
      assert.deepEqual(Object.keys(off), [
        'name',
        'source',
        'definedBy',
        'state',
        'connectMs',
        'protocol',
        'diagnostics',
        'tools',
        'capabilities',
        'instructions',
        'resources',
        'resourceTemplates',
        'prompts',
        'skills',
        'lifecycle',
        'sandbox',
      ]);
      assert.equal(off.state, 'disabled');
      assert.equal((good as unknown as { sandbox: unknown }).sandbox, null, 'an unsandboxed server says so');
    });

    it('runs the tool catalog: exposed/total in the table, exposed and filteredBy in --json', async () => {
      const ws = tempWorkspace(
        cleanup,
        JSON.stringify({
          'mcpSwitchboard.servers': { d: { ...fixture(), tools: { deny: ['add'] } }, s: fixture() },
          'mcpSwitchboard.tools.disabled': ['s/echo'],
        }),
      );
      const table = await runCli(['doctor', '--folder', ws.dir]);
      assert.equal(table.code, 0, table.stderr);
      assert.equal(tableRow(table.stdout, 'd')?.[2], '10/11', table.stdout);
      assert.equal(tableRow(table.stdout, 's')?.[2], '10/11', table.stdout);
      assert.match(table.stdout, /^\s+hidden\s+add: denied by the tools\.deny pattern "add" of server "d"$/m);
      assert.match(table.stdout, /^\s+hidden\s+echo: disabled in mcpSwitchboard\.tools\.disabled$/m);
      assert.match(table.stdout, /20 of 22 tools exposed/);

      const run = await runCli(['doctor', '--folder', ws.dir, '--json']);
      assert.equal(run.code, 0, run.stderr);
      const report = parseReport(run.stdout);
      const d = serverIn(report, 'd');
      const s = serverIn(report, 's');
      assert.deepEqual(
        d.tools.find((tool) => tool.name === 'add'),
        {
          name: 'add',
          qualifiedName: 'd__add',
          readOnly: false,
          exposed: false,
          filteredBy: 'denied by the tools.deny pattern "add" of server "d"',
        },
      );
      assert.match(s.tools.find((tool) => tool.name === 'echo')?.filteredBy ?? '', /mcpSwitchboard\.tools\.disabled/);
      assert.equal(s.tools.find((tool) => tool.name === 'echo')?.exposed, false);
      assert.deepEqual(
        d.tools.filter((tool) => !tool.exposed).map((tool) => tool.name),
        ['add'],
      );
      assert.deepEqual(
        s.tools.filter((tool) => !tool.exposed).map((tool) => tool.name),
        ['echo'],
      );
      for (const server of [d, s]) {
        for (const tool of server.tools) {
          assert.equal(tool.qualifiedName, `${server.name}__${tool.name}`);
          assert.equal('filteredBy' in tool, !tool.exposed, tool.qualifiedName);
        }
      }
    });

    it('applies mcpSwitchboard.tools.maxExposed and names the cut', async () => {
      const ws = tempWorkspace(
        cleanup,
        JSON.stringify({ 'mcpSwitchboard.servers': { a: fixture(), b: fixture() }, 'mcpSwitchboard.tools.maxExposed': 15 }),
      );
      const run = await runCli(['doctor', '--folder', ws.dir]);
      assert.equal(run.code, 0, run.stderr);
      // Shared between the servers; the odd one goes to the first configured.
      assert.equal(tableRow(run.stdout, 'a')?.[2], '8/11');
      assert.equal(tableRow(run.stdout, 'b')?.[2], '7/11');
      assert.match(run.stdout, /^\s+hidden\s+3 tools beyond mcpSwitchboard\.tools\.maxExposed \(15\)$/m);
      assert.match(run.stdout, /^\s+hidden\s+4 tools beyond mcpSwitchboard\.tools\.maxExposed \(15\)$/m);
      assert.match(run.stdout, /Catalog:\n\s+warning\s+22 tools passed the filters but only 15/);

      const json = await runCli(['doctor', '--folder', ws.dir, '--json']);
      const b = serverIn(parseReport(json.stdout), 'b');
      assert.equal(b.tools.filter((tool) => tool.filteredBy?.includes('maxExposed (15)')).length, 4);
      assert.match(json.stderr, /Catalog:\n\s+warning\s+22 tools passed the filters/, 'with --json, catalog warnings go to stderr');
    });

    it('checks lazy servers too, marks them in the table, and applies mcpSwitchboard.defaultLifecycle from the folder settings', async () => {
      const ws = tempWorkspace(
        cleanup,
        JSON.stringify({
          'mcpSwitchboard.defaultLifecycle': 'lazy',
          'mcpSwitchboard.defaultIdleStopMinutes': 10,
          'mcpSwitchboard.servers': { later: fixture(), soon: { ...fixture(), lifecycle: 'eager', idleStopMinutes: 0 } },
        }),
      );
      const table = await runCli(['doctor', '--folder', ws.dir]);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, /^later\s+running \(lazy\)\s/m);
      assert.match(table.stdout, /^soon\s+running\s/m);
      const json = parseReport((await runCli(['doctor', '--folder', ws.dir, '--json'])).stdout);
      assert.deepEqual(serverIn(json, 'later').lifecycle, { start: 'lazy', idleStopMinutes: 10 });
      assert.deepEqual(serverIn(json, 'soon').lifecycle, { start: 'eager', idleStopMinutes: 0 });
    });

    it('exits 0 when every enabled server is running, ignoring disabled ones', async () => {
      const ws = tempWorkspace(cleanup, { one: fixture(), off: { command: 'does-not-exist', enabled: false } });
      const run = await runCli(['doctor', '--folder', ws.dir]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.equal(tableRow(run.stdout, 'off')?.[1], 'disabled');
      assert.match(run.stdout, /1 of 1 enabled server running; 1 disabled\./);
    });

    it('exits 1 when a server fails, with its error and the tail of its stderr', async () => {
      const ws = tempWorkspace(cleanup, {
        good: fixture(),
        broken: fixture('--stderr-lines', '9', '--exit-at-start', '3', '--exit-message', 'fatal: missing API key'),
      });
      const run = await runCli(['doctor', '--folder', ws.dir]);
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.equal(tableRow(run.stdout, 'good')?.[1], 'running');
      const row = tableRow(run.stdout, 'broken');
      assert.equal(row?.[1], 'error');
      assert.match(row?.[7] ?? '', /exited with code 3.*fatal: missing API key/);
      const lines = run.stdout.split('\n');
      const start = lines.findIndex((line) => line.trim().startsWith('stderr (last 5 lines)'));
      assert.ok(start > 0, run.stdout);
      assert.deepEqual(
        lines.slice(start + 1, start + 6).map((line) => line.trim()),
        ['stderr line 6', 'stderr line 7', 'stderr line 8', 'stderr line 9', 'fatal: missing API key'],
      );
      assert.match(lines[start + 1] ?? '', /^\s{4,}/, 'the tail is indented under its server');
      assert.match(run.stdout, /1 of 2 enabled servers running\./);
    });

    it('counts resources (+templates) and prompts, lists them in --json with the capabilities, and leaves out what an entry hides', async () => {
      const ws = tempWorkspace(cleanup, {
        rich: fixture('--features'),
        plain: fixture(),
        shy: { ...fixture('--features'), resources: false },
      });
      const run = await runCli(['doctor', '--folder', ws.dir]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.deepEqual(tableRow(run.stdout, 'rich')?.slice(3, 5), ['3+1', '2'], run.stdout);
      assert.deepEqual(tableRow(run.stdout, 'plain')?.slice(3, 5), ['0', '0'], run.stdout);
      assert.deepEqual(tableRow(run.stdout, 'shy')?.slice(3, 5), ['0', '2'], run.stdout);
      const json = parseReport((await runCli(['doctor', '--folder', ws.dir, '--json'])).stdout);
      const rich = serverIn(json, 'rich');
      assert.deepEqual(rich.capabilities, ['logging', 'completions', 'prompts', 'resources', 'tools']);
      assert.deepEqual(rich.resources, [
        { uri: 'fixture://readme', name: 'readme', mimeType: 'text/markdown' },
        { uri: 'fixture://logo.png', name: 'logo', mimeType: 'image/png' },
        { uri: 'fixture://counter', name: 'counter', mimeType: 'text/plain' },
      ]);
      assert.deepEqual(rich.resourceTemplates, [{ uriTemplate: 'fixture://notes/{topic}', name: 'notes' }]);
      assert.deepEqual(rich.prompts, [
        { name: 'greet', arguments: ['name', 'style'] },
        { name: 'summarize', arguments: [] },
      ]);
      assert.deepEqual(serverIn(json, 'plain').capabilities, ['tools']);
      assert.deepEqual(serverIn(json, 'shy').resources, []);
    });

    it('shows an invalid entry with its diagnostics and their paths while the others run', async () => {
      const ws = tempWorkspace(cleanup, {
        good: { ...fixture(), surprise: true },
        bad: { command: '' },
      });
      const run = await runCli(['doctor', '--folder', ws.dir]);
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.equal(tableRow(run.stdout, 'good')?.[1], 'running');
      assert.equal(tableRow(run.stdout, 'bad')?.[1], 'invalid');
      assert.match(run.stdout, /^\s+error\s+servers\.bad\.command: must not be empty$/m);
      assert.match(run.stdout, /^\s+warning\s+servers\.good\.surprise: unknown field "surprise" is ignored$/m, 'warnings are shown too');

      const json = parseReport((await runCli(['doctor', '--folder', ws.dir, '--json'])).stdout);
      const bad = serverIn(json, 'bad');
      assert.equal(bad.state, 'invalid');
      assert.equal(bad.error, 'servers.bad.command: must not be empty');
      assert.deepEqual(
        bad.diagnostics.map((diagnostic) => [diagnostic.severity, diagnostic.path]),
        [['error', 'servers.bad.command']],
      );
      assert.deepEqual(
        serverIn(json, 'good').diagnostics.map((diagnostic) => diagnostic.path),
        ['servers.good.surprise'],
      );
    });

    it('prints configuration problems that belong to no server, with their file', async () => {
      const ws = tempWorkspace(
        cleanup,
        JSON.stringify({ 'mcpSwitchboard.sources': ['settings', 'nope'], 'mcpSwitchboard.servers': { one: fixture() } }),
      );
      const run = await runCli(['doctor', '--folder', ws.dir]);
      assert.equal(run.code, 0, 'a warning alone does not fail the check');
      assert.match(run.stdout, /Configuration:\n\s+warning\s+mcpSwitchboard\.sources\[1\]: unknown source "nope".*\(.*settings\.json\)/);

      const json = await runCli(['doctor', '--folder', ws.dir, '--json']);
      assert.doesNotThrow(() => parseReport(json.stdout));
      assert.match(json.stderr, /mcpSwitchboard\.sources\[1\]/, 'with --json they go to stderr');
    });
  });

  describe('settings that cannot be used', () => {
    it('exits 2 on broken JSONC with the line and column of the error, starting nothing', async () => {
      const ws = tempWorkspace(cleanup, '{\n  // comment\n  "mcpSwitchboard.servers": {\n    "a": { "command": "node" }\n  \n');
      const run = await runCli(['doctor', '--folder', ws.dir]);
      assert.equal(run.code, 2, run.stdout + run.stderr);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /settings\.json:6:1: JSON parse error at line 6, column 1: close brace expected/);
      assert.equal(run.stderr.match(/close brace expected/g)?.length, 1, 'the same position is reported once');
    });

    it('exits 2 for a folder that does not exist', async () => {
      const missing = path.join(tempWorkspace(cleanup).dir, 'nope');
      const run = await runCli(['doctor', '--folder', missing]);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /the folder .*nope does not exist/);
    });

    it('says plainly that there are no servers when .vscode/settings.json is missing, and exits 0', async () => {
      const ws = tempWorkspace(cleanup);
      const run = await runCli(['doctor', '--folder', ws.dir]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /No MCP servers are configured: .*settings\.json does not exist\./);
      const hostDir = path.join(ws.dir, 'no-host');
      const json = await runCli(['doctor', '--folder', ws.dir, '--json'], { env: { MCP_SWITCHBOARD_HOST_DIR: hostDir } });
      // No machine host runs for this folder of hosts: the report says so, and where it looked.
      assert.deepEqual(JSON.parse(json.stdout), { servers: [], machineHost: { kind: 'none', folder: hostDir } });
      assert.match(run.stdout, /Machine host: /);
    });
  });

  describe('--call', () => {
    it('prints the result of the tool on stdout', async () => {
      const ws = tempWorkspace(cleanup, { tools: fixture() });
      const run = await runCli(['doctor', '--folder', ws.dir, '--call', 'tools/echo', '--args', '{"text":"hello from the doctor"}']);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, 'hello from the doctor\n');
      assert.match(run.stderr, /tools\s+running/, 'the report is context, on stderr');
    });

    it('exits 1 when the tool returns isError, still printing its content', async () => {
      const ws = tempWorkspace(cleanup, { tools: fixture() });
      const run = await runCli(['doctor', '--folder', ws.dir, '--call', 'tools/fail', '--args', '{"message":"it broke"}']);
      assert.equal(run.code, 1, run.stderr);
      assert.equal(run.stdout, 'it broke\n');
      assert.match(run.stderr, /tools\/fail returned an error result/);
    });

    it('exits 1 when the call throws, naming the tools the server has', async () => {
      const ws = tempWorkspace(cleanup, { tools: fixture() });
      const run = await runCli(['doctor', '--folder', ws.dir, '--call', 'tools/nope']);
      assert.equal(run.code, 1);
      assert.match(run.stderr, /tools\/nope failed: .*no tool "nope"/);
      assert.match(run.stderr, /tools of tools: echo, add, /);
    });

    it('does not call a tool on a server that is not running (exit 1), and says why', async () => {
      const ws = tempWorkspace(cleanup, { broken: fixture('--exit-at-start', '6', '--exit-message', 'cannot start') });
      const run = await runCli(['doctor', '--folder', ws.dir, '--call', 'broken/echo', '--args', '{"text":"x"}']);
      assert.equal(run.code, 1);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /broken\/echo not called: broken is error \(.*exited with code 6.*cannot start\)/);
    });

    it('--json prints the raw CallToolResult', async () => {
      const ws = tempWorkspace(cleanup, { tools: fixture() });
      const run = await runCli(['doctor', '--folder', ws.dir, '--json', '--call', 'tools/add', '--args', '{"a":2,"b":3}']);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout), { content: [{ type: 'text', text: '5' }] });
    });

    it('rejects --args that are not JSON with a clear message and exit 2, before starting anything', async () => {
      const ws = tempWorkspace(cleanup);
      const marker = ws.file('marker.json');
      fs.mkdirSync(ws.file('.vscode'));
      fs.writeFileSync(
        ws.file('.vscode/settings.json'),
        JSON.stringify({ 'mcpSwitchboard.servers': { tools: fixture('--marker', marker) } }),
      );
      const run = await runCli(['doctor', '--folder', ws.dir, '--call', 'tools/echo', '--args', '{"text": hi}']);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /--args is not valid JSON: .*JSON/);
      assert.equal(fs.existsSync(marker), false, 'no server was started');

      const notObject = await runCli(['doctor', '--folder', ws.dir, '--call', 'tools/echo', '--args', '[1]']);
      assert.equal(notObject.code, 2);
      assert.match(notObject.stderr, /--args must be a JSON object/);
    });

    it('passes ${input:id} values from MCP_SWITCHBOARD_INPUT_<ID>', async () => {
      const ws = tempWorkspace(cleanup, { tools: { ...fixture(), env: { TOKEN: '${input:gh-token}' } } });
      const run = await runCli(['doctor', '--folder', ws.dir, '--call', 'tools/env', '--args', '{"name":"TOKEN"}'], {
        env: { MCP_SWITCHBOARD_INPUT_GH_TOKEN: 'sekrit-42' },
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, 'sekrit-42\n');

      const without = await runCli(['doctor', '--folder', ws.dir]);
      assert.equal(without.code, 1);
      assert.match(
        tableRow(without.stdout, 'tools')?.join(' ') ?? '',
        /blocked .*needs input: gh-token \(set MCP_SWITCHBOARD_INPUT_GH_TOKEN\)/,
      );
    });
  });

  describe('timeouts and cleanup', () => {
    it('--timeout bounds the wait for a hanging server, which is reported as starting (exit 1)', async () => {
      const ws = tempWorkspace(cleanup, { good: fixture(), hang: fixture('--hang-initialize') });
      const run = await runCli(['doctor', '--folder', ws.dir, '--timeout', '1500', '--json']);
      assert.equal(run.code, 1, run.stderr);
      // connectMs defaults to 30 s: only --timeout can have ended this run so soon.
      assert.ok(run.ms < 8_000, `took ${run.ms} ms`);
      const report = parseReport(run.stdout);
      assert.equal(serverIn(report, 'good').state, 'running');
      const hang = serverIn(report, 'hang');
      assert.equal(hang.state, 'starting');
      assert.match(hang.error ?? '', /still starting when the 1500 ms timeout passed/);
    });

    it('leaves no server process (or grandchild) behind after exiting', async () => {
      const ws = tempWorkspace(cleanup);
      const marker = ws.file('server.json');
      const grandchildFile = ws.file('grandchild.pid');
      fs.mkdirSync(ws.file('.vscode'));
      fs.writeFileSync(
        ws.file('.vscode/settings.json'),
        JSON.stringify({
          'mcpSwitchboard.servers': { tree: fixture('--ignore-sigterm', '--marker', marker, '--spawn-grandchild', grandchildFile) },
        }),
      );
      const run = await runCli(['doctor', '--folder', ws.dir]);
      const pids = [(JSON.parse(fs.readFileSync(marker, 'utf8')) as { pid: number }).pid, Number(fs.readFileSync(grandchildFile, 'utf8'))];
      cleanup.add(() => pids.forEach((pid) => isProcessAlive(pid) && process.kill(pid, 'SIGKILL')));
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.deepEqual(pids.filter(isProcessAlive), [], 'processes outlived the doctor');
    });

    it('on SIGINT stops waiting, ends every server process and exits 130', async () => {
      const ws = tempWorkspace(cleanup);
      const marker = ws.file('server.json');
      const grandchildFile = ws.file('grandchild.pid');
      fs.mkdirSync(ws.file('.vscode'));
      fs.writeFileSync(
        ws.file('.vscode/settings.json'),
        JSON.stringify({
          'mcpSwitchboard.servers': { hang: fixture('--hang-initialize', '--marker', marker, '--spawn-grandchild', grandchildFile) },
        }),
      );
      let cliPid = 0;
      const running = runCli(['doctor', '--folder', ws.dir], { onSpawn: (pid) => (cliPid = pid) });
      await waitForFile(grandchildFile);
      const pids = [(JSON.parse(await waitForFile(marker)) as { pid: number }).pid, Number(fs.readFileSync(grandchildFile, 'utf8'))];
      cleanup.add(() => pids.forEach((pid) => isProcessAlive(pid) && process.kill(pid, 'SIGKILL')));
      assert.deepEqual(pids.filter(isProcessAlive), pids, 'the servers were up before the signal');
      process.kill(cliPid, 'SIGINT');
      const run = await running;
      assert.equal(run.code, 130, run.stdout + run.stderr);
      assert.ok(run.ms < 20_000, `took ${run.ms} ms; the 30 s connect timeout must not be waited out`);
      assert.match(run.stderr, /SIGINT, stopping servers/);
      assert.deepEqual(pids.filter(isProcessAlive), [], 'processes outlived the doctor');
    });
  });

  describe('command line', () => {
    it('prints usage for --help (exit 0) and for an unknown command or flag (exit 2)', async () => {
      // The overview names every command; each command's own help starts with that command.
      const help = await runCli(['--help']);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /^Usage: mcp-switchboard <command> \[options\]\n/);
      for (const command of [
        '  doctor [',
        '  serve [',
        '  serve --stdio',
        '  registry search',
        '  share <',
        '  login <server>',
        'logout <server>',
      ])
        assert.ok(help.stdout.includes(command), command);
      const doctorHelp = await runCli(['doctor', '--help']);
      assert.equal(doctorHelp.code, 0);
      assert.match(doctorHelp.stdout, /^Usage: mcp-switchboard doctor \[options\]\n[\s\S]*--call SERVER\/TOOL/);

      const unknown = await runCli(['frobnicate']);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /unknown command "frobnicate"[\s\S]*Usage:/);

      const none = await runCli([]);
      assert.equal(none.code, 2);
      assert.match(none.stderr, /Usage:/);

      const flag = await runCli(['doctor', '--frob']);
      assert.equal(flag.code, 2);
      assert.match(flag.stderr, /--frob/);

      const timeout = await runCli(['doctor', '--timeout', 'soon']);
      assert.equal(timeout.code, 2);
      assert.match(timeout.stderr, /--timeout expects a positive number of milliseconds/);
    });
  });

  describe('demo workspace', () => {
    it('passes: every demo server comes up running (exit 0)', async () => {
      const run = await runCli(['doctor', '--folder', path.join(REPO_ROOT, 'demo'), '--json']);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      const report = parseReport(run.stdout);
      assert.deepEqual(
        report.servers.map((server) => [server.name, server.state]),
        [
          ['demo-tools', 'running'],
          ['demo-slow', 'running'],
          ['demo-modern', 'running'],
          ['demo-research', 'running'],
          ['demo-skills', 'running'],
        ],
      );
      assert.deepEqual(
        report.servers.map((server) => server.protocol?.era),
        ['legacy', 'legacy', 'modern', 'legacy', 'modern'],
        'the era of each, in --json',
      );
      for (const server of report.servers) assert.ok(server.tools.length > 0, `${server.name} has no tools`);
      // A server's skills (SEP-2640): listed, their files counted, none fetched.
      assert.deepEqual(report.servers.find((server) => server.name === 'demo-skills')?.skills, [
        { uri: 'skill://acme/billing/refunds/SKILL.md', name: 'refunds', files: 2 },
        { uri: 'skill://release-notes/SKILL.md', name: 'release-notes', files: 2 },
      ]);
      const table = await runCli(['doctor', '--folder', path.join(REPO_ROOT, 'demo')]);
      assert.match(table.stdout, /skills\s+refunds \(2 files\), release-notes \(2 files\)/);
    });
  });
});
