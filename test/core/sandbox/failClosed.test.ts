// A sandbox that was asked for and cannot run leaves the server stopped, with the reason and the
// fix, and never starts it without one: not at start, not on a retry.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { NO_SANDBOX_RULES } from '../../../src/core/config/types';
import { checkIsolation, checkSandbox, defaultSandboxRuntime, type SandboxRuntime } from '../../../src/core/sandbox';
import { assertState, Cleanup, connect, FIXTURES, stdioDefinition, tempDir, waitForState } from '../connection/helpers';

const PROBE = path.join(FIXTURES, 'sandbox-probe-server.mjs');

function sandboxedProbe(env: Record<string, string>, marker: string) {
  return stdioDefinition([], {
    name: 'probe',
    args: [PROBE, marker],
    env,
    sandbox: { enabled: true, rules: NO_SANDBOX_RULES, origin: 'entry' },
    reconnect: { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 20 },
  });
}

/** A folder on PATH with a command of this name that prints `said` and fails, as a broken tool does. */
function failingCommand(cleanup: Cleanup, name: string, said: string): string {
  const dir = tempDir(cleanup, 'switchboard-fakebin-');
  fs.writeFileSync(path.join(dir, name), `#!/bin/sh\necho '${said}' >&2\nexit 1\n`, { mode: 0o755 });
  return dir;
}

/** Whether any process runs with `marker` on its command line. */
function running(marker: string): boolean {
  return fs.readdirSync('/proc').some((name) => {
    try {
      return /^\d+$/.test(name) && fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker);
    } catch {
      return false;
    }
  });
}

