#!/usr/bin/env node
// `npm start`: builds the extension, sets up the pinned editor if needed, and opens the demo
// workspace in code-server on 127.0.0.1 with the extension loaded from this folder.
//   npm start [-- --port N]
// package.json runs it as `exec node …`: npm passes a SIGINT it gets to its script's shell, and a
// shell waiting for a child does nothing with it; exec makes this process that shell.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { isAlive } from './processes.mjs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cacheDir, repoRoot } from './harness-paths.mjs';
import { setupEditor } from './setup-editor.mjs';
import { startCodeServer } from '../test/harness/editor.mjs';

const { values: flags } = parseArgs({ options: { port: { type: 'string' } } });

execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'build.mjs')], { stdio: 'inherit' });
await setupEditor({ needBrowser: false });

const workspace = path.join(repoRoot, 'demo');
// Skills installed into the demo workspace by an earlier run go too: the tour starts with none.
for (const agent of ['.github', '.claude', '.agents']) fs.rmSync(path.join(workspace, agent, 'skills'), { recursive: true, force: true });
let stopping = false;
// A stable extensions folder keeps what the user installs between runs; the user-data folder is
// fresh each time, so the demo starts from the same state.
const extensionsDir = path.join(cacheDir, 'start', 'extensions');
fs.mkdirSync(extensionsDir, { recursive: true });
installFromRepository(extensionsDir);

const server = await startCodeServer({
  workspace,
  extensionsDir,
  port: flags.port ? Number(flags.port) : undefined,
  // Installed, not loaded for development: the workbench then shows toasts as it does for a user.
  smokeTestDriver: false,
  // The demo folder sits inside this repository; the editor's offer to open that repository is not
  // part of the tour.
  userSettings: { 'git.openRepositoryInParentFolders': 'never' },
  log: (line) => {
    // The extension gallery is unreachable on a closed network and says so twice; it is not ours.
    // Nor is the editor's file watcher losing a path that came and went (a sandbox's mount point).
    // Once stopping, what code-server says of its own shutdown is not news.
    if (stopping) return;
    if (/\berror\b/i.test(line) && !/extensionquery|open-vsx\.org|File Watcher .*ENOENT/.test(line)) console.error(`[code-server] ${line}`);
  },
});
const url = server.workbenchUrl();

// The guard cleans up however this process ends, even by SIGKILL or when npm alone is signalled
// and this process is left behind; its own session keeps it out of the terminal's hang-up.
spawn(process.execPath, [path.join(repoRoot, 'scripts', 'start-guard.mjs'), String(process.pid), String(server.pid), server.stateDir], {
  detached: true,
  stdio: 'ignore',
}).unref();

console.log(`\nMCP Switchboard is running in code-server (pid ${server.pid}) on the demo workspace.`);
console.log(`Open: ${url}\n`);
console.log('The demo starts fresh each time: its user settings and your answers to its consent dialogs are not kept.');
console.log('Press Ctrl-C to stop.');

async function stop(reason) {
  if (stopping) return;
  stopping = true;
  console.log(`\n[start] ${reason}: stopping code-server`);
  await server.stop();
  process.exit(0);
}
// SIGHUP: the terminal was closed.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stop(signal));
// npm may exit on a signal without passing it on, leaving `sh -c` and this process behind: stop
// when any process above this one (npm, its shell, the terminal's shell) is gone.
const ancestors = ancestorPids();
setInterval(() => {
  if (ancestors.some((pid) => !isAlive(pid))) void stop('npm exited');
}, 500).unref();

/**
 * The extension as an installed one: a copy of what the .vsix ships (the build, media, manifest and
 * docs, a few MB), made at every start. Development extensions need the smoke-test driver, which
 * hides every toast. Links to the repository would spare the copy, but the editor then does not see
 * the manifest's contribution points (activation fails on the MCP definition provider). Without
 * extensions.json the editor scans the folder again, so this copy and whatever the user installed
 * are both found.
 */
function installFromRepository(extensionsDir) {
  const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
  const prefix = `${manifest.publisher}.${manifest.name}-`;
  for (const entry of fs.readdirSync(extensionsDir)) {
    if (entry.startsWith(prefix)) fs.rmSync(path.join(extensionsDir, entry), { recursive: true, force: true });
  }
  const folder = path.join(extensionsDir, `${prefix}${manifest.version}`);
  fs.mkdirSync(folder);
  for (const item of ['package.json', 'dist', 'media', 'README.md', 'CHANGELOG.md', 'LICENSE']) {
    fs.cpSync(path.join(repoRoot, item), path.join(folder, item), { recursive: true, dereference: true });
  }
  fs.rmSync(path.join(extensionsDir, 'extensions.json'), { force: true });
}

/** This process's ancestors below init (Linux: from /proc; elsewhere just the parent). */
function ancestorPids() {
  const pids = [];
  let pid = process.ppid;
  while (pid > 1 && pids.length < 32) {
    pids.push(pid);
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      break;
    }
  }
  return pids;
}
