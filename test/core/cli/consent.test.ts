// A repository's servers from a terminal: `doctor` and `serve` run what a folder's own files define
// only with the user's word. Asked once per entry on a terminal (a real pseudo-terminal here, through
// util-linux's script), remembered in the consent file the editor shares; without a terminal they
// stay blocked and say how to allow them; --trust-workspace runs them without remembering. The
// user's own entries (a file outside the folder) are not asked about.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ConsentFile, consentHash } from '../../../src/core/consent';
import { loadFolderConfiguration, type StdioServerDefinition } from '../../../src/core/config';
import { CLI, fixture, REPO_ROOT, runCli, tableRow, tempWorkspace } from '../doctor/helpers';
import { tempDir, type Cleanup } from '../support/cleanup';
import { cliSuite } from '../support/cliSuite';

interface Setup {
  readonly folder: string;
  readonly marker: string;
  readonly env: Record<string, string>;
  readonly consentFile: string;
}

/** A folder whose settings define `repo` (writes a marker when it runs); HOME and the config folder are the test's. */
function setup(cleanup: Cleanup, extraSettings: Record<string, unknown> = {}): Setup {
  const home = tempDir(cleanup);
  const config = path.join(home, '.config');
  const ws = tempWorkspace(
    cleanup,
    JSON.stringify({ 'mcpSwitchboard.servers': { repo: fixture('--marker', path.join(home, 'repo-ran.json')) }, ...extraSettings }),
  );
  return {
    folder: ws.dir,
    marker: path.join(home, 'repo-ran.json'),
    env: { HOME: home, XDG_CONFIG_HOME: config, XDG_CACHE_HOME: path.join(home, '.cache') },
    consentFile: path.join(config, 'mcp-switchboard', 'consent.json'),
  };
}

async function definitionOf(folder: string, name: string, env: Record<string, string>): Promise<StdioServerDefinition> {
  const loaded = await loadFolderConfiguration(folder, { env: { ...process.env, ...env }, userHome: env.HOME ?? '' });
  assert.equal(loaded.kind, 'loaded');
  const server = loaded.kind === 'loaded' ? loaded.servers.find((candidate) => candidate.name === name) : undefined;
  assert.ok(server && 'transport' in server && server.transport === 'stdio');
  return server as StdioServerDefinition;
}

/** The CLI on a real pseudo-terminal, answering `answer` to each question. */
function onTerminal(
  args: readonly string[],
  env: Record<string, string>,
  answers: string,
): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, CLI, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let sent = false;
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    // Answer once the question is on the screen, as a person would.
    if (!sent && /\[y\/N\]/.test(output)) {
      sent = true;
      child.stdin.write(answers);
    }
  });
  const safety = setTimeout(() => child.kill('SIGKILL'), 45_000);
  return new Promise((resolve) => child.once('close', (code) => (clearTimeout(safety), resolve({ code, output }))));
}

