// The era probe against 2025 stdio servers that do not answer `server/discover` the way the SDK's
// servers do ("method not found"): one never answers it, one exits on it. And against a 2026-07-28
// server that answers it only after the probe gave up (a cold start on a busy machine).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertState, Cleanup, connect, FIXTURES, stdioDefinition, stdioStats } from '../connection/helpers';

describe('era negotiation with stdio servers that answer the probe late or not at all', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('falls back to initialize on the same process when server/discover gets no answer', async () => {
    const { connection, logger } = connect(
      cleanup,
      stdioDefinition(['--discover', 'ignore'], { timeouts: { connectMs: 2_000, requestMs: 10_000 } }),
    );
    const state = await connection.start();
    assertState(state, 'running');
    assert.equal(state.era, 'legacy');
    assert.match(state.protocolVersion, /^2025-/);
    assert.equal(connection.diagnostics.transportsCreated, 1, 'one process: the probe timed out and initialize followed on it');
    assert.ok((await stdioStats(connection)).initializations === 1, logger.text());
  });

  it('starts a server that exits on server/discover again, straight into initialize, and remembers it', async () => {
    const { connection } = connect(cleanup, stdioDefinition(['--discover', 'exit']));
    const state = await connection.start();
    assertState(state, 'running');
    assert.equal(state.era, 'legacy');
    assert.equal(connection.diagnostics.transportsCreated, 2, 'the probe cost one process');
    await connection.reconnect();
    assertState(connection.state, 'running');
    assert.equal(connection.diagnostics.transportsCreated, 3, 'the reconnect knew the era and did not probe');
  });

  it('starts a 2026-07-28-only server again with a patient probe when it answered too late and refused initialize', async () => {
    const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sb-cold-')), 'started');
    cleanup.add(() => fs.rmSync(path.dirname(marker), { recursive: true, force: true }));
    // connectMs 8 s: the probe waits 4 s, the first run reads nothing for 5 s.
    const definition = stdioDefinition([], {
      args: [path.join(FIXTURES, 'modern-server.mjs'), '--cold-start-ms', '5000', '--cold-start-marker', marker],
      timeouts: { connectMs: 8_000, requestMs: 10_000 },
    });
    const { connection, logger } = connect(cleanup, definition);
    const state = await connection.start();
    assertState(state, 'running');
    assert.equal(state.era, 'modern', logger.text());
    assert.equal(connection.diagnostics.transportsCreated, 2, 'the refused initialize cost one process');
    assert.match(logger.text(), /answered server\/discover too late/);
  });
});
