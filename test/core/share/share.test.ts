// Share with Other Agents: the gateway's entry in each agent's config, the token only as a
// variable; serve keeps its token in a 0600 file across runs; and an agent reading the shared entry
// reaches serve's servers (Switchboard itself, reading Codex's file, plays that agent).
import assert from 'node:assert/strict';
import { applyJsonEdit } from '../../../src/core/base/jsoncEdit';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { runServe, type ServeReady } from '../../../src/core/cli';
import { loadConfiguration, type HttpServerDefinition, type StdioServerDefinition } from '../../../src/core/config';
import { readGatewayTokenSecret, readOrCreateGatewayToken, TOKEN_ENV_VAR } from '../../../src/core/share/gatewayToken';
import { SHARE_TARGETS, shareGateway, type ShareTarget } from '../../../src/core/share/shareGateway';
import { STDIO_SERVER } from '../connection/helpers';
import { Cleanup, connectClient, eventually } from '../gateway/helpers';
import { baseInput, expectValid } from '../config/helpers';

const SOURCE_OF: Record<ShareTarget, string> = {
  mcpJsonPortable: 'mcpJsonPortable',
  claudeCode: 'claudeCode',
  codex: 'codex',
  gemini: 'gemini',
};
const TOKEN = 'a'.repeat(43);

