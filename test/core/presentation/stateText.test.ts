import assert from 'node:assert/strict';
import type { ServerState } from '../../../src/core/state/serverState';
import { describeState } from '../../../src/core/presentation/stateText';

describe('describeState', () => {
  const now = 1_000_000;
  const cases: Array<[string, ServerState, string]> = [
    [
      'running',
      {
        kind: 'running',
        transport: 'stdio',
        serverInfo: { name: 's', version: '1' },
        protocolVersion: '2025-06-18',
        era: 'legacy',
        capabilities: {},
        since: 0,
        connectMs: 84.4,
        toolCount: 12,
      },
      'running · 12 tools · 84 ms',
    ],
    [
      'running with one tool',
      {
        kind: 'running',
        transport: 'http',
        serverInfo: { name: 's', version: '1' },
        protocolVersion: 'x',
        era: 'legacy',
        capabilities: {},
        since: 0,
        connectMs: 5,
        toolCount: 1,
      },
      'running · 1 tool · 5 ms',
    ],
    ['starting', { kind: 'starting', since: 0 }, 'starting…'],
    ['starting a retry', { kind: 'starting', since: 0, attempt: 2, maxAttempts: 5 }, 'starting (attempt 2/5)'],
    [
      'reconnecting',
      { kind: 'reconnecting', attempt: 3, maxAttempts: 5, nextTryAt: now + 3_200, lastError: 'x' },
      'reconnecting in 4 s (attempt 3/5)',
    ],
    [
      'error',
      { kind: 'error', code: 'ENOENT', message: 'command `uvx` not found on PATH\nPATH=/usr/bin', stderrTail: [], since: 0 },
      'error: command `uvx` not found on PATH',
    ],
    [
      'error with a slow retry',
      {
        kind: 'error',
        code: 'CONNECT_FAILED',
        message: 'gave up after 5 reconnect attempts: cannot reach x',
        stderrTail: [],
        since: 0,
        nextTryAt: now + 300_000,
      },
      'error: gave up after 5 reconnect attempts: cannot reach x · next try in 5 min',
    ],
    ['a slow retry', { kind: 'starting', since: 0, attempt: 6, maxAttempts: 5 }, 'starting (slow retry)'],
    [
      'running with quarantined tools',
      {
        kind: 'running',
        transport: 'stdio',
        serverInfo: { name: 's', version: '1' },
        protocolVersion: 'x',
        era: 'legacy',
        capabilities: {},
        since: 0,
        connectMs: 5,
        toolCount: 3,
        quarantinedTools: [{ name: 'deep', problem: 'too deep' }],
      },
      'running · 3 tools (1 quarantined) · 5 ms',
    ],
    ['blocked', { kind: 'blocked', reason: 'untrusted', detail: 'workspace not trusted' }, 'blocked: workspace not trusted'],
    ['disabled', { kind: 'disabled' }, 'disabled'],
    ['stopped', { kind: 'stopped' }, 'stopped'],
    [
      'invalid',
      {
        kind: 'invalid',
        diagnostics: [
          { severity: 'warning', path: 'servers.x.foo', message: 'unknown field', source: { kind: 'user' } },
          { severity: 'error', path: 'servers.x.args[2]', message: 'expected string', source: { kind: 'user' } },
        ],
      },
      'invalid: servers.x.args[2]: expected string',
    ],
  ];
  for (const [title, state, expected] of cases) {
    it(title, () => assert.equal(describeState(state, now), expected));
  }

  it('cuts a long error message to one short line', () => {
    const text = describeState({ kind: 'error', code: 'SERVER_ERROR', message: 'x'.repeat(500), stderrTail: [], since: 0 });
    assert.ok(text.length <= 'error: '.length + 120, text);
    assert.ok(text.endsWith('…'));
  });
});
