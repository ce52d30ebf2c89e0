// The package's entry as agents and the machine host run it (`node dist/extension.js serve
// --stdio`): it loads the bundle through the code cache in Switchboard's own folder, and the next
// process uses what the first one saved.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildCli, REPO_ROOT } from '../doctor/helpers';

const ENTRY = path.join(REPO_ROOT, 'dist', 'extension.js');

/** Runs serve --stdio through the entry until it answers `initialize`, then `whileRunning`, then ends it. */
async function serveOnce(env: Record<string, string>, folder: string, whileRunning: () => Promise<void> = async () => {}): Promise<void> {
  const child = spawn(process.execPath, [ENTRY, 'serve', '--stdio', '--folder', folder], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('"id":1')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited (${code}) before it answered`)));
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
      );
    });
    await whileRunning();
  } finally {
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

describe('the package’s entry loads the bundle with the code cache', function () {
  this.timeout(60_000);
  let root: string;
  before(() => buildCli());
  beforeEach(() => (root = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-entry-cache-'))));
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it("saves it in Switchboard's own folder while serve runs, and the next serve reads it instead of writing another", async () => {
    const config = path.join(root, 'config');
    const cacheFolder = path.join(config, 'mcp-switchboard', 'code-cache');
    const env = { XDG_CONFIG_HOME: config, MCP_SWITCHBOARD_CODE_CACHE_SAVE_MS: '200' };
    const files = () => (fs.existsSync(cacheFolder) ? fs.readdirSync(cacheFolder) : []);
    await serveOnce(env, root, async () => {
      for (let waited = 0; files().length === 0 && waited < 15_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    });
    const made = files()[0] ?? '';
    assert.ok(made.startsWith('main.js-'), `the cache of dist/main.js: ${files().join(', ')}`);
    const writtenAt = fs.statSync(path.join(cacheFolder, made)).mtimeMs;
    await serveOnce(env, root, () => new Promise((resolve) => setTimeout(resolve, 1_000)));
    assert.deepEqual(files(), [made]);
    assert.equal(fs.statSync(path.join(cacheFolder, made)).mtimeMs, writtenAt, 'a load that used the cache writes none');
  });

  it('MCP_SWITCHBOARD_CODE_CACHE=off: no cache is read or written', async () => {
    const config = path.join(root, 'config');
    await serveOnce(
      { XDG_CONFIG_HOME: config, MCP_SWITCHBOARD_CODE_CACHE: 'off', MCP_SWITCHBOARD_CODE_CACHE_SAVE_MS: '100' },
      root,
      () => new Promise((resolve) => setTimeout(resolve, 1_000)),
    );
    assert.equal(fs.existsSync(path.join(config, 'mcp-switchboard', 'code-cache')), false);
  });
});
