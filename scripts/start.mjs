#!/usr/bin/env node
// `npm start`: builds the extension, sets up the pinned editor if needed, and opens the demo
// workspace in code-server on 127.0.0.1 with the extension loaded from this folder.
//   npm start [-- --port N]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cacheDir, repoRoot } from './harness-paths.mjs';
import { setupEditor } from './setup-editor.mjs';
import { startCodeServer } from '../test/harness/editor.mjs';

const { values: flags } = parseArgs({ options: { port: { type: 'string' } } });

execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'build.mjs')], { stdio: 'inherit' });
setupEditor({ needBrowser: false });

const workspace = path.join(repoRoot, 'demo');
// A stable extensions folder keeps what the user installs between runs; the user-data folder is
// fresh each time, so the demo starts from the same state.
const extensionsDir = path.join(cacheDir, 'start', 'extensions');
fs.mkdirSync(extensionsDir, { recursive: true });

const server = await startCodeServer({
  workspace,
  extensionsDir,
  port: flags.port ? Number(flags.port) : undefined,
  log: (line) => {
    if (/\berror\b/i.test(line)) console.error(`[code-server] ${line}`);
  },
});
const url = server.workbenchUrl({ developmentPath: repoRoot });

console.log('\nMCP Switchboard is running in code-server on the demo workspace.');
console.log(`Open: ${url}\n`);
console.log('Press Ctrl-C to stop.');

let stopping = false;
async function stop(signal) {
  if (stopping) return;
  stopping = true;
  console.log(`\n[start] ${signal}: stopping code-server`);
  await server.stop();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
