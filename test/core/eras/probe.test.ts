// The era probe against 2025 stdio servers that do not answer `server/discover` the way the SDK's
// servers do ("method not found"): one never answers it, one exits on it.
import assert from 'node:assert/strict';
import { assertState, Cleanup, connect, stdioDefinition, stdioStats } from '../connection/helpers';

describe('era negotiation with 2025 stdio servers', function () {
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
});
