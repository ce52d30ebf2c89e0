// The conformance suite's server scenarios, in both protocol revisions, graded on the gateway
// through a loopback proxy that plays a client holding the token (the suite's CLI cannot send
// one). The first block fronts the tools fixture (sessions, headers, listing); the second fronts
// conformance-upstream.mjs, which has the tools, resources and prompts the suite asks for by name,
// so every answer it grades (resources, prompts, completion, logging, sampling and elicitation
// relayed to the suite as client) has passed through Switchboard. Every check must pass except
// those listed, each with the reason; a listed check that passes fails the test.
import assert from 'node:assert/strict';
import path from 'node:path';
import { MemoryToolCacheStorage } from '../../src/core/catalog';
import { createRuntime } from '../../src/core/runtime/runtime';
import { stdioDefinition } from '../core/connection/helpers';
import { Cleanup, MemoryLogger, startGateway, toolsServer, waitForRunning, type Setup } from '../core/gateway/helpers';
import { conformanceCli, grade, OFFER_SCENARIOS, runAll, startTokenProxy, type ScenarioRun } from './serverHarness';

const CONFORMANCE_UPSTREAM = path.resolve(__dirname, '../fixtures/conformance-upstream.mjs');

const UPSTREAM_CAPABILITIES =
  "this upstream speaks 2025: it sees the capabilities of Switchboard's one session with it (every one), as a 2025 server cannot be told one client's capabilities per request; with a 2026-07-28 upstream, the client's own reach it and -32021 passes through (gatewayModernUpstream.test.ts)";

const SCENARIOS: Record<string, Record<string, string>> = {
  'server-initialize@2025-11-25': {},
  'server-session-lifecycle@2025-11-25': {},
  'ping@2025-11-25': {},
  'tools-list@2025-11-25': {},
  'tools-list@2026-07-28': {},
  'server-sse-multiple-streams@2026-07-28': {},
  // The fixture's test_reconnection answers after the gateway's 50 ms hold, so its answer is a
  // stream: the priming event first, with an id and a retry. Its stream is not closed mid-call (the
  // gateway does not cut a client's stream), so the resume check reads INFO; the resume itself
  // (stream lost mid-call, Last-Event-ID, result) is in test/core/gateway/resumability.test.ts.
  'server-sse-polling@2025-11-25': {},
  'http-header-validation@2026-07-28': {
    // The suite calls the first listed tool with no arguments; the fixture's `echo` requires one,
    // and the gateway refuses the call before it goes upstream, as it should.
    'sep-2243-server-accepts-whitespace-header-value': 'calls the first tool without its required argument',
  },
};

describe('gateway: conformance server scenarios, both revisions', function () {
  this.timeout(120_000);
  const cleanup = new Cleanup();
  let runs = new Map<string, ScenarioRun>();

  before(async function () {
    this.timeout(300_000);
    conformanceCli();
    const setup: Setup = await startGateway(cleanup, [toolsServer('alpha', ['--reconnection-tool'])]);
    const url = `http://127.0.0.1:${await startTokenProxy(cleanup, setup.gateway.port, setup.gateway.token)}/mcp/alpha`;
    runs = await runAll(cleanup, url, Object.keys(SCENARIOS));
  });
  after(() => cleanup.run());

  for (const [scenario, expected] of Object.entries(SCENARIOS)) {
    it(scenario, () => {
      const run = runs.get(scenario);
      assert.ok(run, `${scenario} did not run`);
      grade(run, expected);
    });
  }
});

/**
 * Every server scenario about what a server offers, graded through the gateway (see
 * conformance-upstream.mjs). They run one at a time (runAll): some change what the upstream shares
 * with every client (its log level, its subscriptions, its lists), and in some the upstream asks the
 * client, and a 2025 stdio server's request names no call, so the gateway relays it only while one
 * call to that server is in flight (with several, the host answers).
 */
const SHARED_STATE_SCENARIOS: Record<string, Record<string, string>> = {
  ...Object.fromEntries(
    [
      'logging-set-level',
      'tools-call-with-logging',
      'resources-subscribe',
      'resources-unsubscribe',
      'tools-call-sampling',
      'tools-call-elicitation',
      'elicitation-sep1034-defaults',
      'elicitation-sep1330-enums',
    ].map((name) => [`${name}@2025-11-25`, {}]),
  ),
  'server-stateless@2026-07-28': {
    'sep-2575-server-rejects-undeclared-capability': UPSTREAM_CAPABILITIES,
    'sep-2575-missing-capability-http-400': UPSTREAM_CAPABILITIES,
  },
};

const READING_SCENARIOS: readonly string[] = [
  ...OFFER_SCENARIOS.flatMap((name) => [`${name}@2025-11-25`, `${name}@2026-07-28`]),
  'sep-2164-resource-not-found@2026-07-28',
  'caching@2026-07-28',
];
const SCENARIOS_OF_THE_UPSTREAM: Record<string, Record<string, string>> = {
  ...Object.fromEntries(READING_SCENARIOS.map((scenario) => [scenario, {}])),
  ...SHARED_STATE_SCENARIOS,
};

describe('gateway: conformance server scenarios for resources, prompts, completion, logging, sampling and elicitation', function () {
  this.timeout(120_000);
  const cleanup = new Cleanup();
  let runs = new Map<string, ScenarioRun>();

  before(async function () {
    this.timeout(300_000);
    conformanceCli();
    const runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {} });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start([stdioDefinition([], { name: 'everything', args: [CONFORMANCE_UPSTREAM] })]);
    await waitForRunning(runtime.manager, ['everything']);
    const gateway = runtime.gateway();
    await gateway.start();
    const url = `http://127.0.0.1:${await startTokenProxy(cleanup, gateway.port, gateway.token)}/mcp/everything`;
    runs = await runAll(cleanup, url, Object.keys(SCENARIOS_OF_THE_UPSTREAM));
  });
  after(() => cleanup.run());

  for (const [scenario, expected] of Object.entries(SCENARIOS_OF_THE_UPSTREAM)) {
    it(scenario, () => {
      const run = runs.get(scenario);
      assert.ok(run, `${scenario} did not run`);
      grade(run, expected);
    });
  }
});