function temp(cleanup: Cleanup, prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanup.add(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("share: the gateway in other agents' configs", function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  for (const target of SHARE_TARGETS) {
    it(`${target}: adds one entry that reads back as the gateway, the token as a variable, the rest of the file kept`, async () => {
      const home = temp(cleanup, 'share-home-');
      const folder = temp(cleanup, 'share-ws-');
      const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
      const existing =
        target === 'codex'
          ? 'model = "gpt-5-codex"\n\n[mcp_servers.other]\ncommand = "other"\n'
          : '{\n  // mine\n  "theme": "dark",\n  "mcpServers": { "other": { "command": "other" } }\n}\n';
      const first = shareGateway({ target, port: 47_801, folder, userHome: home, env });
      // The same file again, now with the user's own content around the entry.
      fs.writeFileSync(first.file, existing);
      const result = shareGateway({ target, port: 47_801, folder, userHome: home, env });
      assert.equal(result.outcome, 'added');
      const text = fs.readFileSync(result.file, 'utf8');
      assert.ok(text.includes(target === 'codex' ? 'model = "gpt-5-codex"' : '// mine'), text);
      // Everything but the entry is byte for byte what the user had.
      if (target !== 'codex') assert.equal(applyJsonEdit(text, { location: ['mcpServers', 'switchboard'], value: undefined }), existing);
      else assert.ok(text.startsWith(existing), text);
      assert.ok(!text.includes(TOKEN), 'no token in the file');
      assert.equal(
        shareGateway({ target, port: 47_801, folder, userHome: home, env }).outcome,
        target === 'codex' ? 'present' : 'replaced',
      );

      const loaded = await loadConfiguration(
        baseInput({
          userHome: home,
          env: { ...env, [TOKEN_ENV_VAR]: TOKEN, CODEX_HOME: undefined },
          workspaceFolders: [{ name: 'ws', path: folder }],
          sources: [SOURCE_OF[target]],
        }),
        { resolve: async () => undefined },
      );
      const names = loaded.servers.map((server) => server.name);
      assert.deepEqual(names.sort(), ['other', 'switchboard']);
      const shared = expectValid(
        loaded.servers.find((server) => server.name === 'switchboard') as HttpServerDefinition,
      ) as HttpServerDefinition;
      assert.equal(shared.url, 'http://127.0.0.1:47801/mcp');
      assert.equal(shared.headers.Authorization, `Bearer ${TOKEN}`);
      assert.match(result.steps.join('\n'), /mcp-switchboard serve --folder .* --port 47801 --token-file/);
    });
  }

  for (const target of SHARE_TARGETS) {
    it(`${target}: with a launcher, adds an entry that launches serve --stdio for the folder: nothing to run, no token`, async () => {
      const home = temp(cleanup, 'share-stdio-home-');
      const folder = temp(cleanup, 'share-stdio-ws-');
      const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
      const launch = { command: process.execPath, args: ['/opt/switchboard/dist/cli.js'] };
      const result = shareGateway({ target, port: 47_801, folder, userHome: home, env, launch });
      assert.equal(result.outcome, 'added');
      assert.doesNotMatch(fs.readFileSync(result.file, 'utf8'), new RegExp(TOKEN_ENV_VAR), 'no token needed');
      assert.match(result.steps.join('\n'), /Nothing to run/);
      const loaded = await loadConfiguration(
        baseInput({
          userHome: home,
          env: { ...env, CODEX_HOME: undefined },
          workspaceFolders: [{ name: 'ws', path: folder }],
          sources: [SOURCE_OF[target]],
        }),
        { resolve: async () => undefined },
      );
      const shared = expectValid(
        loaded.servers.find((server) => server.name === 'switchboard') as StdioServerDefinition,
      ) as StdioServerDefinition;
      assert.equal(shared.transport, 'stdio');
      if (target === 'mcpJsonPortable') {
        // Committed and read on other machines: the package from npm, for the folder the agent runs in.
        assert.equal(shared.command, 'npx');
        assert.deepEqual(shared.args, ['-y', 'mcp-switchboard', 'serve', '--stdio', '--folder', '.']);
        const text = fs.readFileSync(result.file, 'utf8');
        for (const local of [folder, process.execPath, '/opt/switchboard', home]) assert.ok(!text.includes(local), `${local} in ${text}`);
      } else {
        assert.equal(shared.command, process.execPath);
        assert.deepEqual(shared.args, ['/opt/switchboard/dist/cli.js', 'serve', '--stdio', '--folder', folder]);
      }
    });
  }

  it("keeps serve's token in a file only the user can read, the same on every run", () => {
    const dir = temp(cleanup, 'share-token-');
    const file = path.join(dir, 'nested', 'gateway-token');
    const token = readOrCreateGatewayToken(file);
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(readOrCreateGatewayToken(file), token);
    fs.chmodSync(file, 0o644);
    assert.throws(() => readOrCreateGatewayToken(file), /can be read by other users: run chmod 600/);
  });

  it("reads a team gateway's token from a mounted Secret (symlinks, 0644), never writes one, refuses one others can change", () => {
    // A Kubernetes Secret volume: token -> ..data/token, ..data -> ..<timestamp>, files 0644.
    const dir = temp(cleanup, 'share-secret-');
    const generation = path.join(dir, '..2026_11_28_07_00_00.000000001');
    fs.mkdirSync(generation);
    fs.writeFileSync(path.join(generation, 'token'), `${TOKEN}\n`, { mode: 0o644 });
    fs.chmodSync(path.join(generation, 'token'), 0o644);
    fs.symlinkSync(path.basename(generation), path.join(dir, '..data'));
    fs.symlinkSync(path.join('..data', 'token'), path.join(dir, 'token'));
    const secret = path.join(dir, 'token');
    assert.equal(readGatewayTokenSecret(secret), TOKEN);
    assert.throws(() => readOrCreateGatewayToken(secret), /not a regular file/, '--token-file stays strict');

    assert.throws(() => readGatewayTokenSecret(path.join(dir, 'missing')), /cannot be read \(ENOENT\)/);
    assert.ok(!fs.existsSync(path.join(dir, 'missing')), 'nothing is created');
    assert.throws(() => readGatewayTokenSecret(dir), /is not a file/);
    fs.chmodSync(path.join(generation, 'token'), 0o664);
    assert.throws(() => readGatewayTokenSecret(secret), /can be changed by other users/);
    fs.chmodSync(path.join(generation, 'token'), 0o644);
    fs.writeFileSync(path.join(generation, 'token'), 'short\n');
    assert.throws(() => readGatewayTokenSecret(secret), /does not hold a token/);
    fs.writeFileSync(path.join(generation, 'token'), 'a'.repeat(5000));
    assert.throws(() => readGatewayTokenSecret(secret), /larger than a token/);
    if (process.getuid?.() === 0) {
      // Only root can give a file away; CI runs as root.
      fs.writeFileSync(path.join(generation, 'token'), `${TOKEN}\n`);
      fs.chownSync(path.join(generation, 'token'), 4321, 4321);
      assert.throws(() => readGatewayTokenSecret(secret), /belongs to another user \(uid 4321\)/);
    }
  });

  it("an agent with the shared entry reaches serve's servers (Switchboard reading Codex's config plays the agent)", async () => {
    const home = temp(cleanup, 'share-e2e-');
    const folder = temp(cleanup, 'share-e2e-ws-');
    fs.mkdirSync(path.join(folder, '.vscode'));
    fs.writeFileSync(
      path.join(folder, '.vscode', 'settings.json'),
      JSON.stringify({ 'mcpSwitchboard.servers': { alpha: { command: process.execPath, args: [STDIO_SERVER] } } }),
    );
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CACHE_HOME: path.join(home, '.cache') };
    const port = await freePort();
    shareGateway({ target: 'codex', port, folder, userHome: home, env });

    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const controller = new AbortController();
    const tokenFile = path.join(home, '.config', 'mcp-switchboard', 'gateway-token');
    const exit = runServe({
      folder,
      trustWorkspace: true,
      port,
      tokenFile,
      stdout,
      stderr: new PassThrough(),
      signal: controller.signal,
      env,
    });
    cleanup.add(async () => {
      controller.abort();
      await exit;
    });
    const ready = JSON.parse(await eventually(() => (out.includes('\n') ? out : undefined), "serve's ready line")) as ServeReady;
    assert.equal(ready.token, fs.readFileSync(tokenFile, 'utf8').trim(), 'serve uses the token file');

    const agent = await loadConfiguration(
      baseInput({ userHome: home, env: { ...env, [TOKEN_ENV_VAR]: ready.token }, sources: ['codex'] }),
      { resolve: async () => undefined },
    );
    const shared = expectValid(agent.servers[0] as HttpServerDefinition) as HttpServerDefinition;
    const { client } = await connectClient(cleanup, shared.url, shared.headers.Authorization?.replace(/^Bearer /, '') ?? '');
    assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'alpha__echo'));
  });
});
