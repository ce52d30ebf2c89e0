import assert from 'node:assert/strict';
import { isSwitchboardError, type ServerConnection } from '../../../src/core/connection';
import { Cleanup, connect, stdioDefinition, stdioStats, textOf } from './helpers';

describe('ServerConnection tool calls', () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  describe('on one running server', () => {
    // These only call tools, so they share a server; each compares the fixture's call counter
    // before and after instead of assuming it starts at 0.
    const shared = new Cleanup();
    let connection: ServerConnection;
    before(async () => {
      connection = connect(shared, stdioDefinition()).connection;
      await connection.start();
    });
    after(() => shared.run());
    const calls = async () => (await stdioStats(connection)).calls;

    it('returns an isError result as a result, sent once', async () => {
      const before = await calls();
      const result = await connection.sendToolCall('fail', { message: 'nope' });
      assert.equal(result.isError, true);
      assert.equal(textOf(result), 'nope');
      assert.equal(await calls(), before + 1);
    });

    it('throws a JSON-RPC error as SERVER_ERROR, sent once', async () => {
      const before = await calls();
      await assert.rejects(connection.sendToolCall('rpc_error'), (error) => {
        assert.ok(isSwitchboardError(error, 'SERVER_ERROR'), String(error));
        assert.equal(error.rpcCode, -32603);
        assert.match(error.message, /fixture rpc error/);
        return true;
      });
      assert.equal(await calls(), before + 1);
    });

    it('rejects missing required arguments without sending anything', async () => {
      const before = await calls();
      await assert.rejects(connection.sendToolCall('add', { a: 1 }), (error) => {
        assert.ok(isSwitchboardError(error, 'INVALID_ARGUMENTS'), String(error));
        assert.equal(error.message, 'invalid arguments for tool `add`: missing required argument `b`');
        return true;
      });
      await assert.rejects(
        connection.sendToolCall('env', {}),
        (error) => isSwitchboardError(error, 'INVALID_ARGUMENTS') && /`name`/.test(error.message),
      );
      await assert.rejects(connection.sendToolCall('add', [] as unknown as Record<string, unknown>), (error) =>
        isSwitchboardError(error, 'INVALID_ARGUMENTS'),
      );
      assert.equal(await calls(), before, 'nothing reached the server');
      assert.equal(textOf(await connection.sendToolCall('add', { a: 1, b: 2 })), '3');
    });

    it('rejects a tool the server did not list without sending anything', async () => {
      const before = await calls();
      await assert.rejects(connection.sendToolCall('no_such_tool'), (error) => isSwitchboardError(error, 'UNKNOWN_TOOL'));
      assert.equal(await calls(), before);
    });
  });

  it('rejects calls to a stopped server at once', async () => {
    const { connection } = connect(cleanup, stdioDefinition());
    await assert.rejects(
      connection.sendToolCall('echo', { text: 'x' }),
      (error) => isSwitchboardError(error, 'NOT_RUNNING') && /is stopped/.test(error.message),
    );
  });

  it('waits for a starting server', async () => {
    const { connection } = connect(cleanup, stdioDefinition(['--startup-delay', '200']));
    void connection.start();
    assert.equal(connection.state.kind, 'starting');
    assert.equal(textOf(await connection.sendToolCall('echo', { text: 'queued' })), 'queued');
  });

  it('fails calls in flight with CLOSED when the server is stopped', async () => {
    const { connection } = connect(cleanup, stdioDefinition());
    await connection.start();
    const call = connection.sendToolCall('slow', { ms: 5000 });
    const stopped = connection.stop();
    await assert.rejects(call, (error) => isSwitchboardError(error, 'CLOSED'));
    await stopped;
  });
});
