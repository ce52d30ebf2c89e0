// `mcp-switchboard login` and what doctor does with its tokens, run as a user would (dist/cli.js)
// against the fixture MCP server behind oidc-provider. The test plays the person at the browser:
// it opens the printed URL, logs in at the provider's page, and follows the redirect to the
// CLI's loopback server.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliSuite } from '../support/cliSuite';
import { loginAtProvider } from '../support/providerLogin';
import { CLI, REPO_ROOT, runCli, tempWorkspace } from '../doctor/helpers';
// @ts-expect-error: a JavaScript fixture without types.
import { startOAuthFixture } from '../../fixtures/oauth-server.mjs';

interface OAuthFixture {
  readonly mcpUrl: string;
  readonly issuer: string;
  close(): Promise<void>;
}

/** Runs `login`, opening the URL it prints like a browser would; resolves with its exit and output. */
function loginLikeAPerson(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, 'login', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let browsed = false;
  const safety = setTimeout(() => child.kill('SIGKILL'), 45_000);
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    const url = /^ {2}(http\S+)$/m.exec(stderr)?.[1];
    const redirect = /Waiting for the redirect to (\S+) \.\.\./.exec(stderr)?.[1];
    if (browsed || !url || !redirect) return;
    browsed = true;
    void loginAtProvider(new URL(url), redirect)
      .then((params) => fetch(`${redirect}?${params}`))
      .catch((error: unknown) => {
        stderr += `\n[test browser] ${String(error)}`;
        child.kill('SIGTERM');
      });
  });
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(safety);
      resolve({ code, stderr });
    });
  });
}

describe('mcp-switchboard login', function () {
  this.timeout(90_000);
  const cleanup = cliSuite();
  let fixture: OAuthFixture;

  before(async () => {
    fixture = (await startOAuthFixture()) as OAuthFixture;
  });
  after(() => fixture.close());

  it('signs in through the loopback redirect, keeps the tokens in a 0600 file, and doctor uses them', async () => {
    const workspace = tempWorkspace(cleanup, { notes: { type: 'http', url: fixture.mcpUrl } });
    const credentials = workspace.file('config/credentials.json');
    const env = { MCP_SWITCHBOARD_CREDENTIALS: credentials };

    const before = await runCli(['doctor', '--folder', workspace.dir], { env });
    assert.equal(before.code, 1);
    assert.match(before.stdout, /needs sign-in: run mcp-switchboard login notes/);
    assert.ok(!fs.existsSync(credentials), 'doctor wrote credentials without a sign-in');

    const login = await loginLikeAPerson(['notes', '--folder', workspace.dir], env);
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stderr, /Signed in: "notes" is running \(2 tools\)/);
    assert.equal(fs.statSync(credentials).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(credentials)).mode & 0o777, 0o700);
    const saved = JSON.parse(fs.readFileSync(credentials, 'utf8')) as Record<string, string>;
    const record = JSON.parse(saved[`oauth:${fixture.mcpUrl}`] ?? '{}') as {
      tokens?: Record<string, { tokens: { access_token: string } }>;
    };
    const token = record.tokens?.[fixture.issuer]?.tokens.access_token;
    assert.ok(token, 'the tokens are kept under the issuer');
    assert.ok(!login.stderr.includes(token), 'the token was printed');

    const after = await runCli(['doctor', '--folder', workspace.dir, '--call', 'notes/whoami'], { env });
    assert.equal(after.code, 0, after.stderr);
    assert.match(after.stdout, /"subject":"alice"/);

    const logout = await runCli(['logout', 'notes', '--folder', workspace.dir], { env });
    assert.equal(logout.code, 0, logout.stderr);
    assert.deepEqual(JSON.parse(fs.readFileSync(credentials, 'utf8')), {});
    const again = await runCli(['doctor', '--folder', workspace.dir], { env });
    assert.match(again.stdout, /needs sign-in: run mcp-switchboard login notes/);
  });

  it('refuses a stdio server and an unknown one, naming them', async () => {
    const workspace = tempWorkspace(cleanup, { local: { command: 'node', args: ['x.js'] } });
    const env = { MCP_SWITCHBOARD_CREDENTIALS: workspace.file('credentials.json') };
    const stdio = await runCli(['login', 'local', '--folder', workspace.dir], { env });
    assert.equal(stdio.code, 1);
    assert.match(stdio.stderr, /"local" is a stdio server/);
    const unknown = await runCli(['login', 'nope', '--folder', workspace.dir], { env });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no server named "nope"/);
  });
});
