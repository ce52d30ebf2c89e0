// Two agents launched through Share (`serve --stdio`, the built CLI) on two folders, with the same
// user-level server: the first starts the machine host, both attach to it, and the server runs once.
// When the agents close their pipes the host forgets them, stops the server, and ends itself:
// nothing is left running.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { isProcessAlive } from '../../../src/core/base/processes';
import { runServe } from '../../../src/core/cli/serve';
import { HOST_DIR_ENV, hostPlace, isHostProcess } from '../../../src/core/machine';
import { Cleanup, textOf } from '../connection/helpers';
import { buildCli, CLI, fixture, REPO_ROOT, runCli, tempWorkspace } from '../doctor/helpers';
import { eventually, tempCacheHome } from './helpers';
import { processesWith } from '../support/processesWith';

describe('CLI: serve --stdio shares the user servers through the machine host', function () {
  this.timeout(90_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  before(function () {
    this.timeout(120_000);
    buildCli();
  });

  it('two agents on two folders use one process of a user-level server; their workspace servers stay theirs; nothing is left after them', async () => {
    const home = tempWorkspace(cleanup, {});
    const mark = `shared-${crypto.randomBytes(4).toString('hex')}`;
    const userSettings = home.file('user-settings.json');
    fs.writeFileSync(
      userSettings,
      JSON.stringify({ 'mcpSwitchboard.servers': { notes: fixture('--name', mark) }, 'mcpSwitchboard.shareServers': true }),
    );
    const hostDir = path.join(home.dir, 'host');
    const env = {
      ...(process.env as Record<string, string>),
      XDG_CACHE_HOME: tempCacheHome(cleanup),
      MCP_SWITCHBOARD_USER_SETTINGS: userSettings,
      [HOST_DIR_ENV]: hostDir,
      MCP_SWITCHBOARD_HOST_GRACE_MS: '300',
    };
    const agent = async (folderMark: string) => {
      const ws = tempWorkspace(cleanup, { repo: fixture('--name', folderMark) });
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'serve', '--stdio', '--folder', ws.dir, '--trust-workspace'],
        cwd: REPO_ROOT,
        env,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'agent', version: '1.0.0' });
      cleanup.add(() => client.close());
      transport.stderr?.on(
        'data',
        (chunk: Buffer) => process.env.SWITCHBOARD_TEST_LOG && process.stderr.write(`[${folderMark}] ${chunk.toString()}`),
      );
      await client.connect(transport);
      return client;
    };
    const repoMark = `repo-${crypto.randomBytes(4).toString('hex')}`;
    const first = await agent(repoMark);
    const second = await agent(repoMark);
    for (const client of [first, second]) {
      const result = (await client.callTool({ name: 'notes__echo', arguments: { text: 'hi' } })) as CallToolResult;
      assert.equal(textOf(result), 'hi');
      await client.callTool({ name: 'repo__echo', arguments: { text: 'x' } });
    }
    assert.equal(processesWith(mark).length, 1, 'one process of the user-level server for both agents');
    assert.equal(processesWith(repoMark).length, 2, 'each agent runs its folder’s server');
    const info = JSON.parse(fs.readFileSync(hostPlace({ [HOST_DIR_ENV]: hostDir }).info, 'utf8')) as { pid: number };
    assert.ok(isHostProcess(info.pid), 'the host is a process of its own, started by the first agent');
    // The doctor shows the host, its clients, and what runs in it for how many of them.
    const doctor = await runCli(['doctor', '--json', '--folder', home.dir, '--timeout', '5000'], { env });
    const machineHost = (
      JSON.parse(doctor.stdout) as {
        machineHost: {
          kind: string;
          info: { pid: number; clients: number };
          servers: { command: string; clients: number; state: string }[];
        };
      }
    ).machineHost;
    assert.equal(machineHost.kind, 'running');
    assert.deepEqual([machineHost.info.pid, machineHost.info.clients], [info.pid, 2]);
    assert.equal(machineHost.servers.length, 1);
    assert.match(machineHost.servers[0]?.command ?? '', new RegExp(mark));
    assert.equal(machineHost.servers[0]?.clients, 2);

    await first.close();
    await second.close();
    await eventually(() => (processesWith(mark).length === 0 ? true : undefined), 'the shared server stopped', 20_000);
    await eventually(() => (isProcessAlive(info.pid) ? undefined : true), 'the host ended after its last client', 20_000);
    assert.deepEqual(processesWith(repoMark), []);
  });

  it('an agent with a server to share starts the host once it has read its configuration, while it asks for consent, then attaches to that host', async () => {
    const home = tempWorkspace(cleanup, {});
    const mark = `warm-${crypto.randomBytes(4).toString('hex')}`;
    const userSettings = home.file('user-settings.json');
    fs.writeFileSync(userSettings, JSON.stringify({ 'mcpSwitchboard.servers': { notes: fixture('--name', mark) } }));
    const hostDir = path.join(home.dir, 'host');
    const env = {
      ...(process.env as Record<string, string>),
      XDG_CACHE_HOME: tempCacheHome(cleanup),
      XDG_CONFIG_HOME: path.join(home.dir, 'config'),
      MCP_SWITCHBOARD_USER_SETTINGS: userSettings,
      [HOST_DIR_ENV]: hostDir,
      MCP_SWITCHBOARD_HOST_GRACE_MS: '300',
    };
    // The folder's own server needs the user's word: the question stays open until the test answers.
    const ws = tempWorkspace(cleanup, { repo: fixture('--name', `repo-${mark}`) });
    let answer: ((yes: boolean) => void) | undefined;
    const asked = new Promise<boolean>((resolve) => (answer = resolve));
    const stdin = new PassThrough();
    let log = '';
    const stderr = new PassThrough();
    stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const controller = new AbortController();
    const exit = runServe({
      folder: ws.dir,
      stdio: true,
      stdin,
      stdout: new PassThrough(),
      stderr,
      logLevel: 'debug',
      signal: controller.signal,
      env,
      ask: () => asked,
      hostCommand: { command: process.execPath, args: [CLI], env },
    });
    cleanup.add(async () => {
      answer?.(false);
      controller.abort();
      await exit;
    });
    const info = hostPlace({ [HOST_DIR_ENV]: hostDir }).info;
    const readHost = () => (fs.existsSync(info) ? (JSON.parse(fs.readFileSync(info, 'utf8')) as { pid: number }) : undefined);
    // Nothing is consented yet, so nothing runs: the host is there ahead of what it will hold.
    const warmed = await eventually(() => readHost(), 'a machine host while consent is still being asked', 30_000);
    assert.ok(isHostProcess(warmed.pid), 'the host is a process of its own');
    assert.deepEqual(processesWith(mark), [], 'no server before consent is settled');

    answer?.(false);
    await eventually(
      () => (log.includes('on stdio') ? true : undefined),
      () => `serve to be serving: ${log}`,
      30_000,
    );
    assert.equal(readHost()?.pid, warmed.pid, 'the agent attached to the host it started, not another');
    stdin.end();
    assert.equal(await exit, 0);
    await eventually(
      () => (isProcessAlive(warmed.pid) ? undefined : true),
      () => `the host ended after its last client: ${fs.readFileSync(hostPlace({ [HOST_DIR_ENV]: hostDir }).log, 'utf8')}`,
      20_000,
    );
    assert.deepEqual(processesWith(mark), []);
  });

  it('an agent with nothing to share starts no host', async () => {
    const home = tempWorkspace(cleanup, {});
    const hostDir = path.join(home.dir, 'host');
    const env = {
      ...(process.env as Record<string, string>),
      XDG_CACHE_HOME: tempCacheHome(cleanup),
      XDG_CONFIG_HOME: path.join(home.dir, 'config'),
      MCP_SWITCHBOARD_USER_SETTINGS: home.file('no-user-settings.json'),
      [HOST_DIR_ENV]: hostDir,
    };
    // Only the folder's own server, which stays with the agent.
    const ws = tempWorkspace(cleanup, { repo: fixture('--name', `repo-${crypto.randomBytes(4).toString('hex')}`) });
    const stdin = new PassThrough();
    let log = '';
    const stderr = new PassThrough();
    stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const exit = runServe({
      folder: ws.dir,
      stdio: true,
      trustWorkspace: true,
      stdin,
      stdout: new PassThrough(),
      stderr,
      signal: new AbortController().signal,
      env,
      hostCommand: { command: process.execPath, args: [CLI], env },
    });
    cleanup.add(async () => {
      stdin.end();
      await exit;
    });
    await eventually(
      () => (log.includes('on stdio') ? true : undefined),
      () => `serve to be serving: ${log}`,
      30_000,
    );
    // A launch opens the host's log in its folder before anything else.
    assert.equal(fs.existsSync(hostPlace({ [HOST_DIR_ENV]: hostDir }).log), false, 'no host was launched');
    stdin.end();
    assert.equal(await exit, 0);
  });
});
