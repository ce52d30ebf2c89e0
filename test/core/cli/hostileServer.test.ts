// The CLI with a hostile server next to a good one: serve keeps serving, doctor reports the
// quarantined tool by name. Before the fix, a schema nested 1,000 levels deep ended both processes
// with an uncaught RangeError.
import assert from 'node:assert/strict';
import { fixture, runCli, tempWorkspace } from '../doctor/helpers';
import { cliSuite } from '../support/cliSuite';
import { bareClient, startServe, tempCacheHome } from '../cli/helpers';

describe('CLI with a hostile server', function () {
  this.timeout(60_000);
  const cleanup = cliSuite();

  it("serve keeps serving the good server and the hostile one's other tools", async () => {
    const ws = tempWorkspace(cleanup, { hostile: fixture('--deep-tool', '5000', '--invalid-tool'), good: fixture() });
    const serve = await startServe(cleanup, ['--folder', ws.dir, '--wait'], { XDG_CACHE_HOME: tempCacheHome(cleanup) });
    const client = await bareClient(cleanup, serve.ready.url, serve.ready.token);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes('good__echo') && names.includes('hostile__echo'), names.join(', '));
    assert.ok(!names.some((name) => name.endsWith('__deep')), names.join(', '));
    const result = await client.callTool({ name: 'hostile__echo', arguments: { text: 'alive' } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'alive' }]);
    assert.equal(serve.child.exitCode, null, `serve exited: ${serve.stderr()}`);
    assert.match(serve.stderr(), /tool quarantined: .*`deep` is nested more than 64 levels deep/);
    assert.doesNotMatch(serve.stderr(), /RangeError|Maximum call stack/);
  });

  it('doctor names the quarantined tools and the limit', async () => {
    const ws = tempWorkspace(cleanup, { hostile: fixture('--deep-tool', '1000') });
    const run = await runCli(['doctor', '--folder', ws.dir], { env: { XDG_CACHE_HOME: tempCacheHome(cleanup) } });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /quarantined: the definition of tool `deep` is nested more than 64 levels deep/);
  });

  it('doctor shows names and errors from outside inert: escape codes, a bidi override and NUL are visible, not acted on', async () => {
    const hostile = 'evil\u001b]0;pwned\u0007\u202eX\u0000';
    const ws = tempWorkspace(cleanup, { [hostile]: { command: 'definitely-not-a-command-\u001b[2J' } });
    const run = await runCli(['doctor', '--folder', ws.dir], { env: { XDG_CACHE_HOME: tempCacheHome(cleanup) } });
    const all = run.stdout + run.stderr;
    for (const raw of ['\u001b', '\u0007', '\u202e', '\u0000'])
      assert.ok(
        !all.includes(raw),
        `U+${raw.charCodeAt(0).toString(16).padStart(4, '0')} reached the terminal: ${JSON.stringify(all.slice(0, 400))}`,
      );
    assert.match(run.stdout, /evil\\x1b\]0;pwned\\x07\\u202eX\\x00/);
  });
});
