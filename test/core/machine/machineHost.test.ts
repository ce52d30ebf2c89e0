// The machine host (src/core/machine): one per OS user, in a folder only that user may enter, that
// windows and agents attach to. In-process here for the folder's checks, the guards of the socket,
// the version handover and the idle end (on a fake clock); with real host processes of the built
// CLI for the faults: killed, stopped, a stale socket left behind, and two starters racing.
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { nullLogger } from '../../../src/core/base/logging';
import { isProcessAlive } from '../../../src/core/base/processes';
import { systemClock } from '../../../src/core/base/clock';
import { compareVersions, PRODUCT_VERSION } from '../../../src/core/base/version';
import {
  ensurePrivateFolder,
  HOST_DIR_ENV,
  HOST_MARKER,
  HOST_NAME,
  HostLink,
  hostPlace,
  HostPlaceError,
  MachineHost,
  readHostToken,
  type HostLinkState,
  type HostPlace,
} from '../../../src/core/machine';
import { Cleanup, tempDir } from '../support/cleanup';
import { FakeClock } from '../support/fakeClock';
import { waitFor } from '../support/waitFor';
import { until as pollUntil } from '../support/poll';
import { CLI } from '../doctor/helpers';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const NOBODY = 65534;

function placeIn(cleanup: Cleanup): HostPlace {
  return hostPlace({ [HOST_DIR_ENV]: path.join(tempDir(cleanup, 'sb-host-'), 'h') });
}

async function startHost(cleanup: Cleanup, place: HostPlace, options: Partial<Parameters<typeof MachineHost.start>[0]> = {}) {
  const host = await MachineHost.start({ place, version: '1.0.0', logger: nullLogger, ...options });
  if (!(host instanceof MachineHost)) assert.fail(`not the host: ${host.why}`);
  cleanup.add(() => host.close());
  return host;
}

function link(cleanup: Cleanup, place: HostPlace, options: Partial<ConstructorParameters<typeof HostLink>[0]> = {}): HostLink {
  const made = new HostLink({
    place,
    version: '1.0.0',
    logger: nullLogger,
    launch: () => assert.fail('no host should be launched'),
    ...options,
  });
  cleanup.add(() => made.dispose());
  return made;
}

function until(made: HostLink, wanted: (state: HostLinkState) => boolean, what: string, timeoutMs = 15_000): Promise<HostLinkState> {
  return waitFor({
    now: () => (wanted(made.current) ? made.current : undefined),
    event: made.onDidChange,
    describe: () => `${what}; now ${JSON.stringify(made.current)}`,
    timeoutMs,
  });
}

/** A raw request to the host's socket, with the headers the test chooses. */
function rawRequest(place: HostPlace, headers: Record<string, string>, pathName = '/host/info'): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request({ socketPath: place.socket, path: pathName, headers }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end();
  });
}

async function gone(pid: number, timeoutMs = 10_000): Promise<void> {
  await pollUntil(() => !isProcessAlive(pid), timeoutMs, `process ${pid} gone`);
}

/** Host processes of the built CLI, started as a window would (detached), and every one of them ended after the test. */
function processLauncher(cleanup: Cleanup, place: HostPlace, graceMs = 300) {
  const started: ChildProcess[] = [];
  cleanup.add(async () => {
    for (const child of started) if (child.pid && isProcessAlive(child.pid)) child.kill('SIGKILL');
  });
  const launch = () => {
    const child = spawn(process.execPath, [CLI, 'host', HOST_MARKER, '--grace-ms', String(graceMs)], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, [HOST_DIR_ENV]: place.folder },
    });
    child.on('error', () => undefined);
    started.push(child);
  };
  return { launch, started };
}

