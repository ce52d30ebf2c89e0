// `mcp-switchboard serve --stdio` launched as an agent launches a stdio MCP server (piped stdio,
// the SDK's stdio client): the folder's servers behind one stdio server, lazy until used, and
// nothing left running once the agent closes the pipes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Cleanup, isAlive, textOf } from '../connection/helpers';
import { buildCli, CLI, fixture, REPO_ROOT, runCli, markerPid, tempWorkspace } from '../doctor/helpers';
import { LAUNCHED_BY_ENV } from '../../../src/core/runtime';
import { HOST_DIR_ENV, hostPlace } from '../../../src/core/machine';
import { shareGateway } from '../../../src/core/share';
import { writeCliLauncher } from '../../../src/editor/cliLauncher';
import { eventually, tempCacheHome } from './helpers';

describe('CLI: serve --stdio', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  before(function () {
    this.timeout(120_000);
    buildCli();
  });

  it('serves every exposed tool on stdio, starts a server when a call needs it, and leaves nothing behind when the agent closes the pipes', async () => {
    const ws = tempWorkspace(cleanup, {});
    const markers = { alpha: ws.file('alpha.json'), beta: ws.file('beta.json') };
    fs.writeFileSync(
      ws.file('.vscode/settings.json'),
      JSON.stringify({
        'mcpSwitchboard.servers': {
          alpha: { ...fixture('--name', 'alpha', '--marker', markers.alpha) },
          beta: { ...fixture('--name', 'beta', '--marker', markers.beta), tools: { deny: ['add'] } },
        },
      }),
    );
    const stderr: string[] = [];
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--stdio', '--folder', ws.dir, '--trust-workspace'],
      cwd: REPO_ROOT,
      env: { ...(process.env as Record<string, string>), XDG_CACHE_HOME: tempCacheHome(cleanup) },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const client = new Client({ name: 'agent', version: '1.0.0' });
    cleanup.add(() => client.close());
    await client.connect(transport);
    const servePid = transport.pid;
    assert.ok(servePid);

    // Nothing cached: each server starts once to list its tools, then idles (lazy).
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes('alpha__echo') && names.includes('beta__echo'), names.join(', '));
    assert.ok(!names.includes('beta__add'), 'the filter applies');
    const alphaFirst = await markerPid(markers.alpha);
    await eventually(() => (isAlive(alphaFirst) ? undefined : true), 'alpha to idle after learning its tools', 30_000);

    // A call starts it again, and is answered.
    const result = (await client.callTool({ name: 'alpha__echo', arguments: { text: 'through stdio' } })) as CallToolResult;
    assert.equal(textOf(result), 'through stdio');
    const alphaAgain = await markerPid(markers.alpha);
    assert.notEqual(alphaAgain, alphaFirst, 'a fresh process for the call');
    assert.ok(isAlive(alphaAgain));

    // The agent goes: serve and every server it started end with it.
    await client.close();
    await eventually(() => (isAlive(servePid) || isAlive(alphaAgain) ? undefined : true), 'serve and its servers to exit', 20_000);
    assert.doesNotMatch(stderr.join(''), /\[error\]/, stderr.join(''));
  });

  it('tells every server Switchboard started so, and a serve started that way refuses to serve again (no serve within serve)', async () => {
    const ws = tempWorkspace(cleanup, { alpha: fixture('--name', 'alpha') });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--stdio', '--folder', ws.dir, '--trust-workspace'],
      cwd: REPO_ROOT,
      env: { ...(process.env as Record<string, string>), XDG_CACHE_HOME: tempCacheHome(cleanup) },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'agent', version: '1.0.0' });
    cleanup.add(() => client.close());
    await client.connect(transport);
    const seen = (await client.callTool({ name: 'alpha__env', arguments: { name: LAUNCHED_BY_ENV } })) as CallToolResult;
    assert.equal(textOf(seen), '1', 'the server sees who started it');

    // What a shared entry read by Switchboard would start: serve, with that variable set.
    const nested = await runCli(['serve', '--stdio', '--folder', ws.dir], { env: { [LAUNCHED_BY_ENV]: '1' } });
    assert.equal(nested.code, 2);
    assert.match(nested.stderr, /started by Switchboard itself/);
  });

  it('share portable --stdio writes an entry with nothing of this machine, which an agent in the folder launches: serve --stdio for the folder', async () => {
    const home = tempWorkspace(cleanup).dir;
    const ws = tempWorkspace(cleanup, { alpha: fixture('--name', 'alpha') });
    const shared = await runCli(['share', 'portable', '--stdio', '--folder', ws.dir], { env: { HOME: home } });
    assert.equal(shared.code, 0, shared.stderr);
    assert.match(shared.stdout, /Nothing to run/);
    assert.match(shared.stderr, /lists every tool twice; there, share with Claude Code's own file/);
    const text = fs.readFileSync(ws.file('.mcp.json'), 'utf8');
    const entry = (JSON.parse(text) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers.switchboard;
    assert.ok(entry);
    assert.equal(entry.command, 'npx');
    assert.deepEqual(entry.args, ['-y', 'mcp-switchboard', 'serve', '--stdio', '--folder', '.']);
    for (const local of [ws.dir, process.execPath, fs.realpathSync(CLI), home]) assert.ok(!text.includes(local), `${local} in ${text}`);
    // The agent starts that in the folder (this checkout's CLI standing in for the package npx fetches).
    // (The folder's own servers wait for the user's consent.)
    const client = new Client({ name: 'agent', version: '1.0.0' });
    cleanup.add(() => client.close());
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, ...entry.args.slice(2)],
        cwd: ws.dir,
        env: {
          ...(process.env as Record<string, string>),
          HOME: home,
          XDG_CONFIG_HOME: `${home}/.config`,
          XDG_CACHE_HOME: tempCacheHome(cleanup),
        },
        stderr: 'ignore',
      }),
    );
    assert.ok(client.getServerVersion()?.name, 'the server introduced itself');
    assert.ok(Array.isArray((await client.listTools()).tools));
  });

  it("the editor's Share: its launcher (a stable path, even with a space and a quote) starts this CLI on the editor's runtime with the editor's user servers, and the agent's entry names only the launcher", async () => {
    const home = tempWorkspace(cleanup).dir;
    const ws = tempWorkspace(cleanup, { alpha: fixture('--name', 'alpha') });
    const storage = path.join(home, "global storage's folder");
    // The editor's user settings: a server of the user's own (no consent needed), which the agent gets too.
    const userSettings = path.join(home, 'User', 'settings.json');
    fs.mkdirSync(path.dirname(userSettings), { recursive: true });
    fs.writeFileSync(userSettings, JSON.stringify({ 'mcpSwitchboard.servers': { mine: fixture('--name', 'mine') } }));
    const launcher = writeCliLauncher(storage, CLI, userSettings, process.execPath);
    assert.equal(launcher, path.join(storage, 'bin', 'mcp-switchboard'));
    assert.equal(fs.statSync(launcher).mode & 0o777, 0o700);
    const { file } = shareGateway({
      target: 'claudeCode',
      port: 1,
      folder: ws.dir,
      userHome: home,
      env: {},
      launch: { command: launcher, args: [] },
    });
    const entry = (JSON.parse(fs.readFileSync(file, 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> })
      .mcpServers.switchboard;
    assert.deepEqual(entry, { type: 'stdio', command: launcher, args: ['serve', '--stdio', '--folder', ws.dir] });
    // The user's server runs in the machine host: this test's own, under this home (a host of the
    // whole run would have been started by another test, with its home).
    const hostDir = path.join(home, 'host');
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: {
        ...(process.env as Record<string, string>),
        HOME: home,
        XDG_CONFIG_HOME: `${home}/.config`,
        XDG_CACHE_HOME: tempCacheHome(cleanup),
        [HOST_DIR_ENV]: hostDir,
        MCP_SWITCHBOARD_HOST_GRACE_MS: '300',
      },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'agent', version: '1.0.0' });
    cleanup.add(() => client.close());
    await client.connect(transport);
    assert.equal(client.getServerVersion()?.name, 'mcp-switchboard');
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes('mine__echo'), `the user's own server, from the editor's user settings: ${names.join(', ')}`);
    const echoed = (await client.callTool({ name: 'mine__echo', arguments: { text: 'from the agent' } })) as CallToolResult;
    assert.equal(textOf(echoed), 'from the agent');
    const servePid = transport.pid;
    assert.ok(servePid);
    const hostPid = (JSON.parse(fs.readFileSync(hostPlace({ [HOST_DIR_ENV]: hostDir }).info, 'utf8')) as { pid: number }).pid;
    await client.close();
    await eventually(() => (isAlive(servePid) ? undefined : true), 'serve to exit when the agent goes', 20_000);
    await eventually(() => (isAlive(hostPid) ? undefined : true), 'the machine host to end after its last client', 20_000);
  });

  it("tells the agent when a server's prompts or resources change, as a 2025 session is told", async () => {
    const ws = tempWorkspace(cleanup, { rich: { ...fixture('--name', 'rich', '--features'), lifecycle: 'eager' } });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--stdio', '--eager', '--folder', ws.dir, '--trust-workspace'],
      cwd: REPO_ROOT,
      env: { ...(process.env as Record<string, string>), XDG_CACHE_HOME: tempCacheHome(cleanup) },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'agent', version: '1.0.0' });
    cleanup.add(() => client.close());
    let promptChanges = 0;
    let resourceChanges = 0;
    client.setNotificationHandler('notifications/prompts/list_changed', () => void (promptChanges += 1));
    client.setNotificationHandler('notifications/resources/list_changed', () => void (resourceChanges += 1));
    await client.connect(transport);
    // Once the agent sees the server's prompts, any notice of their first listing is in: the pipe
    // keeps order, and that notice went out before the list could show them.
    await eventually(async () => ((await client.listPrompts()).prompts.length > 0 ? true : undefined), 'the prompts to be listed', 20_000);
    promptChanges = 0;
    resourceChanges = 0;
    await client.callTool({ name: 'rich__add_prompt', arguments: { name: 'late_prompt' } });
    await eventually(() => (promptChanges > 0 ? true : undefined), 'prompts/list_changed to reach the agent', 20_000);
    const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
    assert.ok(
      prompts.some((name) => name.endsWith('late_prompt')),
      prompts.join(', '),
    );
    await client.callTool({ name: 'rich__add_resource', arguments: { name: 'late_resource' } });
    await eventually(() => (resourceChanges > 0 ? true : undefined), 'resources/list_changed to reach the agent', 20_000);
  });

  it('lists prompts, resources and templates of servers still starting, as it lists tools: a client that asks for them first sees them', async () => {
    const ws = tempWorkspace(cleanup, { rich: { ...fixture('--name', 'rich', '--features', '--startup-delay', '1500') } });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--stdio', '--folder', ws.dir, '--trust-workspace'],
      cwd: REPO_ROOT,
      // Nothing cached: the server has never listed anything.
      env: { ...(process.env as Record<string, string>), XDG_CACHE_HOME: tempCacheHome(cleanup) },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'agent', version: '1.0.0' });
    cleanup.add(() => client.close());
    await client.connect(transport);
    // Before anything else: the prompts, as a client that shows them as slash commands asks.
    const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
    assert.ok(prompts.includes('rich__greet'), prompts.join(', '));
    assert.ok((await client.listResources()).resources.some((resource) => resource.uri === 'fixture://readme'));
    assert.ok(
      (await client.listResourceTemplates()).resourceTemplates.some((template) => template.uriTemplate.startsWith('fixture://notes/')),
    );
  });

  it('refuses flags that apply to HTTP only', async () => {
    const run = await runCli(['serve', '--stdio', '--port', '8080'], { trustWorkspace: false });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--stdio serves on stdin\/stdout: --port apply to HTTP only/);
  });
});
