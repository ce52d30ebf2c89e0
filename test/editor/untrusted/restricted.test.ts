import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { isKind, stateOf, switchboardApi, waitForServer } from '../support';

const marker = path.join(process.env.SWITCHBOARD_TEST_SCRATCH ?? '', 'workspace-server.json');

describe('Restricted Mode (an untrusted workspace)', function () {
  this.timeout(60_000);

  it('runs in an untrusted workspace', () => {
    assert.equal(vscode.workspace.isTrusted, false);
  });

  it('blocks servers defined by the workspace and never spawns them', async () => {
    const api = await switchboardApi();
    assert.deepEqual(stateOf(api, 'workspace-server'), { kind: 'blocked', reason: 'untrusted', detail: 'workspace not trusted' });
    assert.equal(api.tree().find((row) => row.label === 'workspace-server')?.description, 'untrusted workspace');
    // The user server reaching running proves servers were started at all.
    await waitForServer(api, 'user-server', isKind('running'));
    assert.equal(fs.existsSync(marker), false, `the workspace fixture must not have started (${marker})`);
  });
});
