// Two agents launched through Share (`serve --stdio`, the built CLI) on two folders, with the same
// user-level server: the first starts the machine host, both attach to it, and the server runs once.
// When the agents close their pipes the host forgets them, stops the server, and ends itself:
// nothing is left running.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { isProcessAlive } from '../../../src/core/base/processes';
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
});
