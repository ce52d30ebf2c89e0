// Whatever its rules say, a sandboxed server can never write what decides what runs next: any file
// that any configuration source reads (config/sourceLocations.ts, the same table the loader uses),
// the editor's settings and workspace files, git hooks, shell startup files; nor read credentials.
// The server below may write both the workspace folder and the whole (test) home folder, the
// widest rules a user could give, and plants each file as an attacker would: folders first.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FILE_SOURCES } from '../../../src/core/config/types';
import { protectedPlaces, sourceFiles } from '../../../src/core/config/sourceLocations';
import { NO_SANDBOX_RULES } from '../../../src/core/config/types';
import { assertState, Cleanup, connect, FIXTURES, stdioDefinition, tempDir, textOf } from '../connection/helpers';

const PROBE = path.join(FIXTURES, 'sandbox-probe-server.mjs');

function under(place: string, roots: readonly string[]): boolean {
  return roots.some((root) => place === root || place.startsWith(root + path.sep));
}

describe('sandboxed servers cannot write configuration or read credentials', function () {
  if (process.platform !== 'linux') return;
  this.timeout(120_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('cannot read the host’s own secret files (a team gateway’s cluster key), whatever its rules allow', async () => {
    const root = tempDir(cleanup, 'switchboard-host-secret-');
    const secret = path.join(root, 'cluster-key');
    fs.writeFileSync(secret, 'the key the replicas share');
    const readable = path.join(root, 'readable.txt');
    fs.writeFileSync(readable, 'anyone may read this');
    const definition = stdioDefinition([], {
      name: 'probe',
      args: [PROBE],
      sandbox: { enabled: true, origin: 'entry', rules: NO_SANDBOX_RULES },
    });
    const { connection } = connect(cleanup, definition, { sandbox: { stateRoot: root, hostSecrets: [secret] } });
    assertState(await connection.start(), 'running');
    const read = async (file: string) => textOf((await connection.sendToolCall('read_file', { path: file })) as never);
    assert.match(await read(readable), /anyone may read this/);
    assert.doesNotMatch(await read(secret), /the key the replicas share/);
  });

  it('refuses every source file of every source, and the protected places, inside folders it may write', async () => {
    const root = tempDir(cleanup, 'switchboard-protected-');
    const folder = path.join(root, 'project');
    const home = path.join(root, 'home');
    const editorUserDir = path.join(home, '.config', 'Code', 'User');
    fs.mkdirSync(path.join(folder, '.git'), { recursive: true });
    fs.mkdirSync(path.join(folder, 'src'), { recursive: true });
    fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
    fs.writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY');
    fs.writeFileSync(path.join(folder, 'team.code-workspace'), '{}');
    const context = {
      workspaceFolders: [{ name: 'project', path: folder }],
      userHome: home,
      platform: process.platform,
      paths: path,
      env: {},
      editorUserDir,
    };
    const places = protectedPlaces(context, [path.join(folder, 'team.code-workspace')]);
    // The table covers every source's files, not a list kept beside it.
    for (const file of sourceFiles(new Set(FILE_SOURCES), context)) assert.ok(places.denyWrite.includes(file.file), file.file);
    // The editors' extensions are code the next window runs (Switchboard's own bundle and its code cache among them).
    for (const place of ['.vscode/extensions', '.local/share/code-server/extensions', '.config/mcp-switchboard'])
      assert.ok(places.denyWrite.includes(path.join(home, ...place.split('/'))), place);

    const definition = stdioDefinition([], {
      name: 'probe',
      args: [PROBE],
      cwd: folder,
      sandbox: {
        enabled: true,
        origin: 'entry',
        rules: { ...NO_SANDBOX_RULES, filesystem: { ...NO_SANDBOX_RULES.filesystem, allowWrite: [folder, home] } },
      },
    });
    const { connection } = connect(cleanup, definition, {
      sandbox: { stateRoot: root, hostPlaces: () => ({ workspaceFolders: [folder], userHome: home, editorUserDir }) },
    });
    assertState(await connection.start(), 'running');
    const write = async (target: string) =>
      textOf(
        (await connection.sendToolCall('write_file', {
          path: target,
          text: '{"mcpServers":{"x":{"command":"/bin/sh"}}}',
          makeFolders: true,
        })) as never,
      );

    // The rules do let it write both folders: the refusals below are the protection's.
    assert.match(await write(path.join(folder, 'src', 'ok.txt')), /^ok/);
    assert.match(await write(path.join(folder, 'src', 'new', 'deeper.txt')), /^ok/, 'new folders inside the workspace’s own');
    assert.match(await write(path.join(home, 'notes', 'ok.txt')), /^ok/);
    // While it runs, the workspace folder holds nothing it did not hold: no placeholder for a missing
    // protected place (an empty .mcp.json, .bashrc, .cursor/), which its top level, read-only, makes needless.
    assert.deepEqual(fs.readdirSync(folder).sort(), ['.git', 'src', 'team.code-workspace']);
    assert.match(await write(path.join(folder, 'NEW.md')), /^refused/, 'no new entry at the top of the workspace folder');

    const targets = places.denyWrite.filter((place) => under(place, [folder, home]));
    assert.ok(targets.length >= 30, `only ${targets.length} protected places`);
    const planted: string[] = [];
    for (const target of targets) {
      // As the file itself, and as a folder that would hold a new one. A credential folder is hidden
      // behind an empty one that lives only inside the sandbox: what counts is what reaches the disk.
      for (const attempt of [target, path.join(target, 'planted.json')]) {
        const answer = await write(attempt);
        const hidden = places.denyRead.some((place) => under(attempt, [place]));
        if (/^ok/.test(answer) && !hidden) planted.push(attempt);
      }
    }
    assert.deepEqual(planted, [], 'a sandboxed server wrote configuration');
    const onDisk = targets
      .flatMap((target) => [target, path.join(target, 'planted.json')])
      .filter((file) => fs.existsSync(file) && fs.statSync(file).isFile() && fs.readFileSync(file, 'utf8').includes('mcpServers'));
    assert.deepEqual(onDisk, [], 'configuration reached the disk');
    assert.match(
      textOf((await connection.sendToolCall('read_file', { path: path.join(home, '.ssh', 'id_ed25519') })) as never),
      /^refused/,
    );
    await connection.dispose();
    // Nothing the sandbox stood in place of missing files is left behind.
    assert.equal(fs.existsSync(path.join(folder, '.cursor')), false);
    assert.equal(fs.existsSync(path.join(home, '.codex')), false);
  });
});
