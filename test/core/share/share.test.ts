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
import { terminalCommand } from '../../../src/core/cli/share';
import {
  loadConfiguration,
  nodeFileSystem,
  readSourceFiles,
  sourceFiles,
  type ConfigurationInput,
  type FileSourceKind,
  type LoadedConfiguration,
} from '../../../src/core/config';
import type { ServerCandidate } from '../../../src/core/config/buildContext';
import { readGatewayTokenSecret, readOrCreateGatewayToken, TOKEN_ENV_VAR } from '../../../src/core/share/gatewayToken';
import { SHARE_TARGETS, shareGateway, type ShareTarget } from '../../../src/core/share/shareGateway';
import { STDIO_SERVER } from '../connection/helpers';
import { Cleanup, connectClient, eventually } from '../gateway/helpers';
import { baseInput } from '../config/helpers';

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

/** The entries an agent reads from its file (as Switchboard's readers normalize them), Switchboard's own included. */
async function agentReads(input: ConfigurationInput): Promise<ServerCandidate[]> {
  const files = sourceFiles(new Set(input.sources as FileSourceKind[]), {
    workspaceFolders: input.workspaceFolders,
    userHome: input.userHome ?? os.homedir(),
    platform: 'linux',
    paths: path.posix,
    env: input.env ?? {},
  });
  return (await readSourceFiles(files, nodeFileSystem)).flatMap((read) => [...read.candidates]);
}

/** The entries Switchboard skipped as itself: `name: why`, cut before the reason's last clause. */
function skipped(loaded: LoadedConfiguration): string[] {
  return loaded.diagnostics
    .map((diagnostic) => /^server "([^"]+)" from .* is skipped: (.*?), an entry Share writes/.exec(diagnostic.message))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => `${match[1]}: ${match[2]}`);
}

describe("share: the gateway in other agents' configs", function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  for (const target of SHARE_TARGETS) {
    it(`${target}: adds one entry an agent reads as the gateway (the token as a variable, the rest of the file kept); Switchboard skips it`, async () => {
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

      const input = baseInput({
        userHome: home,
        env: { ...env, [TOKEN_ENV_VAR]: TOKEN, CODEX_HOME: undefined },
        workspaceFolders: [{ name: 'ws', path: folder }],
        sources: [SOURCE_OF[target]],
      });
      // What the agent reads: the gateway's URL, the token as the variable its format spells.
      const read = await agentReads(input);
      assert.deepEqual(read.map((entry) => entry.name).sort(), ['other', 'switchboard']);
      const shared = read.find((entry) => entry.name === 'switchboard')?.raw as { url?: string; headers?: Record<string, string> };
      assert.equal(shared.url, 'http://127.0.0.1:47801/mcp');
      assert.equal(shared.headers?.Authorization, `Bearer \${env:${TOKEN_ENV_VAR}}`);
      // What Switchboard reads of the same file: not itself.
      const loaded = await loadConfiguration(input, { resolve: async () => undefined });
      assert.deepEqual(
        loaded.servers.map((server) => server.name),
        ['other'],
      );
      assert.deepEqual(skipped(loaded), ['switchboard: it is a Switchboard gateway on this machine (it sends MCP_SWITCHBOARD_TOKEN)']);
      assert.match(result.steps.join('\n'), /mcp-switchboard serve --folder .* --port 47801 --token-file/);
    });
  }

  for (const target of SHARE_TARGETS) {
    it(`${target}: with a launcher, adds an entry that launches serve --stdio for the folder (nothing to run, no token); Switchboard does not start itself`, async () => {
      const home = temp(cleanup, 'share-stdio-home-');
      const folder = temp(cleanup, 'share-stdio-ws-');
      const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
      const launch = { command: process.execPath, args: ['/opt/switchboard/dist/cli.js'] };
      const result = shareGateway({ target, port: 47_801, folder, userHome: home, env, launch });
      assert.equal(result.outcome, 'added');
      assert.doesNotMatch(fs.readFileSync(result.file, 'utf8'), new RegExp(TOKEN_ENV_VAR), 'no token needed');
      assert.match(result.steps.join('\n'), /Nothing to run/);
      const input = baseInput({
        userHome: home,
        env: { ...env, CODEX_HOME: undefined },
        workspaceFolders: [{ name: 'ws', path: folder }],
        sources: [SOURCE_OF[target]],
        launchers: ['/opt/switchboard/dist/cli.js'],
      });
      const shared = (await agentReads(input)).find((entry) => entry.name === 'switchboard')?.raw as { command?: string; args?: string[] };
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
      // Switchboard (this installation, whose CLI the entry runs) does not start itself.
      const loaded = await loadConfiguration(input, { resolve: async () => undefined });
      assert.deepEqual(loaded.servers, []);
      assert.deepEqual(skipped(loaded), ['switchboard: it starts MCP Switchboard itself (serve --stdio)']);
    });
  }

  it('names the CLI in its steps as a terminal runs it: mcp-switchboard where PATH has this one, else node and the script', () => {
    const dir = temp(cleanup, 'share-cli-');
    const script = path.join(dir, 'lib', 'cli.js');
    fs.mkdirSync(path.dirname(script));
    fs.writeFileSync(script, '');
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    assert.equal(terminalCommand({ PATH: bin }, script), `node ${script}`);
    fs.symlinkSync(script, path.join(bin, 'mcp-switchboard'));
    assert.equal(terminalCommand({ PATH: `/nonexistent${path.delimiter}${bin}` }, script), 'mcp-switchboard');
    // Another installation's mcp-switchboard on PATH is not this one.
    const other = path.join(dir, 'other.js');
    fs.writeFileSync(other, '');
    assert.equal(terminalCommand({ PATH: bin }, other), `node ${other}`);
    const result = shareGateway({ target: 'mcpJsonPortable', port: 47_802, folder: dir, userHome: dir, env: {}, cli: `node ${script}` });
    assert.match(result.steps[0] ?? '', new RegExp(`: node ${script.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} serve --folder`));
  });

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

    const agent = await agentReads(baseInput({ userHome: home, env, sources: ['codex'] }));
    const shared = agent[0]?.raw as { url: string; headers: Record<string, string> };
    assert.equal(shared.headers.Authorization, `Bearer \${env:${TOKEN_ENV_VAR}}`);
    const { client } = await connectClient(cleanup, shared.url, ready.token);
    assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'alpha__echo'));
  });
});
