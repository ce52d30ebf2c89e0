// serve, doctor and login started by another program with piped stdio, whose parent is then
// killed: the pipes have no reader. Each must stop its servers and exit, never spin or hang.
// Reproduced as the issue describes: a parent process with piped stdio, SIGKILL to the parent.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { CLI } from '../doctor/helpers';
import { isAlive, STDIO_SERVER } from '../connection/helpers';
import { eventually } from '../support/poll';
import { tempDir, type Cleanup } from '../support/cleanup';
import { cliSuite } from '../support/cliSuite';

/**
 * A parent that starts the CLI with piped stdio, reads its output, and prints the child's pid.
 * `talk` makes the child write often (a noisy server), so its next write fails at once.
 */
function startParent(cleanup: Cleanup, args: string[]): Promise<{ parent: number; child: number }> {
  const script = `
    const { spawn } = require('node:child_process');
    const child = spawn(process.execPath, ${JSON.stringify([CLI, ...args])}, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', () => {});
    child.stderr.on('data', () => {});
    console.log(JSON.stringify({ parent: process.pid, child: child.pid }));
    setInterval(() => {}, 1000);
  `;
  const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanup.add(() => void parent.kill('SIGKILL'));
  return new Promise((resolve) =>
    readline
      .createInterface({ input: parent.stdout })
      .once('line', (line) => resolve(JSON.parse(line) as { parent: number; child: number })),
  );
}

function folderWithServer(cleanup: Cleanup, marker: string, extra: string[] = []): string {
  const folder = tempDir(cleanup);
  fs.mkdirSync(path.join(folder, '.vscode'));
  fs.writeFileSync(
    path.join(folder, '.vscode', 'settings.json'),
    JSON.stringify({
      'mcpSwitchboard.servers': { alpha: { command: process.execPath, args: [STDIO_SERVER, '--marker', marker, ...extra] } },
    }),
  );
  return folder;
}

const serverPid = (marker: string) =>
  eventually(
    () => {
      try {
        return (JSON.parse(fs.readFileSync(marker, 'utf8')) as { pid: number }).pid;
      } catch {
        return undefined;
      }
    },
    'the server wrote its marker',
    20_000,
  );

describe('CLI with its parent gone (broken pipes)', function () {
  this.timeout(60_000);
  const cleanup = cliSuite();

  /** serve with one server, started by a parent that is then SIGKILLed: serve's pid and its server's. */
  async function serveOrphaned(): Promise<{ child: number; server: number }> {
    const marker = path.join(tempDir(cleanup), 'alpha.json');
    const { parent, child } = await startParent(cleanup, ['serve', '--folder', folderWithServer(cleanup, marker), '--trust-workspace']);
    cleanup.add(() => void (isAlive(child) && process.kill(child, 'SIGKILL')));
    const server = await serverPid(marker);
    process.kill(parent, 'SIGKILL');
    return { child, server };
  }

  it('serve notices that its parent ended, stops its servers and exits by itself', async () => {
    const { child, server } = await serveOrphaned();
    await eventually(() => (!isAlive(child) ? true : undefined), 'serve to exit after its parent was killed', 20_000);
    await eventually(() => (!isAlive(server) ? true : undefined), 'its server to be stopped', 10_000);
  });

  it('serve exits on SIGTERM after its parent was killed, as the issue reproduces it', async () => {
    const { child, server } = await serveOrphaned();
    process.kill(child, 'SIGTERM');
    await eventually(() => (!isAlive(child) ? true : undefined), 'serve to exit on SIGTERM with broken pipes', 20_000);
    await eventually(() => (!isAlive(server) ? true : undefined), 'its server to be stopped', 10_000);
  });

  it('doctor and login end too when their output has no reader', async () => {
    const scratch = tempDir(cleanup);
    const marker = path.join(scratch, 'alpha.json');
    // A slow server keeps doctor waiting past the parent's death; it then writes into the dead pipe.
    const doctor = await startParent(cleanup, [
      'doctor',
      '--folder',
      folderWithServer(cleanup, marker, ['--startup-delay', '1500']),
      '--trust-workspace',
    ]);
    cleanup.add(() => void (isAlive(doctor.child) && process.kill(doctor.child, 'SIGKILL')));
    process.kill(doctor.parent, 'SIGKILL');
    await eventually(() => (!isAlive(doctor.child) ? true : undefined), 'doctor to exit', 20_000);
    const login = await startParent(cleanup, ['login', 'nope', '--folder', scratch]);
    cleanup.add(() => void (isAlive(login.child) && process.kill(login.child, 'SIGKILL')));
    process.kill(login.parent, 'SIGKILL');
    await eventually(() => (!isAlive(login.child) ? true : undefined), 'login to exit', 20_000);
    assert.equal(isAlive(doctor.child) || isAlive(login.child), false);
  });
});
