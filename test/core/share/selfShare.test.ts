// Share into a folder that Switchboard itself reads (.mcp.json with the mcpJsonPortable source), as a
// new user would: the built CLI's share, then serve with the port and token share printed, then
// doctor. Switchboard never connects to itself, says so once, and share changed nothing but its
// own entry.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { applyJsonEdit } from '../../../src/core/base/jsoncEdit';
import { readOrCreateGatewayToken } from '../../../src/core/share/gatewayToken';
import { STDIO_SERVER } from '../connection/helpers';
import { CLI, REPO_ROOT, runCli, tableRow } from '../doctor/helpers';
import { tempDir } from '../support/cleanup';
import { cliSuite } from '../support/cliSuite';
import { eventually } from '../support/poll';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const SKIPPED = /server "switchboard" from \.mcp\.json \([^)]*\) is skipped: (.*?), an entry Share writes for other agents/g;

describe('share: a folder that Switchboard reads too', function () {
  this.timeout(90_000);
  const cleanup = cliSuite();

  /** A folder with a commented, hand-laid .mcp.json (one `memory` entry) that Switchboard reads. */
  function folderWithMcpJson(): { folder: string; home: string; original: string; env: Record<string, string> } {
    const folder = tempDir(cleanup, 'self-share-');
    const home = tempDir(cleanup, 'self-share-home-');
    const original = [
      '{',
      '  // the team’s memory server',
      '  "mcpServers": {',
      `    "memory": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(STDIO_SERVER)}, "--max-lifetime", "60000"] }`,
      '  }',
      '}',
      '',
    ].join('\n');
    fs.writeFileSync(path.join(folder, '.mcp.json'), original);
    fs.mkdirSync(path.join(folder, '.vscode'));
    fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), '{ "mcpSwitchboard.sources": ["settings", "mcpJsonPortable"] }\n');
    const env: Record<string, string> = {
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_CACHE_HOME: path.join(home, '.cache'),
    };
    return { folder, home, original, env };
  }

  it('share portable, then serve on the printed port: serve skips the entry, once, and never connects to itself', async () => {
    const { folder, original, env } = folderWithMcpJson();
    const port = await freePort();
    const shared = await runCli(['share', 'portable', '--folder', folder, '--port', String(port)], { env });
    assert.equal(shared.code, 0, shared.stderr);
    const text = fs.readFileSync(path.join(folder, '.mcp.json'), 'utf8');
    assert.equal(applyJsonEdit(text, { location: ['mcpServers', 'switchboard'], value: undefined }), original, 'only its entry changed');

    // As share says: the token exported, serve with the port and the token file.
    const tokenFile = path.join(env.XDG_CONFIG_HOME ?? '', 'mcp-switchboard', 'gateway-token');
    const token = readOrCreateGatewayToken(tokenFile);
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--folder', folder, '--port', String(port), '--token-file', tokenFile, '--trust-workspace'],
      { cwd: REPO_ROOT, env: { ...process.env, ...env, MCP_SWITCHBOARD_TOKEN: token }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise((resolve) => child.once('close', resolve));
    cleanup.add(async () => {
      child.kill('SIGTERM');
      await exited;
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const ready = JSON.parse(await eventually(() => (stdout.includes('\n') ? stdout : undefined), `ready (${stderr})`)) as {
      servers: Record<string, string>;
    };
    assert.deepEqual(Object.keys(ready.servers), ['memory']);
    // Long enough for a connection to itself to have been tried and retried.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.deepEqual(
      [...stderr.matchAll(SKIPPED)].map((match) => match[1]),
      ['it is a Switchboard gateway on this machine (it sends MCP_SWITCHBOARD_TOKEN)'],
      stderr,
    );
    assert.ok(!stderr.includes(`connecting to http://127.0.0.1:${port}`), stderr);
    assert.ok(!/\[switchboard\]/.test(stderr), stderr);
  });

  it('share portable (HTTP, then --stdio), then doctor: no row for itself, one diagnostic, nothing started for it', async () => {
    const { folder, original, env } = folderWithMcpJson();
    for (const mode of [[], ['--stdio']]) {
      const shared = await runCli(['share', 'portable', '--folder', folder, ...mode], { env });
      assert.equal(shared.code, 0, shared.stderr);
      const text = fs.readFileSync(path.join(folder, '.mcp.json'), 'utf8');
      assert.equal(applyJsonEdit(text, { location: ['mcpServers', 'switchboard'], value: undefined }), original, 'only its entry changed');

      const run = await runCli(['doctor', '--folder', folder], { env });
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      assert.ok(tableRow(run.stdout, 'memory'), run.stdout);
      assert.equal(tableRow(run.stdout, 'switchboard'), undefined, run.stdout);
      assert.deepEqual(
        [...`${run.stdout}${run.stderr}`.matchAll(SKIPPED)].map((match) => match[1]),
        [
          mode.length === 0
            ? 'it is a Switchboard gateway on this machine (it sends MCP_SWITCHBOARD_TOKEN)'
            : 'it starts MCP Switchboard itself (serve --stdio)',
        ],
        run.stdout,
      );
    }
  });

  it('share portable --stdio, then an agent starts that entry (serve --stdio) in the folder: it does not start itself again', async () => {
    const { folder, env } = folderWithMcpJson();
    assert.equal((await runCli(['share', 'portable', '--folder', folder, '--stdio'], { env })).code, 0);
    let stderr = '';
    const transport = new StdioClientTransport({
      command: process.execPath,
      // What `npx -y mcp-switchboard serve --stdio --folder .` runs, from this checkout.
      args: [CLI, 'serve', '--stdio', '--folder', '.', '--trust-workspace'],
      cwd: folder,
      env: { ...(process.env as Record<string, string>), ...env },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'agent', version: '1.0.0' });
    cleanup.add(() => client.close());
    await client.connect(transport);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes('memory__echo'), names.join(', '));
    assert.ok(!names.some((name) => name.startsWith('switchboard__')), names.join(', '));
    assert.deepEqual(
      [...stderr.matchAll(SKIPPED)].map((match) => match[1]),
      ['it starts MCP Switchboard itself (serve --stdio)'],
      stderr,
    );
  });
});
