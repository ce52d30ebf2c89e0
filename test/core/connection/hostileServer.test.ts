// Issue: a server's reply must never crash the host. A tool list with a schema nested 1,000 or
// 5,000 levels deep, or a tool that is not valid MCP, quarantines that tool alone; a result nested
// too deep fails that call alone; a throwing listener is contained.
import assert from 'node:assert/strict';
import { Emitter, setListenerErrorSink } from '../../../src/core/base/events';
import { isSwitchboardError } from '../../../src/core/connection';
import { jsonShapeProblem, TOOL_DEFINITION_LIMITS } from '../../../src/core/base/jsonShape';
import {
  assertState,
  Cleanup,
  connect,
  httpDefinition,
  MemoryLogger,
  startHttpFixture,
  stdioDefinition,
  textOf,
} from '../connection/helpers';

describe('hostile servers: quarantined tools and bounded results', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  for (const levels of [1_000, 5_000]) {
    it(`a stdio tool nested ${levels} levels deep is quarantined by name and limit; the others work`, async () => {
      const { connection, logger } = connect(cleanup, stdioDefinition(['--deep-tool', String(levels), '--invalid-tool']));
      const state = await connection.start();
      assertState(state, 'running');
      const names = connection.tools.map((tool) => tool.name);
      assert.ok(names.includes('echo') && !names.includes('deep') && !names.includes('invalid'), names.join(','));
      const quarantined = state.quarantinedTools ?? [];
      assert.deepEqual(quarantined.map((tool) => tool.name).sort(), ['deep', 'invalid']);
      const deep = quarantined.find((tool) => tool.name === 'deep');
      assert.match(deep?.problem ?? '', /tool `deep` is nested more than 64 levels deep/);
      assert.doesNotMatch(deep?.problem ?? '', /call stack/);
      assert.match(
        quarantined.find((tool) => tool.name === 'invalid')?.problem ?? '',
        /tool `invalid` is not valid MCP: inputSchema\.type/,
      );
      assert.match(logger.text(), /\[warn\].*tool quarantined: .*`deep`/);
      assert.equal(textOf(await connection.sendToolCall('echo', { text: 'still here' })), 'still here');
      await assert.rejects(
        connection.sendToolCall('deep', {}),
        (error) => isSwitchboardError(error, 'UNKNOWN_TOOL') && /quarantined: .*64 levels/.test(error.message),
      );
    });
  }

  it('an HTTP server with a deep tool keeps its other tools', async () => {
    const server = await startHttpFixture(cleanup, ['--deep-tool', '1000']);
    const { connection } = connect(cleanup, httpDefinition(server.url('/mcp')));
    const state = await connection.start();
    assertState(state, 'running');
    assert.deepEqual(
      state.quarantinedTools?.map((tool) => tool.name),
      ['deep'],
    );
    assert.match(state.quarantinedTools?.[0]?.problem ?? '', /nested more than 64 levels deep/);
    assert.equal(textOf(await connection.sendToolCall('echo', { text: 'ok' })), 'ok');
  });

  it('a result nested too deep fails that call with a message naming the limit, and the server stays usable', async () => {
    const { connection } = connect(cleanup, stdioDefinition(['--hostile-tools']));
    await connection.start();
    await assert.rejects(
      connection.sendToolCall('deep_result', { levels: 1_000 }),
      (error) =>
        isSwitchboardError(error, 'PROTOCOL_ERROR') &&
        /result of tool `deep_result` is nested more than 256 levels deep/.test(error.message),
    );
    assert.equal(textOf(await connection.sendToolCall('echo', { text: 'after' })), 'after');
    assertState(connection.state, 'running');
  });

  it('measures depth without recursion, at any depth', () => {
    let value: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) value = [value];
    assert.match(jsonShapeProblem(value, TOOL_DEFINITION_LIMITS) ?? '', /nested more than 64 levels/);
    assert.equal(jsonShapeProblem({ a: [1, { b: 'c' }] }, TOOL_DEFINITION_LIMITS), undefined);
    assert.match(jsonShapeProblem({ big: 'x'.repeat(2 * 1024 * 1024) }, TOOL_DEFINITION_LIMITS) ?? '', /larger than 1 MiB/);
  });

  it('does not render JSON-RPC traffic when the trace level is off', async () => {
    let asked = 0;
    const logger = new MemoryLogger();
    const quiet = Object.assign(logger, { enabled: (level: string) => (asked++, level !== 'trace') });
    const { connection } = connect(cleanup, stdioDefinition(), { logger: quiet });
    await connection.start();
    await connection.sendToolCall('echo', { text: 'x' });
    assert.ok(asked > 0, 'the level was asked');
    assert.equal(logger.entries.filter((entry) => entry.level === 'trace').length, 0);
  });
});

describe('event listeners that throw', () => {
  it('are reported to the sink; the other listeners still run and nothing is left uncaught', async () => {
    const reported: unknown[] = [];
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    const sink = setListenerErrorSink((error) => reported.push(error));
    try {
      const emitter = new Emitter<number>();
      const seen: number[] = [];
      emitter.event(() => {
        throw new RangeError('Maximum call stack size exceeded');
      });
      emitter.event((value) => seen.push(value));
      emitter.fire(1);
      emitter.fire(2);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(seen, [1, 2]);
      assert.equal(reported.length, 2);
      assert.equal(uncaught.length, 0);
    } finally {
      sink.dispose();
      process.off('uncaughtException', onUncaught);
    }
  });
});
