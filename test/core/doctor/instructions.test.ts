import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { STDIO_SERVER } from '../connection/helpers';
import { tempDir } from '../support/cleanup';
import { cliSuite } from '../support/cliSuite';
import { runCli } from './helpers';

describe('doctor --json: server instructions', function () {
  this.timeout(60_000);
  const cleanup = cliSuite();

  it('includes what each server tells a model, and null for one that says nothing', async () => {
    const folder = tempDir(cleanup);
    fs.mkdirSync(path.join(folder, '.vscode'));
    fs.writeFileSync(
      path.join(folder, '.vscode', 'settings.json'),
      JSON.stringify({
        'mcpSwitchboard.servers': {
          told: { command: process.execPath, args: [STDIO_SERVER, '--instructions', 'Line one.\nLine two.'] },
          silent: { command: process.execPath, args: [STDIO_SERVER] },
        },
      }),
    );
    const run = await runCli(['doctor', '--folder', folder, '--json']);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as { servers: Array<{ name: string; instructions: string | null }> };
    assert.deepEqual(
      report.servers.map((server) => [server.name, server.instructions]),
      [
        ['told', 'Line one.\nLine two.'],
        ['silent', null],
      ],
    );
  });
});
