// A sandboxed stdio server, for real: the fixture's tools try to write, read and connect, and the
// sandbox (bubblewrap and the runtime's filtering proxy) allows or refuses each as its rules say,
// while the server keeps running. The same tools without a sandbox succeed, so every refusal here
// is the sandbox's doing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { NO_SANDBOX_RULES, type SandboxRules } from '../../../src/core/config/types';
import { describeRow, failureActions, rowPrimaryAction, sandboxDeniedHost } from '../../../src/core/presentation';
import { assertState, Cleanup, connect, FIXTURES, stdioDefinition, tempDir, textOf } from '../connection/helpers';

const PROBE = path.join(FIXTURES, 'sandbox-probe-server.mjs');

function rules(overrides: {
  allowWrite?: string[];
  denyRead?: string[];
  denyWrite?: string[];
  allowedDomains?: string[];
  deniedDomains?: string[];
}): SandboxRules {
  return {
    filesystem: { ...NO_SANDBOX_RULES.filesystem, ...pick(overrides, ['allowWrite', 'denyRead', 'denyWrite']) },
    network: { ...NO_SANDBOX_RULES.network, ...pick(overrides, ['allowedDomains', 'deniedDomains']) },
  };
}

function pick<T extends object, K extends keyof T>(value: T, keys: readonly K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((key) => value[key] !== undefined).map((key) => [key, value[key]])) as Partial<Pick<T, K>>;
}