describe('workspace-defined servers from the CLI', function () {
  this.timeout(90_000);
  const cleanup = cliSuite();

  it("without a terminal: not started, blocked with how to allow it, definedBy workspace in the JSON; the user's own run", async () => {
    const s = setup(cleanup, { 'mcpSwitchboard.sources': ['settings', 'cursor'] });
    // The user's own ~/.cursor/mcp.json: not the repository's.
    fs.mkdirSync(path.join(s.env.HOME ?? '', '.cursor'), { recursive: true });
    fs.writeFileSync(path.join(s.env.HOME ?? '', '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { mine: fixture() } }));
    // The folder's own .cursor/mcp.json: the repository's, like its settings.
    fs.mkdirSync(path.join(s.folder, '.cursor'));
    fs.writeFileSync(
      path.join(s.folder, '.cursor', 'mcp.json'),
      JSON.stringify({ mcpServers: { planted: { command: '/bin/sh', args: ['-c', `touch ${s.marker}.sh`] } } }),
    );
    const run = await runCli(['doctor', '--folder', s.folder, '--json'], { env: s.env, trustWorkspace: false });
    assert.equal(run.code, 1, run.stderr);
    const report = JSON.parse(run.stdout) as { servers: { name: string; state: string; definedBy: string; error?: string }[] };
    const byName = Object.fromEntries(report.servers.map((server) => [server.name, server]));
    assert.equal(byName.repo?.state, 'blocked');
    assert.equal(byName.repo?.definedBy, 'workspace');
    assert.match(
      byName.repo?.error ?? '',
      /not allowed yet: run `mcp-switchboard doctor` on a terminal to be asked, or pass --trust-workspace/,
    );
    assert.equal(byName.planted?.state, 'blocked');
    assert.equal(byName.planted?.definedBy, 'workspace');
    assert.equal(byName.mine?.state, 'running', JSON.stringify(byName.mine));
    assert.equal(byName.mine?.definedBy, 'user');
    assert.equal(fs.existsSync(s.marker), false, "the repository's server ran");
    assert.equal(fs.existsSync(`${s.marker}.sh`), false, 'the planted command ran');
    assert.equal(fs.existsSync(s.consentFile), false, 'nothing was answered, so nothing is remembered');
  });

  it('--trust-workspace runs them this time and remembers nothing', async () => {
    const s = setup(cleanup);
    const run = await runCli(['doctor', '--folder', s.folder, '--trust-workspace'], { env: s.env, trustWorkspace: false });
    assert.equal(run.code, 0, run.stderr);
    assert.match(tableRow(run.stdout, 'repo')?.join(' ') ?? '', /running/);
    assert.equal(fs.existsSync(s.consentFile), false);
  });

  it('on a terminal it asks once, shows the command line, and remembers the answer for the next run (and the editor)', async () => {
    const s = setup(cleanup);
    const asked = await onTerminal(['doctor', '--folder', s.folder], s.env, 'y\n');
    assert.equal(asked.code, 0, asked.output);
    assert.match(asked.output, /"repo" is defined by workspace settings \(.*settings\.json\), a file of this workspace\. It runs:/);
    assert.match(asked.output, /stdio-server\.mjs --max-lifetime 60000 --marker/);
    assert.ok(fs.existsSync(s.marker), 'the allowed server ran');
    // Remembered, keyed by the command line: the next run needs neither a terminal nor the flag.
    const stored = new ConsentFile(s.consentFile);
    const definition = await definitionOf(s.folder, 'repo', s.env);
    assert.equal(stored.answer(definition), 'granted');
    const again = await runCli(['doctor', '--folder', s.folder], { env: s.env, trustWorkspace: false });
    assert.equal(again.code, 0, again.stdout + again.stderr);
    // A changed command line is another question.
    const settings = path.join(s.folder, '.vscode', 'settings.json');
    fs.writeFileSync(
      settings,
      JSON.stringify({ 'mcpSwitchboard.servers': { repo: fixture('--marker', s.marker, '--startup-delay', '10') } }),
    );
    const changed = await runCli(['doctor', '--folder', s.folder], { env: s.env, trustWorkspace: false });
    assert.equal(changed.code, 1, changed.stdout);
    assert.match(tableRow(changed.stdout, 'repo')?.join(' ') ?? '', /blocked/);
  });

  it('"no" on the terminal is remembered as denied, and says how to allow it later', async () => {
    const s = setup(cleanup);
    const asked = await onTerminal(['doctor', '--folder', s.folder], s.env, 'n\n');
    assert.equal(asked.code, 1, asked.output);
    assert.equal(fs.existsSync(s.marker), false);
    const later = await runCli(['doctor', '--folder', s.folder, '--json'], { env: s.env, trustWorkspace: false });
    const repo = (JSON.parse(later.stdout) as { servers: { name: string; state: string; error?: string }[] }).servers.find(
      (server) => server.name === 'repo',
    );
    assert.equal(repo?.state, 'blocked');
    assert.match(
      repo?.error ?? '',
      /denied by you; to allow it, run `mcp-switchboard doctor` with --trust-workspace, or Allow… in the editor/,
    );
  });

  it('an answer the editor recorded (the shared consent file) is honoured by serve without a terminal', async () => {
    const s = setup(cleanup);
    const definition = await definitionOf(s.folder, 'repo', s.env);
    // What the editor's ConsentStore writes when the user clicks Allow (src/editor/consent.ts).
    new ConsentFile(s.consentFile).record(definition, 'granted');
    assert.match(fs.readFileSync(s.consentFile, 'utf8'), new RegExp(consentHash(definition)));
    const child = spawn(process.execPath, [CLI, 'serve', '--folder', s.folder], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...s.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanup.add(() => void child.kill('SIGKILL'));
    const ready = await new Promise<{ servers: Record<string, string> }>((resolve) =>
      child.stdout.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString()) as { servers: Record<string, string> })),
    );
    assert.ok(ready.servers.repo, JSON.stringify(ready));
    assert.ok(fs.existsSync(s.marker), 'serve ran the server the editor allowed');
  });

  it('serve without a terminal or an answer does not start the server, and says why', async () => {
    const s = setup(cleanup);
    const child = spawn(process.execPath, [CLI, 'serve', '--folder', s.folder], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...s.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanup.add(() => void child.kill('SIGKILL'));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise((resolve) => child.stdout.once('data', resolve));
    assert.match(stderr, /repo: not started: defined by the workspace .* pass --trust-workspace/);
    assert.equal(fs.existsSync(s.marker), false);
  });
});
