#!/usr/bin/env node
// `npm run test:electron`: the same extension-host suite under @vscode/test-electron, on a desktop
// that can download VS Code from Microsoft's update service. These CI machines reach only the npm
// and Debian registries, so `npm test` uses code-server instead (test/harness/run-editor-tests.mjs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { repoRoot } from '../../scripts/harness-paths.mjs';

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-electron-'));
fs.cpSync(path.join(repoRoot, 'test', 'workspaces', 'basic'), workspace, { recursive: true });
try {
  await runTests({
    extensionDevelopmentPath: repoRoot,
    extensionTestsPath: path.join(repoRoot, 'out', 'test', 'editor', 'index.js'),
    launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust'],
    extensionTestsEnv: { SWITCHBOARD_SUITE: 'suite', SWITCHBOARD_TEST_WORKSPACE: workspace },
  });
} catch (error) {
  console.error(`[test:electron] ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  fs.rmSync(workspace, { recursive: true, force: true });
}
