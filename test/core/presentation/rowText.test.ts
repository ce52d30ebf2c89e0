import assert from 'node:assert/strict';
import type { ServerState } from '../../../src/core/state/serverState';
import { describeState } from '../../../src/core/presentation/stateText';
import { describeRow, ROW_ERROR_CODES, ROW_TEXT_BUDGET, rowPrimaryAction, type RowContext } from '../../../src/core/presentation/rowText';

describe('describeRow (the Servers view row, narrow)', () => {
  const now = 1_000_000;
  const running = (extra: Partial<Extract<ServerState, { kind: 'running' }>> = {}): ServerState => ({
    kind: 'running',
    transport: 'stdio',
    serverInfo: { name: 's', version: '1' },
    protocolVersion: '2025-06-18',
    era: 'legacy',
    capabilities: {},
    since: 0,
    connectMs: 84.4,
    toolCount: 12,
    ...extra,
  });
  const cases: Array<[string, ServerState, string, RowContext?]> = [
    ['running', running(), 'running · 12 tools'],
    [
      'running, most tools filtered: what chat gets, of how many',
      running({ toolCount: 17 }),
      'running · 1 of 17 offered',
      { tools: 17, offered: 1 },
    ],
    [
      'idle with cached tools, some filtered',
      { kind: 'idle', reason: 'lazy', since: 0 },
      'ready · 3 of 15 offered',
      { tools: 15, offered: 3 },
    ],
    ['running tasks for callers', running(), 'running · 2 tasks', { tasks: 2 }],
    ['running one task', running(), 'running · 1 task', { tasks: 1 }],
    [
      'running with quarantined tools',
      running({ toolCount: 3, quarantinedTools: [{ name: 'deep', problem: 'too deep' }] }),
      'running · 3 tools, 1 bad',
    ],
    ['idle with cached tools', { kind: 'idle', reason: 'lazy', since: 0 }, 'ready · 15 tools', { tools: 15 }],
    ['idle, nothing cached', { kind: 'idle', reason: 'unused', since: 0 }, 'ready'],
    ['starting', { kind: 'starting', since: 0 }, 'starting…'],
    ['starting a retry', { kind: 'starting', since: 0, attempt: 2, maxAttempts: 5 }, 'starting (2/5)'],
    ['a slow retry', { kind: 'starting', since: 0, attempt: 6, maxAttempts: 5 }, 'starting (slow retry)'],
    ['reconnecting', { kind: 'reconnecting', attempt: 3, maxAttempts: 5, nextTryAt: now + 3_200, lastError: 'x' }, 'retry in 4 s (3/5)'],
    [
      'a missing command',
      { kind: 'error', code: 'ENOENT', message: 'command `npx-typo` not found on PATH\nPATH:\n/usr/bin', stderrTail: [], since: 0 },
      'command not found',
    ],
    [
      'a missing folder',
      { kind: 'error', code: 'ENOENT', message: 'working directory `/x` does not exist (cwd of command `node`)', stderrTail: [], since: 0 },
      'folder not found',
    ],
    [
      'an exit code',
      { kind: 'error', code: 'PROCESS_EXITED', message: 'server process exited with code 1 during initialize', stderrTail: [], since: 0 },
      'exited (1)',
    ],
    [
      'a signal',
      {
        kind: 'error',
        code: 'PROCESS_EXITED',
        message: 'server process exited with signal SIGKILL during initialize',
        stderrTail: [],
        since: 0,
      },
      'exited (SIGKILL)',
    ],
    [
      'an HTTP status, not the port',
      {
        kind: 'error',
        code: 'HTTP_ERROR',
        message: 'streamable HTTP initialize at http://127.0.0.1:404/mcp failed with HTTP 503: busy',
        stderrTail: [],
        since: 0,
      },
      'HTTP 503',
    ],
    ['blocked, denied', { kind: 'blocked', reason: 'consentDenied', detail: 'denied by you (Allow… to be asked again)' }, 'denied by you'],
    ['blocked, asking', { kind: 'blocked', reason: 'consentPending', detail: 'waiting for your consent' }, 'waiting for consent'],
    ['needs more scope', { kind: 'needsSignIn', reason: 'scope', detail: 'x', scope: 'a b c', since: 0 }, 'needs more access'],
    [
      'invalid',
      {
        kind: 'invalid',
        diagnostics: [
          { severity: 'warning', path: 'servers.x.foo', message: 'unknown field', source: { kind: 'user' } },
          { severity: 'error', path: 'servers.some-long-server-name.args[2]', message: 'expected string', source: { kind: 'user' } },
        ],
      },
      'invalid: args[2]',
    ],
    ['invalid with no path', { kind: 'invalid', diagnostics: [] }, 'invalid settings'],
  ];
  for (const [title, state, expected, context] of cases) {
    it(title, () => assert.equal(describeRow(state, now, context), expected));
  }

  it('says a server the machine host runs for several windows is shared, and by how many', () => {
    assert.equal(describeRow(running({ toolCount: 12 }), now, { tools: 12, offered: 12, shared: 3 }), 'running · 12 tools · shared ×3');
    assert.equal(
      describeRow({ kind: 'idle', reason: 'lazy', since: 0 }, now, { tools: 12, offered: 12, shared: 2 }),
      'ready · 12 tools · shared ×2',
    );
    assert.equal(
      describeRow(running({ toolCount: 12 }), now, { tools: 12, offered: 12 }),
      'running · 12 tools',
      'not shared: nothing said',
    );
    assert.equal(
      describeRow(running({ toolCount: 12 }), now, { tools: 12, offered: 12, shared: 1 }),
      'running · 12 tools',
      'this window its only user: nothing said (the tooltip says where it runs)',
    );
  });

  it('counts as the tooltip and the status bar do: one figure everywhere', () => {
    const state = running({ toolCount: 17 });
    const counts = { tools: 17, offered: 1 };
    assert.match(describeRow(state, now, counts), /1 of 17 offered/);
    assert.match(describeState(state, now, counts), /1 of 17 offered/);
    assert.match(describeState({ kind: 'idle', reason: 'lazy', since: 0 }, now, counts), /1 of 17 offered cached/);
    assert.equal(describeRow(state, now, { tools: 17, offered: 17 }), 'running · 17 tools');
  });

  it('says what the budget left to search: all of the rest, or how many of it', () => {
    const state = running({ toolCount: 17 });
    assert.equal(describeRow(state, now, { tools: 17, offered: 9, bySearch: 8 }), 'running · 9 of 17 offered, the rest by search');
    assert.equal(describeRow(state, now, { tools: 17, offered: 9, bySearch: 5 }), 'running · 9 of 17 offered, 5 by search');
    assert.equal(describeRow(state, now, { tools: 17, offered: 9, bySearch: 0 }), 'running · 9 of 17 offered');
    assert.match(describeState(state, now, { tools: 17, offered: 9, bySearch: 8 }), /^running · 9 of 17 offered, the rest by search · /);
  });

  it('fits the budget for every error code, with the longest message parts', () => {
    for (const code of ROW_ERROR_CODES) {
      const text = describeRow(
        {
          kind: 'error',
          code,
          message: `server process exited with signal SIGTERM, failed with HTTP 500, ${'x'.repeat(400)}`,
          stderrTail: [],
          since: 0,
        },
        now,
      );
      assert.ok(text.length <= ROW_TEXT_BUDGET, `${code}: "${text}" (${text.length})`);
    }
  });

  it('fits the budget for every blocked and sign-in reason, and a long diagnostic path', () => {
    const states: ServerState[] = [
      ...(['untrusted', 'consentPending', 'consentDenied', 'needsInput'] as const).map((reason): ServerState => ({
        kind: 'blocked',
        reason,
        detail: 'x'.repeat(300),
      })),
      ...(['signInRequired', 'scope', 'refused'] as const).map((reason): ServerState => ({
        kind: 'needsSignIn',
        reason,
        detail: 'x'.repeat(300),
        scope: 'y'.repeat(300),
        since: 0,
      })),
      {
        kind: 'invalid',
        diagnostics: [{ severity: 'error', path: `servers.x.${'y'.repeat(200)}`, message: 'z'.repeat(300), source: { kind: 'user' } }],
      },
      { kind: 'idle', reason: 'lazy', since: 0 },
      running({ toolCount: 999 }),
    ];
    for (const state of states) {
      for (const tasks of [0, 32]) {
        const text = describeRow(state, now, { tools: 999, tasks });
        assert.ok(text.length <= ROW_TEXT_BUDGET, `${state.kind}: "${text}" (${text.length})`);
      }
    }
  });

  it('a running server offers no fix on hover (only Show Logs); a failed one its fix', () => {
    assert.equal(rowPrimaryAction(running()), undefined);
    assert.equal(
      rowPrimaryAction({ kind: 'error', code: 'ENOENT', message: 'command not found', stderrTail: [], since: 0 }),
      'openSettingsEntry',
    );
    assert.equal(rowPrimaryAction({ kind: 'error', code: 'PROCESS_EXITED', message: 'exited', stderrTail: [], since: 0 }), 'reconnect');
    assert.equal(rowPrimaryAction({ kind: 'idle', reason: 'lazy', since: 0 }), 'start');
  });
});
