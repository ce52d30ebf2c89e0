// Issue: a key in a URL's query (`?api_key=...`), in its user-info, or passed as an argument
// (`--api-key=...`) appeared in errors, logs, tooltips and doctor output.
import assert from 'node:assert/strict';
import { loadFolderConfiguration } from '../../../src/core/config';
import { secretsInArgs, secretsInUrl } from '../../../src/core/config/secrets';
import { ServerConnection } from '../../../src/core/connection';
import { fixture, runCli, tempWorkspace } from '../doctor/helpers';
import { cliSuite } from '../support/cliSuite';
import { freePort } from '../support/ports';

const QUERY_KEY = 'sk-live-QUERY-0123456789';
const SIGNATURE = 'sig-SIGNATURE-abcdef';
const USER_PASSWORD = 'hunter2-PASSWORD';
const ARG_KEY = 'arg-KEY-9876543210';
const ARG_TOKEN = 'arg-TOKEN-55555';

describe('secrets in URLs and arguments', function () {
  this.timeout(60_000);
  const cleanup = cliSuite();

  it('finds query values with secret-looking names, user-info and secret flags', () => {
    assert.deepEqual(
      secretsInUrl(`https://h.example/mcp?api_key=${QUERY_KEY}&page=2&X-Amz-Signature=${SIGNATURE}`).filter((v) => !v.includes('%')),
      [QUERY_KEY, SIGNATURE],
    );
    assert.ok(secretsInUrl(`https://bob:${USER_PASSWORD}@h.example/`).includes(USER_PASSWORD));
    assert.deepEqual(secretsInUrl('https://h.example/mcp?page=2&q=hello'), []);
    assert.deepEqual(secretsInArgs(['server.js', `--api-key=${ARG_KEY}`, '--token', ARG_TOKEN, '--verbose', '--auth', '--port', '80']), [
      ARG_KEY,
      ARG_TOKEN,
    ]);
  });

  it('never shows them in doctor output, text or JSON, for a failing HTTP and stdio server', async () => {
    const port = await freePort();
    const ws = tempWorkspace(cleanup, {
      query: {
        type: 'http',
        url: `http://127.0.0.1:${port}/mcp?api_key=${QUERY_KEY}&X-Amz-Signature=${SIGNATURE}`,
        reconnect: { maxAttempts: 0 },
      },
      userinfo: { type: 'http', url: `http://bob:${USER_PASSWORD}@127.0.0.1:${port}/mcp`, reconnect: { maxAttempts: 0 } },
      // The fixture rejects unknown flags and echoes them to stderr, which ends up in the error.
      flags: { ...fixture(`--api-key=${ARG_KEY}`, '--token', ARG_TOKEN) },
    });
    for (const json of [false, true]) {
      const run = await runCli(['doctor', '--folder', ws.dir, ...(json ? ['--json'] : []), '--timeout', '8000']);
      const output = run.stdout + run.stderr;
      assert.match(output, /cannot reach/, output);
      for (const secret of [QUERY_KEY, SIGNATURE, USER_PASSWORD, ARG_KEY, ARG_TOKEN]) {
        assert.ok(!output.includes(secret), `${secret} leaked in ${json ? 'JSON' : 'table'} output:\n${output}`);
      }
      assert.match(output, /api_key=\*\*\*/);
    }
  });

  it('never shows them in the reconnecting state of a remote server that is down', async () => {
    const port = await freePort();
    const ws = tempWorkspace(cleanup, {
      query: {
        type: 'http',
        url: `http://127.0.0.1:${port}/mcp?token=${QUERY_KEY}`,
        reconnect: { maxAttempts: 3, initialDelayMs: 30_000, maxDelayMs: 60_000 },
      },
    });
    const loaded = await loadFolderConfiguration(ws.dir, { env: {} });
    assert.ok(loaded.kind !== 'unreadable');
    const definition = loaded.servers[0];
    assert.ok(definition && 'transport' in definition);
    const connection = new ServerConnection(definition);
    cleanup.add(() => connection.dispose());
    void connection.start();
    const state = await new Promise<unknown>((resolve) => {
      const subscription = connection.onDidChangeState(({ state: next }) => {
        if (next.kind !== 'reconnecting') return;
        subscription.dispose();
        resolve(next);
      });
    });
    assert.ok(!JSON.stringify(state).includes(QUERY_KEY), JSON.stringify(state));
    assert.match(JSON.stringify(state), /token=\*\*\*/);
  });
});
