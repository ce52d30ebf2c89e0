// The doctor's pure parts, in process: result formatting for content the fixtures never send,
// argument and target parsing, the default timeout, the report's derived fields and exit code.
import assert from 'node:assert/strict';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { buildSnapshot, DEFAULT_MAX_EXPOSED, prepareToolList, type CatalogSnapshot } from '../../../src/core/catalog';
import type { ConfigDiagnostic, InvalidServer, ToolFilterSettings } from '../../../src/core/config';
import {
  buildReport,
  defaultTimeoutMs,
  exitCodeFor,
  formatCallResult,
  formatTableReport,
  parseCallArgs,
  parseDoctorOptions,
  splitCallTarget,
  toJsonReport,
  type LoadedWorkspace,
} from '../../../src/core/cli/doctor';
import { DEFAULT_CONCURRENCY, type ServerView } from '../../../src/core/manager';
import { stdioDefinition } from '../connection/helpers';

const source = { kind: 'workspace', file: '/ws/.vscode/settings.json' } as const;

function workspace(overrides: Partial<LoadedWorkspace> = {}): LoadedWorkspace {
  return { kind: 'loaded', folder: '/ws', settingsFile: source.file, settingsFound: true, servers: [], diagnostics: [], ...overrides };
}

function view(name: string, state: ServerView['state'], overrides: Partial<ServerView> = {}): ServerView {
  return { name, source, state, tools: [], diagnostics: [], stderrTail: [], tasks: [], ...overrides };
}

/** The catalog over `views`, as the doctor's ToolCatalog would build it once they have settled. */
function catalogOf(
  views: readonly ServerView[],
  options: { globalDeny?: string[]; disabled?: string[]; maxExposed?: number; filters?: Record<string, ToolFilterSettings> } = {},
): CatalogSnapshot {
  const inputs = views.map((entry) => ({
    name: entry.name,
    state: entry.state.kind,
    fromCache: false,
    ...(entry.state.kind === 'running' ? { tools: prepareToolList(entry.tools) } : {}),
    ...(options.filters?.[entry.name] ? { filters: options.filters[entry.name] } : {}),
  }));
  const settings = {
    globalDeny: options.globalDeny ?? [],
    disabled: options.disabled ?? [],
    maxExposed: options.maxExposed ?? DEFAULT_MAX_EXPOSED,
  };
  return buildSnapshot(inputs, settings).snapshot;
}

/** buildReport with the catalog derived from the same views. */
function report(
  ws: LoadedWorkspace,
  views: ServerView[],
  outcome: 'settled' | 'timeout' = 'settled',
  timeoutMs = 1000,
  options: Parameters<typeof catalogOf>[1] = {},
) {
  return buildReport(ws, views, catalogOf(views, options), outcome, timeoutMs);
}

const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({ name, inputSchema: { type: 'object' }, ...extra });

const running = (connectMs: number): ServerView['state'] => ({
  kind: 'running',
  transport: 'stdio',
  serverInfo: { name: 'x', version: '1' },
  protocolVersion: '2025-06-18',
  era: 'legacy',
  capabilities: {},
  since: 0,
  connectMs,
  toolCount: 0,
});

