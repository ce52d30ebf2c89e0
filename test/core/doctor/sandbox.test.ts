// The doctor, from the built CLI (with the sandbox runtime bundled beside it): a sandboxed server
// runs under its rules and the report says which, in the table and in --json; a sandbox that
// cannot run is a failing server with the fix.
import assert from 'node:assert/strict';
import path from 'node:path';
import { Cleanup } from '../connection/helpers';
import { buildCli, runCli, tableRow, tempWorkspace } from './helpers';

const PROBE = path.resolve(__dirname, '../../fixtures/sandbox-probe-server.mjs');

describe('doctor: sandboxed servers', function () {
  if (process.platform !== 'linux') return;
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());
  before(function () {
    this.timeout(120_000);
    buildCli();
  });

  it('runs a sandboxed server with the bundled runtime and shows its rules', async () => {
    const ws = tempWorkspace(cleanup, {
      boxed: {
        command: process.execPath,
        args: [PROBE],
        sandbox: { network: { allowedDomains: ['api.example.com'] }, filesystem: { denyRead: ['~/.ssh'] } },
      },
    });
    const table = await runCli(['doctor', '--folder', ws.dir]);
    assert.equal(table.code, 0, table.stdout + table.stderr);
    assert.equal(tableRow(table.stdout, 'boxed')?.[1], 'running', table.stdout);
    assert.match(
      table.stdout,
      new RegExp(
        `sandbox +writes ${ws.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} and temp; network api\\.example\\.com; no read /\\S+/\\.ssh`,
      ),
      table.stdout,
    );
    const json = await runCli(['doctor', '--folder', ws.dir, '--json']);
    const server = (
      JSON.parse(json.stdout) as {
        servers: { name: string; sandbox: { origin: string; rules: { network: { allowedDomains: string[] } } } | null }[];
      }
    ).servers[0];
    assert.equal(server?.sandbox?.origin, 'entry');
    assert.deepEqual(server?.sandbox?.rules.network.allowedDomains, ['api.example.com']);
  });

  it('a sandbox that cannot run fails the server, with the fix', async () => {
    const ws = tempWorkspace(cleanup, {
      boxed: { command: process.execPath, args: [PROBE], sandboxEnabled: true, env: { PATH: '/nonexistent' } },
    });
    const run = await runCli(['doctor', '--folder', ws.dir]);
    assert.notEqual(run.code, 0);
    assert.equal(tableRow(run.stdout, 'boxed')?.[1], 'error', run.stdout);
    assert.match(run.stdout, /sandbox unavailable: the sandbox needs bubblewrap/);
    assert.match(run.stdout, /apt install bubblewrap socat ripgrep/);
  });
});
