// Servers in the machine host (src/core/sharing): two "windows" (each a runtime of its own, as an
// extension host has) attached to one host share a user-level server (one process), keep their
// own workspace servers, and get back, each, what the shared server asks during its own calls
// (roots here). Real fixture processes, counted in /proc; the host in this process (its own
// lifecycle is test/core/machine's).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import crypto from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { nullLogger } from '../../../src/core/base/logging';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { NO_SANDBOX_RULES, sandboxOf, type SandboxPlaces, type StdioServerDefinition } from '../../../src/core/config';
import {
  CLIENT_HEADER,
  HOST_DIR_ENV,
  HOST_MARKER,
  HOST_NAME,
  HOST_PATHS,
  HostLink,
  hostPlace,
  MachineHost,
  readHostToken,
  type HostPlace,
} from '../../../src/core/machine';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime';
import {
  HostedServers,
  SHARE_ALL,
  ServerSharing,
  sharedLaunchOf,
  sharingPolicyFrom,
  whyNotShared,
  type SharingPolicy,
} from '../../../src/core/sharing';

import { Cleanup, FIXTURES, MemoryLogger, stdioDefinition, tempDir } from '../connection/helpers';
import { SOCKET_UPGRADE } from '../../../src/core/connection';
import { until } from '../support/poll';
import { processesWith } from '../support/processesWith';
import { eventually } from '../support/poll';
import { buildCli, CLI } from '../doctor/helpers';
import { isProcessAlive } from '../../../src/core/base/processes';
import { PRODUCT_VERSION } from '../../../src/core/base/version';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Clock } from '../../../src/core/base/clock';
import { FakeClock } from '../support/fakeClock';

const VERSION = '1.0.0';

/** A request to the host's socket with the headers the test chooses: its status and body. */
function ask(
  place: HostPlace,
  method: string,
  pathName: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ socketPath: place.socket, path: pathName, method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** Asks the host's socket to upgrade `pathName` with the headers the test chooses: 101, or the status it answered instead. */
function upgradeStatus(place: HostPlace, pathName: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request({ socketPath: place.socket, path: pathName, headers });
    request.on('upgrade', (_response, socket) => {
      socket.destroy();
      resolve(101);
    });
    request.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end();
  });
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

interface Window {
  readonly runtime: SwitchboardRuntime;
  readonly link: HostLink;
  readonly sharing: ServerSharing;
  readonly folder: string;
  readonly logger: MemoryLogger;
}