describe('the machine host (core/machine)', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  describe('its folder is this user’s alone', () => {
    it('is made 0700; one that others may enter is refused, naming the mend', () => {
      const place = placeIn(cleanup);
      ensurePrivateFolder(place);
      assert.equal(fs.statSync(place.folder).mode & 0o777, 0o700);
      fs.chmodSync(place.folder, 0o755);
      assert.throws(
        () => ensurePrivateFolder(place),
        (error: unknown) => error instanceof HostPlaceError && /mode 0755.*chmod 700/.test(error.message),
      );
    });

    it('a symbolic link in its place is refused', () => {
      const place = placeIn(cleanup);
      const real = tempDir(cleanup);
      fs.chmodSync(real, 0o700);
      fs.symlinkSync(real, place.folder);
      assert.throws(
        () => ensurePrivateFolder(place),
        (error: unknown) => error instanceof HostPlaceError && /symbolic link/.test(error.message),
      );
    });

    it('a folder made first by another user is refused (as root: chown)', function () {
      if (!isRoot) this.skip();
      const place = placeIn(cleanup);
      fs.mkdirSync(place.folder, { mode: 0o700 });
      fs.chownSync(place.folder, NOBODY, NOBODY);
      assert.throws(
        () => ensurePrivateFolder(place),
        (error: unknown) => error instanceof HostPlaceError && /another user \(uid 65534/.test(error.message),
      );
    });

    it('a token file others may read is not used', async () => {
      const place = placeIn(cleanup);
      await startHost(cleanup, place);
      assert.ok(readHostToken(place));
      fs.chmodSync(place.token, 0o644);
      assert.throws(
        () => readHostToken(place),
        (error: unknown) => error instanceof HostPlaceError && /chmod 600/.test(error.message),
      );
    });

    it('a socket of another user is not connected to: the window runs its servers itself, and says why (as root: chown)', async function () {
      if (!isRoot) this.skip();
      const place = placeIn(cleanup);
      await startHost(cleanup, place);
      fs.chownSync(place.socket, NOBODY, NOBODY);
      const state = await link(cleanup, place).attach();
      assert.equal(state.kind, 'own');
      assert.match(state.kind === 'own' ? state.why : '', /socket .* belongs to another user/);
    });
  });

  describe('its socket answers only its own clients', () => {
    it('refuses a request without the token, with a wrong Host, or with an Origin', async () => {
      const place = placeIn(cleanup);
      await startHost(cleanup, place);
      const token = readHostToken(place) ?? assert.fail('no token');
      const good = { host: HOST_NAME, authorization: `Bearer ${token}` };
      assert.equal(await rawRequest(place, good), 200);
      assert.equal(await rawRequest(place, { host: good.host }), 401);
      assert.equal(await rawRequest(place, { ...good, authorization: `Bearer ${token.slice(1)}x` }), 401);
      assert.equal(await rawRequest(place, { ...good, host: 'localhost' }), 403);
      assert.equal(await rawRequest(place, { ...good, origin: 'http://localhost' }), 403);
    });

    it('a second process cannot become the host while one answers', async () => {
      const place = placeIn(cleanup);
      await startHost(cleanup, place);
      const second = await MachineHost.start({ place, version: '1.0.0', logger: nullLogger });
      assert.ok(!(second instanceof MachineHost));
      assert.match(second.why, new RegExp(`pid ${process.pid}\\) is running`));
    });

    it('a start lock held by a live starter keeps others out; one left by a dead starter is taken over', async () => {
      const place = placeIn(cleanup);
      ensurePrivateFolder(place);
      const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
      cleanup.add(() => void sleeper.kill('SIGKILL'));
      fs.writeFileSync(place.lock, String(sleeper.pid));
      const blocked = await MachineHost.start({ place, version: '1.0.0', logger: nullLogger });
      assert.ok(!(blocked instanceof MachineHost));
      assert.match(blocked.why, /another process is starting/);
      sleeper.kill('SIGKILL');
      await new Promise((resolve) => sleeper.once('exit', resolve));
      await startHost(cleanup, place);
      assert.equal(fs.existsSync(place.lock), false, 'the lock is released once the host listens');
    });
  });

  describe('attaching, and ending when nobody is attached', () => {
    it('a client attaches to the running host; the host ends once the last client has been gone for the grace period', async () => {
      const place = placeIn(cleanup);
      const clock = new FakeClock();
      const host = await startHost(cleanup, place, { clock, graceMs: 10_000 });
      const client = link(cleanup, place);
      const state = await client.attach();
      assert.equal(state.kind === 'attached' ? state.info.pid : undefined, process.pid);
      assert.equal(host.info().clients, 1);
      clock.advance(10_000);
      assert.equal(host.info().clients, 1, 'an attached client keeps the host');
      assert.equal(host.info().pid, process.pid);
      let ended = false;
      void host.closed.then(() => (ended = true));
      client.dispose();
      // The host learns of it when the attachment's socket closes: no event of the host's says so.
      await pollUntil(() => host.info().clients === 0, 10_000, 'the host saw the client go');
      clock.advance(9_999);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(ended, false, 'not before the grace period');
      clock.advance(1);
      await host.closed;
      assert.equal(fs.existsSync(place.token), false, 'its token goes with it');
      assert.equal(fs.existsSync(place.info), false);
    });

    it('a window warms the host as it activates: started once, before anything attaches; an attach right after uses it; unused, it ends by itself', async () => {
      const place = placeIn(cleanup);
      const { launch, started } = processLauncher(cleanup, place);
      const client = link(cleanup, place, { launch, clock: systemClock, version: PRODUCT_VERSION });
      const warming = client.warm();
      void client.warm();
      const state = await client.attach();
      await warming;
      assert.equal(state.kind, 'attached');
      assert.equal(started.length, 1, 'one host started, not one by warm() and another by the attach');
      const pid = state.kind === 'attached' ? state.info.pid : 0;
      assert.equal(pid, started[0]?.pid);
      client.dispose();
      await gone(pid);

      // Warmed and never attached to (the window had nothing to share): the host ends after its grace period.
      const alone = placeIn(cleanup);
      const unused = processLauncher(cleanup, alone);
      await link(cleanup, alone, { launch: unused.launch, clock: systemClock, version: PRODUCT_VERSION }).warm();
      assert.equal(unused.started.length, 1);
      await gone(unused.started[0]?.pid ?? 0);
    });

    it('a link ended while it warms starts no host', async () => {
      const place = placeIn(cleanup);
      let launched = 0;
      const client = link(cleanup, place, { launch: () => (launched += 1) });
      const warming = client.warm();
      client.dispose();
      await warming;
      assert.equal(launched, 0);
    });

    it('warming where a host answers starts none', async () => {
      const place = placeIn(cleanup);
      await startHost(cleanup, place);
      let launched = 0;
      await link(cleanup, place, { launch: () => (launched += 1) }).warm();
      assert.equal(launched, 0);
    });

    it('a host of another version with nothing in flight steps down, and a host of this version takes over', async () => {
      const place = placeIn(cleanup);
      const old = await startHost(cleanup, place, { version: '0.9.0' });
      let launched: MachineHost | undefined;
      const client = link(cleanup, place, {
        clock: systemClock,
        // In one process both hosts have one pid: the new one starts once the old has removed its files.
        launch: () => {
          void old.closed.then(async () => {
            const host = await MachineHost.start({ place, version: '1.0.0', logger: nullLogger });
            if (host instanceof MachineHost) {
              launched = host;
              cleanup.add(() => host.close());
            }
          });
        },
      });
      const state = await client.attach();
      await old.closed;
      assert.equal(state.kind === 'attached' ? state.info.version : state.kind, '1.0.0');
      assert.ok(launched);
    });

    it('a host of another version that is busy is left alone: this client runs its servers itself, and says why', async () => {
      const place = placeIn(cleanup);
      const old = await startHost(cleanup, place, { version: '0.9.0', busy: () => 2 });
      const state = await link(cleanup, place).attach();
      assert.equal(state.kind, 'own');
      assert.match(state.kind === 'own' ? state.why : '', /version 0\.9\.0, this is 1\.0\.0, and it has requests in flight/);
      assert.equal(old.info().clients, 0);
    });
  });

  describe('versions take no turns', () => {
    it('an older client never asks a newer host to step down: it runs its servers itself, and says why', async () => {
      const place = placeIn(cleanup);
      const newer = await startHost(cleanup, place, { version: '1.10.0' });
      const state = await link(cleanup, place, { version: '1.9.2' }).attach();
      assert.equal(state.kind, 'own');
      assert.match(state.kind === 'own' ? state.why : '', /newer version, 1\.10\.0, than this 1\.9\.2/);
      assert.equal(newer.info().clients, 0);
      // Still the host: nothing asked it to go.
      assert.equal((await link(cleanup, place, { version: '1.10.0' }).attach()).kind, 'attached');
    });

    it('orders versions as numbers, a pre-release before its release', () => {
      assert.ok(compareVersions('1.10.0', '1.9.2') > 0);
      assert.ok(compareVersions('0.1.0', '0.1.0') === 0);
      assert.ok(compareVersions('1.0.0-rc.1', '1.0.0') < 0);
      assert.ok(compareVersions('1.0.0-rc.10', '1.0.0-rc.2') > 0);
      assert.ok(compareVersions('2.0', '2.0.0') === 0);
    });
  });

  describe('faults: every client heals, and nothing is left behind', () => {
    it('the host killed (SIGKILL): the client starts a new one and is attached to it', async () => {
      const place = placeIn(cleanup);
      const { launch } = processLauncher(cleanup, place);
      const client = link(cleanup, place, { launch, clock: systemClock, version: PRODUCT_VERSION });
      const first = await client.attach();
      assert.equal(first.kind, 'attached');
      const firstPid = first.kind === 'attached' ? first.info.pid : 0;
      const killedAt = Date.now();
      process.kill(firstPid, 'SIGKILL');
      const healed = await until(client, (state) => state.kind === 'attached' && state.info.pid !== firstPid, 'attached to a new host');
      // How fast is bench:host's to measure (a test on a busy machine is not a timer); it is printed for the record.
      process.stdout.write(`      (attached to a new host ${Date.now() - killedAt} ms after the kill)\n`);
      const secondPid = healed.kind === 'attached' ? healed.info.pid : 0;
      client.dispose();
      await gone(secondPid);
    });

    it('the host stopped (SIGSTOP): the client finds it silent, and the new host ends the stopped one', async () => {
      const place = placeIn(cleanup);
      const { launch } = processLauncher(cleanup, place);
      const client = link(cleanup, place, { launch, clock: systemClock, version: PRODUCT_VERSION });
      const first = await client.attach();
      const firstPid = first.kind === 'attached' ? first.info.pid : assert.fail('not attached');
      const stoppedAt = Date.now();
      process.kill(firstPid, 'SIGSTOP');
      const healed = await until(client, (state) => state.kind === 'attached' && state.info.pid !== firstPid, 'attached to a new host');
      process.stdout.write(`      (attached to a new host ${Date.now() - stoppedAt} ms after the stop)\n`);
      await gone(firstPid);
      client.dispose();
      await gone(healed.kind === 'attached' ? healed.info.pid : 0);
    });

    it('a late beat from a host that works (busy, not stopped) ends nothing until three are missed', async () => {
      const place = placeIn(cleanup);
      // The host's clock never moves: it sends no beat at all.
      await startHost(cleanup, place, { clock: new FakeClock() });
      const clock = new FakeClock();
      const client = link(cleanup, place, { clock });
      assert.equal((await client.attach()).kind, 'attached');
      // Two beats late: its process is looked at (this one, running), and it stays the host.
      for (let waited = 0; waited < 2_500; waited += 100) clock.advance(100);
      assert.equal(client.current.kind, 'attached');
    });

    it('a stale socket, token and info left by a host that died are taken over', async () => {
      const place = placeIn(cleanup);
      ensurePrivateFolder(place);
      // A listener killed outright leaves its socket file behind, as a crashed host does.
      const crashed = spawn(
        process.execPath,
        ['-e', `require('net').createServer().listen(${JSON.stringify(place.socket)}, () => console.log('up'))`],
        {
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      );
      await new Promise((resolve) => crashed.stdout?.once('data', resolve));
      crashed.kill('SIGKILL');
      await new Promise((resolve) => crashed.once('exit', resolve));
      assert.ok(fs.lstatSync(place.socket).isSocket(), 'the stale socket is there');
      fs.writeFileSync(place.token, `${'x'.repeat(43)}\n`, { mode: 0o600 });
      fs.writeFileSync(place.info, JSON.stringify({ pid: 999_999_999, version: '1.0.0', protocol: 1, clients: 0, busy: 0, startedAt: 0 }));
      const { launch } = processLauncher(cleanup, place);
      const client = link(cleanup, place, { launch, clock: systemClock, version: PRODUCT_VERSION });
      const state = await client.attach();
      assert.equal(state.kind, 'attached', JSON.stringify(state));
      client.dispose();
      await gone(state.kind === 'attached' ? state.info.pid : 0);
    });

    it('a FIFO in place of the lock and the info blocks no starter: read as nothing, replaced', async function () {
      if (process.platform === 'win32') this.skip();
      const place = placeIn(cleanup);
      ensurePrivateFolder(place);
      for (const file of [place.lock, place.info]) execFileSync('mkfifo', ['-m', '600', file]);
      await startHost(cleanup, place);
      assert.equal(JSON.parse(fs.readFileSync(place.info, 'utf8')).pid, process.pid);
    });

    it('a pid in the stale info that is now another program is not killed', async () => {
      const place = placeIn(cleanup);
      ensurePrivateFolder(place);
      const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
      cleanup.add(() => void other.kill('SIGKILL'));
      fs.writeFileSync(place.token, `${'x'.repeat(43)}\n`, { mode: 0o600 });
      fs.writeFileSync(
        place.info,
        JSON.stringify({ pid: other.pid, version: PRODUCT_VERSION, protocol: 1, clients: 0, busy: 0, startedAt: 0 }),
      );
      const { launch } = processLauncher(cleanup, place);
      const client = link(cleanup, place, { launch, clock: systemClock, version: PRODUCT_VERSION });
      const state = await client.attach();
      assert.equal(state.kind, 'attached', JSON.stringify(state));
      assert.ok(other.pid && isProcessAlive(other.pid), 'the other program still runs');
      client.dispose();
      await gone(state.kind === 'attached' ? state.info.pid : 0);
    });

    it('two clients racing to start the host end up on one host; the other starter ends', async () => {
      const place = placeIn(cleanup);
      const { launch, started } = processLauncher(cleanup, place);
      const [a, b] = [
        link(cleanup, place, { launch, clock: systemClock, version: PRODUCT_VERSION }),
        link(cleanup, place, { launch, clock: systemClock, version: PRODUCT_VERSION }),
      ];
      const [stateA, stateB] = await Promise.all([a.attach(), b.attach()]);
      assert.equal(stateA.kind, 'attached');
      const pid = stateA.kind === 'attached' ? stateA.info.pid : 0;
      assert.equal(stateB.kind === 'attached' ? stateB.info.pid : 0, pid);
      assert.ok(started.length >= 2, `both launched (${started.length})`);
      for (const child of started) if (child.pid !== pid) await gone(child.pid ?? 0);
      a.dispose();
      b.dispose();
      await gone(pid);
    });
  });
});
