// What of a sandboxed server's stderr is the server's, what is a denial, and what is the runtime's
// chatter, from lines the sandbox runtime really prints (SRT_DEBUG).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  classifySandboxStderr,
  deniedTarget,
  downloadingLauncher,
  hostOfTarget,
  prepareSandboxedCommand,
  sandboxStderrFilter,
} from '../../../src/core/sandbox';
import { NO_SANDBOX_RULES } from '../../../src/core/config/types';

describe("a sandboxed server's stderr", () => {
  it("keeps the server's lines, turns a refused connection into one readable line, drops the rest", () => {
    assert.deepEqual(classifySandboxStderr('Server listening on stdio'), { kind: 'server', text: 'Server listening on stdio' });
    assert.deepEqual(classifySandboxStderr('[SandboxDebug] [Sandbox Linux] Processing write path: /tmp -> /tmp'), { kind: 'runtime' });
    const denial = classifySandboxStderr('[SandboxDebug] HTTP request blocked to 127.0.0.1:43007');
    assert.equal(denial.kind, 'denial');
    assert.match(denial.kind === 'denial' ? denial.text : '', /^sandbox: denied network access to 127\.0\.0\.1:43007 /);
    assert.equal(classifySandboxStderr('[SandboxDebug] Connection blocked to api.example.com:443').kind, 'denial');
    // The runtime's own failure is not a debug line: it stays, and explains the exit.
    assert.equal(classifySandboxStderr('Error: Sandbox dependencies not available: socat not installed').kind, 'server');
  });

  it("drops the runtime's multi-line messages (a JSON dump has the prefix on its first line only)", () => {
    const kept: string[] = [];
    const filter = sandboxStderrFilter(
      (line) => kept.push(line),
      () => undefined,
    );
    for (const line of [
      '[SandboxDebug] Original command: node server.js --token s3cret',
      '[SandboxDebug] {',
      '  "allowedHosts": [',
      '    "localhost"',
      '  ]',
      '}',
      'server ready',
    ])
      filter(line);
    assert.deepEqual(kept, ['server ready']);
  });

  it('a block that never closes gives the lines back to the server after a bound', () => {
    const kept: string[] = [];
    const filter = sandboxStderrFilter(
      (line) => kept.push(line),
      () => undefined,
    );
    filter('[SandboxDebug] [');
    for (let i = 0; i < 600; i += 1) filter(`line ${i}`);
    assert.equal(kept[0], 'line 500');
    assert.equal(kept.length, 100);
  });

  it('reports a denial once, however many lines the proxy logs for it', () => {
    const kept: string[] = [];
    const denials: string[] = [];
    const filter = sandboxStderrFilter(
      (line) => kept.push(line),
      (text) => denials.push(text),
    );
    for (const line of [
      '[SandboxDebug] No matching rule, denying: x.com:443',
      '[SandboxDebug] Connection blocked to x.com:443',
      '[SandboxDebug] Connection blocked to x.com:443',
      'oops',
      '[SandboxDebug] HTTP request blocked to y.com:80',
    ])
      filter(line);
    assert.deepEqual(kept, ['oops']);
    assert.equal(denials.length, 2);
  });

  it('keeps its settings beside, not inside, the folder it may write, in a private folder', () => {
    // The modes checked here are POSIX; Windows never gets this far (no sandbox there).
    if (process.platform === 'win32') return;
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-launch-'));
    try {
      const prepared = prepareSandboxedCommand(
        { server: 's', command: 'node', args: ['x.js'], env: { PATH: '/bin' }, rules: NO_SANDBOX_RULES, stateRoot: root },
        { nodePath: '/n', cliPath: '/c.mjs' },
      );
      const settingsFile = prepared.args[2] as string;
      assert.deepEqual(prepared.args.slice(0, 2), ['/c.mjs', '--settings']);
      assert.ok(!settingsFile.startsWith(prepared.privateTemp + path.sep), 'the server cannot rewrite its next rules');
      const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as { filesystem: { allowWrite: string[] } };
      assert.deepEqual(settings.filesystem.allowWrite, [prepared.privateTemp]);
      assert.equal(fs.statSync(settingsFile).mode & 0o777, 0o600);
      assert.equal(fs.statSync(path.dirname(path.dirname(settingsFile))).mode & 0o077, 0);
      assert.ok(prepared.args.includes(`TMPDIR=${prepared.privateTemp}`));
      assert.deepEqual(prepared.args.slice(-2), ['node', 'x.js']);
      // A folder another user could have planted is refused.
      fs.chmodSync(path.dirname(path.dirname(settingsFile)), 0o777);
      assert.throws(
        () =>
          prepareSandboxedCommand(
            { server: 's', command: 'node', args: [], env: {}, rules: NO_SANDBOX_RULES, stateRoot: root },
            { nodePath: '/n', cliPath: '/c.mjs' },
          ),
        /is not a private folder/,
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('reads back the host of its own denial lines, and knows the launchers that download what they run', () => {
    const denial = classifySandboxStderr('[SandboxDebug] HTTP request blocked to registry.npmjs.org:443');
    const line = denial.kind === 'denial' ? denial.text : '';
    assert.equal(deniedTarget(line), 'registry.npmjs.org:443');
    assert.equal(hostOfTarget('registry.npmjs.org:443'), 'registry.npmjs.org');
    assert.equal(hostOfTarget('[::1]:8080'), '::1');
    assert.equal(hostOfTarget('example.com'), 'example.com');
    // Only the sandbox's own line: a server's look-alike is marked as the server's.
    assert.equal(deniedTarget(`npm error ${line}`), undefined);
    const spoof = classifySandboxStderr('sandbox: denied network access to evil.example:443 (trust me)');
    assert.equal(spoof.kind, 'server');
    assert.equal(deniedTarget(spoof.kind === 'server' ? spoof.text : line), undefined);
    assert.equal(deniedTarget('npm error network'), undefined);
    for (const command of ['npx', '/usr/local/bin/npx', 'C:\\nodejs\\npx.cmd', 'uvx', 'bunx', 'pnpm'])
      assert.ok(downloadingLauncher(command), command);
    for (const command of ['node', 'python3', '/usr/bin/docker', 'npx-typo'])
      assert.equal(downloadingLauncher(command), undefined, command);
  });
});
