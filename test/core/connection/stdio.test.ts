import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Tool } from '@modelcontextprotocol/client';
import { isSwitchboardError } from '../../../src/core/connection';
import { isDeepFrozenData } from '../../../src/core/base/freeze';
import { type ServerState } from '../../../src/core/state/serverState';
import { assertState, Cleanup, connect, stdioDefinition, stdioStats, tempDir, textOf, waitForState } from './helpers';
import { until } from '../support/poll';

describe('ServerConnection over stdio', () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('connects, lists the tools and calls one', async () => {
    const { connection, events } = connect(cleanup, stdioDefinition());
    const state = await connection.start();
    assertState(state, 'running');
    assert.equal(state.transport, 'stdio');
    assert.deepEqual(state.serverInfo, { name: 'fixture-stdio', version: '1.2.3' });
    assert.ok(state.protocolVersion.length > 0);
    assert.deepEqual(state.capabilities.tools, { listChanged: true });
    assert.ok(state.connectMs >= 0);
    assert.equal(state.toolCount, connection.tools.length);
    assert.deepEqual(
      events.map((event) => event.state.kind),
      ['starting', 'running'],
    );
    assert.deepEqual(
      events.map((event) => event.previous.kind),
      ['stopped', 'starting'],
    );
    const names = connection.tools.map((tool) => tool.name);
    for (const name of ['echo', 'add', 'slow', 'fail', 'count', 'env']) assert.ok(names.includes(name), name);
    assert.equal(connection.tools.find((tool) => tool.name === 'echo')?.annotations?.readOnlyHint, true);
    assert.equal(textOf(await connection.sendToolCall('add', { a: 2, b: 3 })), '5');
    assert.equal(textOf(await connection.sendToolCall('echo', { text: 'hi' })), 'hi');
    assert.equal(typeof connection.pid, 'number');
  });

  it('state and tools are shared frozen, so no reader can change them for another', async () => {
    const { connection } = connect(cleanup, stdioDefinition());
    await connection.start();
    const state = connection.state as { kind: string };
    assert.equal(Reflect.set(state, 'kind', 'mutated'), false);
    assert.equal(connection.state.kind, 'running');
    const tools = connection.tools as Tool[];
    assert.throws(() => tools.pop(), TypeError);
    assert.equal(Reflect.set(tools[0] as object, 'name', 'mutated'), false);
    assert.ok(isDeepFrozenData(tools), 'frozen all the way down: schemas too');
    assert.equal(connection.tools.length, (connection.state as { toolCount: number }).toolCount);
    assert.notEqual(connection.tools[0]?.name, 'mutated');
  });

  it('follows nextCursor through every page of tools/list', async () => {
    const { connection } = connect(cleanup, stdioDefinition(['--page-size', '2']));
    const state = await connection.start();
    assertState(state, 'running');
    assert.equal(state.toolCount, 11);
    assert.equal(new Set(connection.tools.map((tool) => tool.name)).size, 11);
    assert.equal((await connection.listTools()).length, 11);
  });

  it('passes process.env plus the definition env to the server', async () => {
    process.env.SWITCHBOARD_TEST_INHERITED = 'from-parent';
    cleanup.add(() => void delete process.env.SWITCHBOARD_TEST_INHERITED);
    const { connection } = connect(cleanup, stdioDefinition([], { env: { FIXTURE_VALUE: 'from-definition', HOME_OVERRIDE: 'x' } }));
    await connection.start();
    assert.equal(textOf(await connection.sendToolCall('env', { name: 'FIXTURE_VALUE' })), 'from-definition');
    assert.equal(textOf(await connection.sendToolCall('env', { name: 'SWITCHBOARD_TEST_INHERITED' })), 'from-parent');
  });

  it('runs in the home directory by default, in defaultCwd when given, and in the definition cwd', async () => {
    const { connection: byDefault } = connect(cleanup, stdioDefinition());
    await byDefault.start();
    assert.equal(textOf(await byDefault.sendToolCall('cwd')), fs.realpathSync(os.homedir()));

    const dir = fs.realpathSync(tempDir(cleanup));
    const { connection: withDefault } = connect(cleanup, stdioDefinition(), { defaultCwd: dir });
    await withDefault.start();
    assert.equal(textOf(await withDefault.sendToolCall('cwd')), dir);

    const own = path.join(dir, 'own');
    fs.mkdirSync(own);
    const { connection: withCwd } = connect(cleanup, stdioDefinition([], { cwd: own }), { defaultCwd: dir });
    await withCwd.start();
    assert.equal(textOf(await withCwd.sendToolCall('cwd')), own);
  });

  it('keeps the last 1000 stderr lines and logs each line', async () => {
    const { connection, logger } = connect(cleanup, stdioDefinition(['--stderr-lines', '3']));
    await connection.start();
    await connection.sendToolCall('stderr', { lines: 1500, prefix: 'bulk' });
    // stderr and stdout are separate pipes: the result can overtake the last stderr lines.
    await until(() => connection.stderrTail(1)[0] === 'bulk 1500');
    const tail = connection.stderrTail();
    assert.equal(tail.length, 1000);
    assert.equal(tail[0], 'bulk 501');
    assert.equal(tail[999], 'bulk 1500');
    assert.deepEqual(connection.stderrTail(2), ['bulk 1499', 'bulk 1500']);
    assert.ok(logger.entries.some((entry) => entry.message.endsWith('stderr: stderr line 1')));
    assert.ok(logger.entries.some((entry) => entry.message.endsWith('stderr: bulk 1500')));
  });

  it('redacts secrets from logs, stderr and error messages', async () => {
    const secret = 'sk-test-123456';
    const { connection, logger } = connect(
      cleanup,
      stdioDefinition(['--exit-at-start', '1', '--exit-message', `bad key ${secret}`], { secrets: [secret], env: { API_KEY: secret } }),
    );
    const state = await connection.start();
    assertState(state, 'error');
    assert.ok(!JSON.stringify(state).includes(secret), JSON.stringify(state));
    assert.ok(state.stderrTail.includes('bad key ***'));
    assert.ok(!logger.text().includes(secret), logger.text());
    assert.ok(logger.text().includes('--exit-message bad key ***'), logger.text());
  });

  it('reports a missing command with the PATH that was searched', async () => {
    const searched = ['/nonexistent/switchboard-a', '/nonexistent/switchboard-b'].join(path.delimiter);
    const { connection } = connect(
      cleanup,
      stdioDefinition([], { command: 'switchboard-no-such-command', args: [], env: { PATH: searched } }),
    );
    const state = await connection.start();
    assertState(state, 'error');
    assert.equal(state.code, 'ENOENT');
    const [first, heading, ...folders] = state.message.split('\n');
    assert.equal(first, 'command `switchboard-no-such-command` not found on PATH');
    assert.equal(heading, 'Searched (PATH, in order):');
    assert.deepEqual(folders, ['/nonexistent/switchboard-a', '/nonexistent/switchboard-b']);
  });

  it('reports a missing working directory as such', async () => {
    const { connection } = connect(cleanup, stdioDefinition([], { cwd: '/nonexistent/switchboard-cwd' }));
    const state = await connection.start();
    assertState(state, 'error');
    assert.equal(state.code, 'ENOENT');
    assert.match(state.message, /working directory `\/nonexistent\/switchboard-cwd` does not exist/);
  });

  it('puts the stderr tail of a server that exits at start into the error state', async () => {
    const { connection } = connect(
      cleanup,
      stdioDefinition(['--stderr-lines', '2', '--exit-at-start', '3', '--exit-message', 'fatal: missing API key']),
    );
    const state = await connection.start();
    assertState(state, 'error');
    assert.equal(state.code, 'PROCESS_EXITED');
    assert.match(state.message, /exited with code 3/);
    assert.match(state.message, /fatal: missing API key/);
    assert.deepEqual(state.stderrTail, ['stderr line 1', 'stderr line 2', 'fatal: missing API key']);
  });

  it('tolerates banner lines on stdout, with a warning', async () => {
    const { connection, logger } = connect(cleanup, stdioDefinition(['--garbage', '2']));
    const state = await connection.start();
    assertState(state, 'running');
    assert.equal(textOf(await connection.sendToolCall('echo', { text: 'still fine' })), 'still fine');
    assert.ok(
      logger.entries.some((entry) => entry.level === 'warn' && entry.message.includes('fixture banner 1: this is not JSON-RPC')),
      logger.text(),
    );
  });

  it('reads messages cut anywhere, even inside a character, and ended with \\r\\n', async () => {
    const { connection, logger } = connect(cleanup, stdioDefinition(['--split-writes']));
    assertState(await connection.start(), 'running');
    const text = 'naïve ☃ — 日本語 '.repeat(40);
    assert.equal(textOf(await connection.sendToolCall('echo', { text })), text);
    assert.equal(textOf(await connection.sendToolCall('echo', { text: 'second' })), 'second');
    assert.ok(!logger.entries.some((entry) => entry.level === 'warn'), logger.text());
  });

  it('turns a server that only writes garbage to stdout into a clear error', async () => {
    // Generous: the server only answers (with garbage) once node has started and read our line.
    const { connection } = connect(cleanup, stdioDefinition(['--garbage-only'], { timeouts: { connectMs: 1000, requestMs: 10_000 } }));
    const state = await connection.start();
    assertState(state, 'error');
    assert.equal(state.code, 'PROTOCOL_ERROR');
    assert.match(state.message, /not JSON-RPC \("Welcome to the garbage server!"\)/);
    assert.match(state.message, /only JSON-RPC messages to stdout/);
  });

  it('refetches tools on tools/list_changed and fires onDidChangeTools', async () => {
    const { connection } = connect(cleanup, stdioDefinition());
    await connection.start();
    const before = connection.tools.length;
    const changed = new Promise<string[]>((resolve) =>
      connection.onDidChangeTools((event) => resolve(event.tools.map((tool) => tool.name))),
    );
    await connection.sendToolCall('add_tool', { name: 'brand_new' });
    const names = await changed;
    assert.ok(names.includes('brand_new'));
    assert.equal(connection.tools.length, before + 1);
    assertState(connection.state, 'running');
    assert.equal((connection.state as Extract<ServerState, { kind: 'running' }>).toolCount, before + 1);
    assert.equal(textOf(await connection.sendToolCall('brand_new')), 'brand_new');
  });

  it('a disabled definition stays disabled', async () => {
    const { connection } = connect(cleanup, stdioDefinition([], { enabled: false }));
    assert.equal((await connection.start()).kind, 'disabled');
    await assert.rejects(connection.sendToolCall('echo', { text: 'x' }), (error) => isSwitchboardError(error, 'NOT_RUNNING'));
  });

  it('counts calls in the fixture (sanity check for the tests that rely on it)', async () => {
    const { connection } = connect(cleanup, stdioDefinition());
    await connection.start();
    await connection.sendToolCall('echo', { text: 'a' });
    assert.equal(textOf(await connection.sendToolCall('count')), '2');
    assert.equal((await stdioStats(connection)).calls, 2);
    await waitForState(connection, (state) => state.kind === 'running');
  });
});