describe('doctor units', () => {
  describe('formatCallResult', () => {
    it('prints text as-is, binary content as a size summary, resources with their uri, then structuredContent', () => {
      const result: CallToolResult = {
        content: [
          { type: 'text', text: 'plain text' },
          { type: 'image', mimeType: 'image/png', data: Buffer.alloc(1000).toString('base64') },
          { type: 'audio', mimeType: 'audio/wav', data: Buffer.alloc(7).toString('base64') },
          { type: 'resource', resource: { uri: 'file:///notes.md', text: '# Notes' } },
          {
            type: 'resource',
            resource: { uri: 'file:///blob.bin', mimeType: 'application/zip', blob: Buffer.alloc(5).toString('base64') },
          },
          { type: 'resource_link', uri: 'file:///linked.txt', name: 'linked' },
        ],
        structuredContent: { answer: 42 },
      };
      assert.equal(
        formatCallResult(result),
        [
          'plain text',
          '[image image/png, 1000 bytes]',
          '[audio audio/wav, 7 bytes]',
          'file:///notes.md',
          '# Notes',
          'file:///blob.bin',
          '[blob application/zip, 5 bytes]',
          '[resource link file:///linked.txt (linked)]',
          '{',
          '  "answer": 42',
          '}',
          '',
        ].join('\n'),
      );
    });

    it('does not add a second newline to text that already ends with one', () => {
      assert.equal(formatCallResult({ content: [{ type: 'text', text: 'line\n' }] }), 'line\n');
    });
  });

  describe('--call and --args', () => {
    it('splits SERVER/TOOL at the longest configured server name, else at the first slash', () => {
      assert.deepEqual(splitCallTarget('a/b/c', ['a', 'a/b']), { server: 'a/b', tool: 'c' });
      assert.deepEqual(splitCallTarget('a/b/c', ['a']), { server: 'a', tool: 'b/c' });
      assert.deepEqual(splitCallTarget('x/y', []), { server: 'x', tool: 'y' });
    });

    it('accepts only a JSON object for --args', () => {
      assert.deepEqual(parseCallArgs(undefined), { ok: true, value: {} });
      assert.deepEqual(parseCallArgs('{"a":1}'), { ok: true, value: { a: 1 } });
      for (const text of ['[]', 'null', '"s"', '3', '{']) assert.equal(parseCallArgs(text).ok, false, text);
    });

    it('rejects a --call without both halves, and --args without --call', () => {
      for (const call of ['tool', '/tool', 'server/']) assert.equal(parseDoctorOptions({ call }).ok, false, call);
      assert.equal(parseDoctorOptions({ args: '{}' }).ok, false);
    });

    it('takes --timeout only as a positive whole number of milliseconds', () => {
      const ok = parseDoctorOptions({ timeout: '2500', folder: 'demo' }, '/repo');
      assert.deepEqual(ok, { ok: true, value: { folder: '/repo/demo', json: false, trustWorkspace: false, timeoutMs: 2500 } });
      for (const timeout of ['0', '-5', '1.5', 'abc', '', '99999999999']) assert.equal(parseDoctorOptions({ timeout }).ok, false, timeout);
    });
  });

  describe('defaultTimeoutMs', () => {
    it('is the longest enabled connect timeout plus a margin, with 30 s standing in for "no limit"', () => {
      const fast = stdioDefinition([], { name: 'fast', timeouts: { connectMs: 5_000, requestMs: 1 } });
      const slow = stdioDefinition([], { name: 'slow', timeouts: { connectMs: 9_000, requestMs: 1 } });
      const off = stdioDefinition([], { name: 'off', enabled: false, timeouts: { connectMs: 90_000, requestMs: 1 } });
      const unlimited = stdioDefinition([], { name: 'unlimited', timeouts: { connectMs: 0, requestMs: 1 } });
      assert.equal(defaultTimeoutMs([fast, slow, off]), 11_000);
      assert.equal(defaultTimeoutMs([fast, unlimited]), 32_000);
      assert.equal(defaultTimeoutMs([]), 30_000);
    });

    it('allows one connect timeout per wave of the concurrency limit', () => {
      const many = Array.from({ length: DEFAULT_CONCURRENCY + 1 }, (_, index) =>
        stdioDefinition([], { name: `s${index}`, timeouts: { connectMs: 1_000, requestMs: 1 } }),
      );
      assert.equal(defaultTimeoutMs(many), 4_000);
    });
  });

  describe('report', () => {
    it('takes titles from the tool or its annotations, and readOnly only from readOnlyHint === true', () => {
      const built = report(workspace(), [
        view('s', running(12), {
          tools: [
            tool('c'),
            tool('a', { title: 'Tool A', annotations: { readOnlyHint: true } }),
            tool('b', { annotations: { title: 'Tool B', readOnlyHint: false } }),
          ],
        }),
      ]);
      assert.deepEqual(
        toJsonReport(built).servers[0]?.tools,
        [
          { name: 'c', qualifiedName: 's__c', readOnly: false, exposed: true },
          { name: 'a', title: 'Tool A', qualifiedName: 's__a', readOnly: true, exposed: true },
          { name: 'b', title: 'Tool B', qualifiedName: 's__b', readOnly: false, exposed: true },
        ],
        'in the order the server listed them, although the catalog sorts by name',
      );
    });

    it("lists an invalid server's diagnostics once even though the loader reports them twice", () => {
      const diagnostic: ConfigDiagnostic = { severity: 'error', server: 'bad', path: 'servers.bad.url', message: 'not a URL', source };
      const second: ConfigDiagnostic = { ...diagnostic, path: 'servers.bad.command', message: 'must not be empty' };
      const invalid: InvalidServer = { name: 'bad', source, diagnostics: [diagnostic, second] };
      const built = report(workspace({ servers: [invalid], diagnostics: [{ ...diagnostic }, { ...second }] }), [
        view('bad', { kind: 'invalid', diagnostics: [diagnostic, second] }, { diagnostics: [diagnostic, second] }),
      ]);
      const server = built.servers[0];
      assert.equal(server?.diagnostics.length, 2);
      assert.equal(server?.error, 'servers.bad.url: not a URL (and 1 more)');
      assert.deepEqual(built.diagnostics, []);
    });

    it('fails (exit 1) on a configuration error that belongs to no server, not on a warning', () => {
      const fileError: ConfigDiagnostic = {
        severity: 'error',
        path: '',
        message: 'broken mcp.json',
        source: { kind: 'mcpJson', file: '/ws/.vscode/mcp.json' },
      };
      const warning: ConfigDiagnostic = { ...fileError, severity: 'warning' };
      const views = [view('ok', running(5))];
      assert.equal(exitCodeFor(report(workspace({ diagnostics: [warning] }), views)), 0);
      assert.equal(exitCodeFor(report(workspace({ diagnostics: [fileError] }), views)), 1);
      assert.match(
        formatTableReport(report(workspace({ diagnostics: [fileError] }), views)),
        /Configuration:\n\s+error\s+broken mcp\.json \(\/ws\/\.vscode\/mcp\.json\)/,
      );
    });

    it('keeps each table row on one line when an error message has several, with the rest under it', () => {
      const state: ServerView['state'] = {
        kind: 'error',
        code: 'ENOENT',
        message: 'command `x` not found on PATH\nSearched (PATH, in order):\n/usr/bin\n/bin',
        stderrTail: [],
        since: 0,
      };
      const text = formatTableReport(report(workspace(), [view('multi', state)]));
      assert.match(text, /^multi\s+error\s+-\s+-\s+-\s+-\s+-\s+command `x` not found on PATH$/m);
      assert.match(text, /^ {4}error:\n {6}Searched \(PATH, in order\):\n {6}\/usr\/bin\n {6}\/bin$/m);
    });
  });

  describe('catalog in the report', () => {
    const eleven = ['echo', 'add', 'slow', 'fail', 'count', 'env', 'cwd', 'stderr', 'add_tool', 'rpc_error', 'stats'].map((name) =>
      tool(name),
    );

    it('gives every tool qualifiedName and exposed, and filteredBy naming the rule when hidden', () => {
      const built = report(
        workspace(),
        [view('s', running(3), { tools: eleven }), view('t', running(4), { tools: [tool('echo'), tool('x'), tool('y')] })],
        'settled',
        1000,
        {
          filters: { s: { deny: ['add*'] }, t: { allow: ['echo', 'x'] } },
          globalDeny: ['t/x'],
          disabled: ['s/echo'],
        },
      );
      const json = toJsonReport(built);
      const s = json.servers[0]?.tools ?? [];
      const byName = (name: string) => s.find((entry) => entry.name === name);
      assert.deepEqual(byName('add'), {
        name: 'add',
        qualifiedName: 's__add',
        readOnly: false,
        exposed: false,
        filteredBy: 'denied by the tools.deny pattern "add*" of server "s"',
      });
      assert.match(byName('add_tool')?.filteredBy ?? '', /tools\.deny pattern "add\*"/);
      assert.deepEqual(byName('echo'), {
        name: 'echo',
        qualifiedName: 's__echo',
        readOnly: false,
        exposed: false,
        filteredBy: 'disabled in mcpSwitchboard.tools.disabled',
      });
      assert.deepEqual(byName('slow'), { name: 'slow', qualifiedName: 's__slow', readOnly: false, exposed: true });
      for (const entry of s) assert.equal('filteredBy' in entry, !entry.exposed, entry.name);
      const t = json.servers[1]?.tools ?? [];
      assert.deepEqual(
        t.map((entry) => [entry.name, entry.exposed, entry.filteredBy]),
        [
          ['echo', true, undefined],
          ['x', false, 'denied by the mcpSwitchboard.tools.deny pattern "t/x"'],
          ['y', false, 'not matched by the tools.allow list of server "t"'],
        ],
      );

      const table = formatTableReport(built);
      assert.match(table, /^s\s+running\s+8\/11\s+0\s+0\s+3 ms\s+2025-06-18 \(legacy\)$/m);
      assert.match(table, /^t\s+running\s+1\/3\s+0\s+0\s+4 ms\s+2025-06-18 \(legacy\)$/m);
      assert.match(table, /^\s{4}hidden\s+add: denied by the tools\.deny pattern "add\*" of server "s"$/m);
      assert.match(table, /^\s{4}hidden\s+echo: disabled in mcpSwitchboard\.tools\.disabled$/m);
      assert.match(table, /2 of 2 enabled servers running\. 9 of 14 tools exposed to chat and the gateway\./);
    });

    it('groups the tools cut by maxExposed into one line, and says so under Catalog', () => {
      const built = report(workspace(), [view('s', running(1), { tools: eleven })], 'settled', 1000, { maxExposed: 4 });
      const tools = toJsonReport(built).servers[0]?.tools ?? [];
      assert.equal(tools.filter((entry) => entry.exposed).length, 4);
      assert.ok(
        tools.filter((entry) => !entry.exposed).every((entry) => /mcpSwitchboard\.tools\.maxExposed \(4\)/.test(entry.filteredBy ?? '')),
      );
      const table = formatTableReport(built);
      assert.match(table, /^s\s+running\s+4\/11/m);
      assert.match(table, /^\s{4}hidden\s+7 tools beyond mcpSwitchboard\.tools\.maxExposed \(4\)$/m);
      assert.equal(table.match(/^\s+hidden/gm)?.length, 1, `one line for the budget:\n${table}`);
      assert.match(table, /Catalog:\n\s+warning\s+11 tools passed the filters but only 4 can be offered/);
    });

    it('shows a per-server catalog warning under its row, and caps the hidden list', () => {
      const many = Array.from({ length: 14 }, (_, index) => tool(`t${String(index).padStart(2, '0')}`));
      const built = report(workspace(), [view('s', running(1), { tools: many })], 'settled', 1000, {
        filters: { s: { allow: ['nothing*'] } },
      });
      const table = formatTableReport(built);
      assert.match(table, /^s\s+running\s+0\/14/m);
      assert.equal(table.match(/^\s{4}hidden\s+t\d\d: /gm)?.length, 10);
      assert.match(table, /^\s{4}hidden\s+\.\.\. and 4 more \(--json lists every tool\)$/m);
      assert.match(table, /^\s{4}warning\s+The tools\.allow pattern "nothing\*" of server "s" matches none of its tools\.$/m);
    });

    it('reports no tools (and "-") for a server that is not running', () => {
      const state: ServerView['state'] = { kind: 'error', code: 'PROTOCOL_ERROR', message: 'boom', stderrTail: [], since: 0 };
      const built = report(workspace(), [view('down', state, { tools: eleven })]);
      assert.deepEqual(toJsonReport(built).servers[0]?.tools, []);
      assert.match(formatTableReport(built), /^down\s+error\s+-\s+-\s+-\s+-\s+-\s+boom$/m);
    });
  });
});
