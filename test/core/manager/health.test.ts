// The status bar's groups of states, counted over a health summary.
import assert from 'node:assert/strict';
import { countWhere, readyCount } from '../../../src/core/manager';
import { summarizeHealth } from '../../../src/core/manager/health';
import { hasFailed, isInTrouble, STATE_KINDS, waitsForUser, type ServerState } from '../../../src/core/state/serverState';

const states: ServerState[] = [
  {
    kind: 'running',
    transport: 'stdio',
    serverInfo: { name: 'a', version: '1' },
    protocolVersion: '2025-11-25',
    era: 'legacy',
    capabilities: {},
    since: 0,
    connectMs: 1,
    toolCount: 1,
  },
  { kind: 'idle', reason: 'lazy', since: 0 },
  { kind: 'reconnecting', attempt: 1, maxAttempts: 5, nextTryAt: 0, lastError: 'x' },
  { kind: 'error', code: 'PROCESS_EXITED', message: 'x', stderrTail: [], since: 0 },
  { kind: 'invalid', diagnostics: [] },
  { kind: 'disabled' },
  { kind: 'blocked', reason: 'untrusted', detail: 'x' },
  { kind: 'needsSignIn', reason: 'signInRequired', detail: 'x', since: 0 },
  { kind: 'starting', since: 0 },
  { kind: 'stopped' },
];

describe('health groups', () => {
  it('counts each group of states over the summary', () => {
    const health = summarizeHealth(states);
    assert.equal(readyCount(health), 2, 'running and idle');
    assert.equal(countWhere(health, isInTrouble), 2, 'reconnecting and error');
    assert.equal(countWhere(health, hasFailed), 2, 'error and invalid');
    assert.equal(countWhere(health, waitsForUser), 3, 'disabled, blocked and needsSignIn');
  });

  it('lists every state kind once', () => {
    assert.deepEqual([...STATE_KINDS].sort(), [...new Set(states.map((state) => state.kind))].sort());
  });
});
