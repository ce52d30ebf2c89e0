import assert from 'node:assert/strict';
import type { CatalogSnapshot } from '../../../src/core/catalog/types';
import { describeRefetch, failureActions, noticeReason } from '../../../src/core/presentation/notices';

describe('notice texts', () => {
  it('a missing command names the command, not the ten-line PATH', () => {
    const message =
      'command `uvx` not found on PATH\nSearched (PATH, in order):\n/usr/local/sbin\n/usr/local/bin\n/usr/sbin\n/usr/bin\n/home/me/.cargo/bin';
    assert.equal(noticeReason(message), 'command `uvx` not found on PATH; the folders searched are in the logs');
    assert.equal(noticeReason('server process exited with code 1\nmore'), 'server process exited with code 1');
  });

  it('Invalidate Tool Cache says what it refetched and what it only cleared', () => {
    const tool = {
      server: 'a',
      name: 't',
      qualifiedName: 'a__t',
      tool: { name: 't', inputSchema: { type: 'object' as const } },
      readOnly: false,
      exposed: true,
    };
    const snapshot: CatalogSnapshot = {
      servers: [
        { name: 'a', state: 'running', fromCache: false, tools: [tool, { ...tool, name: 'u', qualifiedName: 'a__u' }] },
        { name: 'b', state: 'running', fromCache: false, tools: [tool] },
        { name: 'c', state: 'error', fromCache: false, tools: [] },
      ],
      warnings: [],
      eligible: 3,
      maxExposed: 128,
    };
    assert.equal(
      describeRefetch(snapshot, ['a', 'b', 'c']),
      'MCP Switchboard: tool cache invalidated; refetched a (2 tools), b (1 tool); cleared, not running: c (error).',
    );
    assert.equal(describeRefetch(snapshot, ['c']), 'MCP Switchboard: tool cache invalidated; cleared, not running: c (error).');
    // A lazy server listed again (fetched after the invalidation), idle once more.
    const lazy: CatalogSnapshot = {
      ...snapshot,
      servers: [{ name: 'l', state: 'idle', fromCache: true, fetchedAt: 2_000, tools: [tool] }],
    };
    assert.equal(
      describeRefetch(lazy, ['l'], 1_000),
      'MCP Switchboard: tool cache invalidated; refetched l (1 tool, started once to list them).',
    );
    assert.equal(describeRefetch(lazy, ['l'], 3_000), 'MCP Switchboard: tool cache invalidated; cleared, not running: l (idle).');
  });
});

describe('failure notice actions', () => {
  it('puts the action that fixes the cause first', () => {
    // A typo in the command: only the settings entry fixes it, and a reconnect is not offered.
    assert.deepEqual(failureActions('ENOENT'), ['openSettingsEntry', 'showLogs']);
    assert.equal(failureActions('PROCESS_EXITED')[0], 'showLogs');
    assert.equal(failureActions('SANDBOX_UNAVAILABLE')[0], 'reconnect');
    assert.equal(failureActions('CONNECT_FAILED')[0], 'reconnect');
  });
});