async function loopbackServer(cleanup: Cleanup): Promise<number> {
  const server = http.createServer((_request, response) => response.end('hello from the host'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

function probeDefinition(cwd: string, sandbox: SandboxRules | undefined) {
  return stdioDefinition([], {
    name: 'probe',
    args: [PROBE],
    cwd,
    ...(sandbox ? { sandbox: { enabled: true, rules: sandbox, origin: 'entry' as const } } : {}),
  });
}

async function call(
  connection: { sendToolCall(name: string, args: Record<string, unknown>): Promise<unknown> },
  tool: string,
  args: Record<string, unknown>,
): Promise<string> {
  return textOf((await connection.sendToolCall(tool, args)) as Parameters<typeof textOf>[0]);
}

/** A zombie has ended; only its reaping (by init, for an orphan) is left. */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('sandboxed stdio server (bubblewrap)', function () {
  if (process.platform !== 'linux') return;
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('writes inside allowWrite only, cannot read a denyRead path, reaches only allowed names, and keeps running', async () => {
    const root = tempDir(cleanup, 'switchboard-sandbox-');
    const allowed = path.join(root, 'allowed');
    const outside = path.join(root, 'outside');
    fs.mkdirSync(allowed);
    fs.mkdirSync(outside);
    const secret = path.join(root, 'secret.txt');
    fs.writeFileSync(secret, 'the secret');
    const readable = path.join(root, 'readable.txt');
    fs.writeFileSync(readable, 'public text');
    const port = await loopbackServer(cleanup);
    const { connection, logger } = connect(
      cleanup,
      probeDefinition(allowed, rules({ allowWrite: [allowed], denyRead: [secret], allowedDomains: ['localhost'] })),
      { sandbox: { stateRoot: root } },
    );
    assertState(await connection.start(), 'running');

    assert.match(await call(connection, 'write_file', { path: path.join(allowed, 'in.txt'), text: 'inside' }), /^ok/);
    assert.equal(fs.readFileSync(path.join(allowed, 'in.txt'), 'utf8'), 'inside');
    assert.match(
      await call(connection, 'write_file', { path: path.join(outside, 'out.txt'), text: 'outside' }),
      /^refused: (EROFS|EACCES|EPERM)/,
    );
    assert.equal(fs.existsSync(path.join(outside, 'out.txt')), false);

    assert.match(await call(connection, 'read_file', { path: secret }), /^refused: (EACCES|EPERM|ENOENT)/);
    assert.equal(await call(connection, 'read_file', { path: readable }), 'ok: public text');

    assert.equal(await call(connection, 'fetch_url', { url: `http://localhost:${port}/` }), 'ok: hello from the host');
    assert.equal(await call(connection, 'fetch_url', { url: `http://127.0.0.1:${port}/` }), 'refused: HTTP 403');
    // Its own network namespace: the host's loopback is not there to connect to, proxy or not.
    assert.match(await call(connection, 'fetch_direct', { url: `http://127.0.0.1:${port}/` }), /^refused: ECONNREFUSED/);

    const denial = `sandbox: denied network access to 127.0.0.1:${port}`;
    assert.ok(
      logger.entries.some((entry) => entry.level === 'warn' && entry.message.includes(denial)),
      logger.text(),
    );
    assert.ok(
      connection.stderrTail().some((line) => line.startsWith(denial)),
      connection.stderrTail().join('\n'),
    );
    assert.ok(
      !connection.stderrTail().some((line) => line.includes('[SandboxDebug]') || line.includes('allowedHosts')),
      `the runtime's chatter stays out of the stderr tail: ${connection.stderrTail().join('\n')}`,
    );

    const who = JSON.parse((await call(connection, 'whoami', {})) as string) as { tmpdir: string };
    assert.ok(who.tmpdir.startsWith(root), `TMPDIR ${who.tmpdir} is the server's private folder`);
    assert.match(await call(connection, 'write_file', { path: path.join(who.tmpdir, 'scratch'), text: 'temp' }), /^ok/);
    assertState(connection.state, 'running');
  });

  it('a server that fails because the sandbox refused it a host says so first, and allowing that host lets it start', async () => {
    const root = tempDir(cleanup, 'switchboard-sandbox-');
    const port = await loopbackServer(cleanup);
    // As npx fetching its package from the registry: refused, it writes its own last words and exits.
    const definition = (allowedDomains: string[]) => ({
      ...probeDefinition(root, rules({ allowWrite: [root], allowedDomains })),
      args: [PROBE, '--fetch-at-start', `http://127.0.0.1:${port}/`],
    });
    const refused = connect(cleanup, definition([]), { sandbox: { stateRoot: root } }).connection;
    const state = await refused.start();
    assertState(state, 'error');
    assert.match(state.message, new RegExp(`^sandbox denied network access to 127\\.0\\.0\\.1:${port}`), state.message);
    assert.doesNotMatch(state.message, /giving up/, "the cause, not the server's last stderr line");
    assert.equal(sandboxDeniedHost(state), '127.0.0.1');
    assert.equal(describeRow(state, Date.now()), 'network denied');
    assert.equal(rowPrimaryAction(state), 'allowSandboxHost');
    assert.equal(failureActions(state.code, sandboxDeniedHost(state))[0], 'allowSandboxHost');

    const allowed = connect(cleanup, definition(['127.0.0.1']), { sandbox: { stateRoot: root } }).connection;
    assertState(await allowed.start(), 'running');
  });

  it('without a sandbox the same tools succeed (the refusals above are the sandbox)', async () => {
    const root = tempDir(cleanup, 'switchboard-sandbox-');
    const secret = path.join(root, 'secret.txt');
    fs.writeFileSync(secret, 'the secret');
    const port = await loopbackServer(cleanup);
    const { connection } = connect(cleanup, probeDefinition(root, undefined));
    assertState(await connection.start(), 'running');
    assert.match(await call(connection, 'write_file', { path: path.join(root, 'out.txt'), text: 'x' }), /^ok/);
    assert.equal(await call(connection, 'read_file', { path: secret }), 'ok: the secret');
    assert.equal(await call(connection, 'fetch_direct', { url: `http://127.0.0.1:${port}/` }), 'ok: hello from the host');
  });

  it('deniedDomains wins over allowedDomains', async () => {
    const root = tempDir(cleanup, 'switchboard-sandbox-');
    const port = await loopbackServer(cleanup);
    const { connection } = connect(
      cleanup,
      probeDefinition(root, rules({ allowedDomains: ['localhost'], deniedDomains: [`localhost:${port}`] })),
      { sandbox: { stateRoot: root } },
    );
    assertState(await connection.start(), 'running');
    assert.equal(await call(connection, 'fetch_url', { url: `http://localhost:${port}/` }), 'refused: HTTP 403');
  });

  it('denyWrite inside allowWrite is refused', async () => {
    const root = tempDir(cleanup, 'switchboard-sandbox-');
    const locked = path.join(root, 'locked');
    fs.mkdirSync(locked);
    const { connection } = connect(cleanup, probeDefinition(root, rules({ allowWrite: [root], denyWrite: [locked] })), {
      sandbox: { stateRoot: root },
    });
    assertState(await connection.start(), 'running');
    assert.match(await call(connection, 'write_file', { path: path.join(root, 'fine.txt'), text: 'x' }), /^ok/);
    assert.match(await call(connection, 'write_file', { path: path.join(locked, 'no.txt'), text: 'x' }), /^refused/);
  });

  it('cannot rewrite configuration inside its own writable folder (.vscode, .mcp.json, git hooks)', async () => {
    const root = tempDir(cleanup, 'switchboard-sandbox-');
    for (const dir of ['.vscode', '.git/hooks']) fs.mkdirSync(path.join(root, dir), { recursive: true });
    const { connection } = connect(cleanup, probeDefinition(root, rules({ allowWrite: [root] })), { sandbox: { stateRoot: root } });
    assertState(await connection.start(), 'running');
    assert.match(await call(connection, 'write_file', { path: path.join(root, 'ok.txt'), text: 'x' }), /^ok/);
    // A server that could write these could loosen its own entry, or run code outside the sandbox.
    for (const target of ['.vscode/settings.json', '.mcp.json', '.git/hooks/pre-commit']) {
      assert.match(await call(connection, 'write_file', { path: path.join(root, target), text: '{}' }), /^refused/, target);
      // While the server runs, bubblewrap may hold an empty placeholder where a denied file does not exist.
      const written = fs.existsSync(path.join(root, target)) ? fs.readFileSync(path.join(root, target), 'utf8') : '';
      assert.equal(written, '', target);
    }
  });

  it('cannot connect to a Unix socket, even one in a folder it may write (the Docker or SSH agent socket)', async () => {
    const root = tempDir(cleanup, 'switchboard-sandbox-');
    const socketPath = path.join(root, 'agent.sock');
    const listener = net.createServer((socket) => socket.end());
    await new Promise<void>((resolve) => listener.listen(socketPath, resolve));
    cleanup.add(() => new Promise<void>((resolve) => listener.close(() => resolve())));
    const plain = connect(cleanup, probeDefinition(root, undefined)).connection;
    assertState(await plain.start(), 'running');
    assert.match(await call(plain, 'connect_unix', { path: socketPath }), /^ok: connected/, 'the socket answers without a sandbox');
    const { connection } = connect(cleanup, probeDefinition(root, rules({ allowWrite: [root] })), { sandbox: { stateRoot: root } });
    assertState(await connection.start(), 'running');
    assert.match(await call(connection, 'connect_unix', { path: socketPath }), /^refused: EPERM/);
  });

  it('gives npx a cache it can write when the one it inherits is outside its rules (npm start sets ~/.npm), and keeps one inside them', async () => {
    const root = tempDir(cleanup, 'switchboard-sandbox-');
    const outside = tempDir(cleanup, 'switchboard-npm-cache-');
    const inherited = connect(
      cleanup,
      { ...probeDefinition(root, rules({ allowWrite: [root] })), env: { npm_config_cache: outside } },
      { sandbox: { stateRoot: root } },
    );
    assertState(await inherited.connection.start(), 'running');
    const given = JSON.parse((await call(inherited.connection, 'whoami', {})).replace(/^ok: /, '')) as { tmpdir: string; npmCache: string };
    assert.notEqual(given.npmCache, outside);
    assert.ok(given.npmCache.startsWith(given.tmpdir), `${given.npmCache} is in the server's private folder`);
    assert.match(
      await call(inherited.connection, 'write_file', { path: path.join(given.npmCache, 'index'), text: 'x', makeFolders: true }),
      /^ok: /,
    );
    const inside = path.join(root, 'npm-cache');
    const own = connect(
      cleanup,
      { ...probeDefinition(root, rules({ allowWrite: [root] })), env: { npm_config_cache: inside } },
      { sandbox: { stateRoot: root } },
    );
    assertState(await own.connection.start(), 'running');
    assert.equal((JSON.parse((await call(own.connection, 'whoami', {})).replace(/^ok: /, '')) as { npmCache: string }).npmCache, inside);
  });

  it('stopping a sandboxed server ends the runtime, bubblewrap and the server: no process is left', async () => {
    const root = tempDir(cleanup, 'switchboard-sandbox-');
    const { connection } = connect(cleanup, probeDefinition(root, rules({})), { sandbox: { stateRoot: root } });
    assertState(await connection.start(), 'running');
    const ps = fs
      .readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
    const inside = ps.filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(PROBE);
      } catch {
        return false;
      }
    });
    assert.ok(inside.length >= 3, `the runtime, bubblewrap and the server are host processes: ${inside.join(', ')}`);
    await connection.stop();
    for (const pid of inside) assert.equal(alive(pid), false, `process ${pid} (${PROBE}) outlived the stop`);
  });
});
