#!/usr/bin/env node
// Runs the MCP conformance harness in client mode against test/conformance/client.ts and compares
// the result with baseline.json. The harness (Node 24 only) comes from the pinned editor harness
// in .vscode-test/harness; the client itself runs on this Node, the project's own runtime.
//   node test/conformance/run.mjs [--stats <file>] [scenario ...]
// Every SUCCESS check counts as passed. FAILURE and WARNING checks count as failed (the harness's
// own verdict fails a scenario on either), unless baseline.json expects them. A baseline entry
// that no longer fails counts as failed too, so that the baseline only ever shrinks.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { artifactsDir, harnessDir, node24, repoRoot } from '../../scripts/harness-paths.mjs';

// Every client scenario of the suite that concerns what Switchboard implements, each in the
// protocol revision(s) it applies to (`name@revision`; the harness's --spec-version), or none for an
// extension's. The tasks extension has server scenarios only.
export const SCENARIOS = [
  'initialize@2025-11-25',
  'tools_call@2025-11-25',
  'tools_call@2026-07-28',
  'sse-retry@2025-11-25',
  'request-metadata@2026-07-28',
  'http-standard-headers@2026-07-28',
  'http-custom-headers@2026-07-28',
  'http-invalid-tool-headers@2026-07-28',
  'json-schema-ref-no-deref@2026-07-28',
  'json-schema-2020-12-preservation@2025-11-25',
  'json-schema-2020-12-preservation@2026-07-28',
  'sep-2322-client-request-state@2026-07-28',
  'elicitation-sep1034-client-defaults@2025-11-25',
  // MCP authorization (OAuth 2.1): every client scenario, in the newest revision it applies to,
  // and the 2025-11-25 revision (the one the editor speaks) for discovery, scopes and client auth.
  ...[
    'metadata-default',
    'metadata-var1',
    'metadata-var2',
    'metadata-var3',
    'basic-cimd',
    'scope-from-www-authenticate',
    'scope-from-scopes-supported',
    'scope-omitted-when-undefined',
    'scope-step-up',
    'scope-retry-limit',
    'token-endpoint-auth-basic',
    'token-endpoint-auth-post',
    'token-endpoint-auth-none',
    'pre-registration',
    'resource-mismatch',
    'offline-access-scope',
    'offline-access-not-supported',
    'authorization-server-migration',
    'iss-supported',
    'iss-not-advertised',
    'iss-supported-missing',
    'iss-wrong-issuer',
    'iss-unexpected',
    'iss-normalized',
    'metadata-issuer-mismatch',
  ].map((name) => `auth/${name}@2026-07-28`),
  ...['metadata-default', 'basic-cimd', 'scope-step-up', 'token-endpoint-auth-basic', 'pre-registration'].map(
    (name) => `auth/${name}@2025-11-25`,
  ),
  'auth/2025-03-26-oauth-metadata-backcompat@2025-03-26',
  'auth/2025-03-26-oauth-endpoint-fallback@2025-03-26',
  // The client-credentials extension (SEP-1046), with a client secret and with private_key_jwt.
  'auth/client-credentials-basic',
  'auth/client-credentials-jwt',
  // DPoP (SEP-1932, RFC 9449), as an entry with "dpop": true asks for it, with and without nonces.
  'auth/dpop',
  'auth/dpop-nonce',
  // Workload identity federation (SEP-1933): a workload's token as a JWT-bearer grant.
  'auth/wif-jwt-bearer',
  'auth/enterprise-managed-authorization',
  // The skills extension (SEP-2640): listing without fetching, and a tampered SKILL.md refused.
  'sep-2640-client-no-prefetch',
  'sep-2640-client-verify-digest',
  'sep-2640-client-verify-size',
  'sep-2640-client-verify-frontmatter',
];
const here = path.join(repoRoot, 'test', 'conformance');
const conformanceBin = path.join(harnessDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const outputRoot = path.join(artifactsDir, 'conformance');
// The harness kills a client after this long; the outer limit only catches a hung harness.
const CLIENT_TIMEOUT_MS = 30_000;
const SCENARIO_LIMIT_MS = 90_000;
// The harness splits --command on spaces and runs it through a shell from our cwd.
const nodeForClient = process.execPath.includes(' ') ? 'node' : process.execPath;
const clientCommand = `${nodeForClient} --import tsx test/conformance/client.ts`;

function parseArgs(argv) {
  const options = { stats: undefined, scenarios: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--stats') options.stats = argv[++i];
    else options.scenarios.push(argv[i]);
  }
  return options;
}

/** @returns {{ scenario: string, check?: string, reason: string }[]} */
function readBaseline() {
  const file = path.join(here, 'baseline.json');
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  const entries = parsed.client ?? [];
  for (const entry of entries) {
    if (typeof entry.scenario !== 'string' || typeof entry.reason !== 'string' || entry.reason.trim() === '') {
      throw new Error(`${file}: every entry needs a "scenario" and a non-empty "reason": ${JSON.stringify(entry)}`);
    }
  }
  return entries;
}

function runScenario(run, outDir) {
  const [scenario, revision] = run.split('@');
  return new Promise((resolve) => {
    const args = [
      conformanceBin,
      'client',
      '--command',
      clientCommand,
      '--scenario',
      scenario,
      ...(revision ? ['--spec-version', revision] : []),
      '--timeout',
      String(CLIENT_TIMEOUT_MS),
      '--output-dir',
      outDir,
    ];
    // DEP0190: the harness's own use of `shell: true`, not ours; it would only add noise.
    const child = spawn(node24, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_NO_WARNINGS: '1' } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const limit = setTimeout(() => {
      output += `\n[conformance] ${scenario}: harness still running after ${SCENARIO_LIMIT_MS} ms; killed\n`;
      child.kill('SIGKILL');
    }, SCENARIO_LIMIT_MS);
    child.on('error', (error) => {
      clearTimeout(limit);
      resolve({ code: -1, output: `${output}\n${error.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      resolve({ code: code ?? (signal ? 1 : 0), output });
    });
  });
}

/** The harness writes <outDir>/<scenario>-<timestamp>/checks.json (auth/x: <outDir>/auth/x-<timestamp>/). */
function readChecks(outDir, depth = 0) {
  if (!fs.existsSync(outDir) || depth > 1) return undefined;
  for (const entry of fs.readdirSync(outDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const file = path.join(outDir, entry.name, 'checks.json');
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8'));
    const nested = readChecks(path.join(outDir, entry.name), depth + 1);
    if (nested) return nested;
  }
  return undefined;
}

const plain = (text) => text.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex

/** Scenarios at a time: each is a harness and a client process, mostly waiting on each other. */
const PARALLEL_RUNS = 4;
/** Graded on timing (the client's reconnect delay): run alone, after the others. */
const SOLO = new Set(['sse-retry@2025-11-25']);

/** Runs every scenario (a few at a time, the timing ones alone) and keeps each one's output. */
async function runAll(scenarios, outDirOf) {
  const runs = new Map();
  const runOne = async (scenario) => {
    const started = Date.now();
    const outDir = outDirOf(scenario);
    const { code, output } = await runScenario(scenario, outDir);
    fs.mkdirSync(outDir, { recursive: true });
    fs.writeFileSync(path.join(outDir, 'harness.log'), plain(output));
    runs.set(scenario, { code, seconds: ((Date.now() - started) / 1000).toFixed(1) });
  };
  const queue = scenarios.filter((scenario) => !SOLO.has(scenario));
  const worker = async () => {
    for (let scenario = queue.shift(); scenario !== undefined; scenario = queue.shift()) await runOne(scenario);
  };
  await Promise.all(Array.from({ length: PARALLEL_RUNS }, worker));
  for (const scenario of scenarios.filter((candidate) => SOLO.has(candidate))) await runOne(scenario);
  return runs;
}

export async function runConformance(scenarios = SCENARIOS) {
  const baseline = readBaseline();
  const totals = { passed: 0, failed: 0, expected: 0 };
  const lines = [];
  const fail = (text) => {
    totals.failed += 1;
    lines.push(`  ✗ ${text}`);
  };

  for (const entry of baseline) {
    if (!SCENARIOS.includes(entry.scenario))
      fail(`baseline names scenario "${entry.scenario}", which this stage does not run; remove the entry`);
  }
  if (!fs.existsSync(node24) || !fs.existsSync(conformanceBin)) {
    fail(`the harness is not installed (${path.relative(repoRoot, conformanceBin)}); run: node scripts/setup-editor.mjs --no-browser`);
    return { ...totals, lines };
  }
  fs.rmSync(outputRoot, { recursive: true, force: true });

  const outDirOf = (scenario) => path.join(outputRoot, scenario.replace('@', '-').replaceAll('/', '_'));
  const runs = await runAll(scenarios, outDirOf);
  for (const scenario of scenarios) {
    const outDir = outDirOf(scenario);
    const { code, seconds } = runs.get(scenario);
    const wholeScenario = baseline.find((entry) => entry.scenario === scenario && entry.check === undefined);
    const checkEntries = baseline.filter((entry) => entry.scenario === scenario && entry.check !== undefined);
    const checks = readChecks(outDir);
    lines.push(`  ${scenario} (${seconds} s, harness exit ${code})`);
    if (!checks) {
      if (wholeScenario) {
        totals.expected += 1;
        lines.push(`    ~ no results (expected: ${wholeScenario.reason})`);
      } else {
        fail(`${scenario}: the harness produced no checks.json; see ${path.relative(repoRoot, outDir)}/harness.log`);
      }
      continue;
    }
    let scenarioFailed = code !== 0;
    const failingIds = new Set();
    for (const check of checks) {
      if (check.status === 'INFO') continue;
      const label = `${scenario}/${check.id}`;
      const message = check.errorMessage ?? check.details?.message;
      const detail = message ? `: ${message}` : '';
      const expected = checkEntries.find((entry) => entry.check === check.id) ?? wholeScenario;
      if (check.status === 'SUCCESS') {
        totals.passed += 1;
        lines.push(`    ✓ ${check.id}`);
      } else if (expected) {
        scenarioFailed = true;
        failingIds.add(check.id);
        totals.expected += 1;
        lines.push(`    ~ ${check.id} ${check.status} (expected: ${expected.reason})${detail}`);
      } else {
        scenarioFailed = true;
        failingIds.add(check.id);
        fail(`${label} ${check.status}${detail}`);
      }
    }
    // The harness also fails a scenario whose client exited non-zero or timed out, even when every
    // recorded check passed (e.g. the client crashed after the server's last check).
    if (code !== 0 && failingIds.size === 0) {
      if (wholeScenario) {
        totals.expected += 1;
        lines.push(`    ~ harness verdict FAILED (expected: ${wholeScenario.reason})`);
      } else {
        fail(`${scenario}: the harness reported FAILED (client exit or timeout); see ${path.relative(repoRoot, outDir)}/harness.log`);
      }
    }
    for (const entry of checkEntries) {
      if (!failingIds.has(entry.check)) fail(`${scenario}/${entry.check} is in baseline.json but did not fail; remove the entry`);
    }
    if (wholeScenario && !scenarioFailed) fail(`${scenario} is in baseline.json but passed; remove the entry`);
    if (scenarioFailed && !wholeScenario && code !== 0) lines.push(`    (full output: ${path.relative(repoRoot, outDir)}/harness.log)`);
  }
  return { ...totals, lines };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const options = parseArgs(process.argv.slice(2));
  const unknown = options.scenarios.filter((scenario) => !SCENARIOS.includes(scenario));
  if (unknown.length > 0) {
    console.error(`[conformance] unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.join(', ')}`);
    process.exit(2);
  }
  let result;
  try {
    result = await runConformance(options.scenarios.length > 0 ? options.scenarios : SCENARIOS);
  } catch (error) {
    result = { passed: 0, failed: 1, expected: 0, lines: [`  ✗ ${error instanceof Error ? error.message : String(error)}`] };
  }
  console.log('[conformance] client scenarios (checks):');
  for (const line of result.lines) console.log(line);
  console.log(`[conformance] checks: ${result.passed} passed, ${result.failed} failed, ${result.expected} expected failures (baseline)`);
  if (options.stats) {
    fs.mkdirSync(path.dirname(options.stats), { recursive: true });
    fs.writeFileSync(options.stats, JSON.stringify({ passed: result.passed, failed: result.failed, expected: result.expected }));
  }
  process.exitCode = result.failed === 0 ? 0 : 1;
}
