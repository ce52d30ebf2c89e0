#!/usr/bin/env node
// Runs the mocha suite in test/editor inside the real extension host of code-server, through
// Chromium, and exits with the suite's result.
//   node test/harness/run-editor-tests.mjs [--suite suite|untrusted|vsix] [--stats FILE]
// Each suite names its workspace, its trust, and the user settings the editor starts with (the
// fixture servers of user scope). `vsix` installs the editor's package for this platform
// (dist/packages, from `npm run package`) into a fresh extensions folder first and runs against
// that installed copy (the marketplace path).
import fs from 'node:fs';
import path from 'node:path';
import { format, parseArgs } from 'node:util';
import { artifactsDir, repoRoot } from '../../scripts/harness-paths.mjs';
import { hostTarget, packagesDir, targetPackage } from '../../scripts/packages.mjs';
import { copyWorkspace, installVsix, launchBrowser, startCodeServer } from './editor.mjs';

const { values: flags } = parseArgs({
  options: {
    suite: { type: 'string', default: 'suite' },
    // The suite again with mcpSwitchboard.shareServers off: the user-level servers run in the window.
    own: { type: 'boolean', default: false },
    vsix: { type: 'boolean', default: false },
    stats: { type: 'string' },
    timeout: { type: 'string', default: String(5 * 60_000) },
    // bench:editor only: a user-data folder kept between runs (a warm cache), the servers'
    // lifecycle, and where the measurements go.
    'user-data': { type: 'string' },
    lifecycle: { type: 'string', default: 'eager' },
    'bench-out': { type: 'string' },
    warm: { type: 'boolean', default: false },
    // bench:editor: the same workspace path on every run, since the editor keys its caches by it.
    'workspace-root': { type: 'string' },
    // bench:editor: the browser profile and the port (the origin its storage belongs to), kept too.
    'browser-profile': { type: 'string' },
    port: { type: 'string' },
    // bench:editor's side by side: which client starts the 20 real servers (`switchboard`, `builtin`).
    client: { type: 'string', default: 'switchboard' },
  },
});

const fixture = path.join(repoRoot, 'test', 'fixtures', 'stdio-server.mjs');
const BENCH_SERVERS = 20;
const stdio = (...args) => ({ command: process.execPath, args: [fixture, ...args] });
/** A server that speaks only MCP 2026-07-28: the editor reaches it through the gateway. */
const modernFixture = path.join(repoRoot, 'test', 'fixtures', 'modern-server.mjs');
/** The reference server, for its tool that answers only as a task (2025-11-25 tasks). */
const everything = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

/** A server's own icon (a blue ring), which its row shows while it runs. */
const ROW_ICON =
  'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSIxNiIgaGVpZ2h0PSIxNiI+PGNpcmNsZSBjeD0iOCIgY3k9IjgiIHI9IjciIGZpbGw9IiMzYjgyZjYiLz48Y2lyY2xlIGN4PSI4IiBjeT0iOCIgcj0iMyIgZmlsbD0iI2ZmZiIvPjwvc3ZnPg==';

