// The doctor's pure parts, in process: result formatting for content the fixtures never send,
// argument and target parsing, the default timeout, the report's derived fields and exit code.
import assert from 'node:assert/strict';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ConfigDiagnostic, InvalidServer } from '../../../src/core/config';
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
} from '../../../src/core/doctor';
import type { ServerView } from '../../../src/core/manager';
import { stdioDefinition } from '../connection/helpers';

const source = { kind: 'workspace', file: '/ws/.vscode/settings.json' } as const;

function workspace(overrides: Partial<LoadedWorkspace> = {}): LoadedWorkspace {
  return { kind: 'loaded', folder: '/ws', settingsFile: source.file, settingsFound: true, servers: [], diagnostics: [], ...overrides };
}

function view(name: string, state: ServerView['state'], overrides: Partial<ServerView> = {}): ServerView {
  return { name, source, state, tools: [], diagnostics: [], stderrTail: [], ...overrides };
}

const running = (connectMs: number): ServerView['state'] => ({
  kind: 'running',
  transport: 'stdio',
  serverInfo: { name: 'x', version: '1' },
  protocolVersion: '2025-06-18',
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
          { type: 'resource', resource: { uri: 'file:///blob.bin', mimeType: 'application/zip', blob: Buffer.alloc(5).toString('base64') } },
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
      assert.deepEqual(ok, { ok: true, value: { folder: '/repo/demo', json: false, timeoutMs: 2500 } });
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
      const many = Array.from({ length: 17 }, (_, index) => stdioDefinition([], { name: `s${index}`, timeouts: { connectMs: 1_000, requestMs: 1 } }));
      assert.equal(defaultTimeoutMs(many), 4_000);
    });
  });

  describe('report', () => {
    it('takes titles from the tool or its annotations, and readOnly only from readOnlyHint === true', () => {
      const report = buildReport(
        workspace(),
        [
          view('s', running(12), {
            tools: [
              { name: 'a', title: 'Tool A', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
              { name: 'b', inputSchema: { type: 'object' }, annotations: { title: 'Tool B', readOnlyHint: false } },
              { name: 'c', inputSchema: { type: 'object' } },
            ],
          }),
        ],
        'settled',
        1000,
      );
      assert.deepEqual(toJsonReport(report).servers[0]?.tools, [
        { name: 'a', title: 'Tool A', readOnly: true },
        { name: 'b', title: 'Tool B', readOnly: false },
        { name: 'c', readOnly: false },
      ]);
    });

    it('lists an invalid server\'s diagnostics once even though the loader reports them twice', () => {
      const diagnostic: ConfigDiagnostic = { severity: 'error', server: 'bad', path: 'servers.bad.url', message: 'not a URL', source };
      const second: ConfigDiagnostic = { ...diagnostic, path: 'servers.bad.command', message: 'must not be empty' };
      const invalid: InvalidServer = { name: 'bad', source, diagnostics: [diagnostic, second] };
      const report = buildReport(
        workspace({ servers: [invalid], diagnostics: [{ ...diagnostic }, { ...second }] }),
        [view('bad', { kind: 'invalid', diagnostics: [diagnostic, second] }, { diagnostics: [diagnostic, second] })],
        'settled',
        1000,
      );
      const server = report.servers[0];
      assert.equal(server?.diagnostics.length, 2);
      assert.equal(server?.error, 'servers.bad.url: not a URL (and 1 more)');
      assert.deepEqual(report.diagnostics, []);
    });

    it('fails (exit 1) on a configuration error that belongs to no server, not on a warning', () => {
      const fileError: ConfigDiagnostic = { severity: 'error', path: '', message: 'broken mcp.json', source: { kind: 'mcpJson', file: '/ws/.vscode/mcp.json' } };
      const warning: ConfigDiagnostic = { ...fileError, severity: 'warning' };
      const views = [view('ok', running(5))];
      assert.equal(exitCodeFor(buildReport(workspace({ diagnostics: [warning] }), views, 'settled', 1)), 0);
      assert.equal(exitCodeFor(buildReport(workspace({ diagnostics: [fileError] }), views, 'settled', 1)), 1);
      assert.match(formatTableReport(buildReport(workspace({ diagnostics: [fileError] }), views, 'settled', 1)), /Configuration:\n\s+error\s+broken mcp\.json \(\/ws\/\.vscode\/mcp\.json\)/);
    });

    it('keeps each table row on one line when an error message has several', () => {
      const state: ServerView['state'] = { kind: 'error', code: 'PROTOCOL_ERROR', message: 'first\nsecond', stderrTail: [], since: 0 };
      const text = formatTableReport(buildReport(workspace(), [view('multi', state)], 'settled', 1));
      assert.match(text, /^multi\s+error\s+-\s+-\s+first second$/m);
    });
  });
});