describe('a sandbox that cannot run (fail closed)', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('Windows: not supported, with what to do instead', async () => {
    const check = await checkSandbox({ platform: 'win32', searchPath: process.env.PATH ?? '' });
    assert.equal(check.ok, false);
    if (check.ok) return;
    assert.match(check.reason, /not supported on Windows/);
    assert.match(check.fix, /WSL/);
    assert.match(check.fix, /"sandboxEnabled": false/);
  });

  it('Linux without bubblewrap, socat or ripgrep: names each and the package to install', async () => {
    const check = await checkSandbox({ platform: 'linux', searchPath: '/nonexistent' });
    assert.equal(check.ok, false);
    if (check.ok) return;
    assert.match(check.reason, /bubblewrap \(`bwrap`\), socat \(`socat`\), ripgrep \(`rg`\), not found on PATH/);
    assert.match(check.fix, /sudo apt install bubblewrap socat ripgrep/);
  });

  describe('on this machine', function () {
    if (process.platform !== 'linux') return;

    it('bubblewrap missing: the server is left stopped with the reason and the fix; nothing is spawned, nothing retried', async () => {
      const marker = `no-bwrap-${process.pid}-${Date.now()}`;
      const { connection, events, logger } = connect(cleanup, sandboxedProbe({ PATH: '/nonexistent-bin' }, marker));
      const state = await connection.start();
      assertState(state, 'error');
      assert.equal(state.code, 'SANDBOX_UNAVAILABLE');
      assert.match(state.message, /^sandbox unavailable: the sandbox needs bubblewrap \(`bwrap`\)/);
      assert.match(state.message, /sudo apt install bubblewrap/);
      assert.ok(!logger.text().includes('starting '), 'no process was started');
      assert.equal(running(marker), false);
      assert.ok(!events.some((event) => event.state.kind === 'reconnecting'), 'a sandbox that cannot run is not retried');
      // A reconnect asks again, and is refused again: nothing ever runs unsandboxed.
      assertState(await connection.reconnect(), 'error');
      assert.equal(running(marker), false);
    });

    it('a host with secret files that cannot keep a server from them: the server is left stopped, never run beside them', async () => {
      const marker = `no-isolation-${process.pid}-${Date.now()}`;
      const secret = path.join(tempDir(cleanup, 'switchboard-secret-'), 'cluster-key');
      fs.writeFileSync(secret, 'a key nobody else may read');
      const plain = stdioDefinition([], { name: 'probe', args: [PROBE, marker], env: { PATH: '/nonexistent-bin' } });
      const { connection, logger } = connect(cleanup, plain, { sandbox: { hostSecrets: [secret] } });
      const state = await connection.start();
      assertState(state, 'error');
      assert.equal(state.code, 'SANDBOX_UNAVAILABLE');
      assert.match(
        state.message,
        /this gateway keeps secrets a stdio server must not read .* needs bubblewrap \(`bwrap`\), not found on PATH/,
      );
      assert.match(state.message, /Install bubblewrap/);
      assert.ok(!logger.text().includes('starting '), 'no process was started');
      assert.equal(running(marker), false);
      // Elsewhere than Linux it cannot be done at all, and says so.
      const mac = await checkIsolation('darwin', process.env.PATH ?? '');
      assert.equal(mac.ok, false);
    });

    it('bubblewrap that cannot create namespaces: its own message, and the fix', async () => {
      const marker = `bad-bwrap-${process.pid}-${Date.now()}`;
      const fakeBin = failingCommand(
        cleanup,
        'bwrap',
        'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces',
      );
      const { connection } = connect(cleanup, sandboxedProbe({ PATH: `${fakeBin}:${process.env.PATH ?? ''}` }, marker));
      const state = await connection.start();
      assertState(state, 'error');
      assert.equal(state.code, 'SANDBOX_UNAVAILABLE');
      assert.match(state.message, /bubblewrap cannot create a sandbox here: bwrap: No permissions to creating new namespace/);
      assert.match(state.message, /unprivileged user namespaces/);
      assert.equal(running(marker), false);
    });

    it('finds ripgrep in the folders the editor offers after PATH (it ships its own)', async () => {
      const which = (binary: string) =>
        (process.env.PATH ?? '')
          .split(':')
          .map((dir) => path.join(dir, binary))
          .find((file) => fs.existsSync(file));
      const tools = tempDir(cleanup, 'switchboard-tools-');
      const ripgrep = tempDir(cleanup, 'switchboard-rg-');
      // A PATH with what the runtime itself runs (which, the shells), but no ripgrep.
      for (const binary of ['bwrap', 'socat', 'which', 'sh', 'bash']) fs.symlinkSync(which(binary) as string, path.join(tools, binary));
      fs.symlinkSync(which('rg') as string, path.join(ripgrep, 'rg'));
      const marker = `tool-dirs-${process.pid}-${Date.now()}`;
      const without = connect(cleanup, sandboxedProbe({ PATH: tools }, marker)).connection;
      const refused = await without.start();
      assertState(refused, 'error');
      assert.match(refused.message, /ripgrep \(`rg`\), not found on PATH/);
      const { connection } = connect(cleanup, sandboxedProbe({ PATH: tools }, marker), { sandbox: { toolDirs: [ripgrep] } });
      assertState(await connection.start(), 'running');
    });

    it('a runtime whose proxy bridges were too slow to start is tried again, and the server runs', async () => {
      const counter = path.join(tempDir(cleanup, 'switchboard-flaky-'), 'attempts');
      const runtime = { ...realRuntime(), cliPath: path.join(FIXTURES, 'flaky-sandbox-runtime.mjs') };
      const marker = `flaky-${process.pid}-${Date.now()}`;
      // Two failures: the first start's exit during the era probe is started once more anyway, so
      // the second failure is the one the sandbox's own retry must heal.
      const { connection, events } = connect(
        cleanup,
        sandboxedProbe({ FLAKY_SANDBOX_COUNTER: counter, FLAKY_SANDBOX_FAILURES: '2' }, marker),
        { sandbox: { runtime } },
      );
      await connection.start();
      const state = await waitForState(connection, (candidate) => candidate.kind === 'running' || candidate.kind === 'error', 30_000);
      assertState(state, 'running');
      assert.equal(fs.readFileSync(counter, 'utf8'), '3');
      assert.ok(
        events.some((event) => event.state.kind === 'reconnecting'),
        'the failed start was retried',
      );
    });

    it('a runtime that is missing: reported as a broken install, never run without it', async () => {
      const marker = `no-runtime-${process.pid}-${Date.now()}`;
      const { connection } = connect(cleanup, sandboxedProbe({}, marker), {
        sandbox: { runtime: { nodePath: process.execPath, cliPath: '/nonexistent/srt.mjs' } },
      });
      const state = await connection.start();
      assertState(state, 'error');
      assert.equal(state.code, 'SANDBOX_UNAVAILABLE');
      assert.match(state.message, /the sandbox runtime is missing from this installation/);
      assert.equal(running(marker), false);
    });

    it('a runtime without its seccomp helper: refused with the package that has it, never run without it', async () => {
      const marker = `no-seccomp-${process.pid}-${Date.now()}`;
      const { seccompHelper: _left, ...withoutHelper } = realRuntime();
      const { connection } = connect(cleanup, sandboxedProbe({}, marker), { sandbox: { runtime: withoutHelper } });
      const state = await connection.start();
      assertState(state, 'error');
      assert.equal(state.code, 'SANDBOX_UNAVAILABLE');
      assert.match(
        state.message,
        new RegExp(`seccomp helper for linux-${process.arch}, which keeps a sandboxed server off Unix sockets, is missing`),
      );
      assert.equal(running(marker), false);
      const helperGone = { ...realRuntime(), seccompHelper: '/nonexistent/apply-seccomp' };
      const again = connect(cleanup, sandboxedProbe({}, marker), { sandbox: { runtime: helperGone } }).connection;
      assert.match(((await again.start()) as { message: string }).message, /seccomp helper/);
    });
  });
});

/** The runtime this checkout runs sandboxed servers with, helper included. */
function realRuntime(): SandboxRuntime {
  const runtime = defaultSandboxRuntime();
  assert.ok(runtime?.seccompHelper, 'the sandbox runtime and its seccomp helper are installed');
  return runtime;
}
