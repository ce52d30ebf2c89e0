// A configuration source that is a named pipe (made with mkfifo) is refused at once, naming it,
// instead of waiting forever for a writer: through the config door, the settings writer, and the
// doctor end to end (which before this hung, and then ignored SIGTERM).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { nodeFileSystem } from '../../../src/core/config/fileSystem';
import { readConfigText, writeJsonValue } from '../../../src/core/base/jsoncFile';
import { fixture, runCli, tempWorkspace } from '../doctor/helpers';
import { tempDir } from '../support/cleanup';
import { cliSuite } from '../support/cliSuite';

describe('configuration files that are named pipes', function () {
  if (process.platform === 'win32') return;
  this.timeout(60_000);
  const cleanup = cliSuite();

  function fifo(file: string): string {
    execFileSync('mkfifo', [file]);
    return file;
  }

  it('the config door and the settings writer refuse a FIFO at once', async () => {
    const pipe = fifo(path.join(tempDir(cleanup), 'config.toml'));
    const read = await nodeFileSystem.readText(pipe, 1024);
    assert.deepEqual(read, {
      kind: 'error',
      message: `${pipe} is not a file (a named pipe); Switchboard reads configuration from files only`,
    });
    assert.throws(() => readConfigText(pipe), /is not a regular file/);
    assert.throws(() => writeJsonValue(pipe, ['x'], 1), /is not a regular file/);
  });

  it('doctor with ~/.codex/config.toml a FIFO reports it and finishes; the other servers are checked', async () => {
    const codexHome = tempDir(cleanup);
    fifo(path.join(codexHome, 'config.toml'));
    const ws = tempWorkspace(
      cleanup,
      JSON.stringify({ 'mcpSwitchboard.sources': ['settings', 'codex'], 'mcpSwitchboard.servers': { good: fixture() } }),
    );
    const run = await runCli(['doctor', '--folder', ws.dir], {
      env: { CODEX_HOME: codexHome, XDG_CACHE_HOME: tempDir(cleanup) },
      killAfterMs: 20_000,
    });
    assert.equal(run.signal, null, `doctor hung and was killed after ${run.ms} ms`);
    assert.match(run.stdout + run.stderr, /config\.toml is not a file \(a named pipe\)/);
    assert.match(run.stdout, /^good\s+running/m);
  });
});
