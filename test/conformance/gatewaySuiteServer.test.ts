// The conformance suite's own reference server (test/fixtures/conformance-suite) as the upstream:
// every server scenario of both revisions, graded on it directly and through the gateway fronting
// it over HTTP, where Switchboard's connection speaks 2026-07-28 to it. Whatever it passes directly
// must pass through the gateway, except the checks listed with their reason; a listed check that
// passes fails the test.
//
// Not here: the gateway's own 2025 sessions (session lifecycle, SSE polling, several streams) and
// DNS rebinding, which are the gateway's and graded in gatewayServer.test.ts and dnsRebinding.test.ts;
// the skills extension; the tasks extension, whose scenarios ask for tools (greet, slow_compute,
// confirm_delete, failing_job) that the suite's server does not have: they are graded in front of
// conformance-tasks-upstream.mjs, written from the scenarios (gatewayModernUpstream.test.ts); and
// the 2025 scenarios that the suite's server cannot pass in 2026-07-28 (measured once, 9 of them:
// in that revision it advertises no logging or subscriptions, and runs test_sampling and the
// elicitation tools in an in-process dispatcher that never asks the client; its 2026-07-28 way to
// ask, input_required, is graded below and passes through the gateway).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { MemoryToolCacheStorage } from '../../src/core/catalog';
import { createRuntime } from '../../src/core/runtime/runtime';
import { httpDefinition } from '../core/connection/helpers';
import { Cleanup, MemoryLogger, waitForRunning } from '../core/gateway/helpers';
import { conformanceCli, OFFER_SCENARIOS, runAll, startTokenProxy, type ScenarioRun, SCENARIOS_2026_ONLY } from './serverHarness';

const SUITE_SERVER = path.resolve(__dirname, '../fixtures/conformance-suite/everything-server.ts');

/** Per scenario, the checks expected to fail through the gateway though the suite's server passes them, with the reason. */
type Expected = Record<string, Record<string, string>>;

// Why the gateway cannot pass what the suite's server passes directly: what that server does
// differently in the revision the gateway speaks to it.
const NOT_ADVERTISED =
  "the suite's server advertises no completions in its 2026-07-28 server/discover (it does in its 2025 initialize); the gateway, which speaks 2026-07-28 to it, offers what it advertises";
const JSON_LINES =
  "the suite's server streams this as several JSON lines in one application/json body; the revision allows one JSON object or an SSE stream, which is what Switchboard's client reads";

const SCENARIOS: Expected = Object.fromEntries(
  [
    // A 2025 client through the gateway to this 2026-07-28 upstream: a sample of each kind (every
    // offer scenario of 2025 is graded through a 2026-07-28 upstream in gatewayModernUpstream.test.ts).
    ...[
      'server-initialize',
      'ping',
      'tools-list',
      'tools-call-simple-text',
      'tools-call-with-progress',
      'resources-read-text',
      'prompts-get-with-args',
      'completion-complete',
      'json-schema-2020-12',
    ].map((name) => `${name}@2025-11-25`),
    ...[...OFFER_SCENARIOS, 'json-schema-2020-12', ...SCENARIOS_2026_ONLY].map((name) => `${name}@2026-07-28`),
  ].map((scenario) => [scenario, {}]),
);
Object.assign(SCENARIOS, {
  'completion-complete@2025-11-25': { 'completion-complete': NOT_ADVERTISED },
  'completion-complete@2026-07-28': { 'completion-complete': NOT_ADVERTISED },
  'server-stateless@2026-07-28': {
    // test_streaming_elicitation answers in JSON lines, and subscriptions/listen streams in them.
    'sep-2575-http-server-no-independent-requests-on-stream': JSON_LINES,
    'sep-2575-server-sends-prompts-list-changed-on-subscription': JSON_LINES,
    'sep-2575-server-sends-tools-list-changed-on-subscription': JSON_LINES,
  },
} satisfies Expected);

/** The suite's server on a free port; its URL once it listens. */
async function startSuiteServer(cleanup: Cleanup): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', SUITE_SERVER], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanup.add(() => void child.kill());
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /running on http:\/\/localhost:(\d+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the suite's server exited (${String(code)}) before it listened: ${output}`)));
  });
  return `http://127.0.0.1:${port}/mcp`;
}

const failing = (run: ScenarioRun) => [...run.checks.values()].filter((check) => check.status !== 'SUCCESS' && check.status !== 'INFO');

describe("gateway: conformance server scenarios in front of the suite's own server", function () {
  this.timeout(120_000);
  const cleanup = new Cleanup();
  let direct = new Map<string, ScenarioRun>();
  let through = new Map<string, ScenarioRun>();

  before(async function () {
    this.timeout(600_000);
    conformanceCli();
    // Two of them: the scenarios that change what the server shares with every client (its log
    // level, subscriptions) must not run against one server from both sides at once.
    const [url, upstream] = await Promise.all([startSuiteServer(cleanup), startSuiteServer(cleanup)]);
    const runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {} });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start([httpDefinition(upstream, { name: 'suite' })]);
    await waitForRunning(runtime.manager, ['suite']);
    const state = runtime.manager.connection('suite')?.state;
    assert.equal(state?.kind === 'running' ? state.era : state?.kind, 'modern', "the connection to the suite's server speaks 2026-07-28");
    const gateway = runtime.gateway();
    await gateway.start();
    const proxied = `http://127.0.0.1:${await startTokenProxy(cleanup, gateway.port, gateway.token)}/mcp`;
    [direct, through] = await Promise.all([
      runAll(cleanup, url, Object.keys(SCENARIOS)),
      runAll(cleanup, `${proxied}/suite`, Object.keys(SCENARIOS)),
    ]);
  });
  after(() => cleanup.run());

  for (const [scenario, expected] of Object.entries(SCENARIOS)) {
    it(scenario, () => {
      const served = direct.get(scenario);
      const relayed = through.get(scenario);
      assert.ok(served && relayed, `${scenario} did not run`);
      assert.ok(
        [...relayed.checks.values()].some((check) => check.status === 'SUCCESS'),
        `no check passed through the gateway:\n${relayed.output}`,
      );
      const failedDirectly = new Set(failing(served).map((check) => check.id));
      assert.deepEqual(
        failing(relayed)
          .filter((check) => !failedDirectly.has(check.id) && expected[check.id] === undefined)
          .map((check) => `${check.id} ${check.status}: ${check.errorMessage ?? ''}`),
        [],
        "checks the suite's server passes that fail through the gateway",
      );
      const stale = Object.keys(expected).filter((id) => !failing(relayed).some((check) => check.id === id));
      assert.deepEqual(stale, [], 'listed as failing through the gateway but passed: remove them from the list');
    });
  }
});
