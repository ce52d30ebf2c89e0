import assert from 'node:assert/strict';
import { Cleanup, connect, MemoryLogger, stdioDefinition, textOf } from './helpers';

describe('JSON-RPC traffic at trace level', function () {
  this.timeout(20_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('logs the handshake and every request and response, both ways, with secrets redacted', async () => {
    const secret = 'sk-trace-secret-42';
    const logger = new MemoryLogger();
    const { connection } = connect(cleanup, stdioDefinition([], { secrets: [secret] }), { logger });
    await connection.start();
    assert.equal(textOf(await connection.sendToolCall('echo', { text: `say ${secret}` })), `say ${secret}`);
    const trace = logger.entries.filter((entry) => entry.level === 'trace').map((entry) => entry.message);
    assert.ok(
      trace.some((line) => line.includes('→ {') && line.includes('"method":"initialize"')),
      'initialize request',
    );
    assert.ok(
      trace.some((line) => line.includes('← {') && line.includes('"protocolVersion"')),
      'initialize result',
    );
    assert.ok(
      trace.some((line) => line.includes('→ {') && line.includes('"method":"tools/call"') && line.includes('say ***')),
      'the call, redacted',
    );
    assert.ok(
      trace.some((line) => line.includes('← {') && line.includes('say ***')),
      'the result, redacted',
    );
    assert.ok(!logger.text().includes(secret));
  });
});
