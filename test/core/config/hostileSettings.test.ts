// Issue: hostile settings files. 10,000 levels of nesting crashed the JSONC reader with a
// RangeError; duplicate keys were dropped silently; a server named __proto__ vanished; a UTF-16 file
// gave a screen of parse errors; a 500-character name broke the doctor table.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { loadFolderConfiguration } from '../../../src/core/config';
import { parseJsonc } from '../../../src/core/config/jsonc';
import { Cleanup } from '../connection/helpers';
import { buildCli, fixture, runCli, tableRow, tempWorkspace } from '../doctor/helpers';

const SOURCE = { kind: 'workspace' as const, file: '/ws/.vscode/settings.json' };

function nested(levels: number): string {
  return `${'['.repeat(levels)}1${']'.repeat(levels)}`;
}

describe('hostile settings files', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('cuts a value nested 10,000 levels deep, names its path, and keeps every other server', async () => {
    const good = JSON.stringify(fixture());
    const text = `{\n  "mcpSwitchboard.servers": {\n    "deep": { "command": "node", "args": ${nested(10_000)} },\n    "good": ${good}\n  }\n}\n`;
    const parsed = parseJsonc(text, SOURCE);
    assert.deepEqual(
      parsed.diagnostics.map((d) => [d.severity, d.path, d.line]),
      [['error', `["mcpSwitchboard.servers"].deep.args${'[0]'.repeat(61)}`, 3]],
    );
    assert.match(parsed.diagnostics[0]?.message ?? '', /nested more than 64 levels deep; it was ignored/);

    const ws = tempWorkspace(cleanup, text);
    const loaded = await loadFolderConfiguration(ws.dir, { env: {} });
    assert.equal(loaded.kind, 'loaded');
    if (loaded.kind !== 'loaded') return;
    const good_ = loaded.servers.find((server) => server.name === 'good');
    assert.ok(good_ && 'transport' in good_, 'the good server is kept');
    assert.ok(loaded.diagnostics.some((d) => /nested more than 64 levels/.test(d.message)));
  });

  it('warns about a second mcpSwitchboard.servers block and a server named twice, naming both lines', () => {
    const text = [
      '{',
      '  "mcpSwitchboard.servers": { "a": { "command": "x" } },',
      '  "mcpSwitchboard.servers": {',
      '    "b": { "command": "first" },',
      '    "b": { "command": "second" }',
      '  }',
      '}',
    ].join('\n');
    const parsed = parseJsonc(text, SOURCE);
    const messages = parsed.diagnostics.map((d) => `${d.severity} ${d.path}: ${d.message}`);
    assert.deepEqual(messages, [
      'warning ["mcpSwitchboard.servers"]: "mcpSwitchboard.servers" is defined twice (line 2 and line 3); the one at line 3 is used',
      'warning ["mcpSwitchboard.servers"].b: "b" is defined twice (line 4 and line 5); the one at line 5 is used',
    ]);
    assert.deepEqual(parsed.value, { 'mcpSwitchboard.servers': { b: { command: 'second' } } });
  });

  it('keeps a server named __proto__ as a key, rejects it with a diagnostic, and keeps the others', async () => {
    const text = `{ "mcpSwitchboard.servers": { "__proto__": { "command": "x" }, "good": ${JSON.stringify(fixture())} } }`;
    const parsed = parseJsonc(text, SOURCE);
    const servers = (parsed.value as Record<string, Record<string, unknown>>)['mcpSwitchboard.servers'];
    assert.ok(servers);
    assert.equal(Object.getPrototypeOf(servers), Object.prototype);
    assert.deepEqual(Object.keys(servers), ['__proto__', 'good']);
    const ws = tempWorkspace(cleanup, text);
    const loaded = await loadFolderConfiguration(ws.dir, { env: {} });
    assert.equal(loaded.kind, 'loaded');
    if (loaded.kind !== 'loaded') return;
    assert.deepEqual(
      loaded.servers.map((server) => [server.name, 'transport' in server]),
      [
        ['__proto__', false],
        ['good', true],
      ],
    );
    const proto = loaded.servers[0];
    assert.ok(proto && !('transport' in proto));
    assert.match(proto.diagnostics.map((d) => d.message).join('\n'), /"__proto__" is reserved/);
  });

  for (const [label, bytes] of [
    ['UTF-16 with a byte-order mark', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"mcpSwitchboard.servers": {}}', 'utf16le')])],
    ['UTF-16 without one', Buffer.from('{"mcpSwitchboard.servers": {}}', 'utf16le')],
  ] as const) {
    it(`says in one line that a ${label} file must be saved as UTF-8`, async () => {
      const ws = tempWorkspace(cleanup, '{}');
      fs.writeFileSync(ws.file('.vscode/settings.json'), bytes);
      const loaded = await loadFolderConfiguration(ws.dir, { env: {} });
      assert.equal(loaded.kind, 'unreadable');
      assert.equal(loaded.diagnostics.length, 1);
      assert.match(loaded.diagnostics[0]?.message ?? '', /settings\.json is encoded as UTF-16 \(little-endian.*\); save it as UTF-8$/);
    });
  }

  it('a UTF-8 byte-order mark is fine', async () => {
    const ws = tempWorkspace(cleanup, '{}');
    fs.writeFileSync(ws.file('.vscode/settings.json'), `\uFEFF${JSON.stringify({ 'mcpSwitchboard.servers': { good: fixture() } })}`);
    const loaded = await loadFolderConfiguration(ws.dir, { env: {} });
    assert.equal(loaded.kind, 'loaded');
    assert.deepEqual(loaded.diagnostics, []);
  });

  describe('through the doctor CLI', () => {
    before(function () {
      this.timeout(120_000);
      buildCli();
    });

    it('reports the deep value and runs the other server, and keeps 200- and 500-character names readable', async () => {
      const longName = `s${'x'.repeat(199)}`;
      const tooLong = `t${'y'.repeat(499)}`;
      const text = `{ "mcpSwitchboard.servers": { "deep": { "command": "node", "args": ${nested(10_000)} }, ${JSON.stringify(longName)}: ${JSON.stringify(fixture())}, ${JSON.stringify(tooLong)}: ${JSON.stringify(fixture())} } }`;
      const ws = tempWorkspace(cleanup, text);
      const run = await runCli(['doctor', '--folder', ws.dir]);
      assert.equal(run.code, 1, run.stderr);
      assert.doesNotMatch(run.stdout + run.stderr, /RangeError|Maximum call stack/);
      assert.match(run.stdout, /nested more than 64 levels deep/);
      const row = tableRow(run.stdout, `${longName.slice(0, 39)}…`);
      assert.ok(row, run.stdout);
      assert.deepEqual(row.slice(0, 2), [`${longName.slice(0, 39)}…`, 'running']);
      assert.deepEqual(tableRow(run.stdout, `${tooLong.slice(0, 39)}…`)?.slice(0, 2), [`${tooLong.slice(0, 39)}…`, 'invalid']);
      assert.deepEqual(tableRow(run.stdout, 'deep')?.slice(0, 2), ['deep', 'invalid']);
      const header = run.stdout.split('\n').find((line) => line.startsWith('SERVER')) ?? '';
      assert.ok(header.indexOf('STATE') <= 42, header);
    });
  });
});