/** What each suite starts with. User-scope servers need no consent, so the host tests can use them. */
const SUITES = {
  suite: {
    workspace: 'basic',
    trust: true,
    userSettings: (scratch) => ({
      'mcpSwitchboard.servers': {
        ok: { ...stdio('--name', 'ok-server', '--marker', path.join(scratch, 'ok.json')), tools: { deny: ['fail'] } },
        modern: { command: process.execPath, args: [modernFixture, '--name', 'modern-only'] },
        failing: {
          ...stdio('--fail-if-exists', path.join(scratch, 'failing.flag'), '--exit-message', 'fixture refused to start'),
          reconnect: { maxAttempts: 0 },
        },
        hanging: { ...stdio('--hang-initialize'), timeouts: { connectMs: 1500, requestMs: 5000 }, reconnect: { maxAttempts: 0 } },
        off: { ...stdio(), enabled: false },
        broken: { command: '' },
        // The secret reaches the argv (logged at start) and the env; neither may reach a log file.
        secretive: {
          ...stdio('--name', 'secretive', '--exit-message', '${env:SWITCHBOARD_TEST_SECRET}'),
          env: { API_TOKEN: '${env:SWITCHBOARD_TEST_SECRET}' },
        },
        // The same secret written literally as a URL query key (a hosted server that nobody answers
        // here) and as a flag value (the fixture rejects the flag and prints it to stderr).
        'keyed-url': { type: 'http', url: 'http://127.0.0.1:9/mcp?api_key=sk-switchboard-test-7f3a9c', reconnect: { maxAttempts: 0 } },
        'keyed-args': { ...stdio('--api-key=sk-switchboard-test-7f3a9c'), reconnect: { maxAttempts: 0 } },
        // Resources, prompts, and tools that ask for a form or a model.
        rich: stdio('--name', 'rich', '--features', '--icon', ROW_ICON),
        // Started only to learn its tools (nothing is cached in a fresh profile), then idle until used.
        sleepy: { ...stdio('--name', 'sleepy', '--marker', path.join(scratch, 'sleepy.json')), lifecycle: 'lazy' },
        research: { command: process.execPath, args: [everything, 'stdio'], tools: { allow: ['simulate-research-query'] } },
      },
    }),
    prepare: (scratch) => fs.writeFileSync(path.join(scratch, 'failing.flag'), ''),
    environment: { SWITCHBOARD_TEST_SECRET: 'sk-switchboard-test-7f3a9c' },
  },
  untrusted: {
    workspace: 'untrusted',
    trust: false,
    userSettings: () => ({ 'mcpSwitchboard.servers': { 'user-server': stdio('--name', 'user-server') } }),
  },
  vsix: { workspace: 'basic', trust: true, userSettings: () => ({}) },
  // bench/editor.mjs: 20 fixture servers, all eager or all lazy, three tools each (60 in all, within
  // the default budget of 128, so that every server reaches chat).
  bench: {
    workspace: 'basic',
    trust: true,
    userSettings: () => ({
      'mcpSwitchboard.servers': Object.fromEntries(
        Array.from({ length: BENCH_SERVERS }, (_, index) => [
          `bench-${index + 1}`,
          { ...stdio('--name', `bench-${index + 1}`), lifecycle: flags.lifecycle, tools: { allow: ['echo', 'add', 'count'] } },
        ]),
      ),
    }),
    environment: {
      SWITCHBOARD_BENCH_SERVERS: String(BENCH_SERVERS),
      SWITCHBOARD_BENCH_OUT: flags['bench-out'] ?? '',
      SWITCHBOARD_BENCH_WARM: flags.warm ? '1' : '',
    },
  },
};
/**
 * bench:editor side by side: the 20 stdio servers (8 server-everything, 6 server-memory, 6
 * server-filesystem), all run by this Node, for the editor's own client (its user mcp.json) or for
 * Switchboard (its user settings; with --own, not shared through the machine host).
 */
