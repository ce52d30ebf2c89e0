// Starts a real VS Code (code-server from the pinned harness) and drives it with Debian's Chromium.
// Used by the editor test runner, the UI tests and `npm start`. See ../shared/notes/editor-harness.md
// for why this is the way to reach a real extension host on these machines.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromiumPath, codeServerEntry, node24, repoRoot } from '../../scripts/harness-paths.mjs';
import { endMachineHost, endProcessGroup } from '../../scripts/processes.mjs';

export { endMachineHost };

export const EXTENSION_ID = 'switchboard-labs.mcp-switchboard';

export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A throwaway copy of a workspace under test/workspaces, so tests can write its settings freely. */
export function copyWorkspace(name, root = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-ws-'))) {
  const target = path.join(root, name);
  fs.cpSync(path.join(repoRoot, 'test', 'workspaces', name), target, { recursive: true });
  return target;
}

const DEFAULT_USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'workbench.enableExperiments': false,
  'window.commandCenter': false,
};

/**
 * Starts code-server on 127.0.0.1. Resolves once /healthz answers.
 * @param {{ workspace?: string, extensionsDir?: string, userDataDir?: string, trust?: boolean, userSettings?: object,
 *           host?: string, port?: number, log?: (line: string) => void, env?: object, smokeTestDriver?: boolean }} options
 */
export async function startCodeServer(options = {}) {
  const port = options.port ?? (await freePort());
  const host = options.host ?? '127.0.0.1';
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-cs-'));
  // A given user-data folder outlives the run (bench:editor starts the editor again on a warm cache).
  const userDataDir = options.userDataDir ?? path.join(stateDir, 'user-data');
  const extensionsDir = options.extensionsDir ?? path.join(stateDir, 'extensions');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  // Extension folders copied in before code-server starts (before it writes extensions.json) are
  // installed; the folder name is publisher.name-version, as an installed extension's.
  for (const folder of options.extraExtensions ?? []) {
    const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8'));
    fs.cpSync(folder, path.join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`), { recursive: true });
  }
  fs.writeFileSync(
    path.join(userDataDir, 'User', 'settings.json'),
    JSON.stringify({ ...DEFAULT_USER_SETTINGS, ...options.userSettings }, null, 2),
  );
  // The editor's own MCP servers (its user mcp.json), for bench:editor's built-in client.
  if (options.userMcp) fs.writeFileSync(path.join(userDataDir, 'User', 'mcp.json'), JSON.stringify(options.userMcp, null, 2));

  const args = [
    codeServerEntry,
    '--auth',
    'none',
    '--bind-addr',
    `${host}:${port}`,
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    // Needed to load a development extension from the URL and to run tests in the extension host;
    // it also stops the workbench from showing toasts, so `npm start` (which installs the extension
    // instead) leaves it off, and the user sees notifications as they pop up.
    ...(options.smokeTestDriver === false ? [] : ['--vscode-option', 'enable-smoke-test-driver']),
  ];
  if (options.trust !== false) args.push('--disable-workspace-trust');
  if (options.workspace) args.push(options.workspace);

  const hostDir = path.join(stateDir, 'host');
  const child = spawn(node24, args, {
    cwd: repoRoot,
    // The consent file the extension shares with the CLI lives under XDG_CONFIG_HOME: one per run,
    // so that an answer given in one run (or on this machine) never answers a dialog in the next.
    // The machine host's folder too: the windows of one run share their servers with each other, never with another run's.
    env: { ...process.env, XDG_CONFIG_HOME: path.join(stateDir, 'config'), MCP_SWITCHBOARD_HOST_DIR: hostDir, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that stop() also ends the extension host and anything it spawned.
    detached: true,
  });
  const output = [];
  const onData = (chunk) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      output.push(line);
      options.log?.(line);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const url = `http://${host}:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const state = await Promise.race([exited.then(() => 'exited'), healthy(url).then((ok) => (ok ? 'up' : 'down'))]);
    if (state === 'up') break;
    if (state === 'exited' || Date.now() > deadline) {
      await endProcessGroup(child.pid);
      throw new Error(`code-server did not start (${state}). Output:\n${output.slice(-30).join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    url,
    port,
    userDataDir,
    extensionsDir,
    output,
    /** code-server's pid, which is also its process group (the extension host and servers are in it). */
    pid: child.pid,
    /** The temp folder of this run (user data); stop() removes it. */
    stateDir,
    /** The workbench URL; `payload` entries follow editor-harness.md. */
    workbenchUrl({ folder = options.workspace, developmentPath, testsPath, environment } = {}) {
      const remote = (p) => `vscode-remote://${host}:${port}${p}`;
      const payload = [];
      if (developmentPath) payload.push(['extensionDevelopmentPath', remote(developmentPath)]);
      if (testsPath) payload.push(['extensionTestsPath', remote(testsPath)]);
      if (environment) payload.push(['extensionEnvironment', JSON.stringify(environment)]);
      const query = new URLSearchParams();
      if (folder) query.set('folder', folder);
      if (payload.length > 0) query.set('payload', JSON.stringify(payload));
      return `${url}/?${query.toString()}`;
    },
    /** Ends the whole process group (not only code-server itself, which may exit before its children). */
    /** The machine host's folder of this run (MCP_SWITCHBOARD_HOST_DIR). */
    hostDir,
    async stop() {
      await endProcessGroup(child.pid);
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
      // The machine host is detached from the editor (it outlives a window); it would end by itself once idle, but not before stateDir goes.
      await endMachineHost(hostDir);
      fs.rmSync(stateDir, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

async function healthy(url) {
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
    return response.ok;
  } catch {
    return false;
  }
}

/** Installs a .vsix into an extensions folder with code-server's own installer (the marketplace path). */
export async function installVsix(vsixPath, extensionsDir) {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-install-'));
  try {
    await new Promise((resolve, reject) => {
      const child = spawn(
        node24,
        [codeServerEntry, '--user-data-dir', stateDir, '--extensions-dir', extensionsDir, '--install-extension', vsixPath],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
      });
      child.stderr.on('data', (chunk) => {
        output += chunk;
      });
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`install failed (${code}): ${output}`))));
    });
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}

/** Headless Debian Chromium through playwright-core, with the flags this closed network needs. */
/** Chromium, headless. A given `profile` folder is kept (the workbench keeps its storage in the browser). */
export async function launchBrowser(options = {}) {
  const { chromium } = await import('playwright-core');
  const profile = options.profile ?? fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      if (!options.profile) fs.rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}