describe('servers shared through the machine host', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  async function startHost(
    place: HostPlace,
    { sharedAttemptMs, clock, runtime }: { sharedAttemptMs?: number; clock?: Clock; runtime?: SwitchboardRuntime } = {},
  ): Promise<{ host: MachineHost; servers: () => HostedServers }> {
    let servers: HostedServers | undefined;
    const host = await MachineHost.start({
      place,
      version: VERSION,
      logger: nullLogger,
      services: (token) =>
        (servers = new HostedServers({ token, logger: nullLogger, sharedAttemptMs, clock, ...(runtime ? { runtime } : {}) })),
    });
    if (!(host instanceof MachineHost)) assert.fail(`not the host: ${host.why}`);
    cleanup.add(() => host.close());
    return { host, servers: () => servers ?? assert.fail('no servers in the host') };
  }

  /**
   * A window: its own runtime, attached to the host at `place`, sharing `configured` as the editor
   * does (and again whenever the link attaches to a new host). `launch` starts a host when there is none.
   */
  async function openWindow(
    place: HostPlace,
    configured: StdioServerDefinition[],
    {
      policy = SHARE_ALL,
      launch,
      version = VERSION,
      places,
    }: { policy?: SharingPolicy; launch?: () => void; version?: string; places?: SandboxPlaces } = {},
  ): Promise<Window> {
    const folder = tempDir(cleanup, 'sb-window-');
    const logger = new MemoryLogger();
    const runtime = createRuntime({
      logger,
      storage: new MemoryToolCacheStorage(),
      settings: {},
      hostAnswers: { listRoots: async () => ({ roots: [{ uri: `file://${folder}`, name: path.basename(folder) }] }) },
    });
    const link = new HostLink({ place, version, logger: nullLogger, launch: launch ?? (() => assert.fail('the host runs in this test')) });
    const sharing = new ServerSharing({
      link,
      policy: () => policy,
      workspaceFolders: () => [folder],
      ...(places ? { sandboxPlaces: () => places } : {}),
      logger: nullLogger,
    });
    cleanup.add(async () => {
      sharing.dispose();
      link.dispose();
      await runtime.dispose();
    });
    // As the config gives them: in this window's folder unless the entry names one.
    const inWindow = configured.map((definition) => ({
      ...definition,
      ...(definition.cwd === undefined ? { cwd: folder, cwdIsFolder: true } : {}),
      ...(definition.source.kind === 'mcpJson'
        ? { source: { kind: 'mcpJson' as const, file: path.join(folder, '.vscode', 'mcp.json') } }
        : {}),
    }));
    await runtime.manager.start(await sharing.share(inWindow));
    sharing.onDidChange(() => void sharing.share(inWindow).then((servers) => runtime.manager.update(servers)));
    return { runtime, link, sharing, folder, logger };
  }

  async function call(window: Window, server: string, tool: string, args: Record<string, unknown> = {}): Promise<string> {
    await until(() => window.runtime.manager.server(server)?.state.kind === 'running', 20_000, `${server} running`);
    return textOf(await window.runtime.manager.forwardToolCall(server, tool, args));
  }

  it('runs a user-level server once for two windows; each keeps its workspace servers, and gets back its own roots', async () => {
    const place = hostPlace({ [HOST_DIR_ENV]: path.join(tempDir(cleanup, 'sb-host-'), 'h') });
    const { servers } = await startHost(place);
    const mark = `shared-${crypto.randomBytes(4).toString('hex')}`;
    const workspaceMark = `workspace-${crypto.randomBytes(4).toString('hex')}`;
    const icon = 'data:image/png;base64,iVBORw0KGgo=';
    const shared = stdioDefinition(['--features', '--name', mark, '--icon', icon], { name: 'notes' });
    const workspace = stdioDefinition(['--name', workspaceMark], { name: 'repo', source: { kind: 'mcpJson' } });

    const first = await openWindow(place, [shared, workspace]);
    // The second window calls the same server by another name: what is shared is the launch, not the name.
    const second = await openWindow(place, [{ ...shared, name: 'my-notes' }, workspace]);

    const connection = first.runtime.manager.server('notes')?.definition;
    assert.equal(connection?.transport, 'http');
    assert.ok(connection?.transport === 'http' && connection.url.startsWith(`http://${HOST_NAME}/mcp/s`), 'the window reaches the host');
    assert.equal(first.runtime.manager.server('repo')?.definition?.transport, 'stdio', 'a workspace server stays in its window');

    assert.equal(await call(first, 'notes', 'echo', { text: 'one' }), 'one');
    assert.equal(await call(second, 'my-notes', 'echo', { text: 'two' }), 'two');
    await call(first, 'repo', 'echo', { text: 'x' });
    await call(second, 'repo', 'echo', { text: 'x' });
    assert.equal(processesWith(mark).length, 1, 'one process of the shared server for both windows');
    // Each window reads the server as it names itself (its row's icon, its tooltip), not as the host names its copy.
    for (const [window, name] of [
      [first, 'notes'],
      [second, 'my-notes'],
    ] as const) {
      const state = window.runtime.manager.server(name)?.state;
      assert.ok(state?.kind === 'running');
      assert.equal(state.serverInfo.name, mark);
      assert.deepEqual(
        state.serverInfo.icons?.map((each) => each.src),
        [icon],
      );
    }
    assert.equal(processesWith(workspaceMark).length, 2, 'each window runs its own workspace server');

    // Roots asked during a window's call are that window's, never the other's.
    assert.match(await call(first, 'notes', 'list_roots'), new RegExp(path.basename(first.folder)));
    const secondRoots = await call(second, 'my-notes', 'list_roots');
    assert.match(secondRoots, new RegExp(path.basename(second.folder)));
    assert.doesNotMatch(secondRoots, new RegExp(path.basename(first.folder)));

    // The host declares what it cannot know yet (its copy was starting); a list it then does not have is no problem to report.
    for (const window of [first, second]) {
      const warnings = window.logger.entries.filter((entry) => entry.level === 'warn' || entry.level === 'error');
      assert.deepEqual(warnings, []);
    }
    await until(
      () => first.sharing.clientsOf('notes') === 2 && second.sharing.clientsOf('my-notes') === 2,
      10_000,
      'both told of two clients',
    );
    assert.equal(first.sharing.clientsOf('repo'), undefined, 'a server of its own is not shared');

    const hostName = connection?.transport === 'http' ? (connection.hosted?.name ?? '') : '';
    assert.equal(servers().clientsOf(hostName), 2);
    // A window that goes away is forgotten; the server stays for the other, and stops with the last.
    first.link.dispose();
    await until(() => servers().clientsOf(hostName) === 1, 10_000, 'the first window forgotten');
    await until(() => second.sharing.clientsOf('my-notes') === 1, 10_000, 'the second told it is alone');
    assert.equal(await call(second, 'my-notes', 'echo', { text: 'still' }), 'still');
    second.link.dispose();
    await until(() => processesWith(mark).length === 0, 10_000, 'the shared server stopped with its last client');
  });

  it('the host killed (SIGKILL) with a server in it: both windows heal on a new host, their server runs there once, and nothing is left of the old', async function () {
    this.timeout(120_000);
    buildCli();
    const place = hostPlace({ [HOST_DIR_ENV]: path.join(tempDir(cleanup, 'sb-host-'), 'h') });
    const hosts: ChildProcess[] = [];
    cleanup.add(async () => {
      for (const host of hosts) if (host.pid && isProcessAlive(host.pid)) host.kill('SIGKILL');
    });
    // As a window launches it: the built CLI, detached; it ends 300 ms after its last client.
    const launch = () => {
      const child = spawn(process.execPath, [CLI, 'host', HOST_MARKER, '--grace-ms', '300'], {
        detached: true,
        stdio: 'ignore',
        env: { ...process.env, [HOST_DIR_ENV]: place.folder },
      });
      child.on('error', () => undefined);
      hosts.push(child);
    };
    const mark = `shared-${crypto.randomBytes(4).toString('hex')}`;
    const notes = stdioDefinition(['--name', mark], { name: 'notes' });
    const first = await openWindow(place, [notes], { launch, version: PRODUCT_VERSION });
    const second = await openWindow(place, [notes], { launch, version: PRODUCT_VERSION });
    assert.equal(await call(first, 'notes', 'echo', { text: 'one' }), 'one');
    assert.equal(await call(second, 'notes', 'echo', { text: 'two' }), 'two');
    const [before] = processesWith(mark);
    const hostPid = first.link.current.kind === 'attached' ? first.link.current.info.pid : assert.fail('not attached');
    assert.equal(processesWith(mark).length, 1);

    process.kill(hostPid, 'SIGKILL');
    // Its server's stdin closed with it: the server ends, no orphan.
    await until(() => before !== undefined && !isProcessAlive(before), 10_000, 'the old host’s server gone');
    for (const [window, text] of [
      [first, 'again one'],
      [second, 'again two'],
    ] as const) {
      await eventually(
        async () => ((await call(window, 'notes', 'echo', { text }).catch(() => undefined)) === text ? true : undefined),
        'the window calls its server on the new host',
        30_000,
      );
    }
    const healed = first.link.current.kind === 'attached' ? first.link.current.info.pid : assert.fail('not attached again');
    assert.notEqual(healed, hostPid);
    assert.equal(second.link.current.kind === 'attached' ? second.link.current.info.pid : 0, healed, 'both on the same new host');
    assert.equal(processesWith(mark).length, 1, 'one process of the server, on the new host');
    // The windows gone, the new host ends, and its server with it.
    first.link.dispose();
    second.link.dispose();
    await until(() => !isProcessAlive(healed) && processesWith(mark).length === 0, 15_000, 'the new host and its server gone').catch(
      (error) => {
        throw new Error(
          `${String(error)}: host alive ${isProcessAlive(healed)}, servers ${processesWith(mark).join(',')}, hosts ${hosts.map((h) => `${h.pid}:${isProcessAlive(h.pid ?? 0)}`).join(' ')}`,
        );
      },
    );
  });

  it("answers a window's list before its servers have started: the window's connections open meanwhile and wait for them, none refused", async () => {
    const place = hostPlace({ [HOST_DIR_ENV]: path.join(tempDir(cleanup, 'sb-host-'), 'h') });
    // The host's manager takes the list only once the test lets it: its servers start after the answer.
    const runtime = createRuntime({ logger: nullLogger, storage: new MemoryToolCacheStorage(), settings: { maxExposed: 1_000_000 } });
    cleanup.add(() => runtime.dispose());
    let letThrough: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (letThrough = resolve));
    const update = runtime.manager.update.bind(runtime.manager);
    runtime.manager.update = async (...args: Parameters<typeof update>) => {
      await gate;
      return update(...args);
    };
    const { servers } = await startHost(place, { runtime });
    const window = await openWindow(place, [stdioDefinition([], { name: 'notes' })]);
    assert.equal(window.runtime.manager.server('notes')?.definition?.transport, 'http', 'shared: the host answered in time');
    assert.equal(servers().runtime.manager.servers().length, 0, 'the window shared its list before the host started anything');
    const states: string[] = [];
    window.runtime.manager.onDidChangeState(({ server, state }) => server === 'notes' && states.push(state.kind));
    const answered = call(window, 'notes', 'echo', { text: 'waited' });
    letThrough();
    assert.equal(await answered, 'waited');
    assert.ok(!states.includes('error'), `the connection waited for the server, not refused: ${states.join(' → ')}`);
  });

  it("ends while a window's connection waits for its server: that connection is closed, not waited for", async function () {
    this.timeout(20_000);
    const place = hostPlace({ [HOST_DIR_ENV]: path.join(tempDir(cleanup, 'sb-host-'), 'h') });
    // The host never gets to take the window's list, so the window's connection waits in the host.
    const runtime = createRuntime({ logger: nullLogger, storage: new MemoryToolCacheStorage(), settings: { maxExposed: 1_000_000 } });
    cleanup.add(() => runtime.dispose());
    runtime.manager.update = () => new Promise<void>(() => undefined);
    const { host, servers } = await startHost(place, { runtime });
    const hosted = servers();
    const upgrade = hosted.upgrade.bind(hosted);
    let upgrades = 0;
    hosted.upgrade = (...args: Parameters<typeof upgrade>) => {
      upgrades += 1;
      upgrade(...args);
    };
    const window = await openWindow(place, [stdioDefinition([], { name: 'notes' })]);
    await until(() => upgrades > 0, 10_000, "the window's connection in the host");
    // Without closing it, the host's server would wait for it (here: for ever; for a starting server: its connect timeout).
    await host.close();
    assert.notEqual(window.runtime.manager.server('notes')?.state.kind, 'running');
  });

  it('a shared server that fails: each window is told how (code, message, its stderr), and its Reconnect starts it again once it can', async () => {
    const place = hostPlace({ [HOST_DIR_ENV]: path.join(tempDir(cleanup, 'sb-host-'), 'h') });
    // A window asking for the failed server starts it again at most once a second: between those, it is refused with the failure.
    await startHost(place, { sharedAttemptMs: 1_000 });
    const broken = path.join(tempDir(cleanup, 'sb-broken-'), 'broken');
    fs.writeFileSync(broken, '');
    const notes = stdioDefinition(['--fail-if-exists', broken, '--exit-message', 'the database is gone'], { name: 'notes' });
    const windows = [await openWindow(place, [notes]), await openWindow(place, [notes])];
    for (const window of windows) {
      // A window whose own retries ran out while the host was still retrying (its sessions closed
      // under it) asks again, as Reconnect does, until the host says how its copy failed.
      await eventually(
        async () => {
          const now = window.runtime.manager.server('notes')?.state;
          if (now?.kind === 'error' && now.code === 'PROCESS_EXITED') return true;
          if (now?.kind === 'error') await window.runtime.manager.reconnect('notes').catch(() => undefined);
          return undefined;
        },
        'the window shows the failure',
        30_000,
      ).catch(() => undefined);
      const state = window.runtime.manager.server('notes')?.state;
      assert.ok(state?.kind === 'error');
      assert.equal(state.code, 'PROCESS_EXITED', state.message);
      assert.match(state.message, /in the machine host: .*exited/);
      assert.ok(
        state.stderrTail.some((line) => line.includes('the database is gone')),
        JSON.stringify(state.stderrTail),
      );
    }
    // Mended: a window's Reconnect asks the host, which starts its copy again.
    fs.rmSync(broken);
    const [first] = windows;
    await eventually(
      async () => {
        if (first?.runtime.manager.server('notes')?.state.kind === 'running') return true;
        await first?.runtime.manager.reconnect('notes').catch(() => undefined);
        return undefined;
      },
      'the window runs the server again',
      30_000,
    );
    assert.equal(await call(first as Window, 'notes', 'echo', { text: 'back' }), 'back');
  });

  it('starts an idle copy for a window that connects, and the window reads it as it names itself', async () => {
    const place = hostPlace({ [HOST_DIR_ENV]: path.join(tempDir(cleanup, 'sb-host-'), 'h') });
    await startHost(place);
    const mark = `lazy-${crypto.randomBytes(4).toString('hex')}`;
    const notes = stdioDefinition(['--name', mark], { name: 'notes', lifecycle: { start: 'lazy', idleStopMs: 0 } });
    const window = await openWindow(place, [notes]);
    const result = await window.runtime.manager.forwardToolCall('notes', 'echo', { text: 'woken' });
    assert.equal(textOf(result), 'woken');
    const state = window.runtime.manager.server('notes')?.state;
    assert.ok(state?.kind === 'running', state?.kind);
    assert.equal(state.serverInfo.name, mark, 'the name its process gives, not the host’s name for its copy');
  });

  it("a shared server's tool list is screened in the host, which the window takes as listed: a tool too deep or not valid MCP never reaches it", async () => {
    const place = hostPlace({ [HOST_DIR_ENV]: path.join(tempDir(cleanup, 'sb-host-'), 'h') });
    const { servers } = await startHost(place);
    const hostile = stdioDefinition(['--deep-tool', '1000', '--invalid-tool'], { name: 'hostile' });
    const window = await openWindow(place, [hostile]);
    assert.equal(await call(window, 'hostile', 'echo', { text: 'still here' }), 'still here');
    const names = window.runtime.manager.server('hostile')?.tools.map((tool) => tool.name) ?? [];
    assert.ok(names.includes('echo') && !names.includes('deep') && !names.includes('invalid'), names.join(','));
    const inHost = servers().runtime.manager.servers()[0]?.state;
    assert.deepEqual(
      inHost?.kind === 'running' ? inHost.quarantinedTools?.map((tool) => tool.name).sort() : inHost?.kind,
      ['deep', 'invalid'],
      "the host's copy held them back",
    );
  });

  it('idles a lazy copy 2 s after the last session on it ends, as the window’s own would be idle; a call starts it again', async () => {
    const place = hostPlace({ [HOST_DIR_ENV]: path.join(tempDir(cleanup, 'sb-host-'), 'h') });
    const clock = new FakeClock(Date.now());
    const { servers } = await startHost(place, { clock });
    const mark = `lazy-${crypto.randomBytes(4).toString('hex')}`;
    const notes = stdioDefinition(['--name', mark], { name: 'notes', lifecycle: { start: 'lazy', idleStopMs: 0 } });
    const window = await openWindow(place, [notes]);
    const hostName = (() => {
      const definition = window.runtime.manager.server('notes')?.definition;
      return definition?.transport === 'http' ? (definition.hosted?.name ?? '') : '';
    })();
    // Nothing cached: the host learns its copy's lists, and idles it once learned, as a window does.
    await until(
      () => servers().runtime.manager.server(hostName)?.state.kind === 'idle' && processesWith(mark).length === 0,
      20_000,
      'the copy learned and idle',
    );
    // A window's call starts it; it runs while the window's session holds it (its entry never stops it for lack of use).
    assert.equal(textOf(await window.runtime.manager.forwardToolCall('notes', 'echo', { text: 'one' })), 'one');
    assert.equal(processesWith(mark).length, 1);
    // The window lets go (here its Stop; an idle stop or a closed window alike).
    await window.runtime.manager.stopServer('notes');
    await clock.whenPending(2_000);
    assert.equal(processesWith(mark).length, 1, 'kept for 2 s: a window connecting again meanwhile finds it running');
    clock.advance(2_000);
    await until(() => processesWith(mark).length === 0, 10_000, 'the copy idled, its process gone');
    assert.equal(servers().runtime.manager.server(hostName)?.state.kind, 'idle');
    await window.runtime.manager.startServer('notes');
    assert.equal(textOf(await window.runtime.manager.forwardToolCall('notes', 'echo', { text: 'again' })), 'again');
    assert.equal(processesWith(mark).length, 1);
  });

  it("a shared server that speaks only 2026-07-28: the window calls it, and its row says so (the hop to the host is 2025's)", async () => {
    const place = hostPlace({ [HOST_DIR_ENV]: path.join(tempDir(cleanup, 'sb-host-'), 'h') });
    await startHost(place);
    const modern = stdioDefinition([], { name: 'modern', args: [path.join(__dirname, '..', '..', 'fixtures', 'modern-server.mjs')] });
    const window = await openWindow(place, [modern]);
    assert.equal(await call(window, 'modern', 'echo', { text: 'now' }), 'now');
    const state = window.runtime.manager.server('modern')?.state;
    assert.ok(state?.kind === 'running');
    assert.equal(window.runtime.manager.server('modern')?.definition?.transport, 'http', 'through the host');
    assert.deepEqual([state.protocolVersion, state.era], ['2026-07-28', 'modern']);
  });

  it("a window's Reconnect restarts the host's copy, as it would its own; windows reconnecting within sharedAttemptMs share one restart", async () => {
    const place = hostPlace({ [HOST_DIR_ENV]: path.join(tempDir(cleanup, 'sb-host-'), 'h') });
    const clock = new FakeClock(Date.now());
    await startHost(place, { sharedAttemptMs: 1_000, clock });
    const mark = `restart-${crypto.randomBytes(4).toString('hex')}`;
    const notes = stdioDefinition(['--name', mark], { name: 'notes' });
    const [first, second] = [await openWindow(place, [notes]), await openWindow(place, [notes])] as const;
    assert.equal(await call(first, 'notes', 'echo', { text: 'one' }), 'one');
    assert.equal(await call(second, 'notes', 'echo', { text: 'two' }), 'two');
    const [before] = processesWith(mark);
    assert.equal((await first.runtime.manager.reconnect('notes')).kind, 'running');
    const restarted = processesWith(mark);
    assert.equal(restarted.length, 1);
    assert.notEqual(restarted[0], before, 'a new process for the Reconnect');
    // The other window's Reconnect in the same second (a Reconnect All in each) shares that restart.
    assert.equal((await second.runtime.manager.reconnect('notes')).kind, 'running');
    assert.deepEqual(processesWith(mark), restarted);
    clock.advance(1_000);
    assert.equal((await second.runtime.manager.reconnect('notes')).kind, 'running');
    assert.notDeepEqual(processesWith(mark), restarted);
    assert.equal(await call(first, 'notes', 'echo', { text: 'still' }), 'still');
  });

  it("a window's Invalidate Tool Cache lists the host's copy again first, so the window reads what it offers now", async () => {
    const place = hostPlace({ [HOST_DIR_ENV]: path.join(tempDir(cleanup, 'sb-host-'), 'h') });
    await startHost(place);
    const skills = tempDir(cleanup, 'sb-skills-');
    fs.cpSync(path.join(__dirname, '..', '..', 'fixtures', 'skills'), skills, { recursive: true });
    const docs = stdioDefinition(['--skills-dir', skills], {
      name: 'docs',
      args: [path.join(__dirname, '..', '..', 'fixtures', 'skills-server.mjs'), '--skills-dir', skills],
    });
    const window = await openWindow(place, [docs]);
    await until(() => window.runtime.manager.server('docs')?.state.kind === 'running', 20_000, 'running');
    const names = () => (window.runtime.offers.offer('docs')?.skills ?? []).map((skill) => skill.uri).sort();
    const before = names();
    assert.ok(before.length > 0 && !before.some((uri) => uri.includes('added-later')), JSON.stringify(before));
    // A skill appears on disk: the server lists it from now on, and says nothing of it.
    fs.mkdirSync(path.join(skills, 'added-later'));
    fs.writeFileSync(
      path.join(skills, 'added-later', 'SKILL.md'),
      '---\nname: added-later\ndescription: A skill added later.\n---\nBody.\n',
    );
    await window.sharing.refresh();
    await window.runtime.invalidateCaches();
    const after = names();
    assert.equal(after.length, before.length + 1, JSON.stringify(after));
    assert.ok(
      after.some((uri) => uri.includes('added-later')),
      JSON.stringify(after),
    );
  });

  it("a window's Reconnect tries the host's failed copy again and gets its outcome; windows asking within sharedAttemptMs of an attempt share it", async () => {
    const place = hostPlace({ [HOST_DIR_ENV]: path.join(tempDir(cleanup, 'sb-host-'), 'h') });
    // Only the host's attempts read this clock: time moves when the test says.
    const clock = new FakeClock(Date.now());
    await startHost(place, { sharedAttemptMs: 1_000, clock });
    const broken = path.join(tempDir(cleanup, 'sb-broken-'), 'broken');
    fs.writeFileSync(broken, '');
    const notes = stdioDefinition(['--fail-if-exists', broken, '--exit-message', 'the database is gone'], {
      name: 'notes',
      reconnect: { maxAttempts: 0, initialDelayMs: 100, maxDelayMs: 100 },
    });
    const [first, second] = [await openWindow(place, [notes]), await openWindow(place, [notes])] as const;
    for (const window of [first, second]) {
      await until(() => window.runtime.manager.server('notes')?.state.kind === 'error', 20_000, 'the window shows the failure');
    }
    // The copy is tried again for the first window's Reconnect: still broken.
    assert.equal((await first.runtime.manager.reconnect('notes')).kind, 'error');
    fs.rmSync(broken);
    // Within the same second, the second window is told that attempt's outcome: the host does not start it for each window.
    const shared = await second.runtime.manager.reconnect('notes');
    assert.ok(shared.kind === 'error', shared.kind);
    assert.match(shared.message, /the database is gone/);
    clock.advance(1_000);
    // A second later, its Reconnect starts the copy again and waits for it, as for a server of its own: one click.
    const again = await second.runtime.manager.reconnect('notes');
    assert.equal(again.kind, 'running', JSON.stringify(again));
    assert.equal(await call(second, 'notes', 'echo', { text: 'back' }), 'back');
    // Within the second after that attempt, a Reconnect of the running copy (Reconnect All) restarts
    // it: that attempt started the failed copy, it did not restart a running one.
    const [started] = processesWith(broken);
    assert.equal((await first.runtime.manager.reconnect('notes')).kind, 'running');
    const restarted = processesWith(broken);
    assert.equal(restarted.length, 1);
    assert.notEqual(restarted[0], started, 'a new process for the restart');
  });

  it("a running shared server's stderr reaches every window using it; when it fails, each window's session ends saying how, not as a lost connection", async () => {
    const place = hostPlace({ [HOST_DIR_ENV]: path.join(tempDir(cleanup, 'sb-host-'), 'h') });
    await startHost(place);
    // No reconnect: the copy's exit is its failure at once, in the host and in the windows.
    const notes = stdioDefinition(['--crash-after', '2'], {
      name: 'notes',
      reconnect: { maxAttempts: 0, initialDelayMs: 100, maxDelayMs: 100 },
    });
    const windows = [await openWindow(place, [notes]), await openWindow(place, [notes])];
    const mark = `said-${crypto.randomBytes(4).toString('hex')}`;
    assert.equal(await call(windows[0] as Window, 'notes', 'stderr', { lines: 3, prefix: mark }), 'wrote 3');
    for (const window of windows) {
      await until(
        () => window.runtime.manager.server('notes')?.stderrTail.includes(`${mark} 3`) === true,
        10_000,
        "the server's stderr in each window",
      );
      assert.deepEqual(
        window.logger.entries.filter((entry) => entry.message.includes(`stderr: ${mark}`)).map((entry) => entry.message),
        [1, 2, 3].map((n) => `[notes] stderr: ${mark} ${n}`),
        "in the window's log, as a server of its own writes it",
      );
    }
    // The second call ends the copy (exit 1, unanswered): both windows' rows say how.
    await assert.rejects(windows[1]?.runtime.manager.forwardToolCall('notes', 'echo', { text: 'x' }) ?? Promise.resolve());
    for (const window of windows) {
      await until(() => window.runtime.manager.server('notes')?.state.kind === 'error', 10_000, 'the window shows the failure');
      const state = window.runtime.manager.server('notes')?.state;
      assert.ok(state?.kind === 'error');
      // What a window's own server that exits while running says, with the host's words for it.
      assert.equal(state.code, 'CONNECTION_LOST', state.message);
      assert.match(state.message, /in the machine host: the server process exited with code 1\. Last stderr line: fixture: crashing/);
    }
  });

  it('shares a sandboxed server between windows that protect the same places, protects them in the host, and gives a window that protects others its own copy', async function () {
    if (process.platform !== 'linux') this.skip();
    this.timeout(120_000);
    const place = hostPlace({ [HOST_DIR_ENV]: path.join(tempDir(cleanup, 'sb-host-'), 'h') });
    const { servers } = await startHost(place);
    const root = tempDir(cleanup, 'sb-sandboxed-');
    const project = path.join(root, 'project');
    // The window's editor keeps its settings where the host's default would not look (code-server's, say).
    const editorUserDir = path.join(root, 'editor', 'User');
    fs.mkdirSync(editorUserDir, { recursive: true });
    fs.mkdirSync(project, { recursive: true });
    const probe = stdioDefinition([], {
      name: 'probe',
      args: [path.join(FIXTURES, 'sandbox-probe-server.mjs')],
      sandbox: {
        enabled: true,
        origin: 'entry',
        // Rules that would let it write the editor's settings, were they not protected.
        rules: { ...NO_SANDBOX_RULES, filesystem: { ...NO_SANDBOX_RULES.filesystem, allowWrite: [root] } },
      },
    });
    const places: SandboxPlaces = { workspaceFolders: [project], editorUserDir };
    const first = await openWindow(place, [probe], { places });
    const second = await openWindow(place, [probe], { places });
    const elsewhere = await openWindow(place, [probe], { places: { workspaceFolders: [path.join(root, 'other')], editorUserDir } });
    for (const window of [first, second, elsewhere]) {
      const connection = window.runtime.manager.server('probe')?.definition;
      assert.ok(connection?.transport === 'http' && connection.hosted, 'the sandboxed server runs in the host');
      assert.ok(sandboxOf(connection), 'and reads as sandboxed (its row, its tooltip, Run Unsandboxed)');
    }
    const write = (window: Window, file: string) => call(window, 'probe', 'write_file', { path: file, text: '{"x":1}', makeFolders: true });
    assert.match(await write(first, path.join(root, 'data', 'ok.txt')), /^ok/, 'its rules let it write there');
    assert.match(await write(second, path.join(editorUserDir, 'settings.json')), /^refused/, "the window's editor settings, in the host");
    assert.match(await write(first, path.join(project, '.vscode', 'mcp.json')), /^refused/, "the window's workspace configuration");
    assert.ok(!fs.existsSync(path.join(editorUserDir, 'settings.json')));
    await call(elsewhere, 'probe', 'whoami');
    // One copy for the two windows that protect the same places, one for the third.
    assert.equal(servers().runtime.manager.servers().length, 2);
  });

  it("answers only its clients: the servers' endpoints and the list need the token, the host's name, no Origin, and an open attachment", async () => {
    const place = hostPlace({ [HOST_DIR_ENV]: path.join(tempDir(cleanup, 'sb-host-'), 'h') });
    await startHost(place);
    const token = readHostToken(place) ?? assert.fail('no token');
    const good = { host: HOST_NAME, authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const connection = { ...good, connection: 'Upgrade', upgrade: SOCKET_UPGRADE };
    // Nothing is shared yet: the endpoint is unknown, but only a client with the token learns that.
    assert.equal(await upgradeStatus(place, '/mcp/s0123456789abcdef', connection), 404);
    assert.equal(await upgradeStatus(place, '/mcp/s0123456789abcdef', { ...connection, authorization: 'Bearer nope' }), 401);
    assert.equal(await upgradeStatus(place, '/mcp/s0123456789abcdef', { ...connection, host: 'localhost' }), 403);
    assert.equal(await upgradeStatus(place, '/mcp/s0123456789abcdef', { ...connection, origin: 'http://localhost' }), 403);
    const list = JSON.stringify({ servers: [] });
    assert.equal((await ask(place, 'PUT', HOST_PATHS.servers, good, list)).status, 409, 'a list for no attachment');
    assert.equal(
      (await ask(place, 'PUT', HOST_PATHS.servers, { ...good, [CLIENT_HEADER]: 'AAAAAAAAAAAAAAAA' }, list)).status,
      409,
      'for one not open',
    );
    const link = new HostLink({ place, version: VERSION, logger: nullLogger, launch: () => undefined });
    cleanup.add(() => link.dispose());
    const attached = await link.attach();
    const client = attached.kind === 'attached' ? attached.client : assert.fail('not attached');
    const mine = { ...good, [CLIENT_HEADER]: client };
    assert.equal((await ask(place, 'PUT', HOST_PATHS.servers, mine, '{"servers":[{"command":""}]}')).status, 400);
    const tooMany = JSON.stringify({ servers: Array.from({ length: 201 }, () => sharedLaunchOf(stdioDefinition())) });
    assert.equal((await ask(place, 'PUT', HOST_PATHS.servers, mine, tooMany)).status, 400);
    assert.equal((await ask(place, 'PUT', HOST_PATHS.servers, mine, 'x'.repeat(5 * 1024 * 1024))).status, 413);
    // A sandbox's places are bounded like any list a client sends.
    const sandboxed = stdioDefinition([], { sandbox: { enabled: true, origin: 'entry', rules: NO_SANDBOX_RULES } });
    const manyPlaces = JSON.stringify({
      servers: [sharedLaunchOf(sandboxed, { workspaceFolders: Array.from({ length: 1001 }, (_, index) => `/w/${index}`) })],
    });
    assert.equal((await ask(place, 'PUT', HOST_PATHS.servers, mine, manyPlaces)).status, 400);
    assert.equal((await ask(place, 'DELETE', HOST_PATHS.servers, mine)).status, 405);
    const put = await ask(place, 'PUT', HOST_PATHS.servers, mine, JSON.stringify({ servers: [sharedLaunchOf(stdioDefinition())] }));
    assert.equal(put.status, 200);
    const endpoint = (JSON.parse(put.body) as { servers: { endpoint: string }[] }).servers[0]?.endpoint ?? assert.fail('no endpoint');
    assert.equal(await upgradeStatus(place, endpoint, connection), 101);
    assert.equal(await upgradeStatus(place, endpoint, { ...connection, authorization: 'Bearer nope' }), 401);
    assert.equal(await upgradeStatus(place, endpoint, { ...connection, upgrade: 'websocket' }), 400, 'only the hop of its own');
    assert.equal((await ask(place, 'POST', endpoint, good, '{}')).status, 404, 'no HTTP endpoint: a connection is the upgraded socket');
    // What runs, for doctor: with the token, and without an attachment (the doctor is no client).
    const listing = await ask(place, 'GET', HOST_PATHS.servers, good);
    assert.equal(listing.status, 200);
    assert.deepEqual(
      (JSON.parse(listing.body) as { servers: { name: string; clients: number }[] }).servers.map(({ name, clients }) => ({
        name,
        clients,
      })),
      [{ name: endpoint.slice('/mcp/'.length), clients: 1 }],
    );
    assert.equal((await ask(place, 'GET', HOST_PATHS.servers, { ...good, authorization: 'Bearer nope' })).status, 401);
    // Listing again: only servers the asking client lists (another attachment cannot make the host work for them).
    const name = endpoint.slice('/mcp/'.length);
    const refresh = JSON.stringify({ refresh: [name] });
    assert.deepEqual(JSON.parse((await ask(place, 'POST', HOST_PATHS.servers, mine, refresh)).body), { refreshed: [name] });
    const other = new HostLink({ place, version: VERSION, logger: nullLogger, launch: () => undefined });
    cleanup.add(() => other.dispose());
    const otherAttached = await other.attach();
    const theirs = { ...good, [CLIENT_HEADER]: otherAttached.kind === 'attached' ? otherAttached.client : assert.fail('not attached') };
    assert.deepEqual(JSON.parse((await ask(place, 'POST', HOST_PATHS.servers, theirs, refresh)).body), { refreshed: [] });
    // Even a client with servers of its own in the host: only those.
    const theirList = JSON.stringify({ servers: [sharedLaunchOf(stdioDefinition(['--name', 'theirs']))] });
    assert.equal((await ask(place, 'PUT', HOST_PATHS.servers, theirs, theirList)).status, 200);
    assert.deepEqual(JSON.parse((await ask(place, 'POST', HOST_PATHS.servers, theirs, refresh)).body), { refreshed: [] });
    assert.equal((await ask(place, 'POST', HOST_PATHS.servers, good, refresh)).status, 409, 'for no attachment');
    assert.equal((await ask(place, 'POST', HOST_PATHS.servers, mine, '{"refresh":["../x"]}')).status, 400);
  });

  it('starts a host ahead of the first share only when the policy may share something', async () => {
    const cases: [SharingPolicy, number][] = [
      [SHARE_ALL, 1],
      [{ enabled: false, servers: {} }, 0],
      [{ enabled: false, servers: { notes: false } }, 0],
      [{ enabled: false, servers: { notes: true } }, 1],
    ];
    for (const [policy, wanted] of cases) {
      const place = hostPlace({ [HOST_DIR_ENV]: path.join(tempDir(cleanup, 'sb-host-'), 'h') });
      let launched = 0;
      const link = new HostLink({ place, version: VERSION, logger: nullLogger, launch: () => (launched += 1) });
      const sharing = new ServerSharing({ link, policy: () => policy, workspaceFolders: () => [], logger: nullLogger });
      cleanup.add(() => {
        sharing.dispose();
        link.dispose();
      });
      await sharing.warm();
      assert.equal(launched, wanted, JSON.stringify(policy));
    }
  });

  it('reads mcpSwitchboard.shareServers: on unless turned off, per server with "*" for the rest', () => {
    assert.deepEqual(sharingPolicyFrom(undefined), { enabled: true, servers: {} });
    assert.deepEqual(sharingPolicyFrom('yes'), { enabled: true, servers: {} });
    assert.deepEqual(sharingPolicyFrom(false), { enabled: false, servers: {} });
    assert.deepEqual(sharingPolicyFrom({ '*': false, browser: true, odd: 'no' }), { enabled: false, servers: { browser: true } });
    assert.deepEqual(sharingPolicyFrom({ browser: false }), { enabled: true, servers: { browser: false } });
  });

  it("runs an entry without cwd in the home folder, unless its launch names something in its window's folder", () => {
    const folder = tempDir(cleanup, 'sb-folder-');
    fs.writeFileSync(path.join(folder, 'server.js'), '');
    const inFolder = (args: string[], more: Partial<StdioServerDefinition> = {}): StdioServerDefinition => ({
      ...stdioDefinition(args),
      cwd: folder,
      cwdIsFolder: true,
      ...more,
    });
    const cwdOf = (definition: StdioServerDefinition) => sharedLaunchOf(definition).cwd;
    // Nothing of the folder in it: every window's copy is one, in the home folder.
    assert.equal(cwdOf(inFolder(['-y', '@modelcontextprotocol/server-memory', '--port=3000', 'https://example.com/x'])), undefined);
    assert.equal(cwdOf(inFolder([], { env: { LEVEL: 'debug', KEY: 'a/b+c' }, secrets: ['a/b+c'] })), undefined, 'a secret is not a path');
    // What names the folder keeps it, and so its fingerprint differs from another folder's.
    for (const args of [['.'], ['./bin/run'], ['../other'], ['build/index.js'], ['server.js'], ['--config=./c.json']]) {
      assert.equal(cwdOf(inFolder(args)), folder, args.join(' '));
    }
    assert.equal(cwdOf(inFolder([], { command: './run.sh' })), folder, 'a relative command');
    assert.equal(cwdOf(inFolder([], { env: { DATA: 'data/memory.json' } })), folder, 'a relative path in the environment');
    // A folder the entry names is its own, kept as it is; so is one with nothing of the window in it.
    assert.equal(cwdOf({ ...stdioDefinition(['server.js']), cwd: '/srv/tools' }), '/srv/tools');
  });

  it('keeps in the window what the policy, the sandbox or the workspace keep there', () => {
    const user = stdioDefinition([], { name: 'a' });
    const folders = ['/work/repo'];
    assert.equal(whyNotShared(user, SHARE_ALL, folders), undefined);
    assert.match(whyNotShared(user, { enabled: false, servers: {} }, folders) ?? '', /sharing is off/);
    assert.equal(whyNotShared(user, { enabled: false, servers: { a: true } }, folders), undefined, 'a server turned on alone');
    assert.match(whyNotShared(user, { enabled: true, servers: { a: false } }, folders) ?? '', /off for this server/);
    const inRepo = { ...user, source: { kind: 'cursor' as const, file: '/work/repo/.cursor/mcp.json' } };
    assert.match(whyNotShared(inRepo, SHARE_ALL, folders) ?? '', /workspace defines it/);
    assert.equal(whyNotShared(inRepo, { enabled: true, servers: { a: true } }, folders), undefined, 'the user opts a workspace server in');
    const home = { ...user, source: { kind: 'cursor' as const, file: '/home/u/.cursor/mcp.json' } };
    assert.equal(whyNotShared(home, SHARE_ALL, folders), undefined);
    const sandboxed = {
      ...user,
      sandbox: {
        enabled: true,
        origin: 'entry' as const,
        rules: { filesystem: { allowWrite: [], denyRead: [], denyWrite: [] }, network: { allowedDomains: [], deniedDomains: [] } },
      },
    };
    assert.equal(
      whyNotShared(sandboxed, SHARE_ALL, folders),
      undefined,
      'a sandboxed server too: its launch carries the places it protects',
    );
    assert.match(whyNotShared({ ...user, devWatch: ['src/**'] }, SHARE_ALL, folders) ?? '', /dev\.watch/);
  });
});
