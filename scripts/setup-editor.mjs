#!/usr/bin/env node
// Installs what the editor tests and `npm start` need: Node 24 and code-server from npm (pinned by
// test/harness/package-lock.json) into .vscode-test/harness, and Debian's Chromium. A no-op when
// the cache already matches the lockfile, so every test run can call it.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromiumPath, codeServerEntry, harnessDir, harnessSpecDir, node24 } from './harness-paths.mjs';

const lockfile = path.join(harnessSpecDir, 'package-lock.json');
const stampFile = path.join(harnessDir, '.installed-lock-sha256');

function lockHash() {
  return createHash('sha256').update(fs.readFileSync(lockfile)).digest('hex');
}

function harnessIsCurrent() {
  try {
    return fs.readFileSync(stampFile, 'utf8').trim() === lockHash()
      && fs.existsSync(codeServerEntry) && fs.existsSync(node24);
  } catch {
    return false;
  }
}

function installHarness() {
  console.log(`[setup-editor] installing Node 24 and code-server into ${harnessDir} (about 2 minutes, once)`);
  fs.rmSync(harnessDir, { recursive: true, force: true });
  fs.mkdirSync(harnessDir, { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) {
    fs.copyFileSync(path.join(harnessSpecDir, file), path.join(harnessDir, file));
  }
  // Install scripts stay off: code-server ships prebuilt linux-x64 modules, and its scripts would
  // need Kerberos headers and the network.
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: harnessDir,
    stdio: 'inherit',
  });
  fs.writeFileSync(stampFile, lockHash());
}

function ensureChromium() {
  if (fs.existsSync(chromiumPath)) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    throw new Error(`Chromium is missing at ${chromiumPath}. Install it with: sudo apt-get install -y chromium`);
  }
  console.log('[setup-editor] installing Debian chromium');
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

export function setupEditor({ needBrowser = true } = {}) {
  if (!harnessIsCurrent()) installHarness();
  if (needBrowser) ensureChromium();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    setupEditor({ needBrowser: !process.argv.includes('--no-browser') });
    console.log('[setup-editor] ready');
  } catch (error) {
    console.error(`[setup-editor] ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
