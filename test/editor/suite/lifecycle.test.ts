import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { SwitchboardApi } from '../../../src/extension';
import { isKind, switchboardApi, toolText, waitForServer } from '../support';
import { eventually } from '../../core/support/poll';

const scratch = process.env.SWITCHBOARD_TEST_SCRATCH ?? '';

/** The pid the fixture wrote when it last started (its --marker file). */
function markerPid(): number | undefined {
  try {
    return (JSON.parse(fs.readFileSync(path.join(scratch, 'sleepy.json'), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a lazy server in the real editor', function () {
  this.timeout(60_000);
  let api: SwitchboardApi;

  before(async () => {
    api = await switchboardApi();
  });

  it('learns its tools once, then shows idle with the tools cached, and its process is gone', async () => {
    await waitForServer(api, 'sleepy', (state) => state.kind === 'idle' && markerPid() !== undefined);
    const row = api.tree().find((item) => item.label === 'sleepy');
    assert.match(row?.description ?? '', /^ready · \d+ tools$/);
    assert.match(row?.tooltip ?? '', /ready · \d+ tools cached · starts when used/);
    assert.equal(row?.icon, 'pass');
    assert.ok(
      row?.children.some((child) => child.label === 'echo'),
      'its tools are listed while idle',
    );
    const pid = markerPid();
    assert.ok(pid !== undefined);
    // Ended with its session; the process may take a moment to exit after its stdin closes.
    await eventually(() => (isAlive(pid) ? undefined : true), 'the learning process to end', 10_000).catch(() => undefined);
    assert.equal(isAlive(pid), false, 'the learning process ended');
  });

  it('a tool call from chat starts it, and the call is answered', async () => {
    await waitForServer(api, 'sleepy', isKind('idle'));
    const learnedPid = markerPid();
    const result = await vscode.lm.invokeTool('mcpSwitchboard_callTool', {
      input: { tool: 'sleepy__echo', arguments: { text: 'wake up' } },
      toolInvocationToken: undefined,
    });
    assert.equal(toolText(result), 'wake up');
    assert.equal(api.servers().find((view) => view.name === 'sleepy')?.state.kind, 'running');
    assert.notEqual(markerPid(), learnedPid, 'a new process');
  });
});