function realServers(scratch) {
  const bin = (name) => path.join(repoRoot, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');
  const entries = [];
  // Each its own launch (BENCH_COPY), as 20 different servers would be: the machine host runs one process per launch.
  for (let i = 1; i <= 8; i++)
    entries.push([
      `everything-${i}`,
      { command: process.execPath, args: [bin('server-everything'), 'stdio'], env: { BENCH_COPY: String(i) } },
    ]);
  for (let i = 1; i <= 6; i++)
    entries.push([
      `memory-${i}`,
      { command: process.execPath, args: [bin('server-memory')], env: { MEMORY_FILE_PATH: path.join(scratch, `memory-${i}.jsonl`) } },
    ]);
  for (let i = 1; i <= 6; i++)
    entries.push([
      `filesystem-${i}`,
      { command: process.execPath, args: [bin('server-filesystem'), scratch], env: { BENCH_COPY: String(i) } },
    ]);
  return Object.fromEntries(entries);
}
SUITES.versus = {
  workspace: 'basic',
  trust: true,
  userSettings: (scratch) => (flags.client === 'builtin' ? {} : { 'mcpSwitchboard.servers': realServers(scratch) }),
  userMcp: (scratch) =>
    flags.client === 'builtin'
      ? { servers: Object.fromEntries(Object.entries(realServers(scratch)).map(([name, entry]) => [name, { type: 'stdio', ...entry }])) }
      : undefined,
  environment: {
    SWITCHBOARD_BENCH_SERVERS: '20',
    SWITCHBOARD_BENCH_OUT: flags['bench-out'] ?? '',
    SWITCHBOARD_BENCH_CLIENT: flags.client,
    SWITCHBOARD_BENCH_WAIT_MS: process.env.SWITCHBOARD_BENCH_WAIT_MS ?? '240000',
    SWITCHBOARD_BENCH_HEAP: process.env.SWITCHBOARD_BENCH_HEAP ?? '',
    SWITCHBOARD_BENCH_PROFILE: process.env.SWITCHBOARD_BENCH_PROFILE ?? '',
  },
};
const suiteName = flags.vsix ? 'vsix' : flags.suite;
const suite = SUITES[suiteName];
if (!suite) throw new Error(`unknown suite ${suiteName}; expected one of ${Object.keys(SUITES).join(', ')}`);

const testsPath = path.join(repoRoot, 'out', 'test', 'editor', 'index.js');
const vsixPath = path.join(packagesDir, targetPackage(hostTarget()).file);
const runTimeoutMs = Number(flags.timeout);
const MOCHA_TAG = '[mocha] ';
const label = `editor-${suiteName}`;
const logFile = path.join(artifactsDir, `${label}-extension-host.log`);

async function main() {
  if (!fs.existsSync(testsPath)) throw new Error(`${testsPath} is missing; run node scripts/build.mjs --tests`);
  fs.mkdirSync(artifactsDir, { recursive: true });
  const log = fs.createWriteStream(logFile);
  const keptRoot = flags['workspace-root'];
  const workspace =
    keptRoot && fs.existsSync(path.join(keptRoot, suite.workspace))
      ? path.join(keptRoot, suite.workspace)
      : copyWorkspace(suite.workspace, keptRoot);
  // Files the fixtures and tests share (flags, markers), next to the workspace copy.
  const scratch = fs.mkdtempSync(path.join(path.dirname(workspace), 'scratch-'));
  suite.prepare?.(scratch);

  let extensionsDir;
  let developmentPath = repoRoot;
  if (suiteName === 'vsix') {
    if (!fs.existsSync(vsixPath)) throw new Error(`${vsixPath} is missing; run npm run package`);
    extensionsDir = fs.mkdtempSync(path.join(path.dirname(workspace), 'extensions-'));
    await installVsix(vsixPath, extensionsDir);
    developmentPath = path.join(repoRoot, 'test', 'harness', 'probe-extension');
  }

  const server = await startCodeServer({
    workspace,
    extensionsDir,
    ...(flags['user-data'] ? { userDataDir: flags['user-data'] } : {}),
    ...(flags.port ? { port: Number(flags.port) } : {}),
    trust: suite.trust,
    userSettings: { ...suite.userSettings(scratch), ...(flags.own ? { 'mcpSwitchboard.shareServers': false } : {}) },
    ...(suite.userMcp?.(scratch) ? { userMcp: suite.userMcp(scratch) } : {}),
    log: (line) => log.write(`[code-server] ${line}\n`),
  });
  const browser = await launchBrowser(flags['browser-profile'] ? { profile: flags['browser-profile'] } : {});
  try {
    const page = await browser.context.newPage();
    const finished = new Promise((resolve) => {
      page.exposeFunction('codeAutomationLog', (type, args) => {
        const text = Array.isArray(args) ? format(...args) : String(args);
        log.write(`[${type}] ${text}\n`);
        // The workbench logs a lot; only the reporter's lines (tagged in test/editor/index.ts) go to the console.
        if (text.startsWith(MOCHA_TAG)) process.stdout.write(`${text.slice(MOCHA_TAG.length)}\n`);
      });
      page.exposeFunction('codeAutomationExit', (code) => resolve(Number(code)));
    });
    page.on('pageerror', (error) => log.write(`[pageerror] ${error.message}\n`));
    // The moment the window opens, on the clock the extension host shares (bench:editor).
    const windowOpenedAt = Date.now();
    await page.goto(
      server.workbenchUrl({
        developmentPath,
        testsPath,
        environment: {
          ...suite.environment,
          SWITCHBOARD_SUITE: suiteName,
          SWITCHBOARD_WINDOW_OPENED_AT: String(windowOpenedAt),
          SWITCHBOARD_TEST_WORKSPACE: workspace,
          SWITCHBOARD_TEST_SCRATCH: scratch,
          SWITCHBOARD_TEST_SHARED: flags.own ? '' : '1',
          SWITCHBOARD_NODE: process.execPath,
          SWITCHBOARD_FIXTURE: fixture,
          SWITCHBOARD_EXPECTED_EXTENSIONS_DIR: extensionsDir ?? '',
          SWITCHBOARD_VSIX_BYTES: suiteName === 'vsix' ? String(fs.statSync(vsixPath).size) : '',
          SWITCHBOARD_VSIX_TARGET: suiteName === 'vsix' ? hostTarget() : '',
          ...(flags.stats ? { MOCHA_STATS_FILE: flags.stats } : {}),
        },
      }),
    );
    // Fail fast when the workbench never renders (code-server error page, missing modules).
    const workbench = await page.waitForSelector('.monaco-workbench', { timeout: 60_000 }).catch(() => undefined);
    if (!workbench) {
      await page.screenshot({ path: path.join(artifactsDir, `${label}-no-workbench.png`) }).catch(() => undefined);
      throw new Error(`the workbench did not load: ${(await page.textContent('body').catch(() => '')) ?? ''}`.slice(0, 2000));
    }
    const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), runTimeoutMs).unref());
    const result = await Promise.race([finished, timeout]);
    if (result === 'timeout') {
      await page.screenshot({ path: path.join(artifactsDir, `${label}-timeout.png`) }).catch(() => undefined);
      throw new Error(`the extension host did not finish within ${runTimeoutMs} ms (log: ${logFile})`);
    }
    return result;
  } finally {
    await browser.close();
    await server.stop();
    log.end();
    if (!keptRoot) fs.rmSync(path.dirname(workspace), { recursive: true, force: true, maxRetries: 3 });
    else fs.rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(`[editor-tests] ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
