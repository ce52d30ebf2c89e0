// A hostile registry, through the built CLI and the client: text with escape codes and forged rows
// is shown inert; an answer for another server than the one asked for, launcher flags that run a
// shell, variables that load code, a file:// remote and undeclared URL variables are refused with
// the field named and nothing written; an existing entry is replaced only when the user says so; a
// settings file that does not parse is never edited; a body sent byte by byte times out cleanly.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { RegistryClient, RegistryError } from '../../../src/core/registry/registryClient';
import { entryFromRegistry, installOptions } from '../../../src/core/registry/registryEntry';
import { runRegistry } from '../../../src/core/cli/registry';
import { runCli } from '../doctor/helpers';
import { tempDir, type Cleanup } from '../support/cleanup';
import { cliSuite } from '../support/cliSuite';
import { startRegistry } from '../support/registryFixture';

function folderWithSettings(cleanup: Cleanup, text: string): { folder: string; file: string } {
  const folder = tempDir(cleanup);
  fs.mkdirSync(path.join(folder, '.vscode'));
  const file = path.join(folder, '.vscode', 'settings.json');
  fs.writeFileSync(file, text);
  return { folder, file };
}

const GITHUB =
  '{\n  "mcpSwitchboard.servers": {\n    "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"] }\n  }\n}\n';

describe('a hostile registry', function () {
  this.timeout(60_000);
  const cleanup = cliSuite();

  it('registry search shows its text inert: no escape codes, no bidi override, no forged row', async () => {
    const registry = await startRegistry(cleanup, ['--fault', 'hostile']);
    const searched = await runCli(['registry', 'search', '', '--registry', registry]);
    assert.equal(searched.code, 0, searched.stderr);
    const all = searched.stdout + searched.stderr;
    for (const raw of ['\u001b', '\u0007', '\u202e'])
      assert.ok(!all.includes(raw), `U+${raw.charCodeAt(0).toString(16)} reached the terminal`);
    assert.match(searched.stdout, /\\x1b\[2Jcleared\\nio\.fake\/row/);
    assert.doesNotMatch(searched.stdout, /^io\.fake\/row/m, 'a newline in a description forged a row');
    assert.match(searched.stderr, /skipped: io\.evil\/ansi\\x1b\]0;pwned\\x07/);
  });

  it("an answer for another server is refused, and the user's own entry of that name is untouched", async () => {
    const registry = await startRegistry(cleanup, ['--fault', 'impostor']);
    const { folder, file } = folderWithSettings(cleanup, GITHUB);
    const added = await runCli(['registry', 'add', 'io.github.weather/weather', '--folder', folder, '--registry', registry]);
    assert.equal(added.code, 1, added.stdout);
    assert.match(added.stderr, /asked for io\.github\.weather\/weather, the registry .* answered with io\.evil\/github: not used/);
    assert.equal(fs.readFileSync(file, 'utf8'), GITHUB);
  });

  it('an entry of the same name is replaced only with --replace (or a yes), after showing the command line', async () => {
    const registry = await startRegistry(cleanup, ['--fault', 'hostile']);
    const { folder, file } = folderWithSettings(cleanup, GITHUB);
    const refused = await runCli(['registry', 'add', 'io.evil/github', '--folder', folder, '--registry', registry]);
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /runs: npx -y totally-not-github@1\.0\.0/);
    assert.match(refused.stderr, /Nothing was written: "github" already exists .* --as NAME, or replace it with --replace/);
    assert.equal(fs.readFileSync(file, 'utf8'), GITHUB);
    // On a terminal the question decides; "no" writes nothing.
    const lines: string[] = [];
    const io = { out: (text: string) => lines.push(text), err: (text: string) => lines.push(text) };
    const asked: string[] = [];
    assert.equal(
      await runRegistry(['add', 'io.evil/github', '--folder', folder, '--registry', registry], {
        ...io,
        confirm: async (question) => (asked.push(question), false),
      }),
      1,
    );
    assert.match(asked[0] ?? '', /"github" already exists .* Replace it\?/);
    assert.equal(fs.readFileSync(file, 'utf8'), GITHUB);
    const replaced = await runCli(['registry', 'add', 'io.evil/github', '--folder', folder, '--registry', registry, '--replace']);
    assert.equal(replaced.code, 0, replaced.stderr);
    assert.match(replaced.stdout, /Replaced "github"/);
    assert.match(fs.readFileSync(file, 'utf8'), /totally-not-github/);
  });

  it('launcher flags that run a shell, code-loading variables and a bad package name are refused, naming each field', async () => {
    const registry = await startRegistry(cleanup, ['--fault', 'hostile']);
    const { folder, file } = folderWithSettings(cleanup, '{}\n');
    const added = await runCli(['registry', 'add', 'io.evil/shell', '--folder', folder, '--registry', registry]);
    assert.equal(added.code, 1, added.stdout);
    for (const expected of [
      /packages\[0\]\.identifier "evil-pkg; touch MARK" is not a npm package name/,
      /packages\[0\]\.runtimeArguments\[0\] "-c" would let the launcher run a command/,
      /packages\[0\]\.runtimeArguments\[1\] "--call=touch MARK" would let the launcher run a command/,
      /packages\[0\]\.environmentVariables\[0\] sets NODE_OPTIONS/,
    ]) {
      assert.match(added.stderr, expected);
    }
    assert.equal(fs.readFileSync(file, 'utf8'), '{}\n');
  });

  it('a file:// remote and URL variables named after the prototype are refused', async () => {
    const client = new RegistryClient(await startRegistry(cleanup, ['--fault', 'hostile']));
    for (const [name, problem] of [
      ['io.evil/file', /remotes\[0\]\.url "file:\/\/\/etc\/passwd" is not an https:\/\/ URL/],
      ['io.evil/proto', /uses \{constructor\}, \{toString\}, which remotes\[0\]\.variables does not declare/],
    ] as const) {
      const { server } = await client.latest(name);
      const [option] = installOptions(server);
      assert.ok(option);
      const made = entryFromRegistry(server, option.choice);
      assert.match(made.refused.join('\n'), problem);
      assert.deepEqual(made.inputs, [], 'nothing was looked up on the prototype');
    }
  });

  it('a settings file cut off mid-array is refused with the place of the error, and left as it is', async () => {
    const registry = await startRegistry(cleanup, ['--fault', 'hostile']);
    const broken = '{\n  "mcpSwitchboard.servers": {},\n  "files.exclude": ["a",\n';
    const { folder, file } = folderWithSettings(cleanup, broken);
    const added = await runCli(['registry', 'add', 'io.evil/github', '--folder', folder, '--registry', registry]);
    assert.equal(added.code, 1);
    assert.match(added.stderr, /settings\.json:4:1: .*Nothing was written/);
    assert.equal(fs.readFileSync(file, 'utf8'), broken);
  });

  it('a registry that sends its body a byte at a time times out as a registry error, not an internal one', async () => {
    const client = new RegistryClient(await startRegistry(cleanup, ['--fault', 'slow-body']), fetch, 1_500);
    await assert.rejects(
      client.search('x'),
      (error: unknown) =>
        error instanceof RegistryError && error.code === 'TIMEOUT' && /did not send its answer within 1\.5 s/.test(error.message),
    );
  });
});
