// Issue: the last progress notification before a result was lost in most calls to a stdio server,
// because progress and result arrived in one stdout chunk and the SDK settled the call first.
import assert from 'node:assert/strict';
import type { Progress } from '@modelcontextprotocol/client';
import { Cleanup, connect, stdioDefinition, textOf } from '../connection/helpers';
import { connectClient, startGateway, toolsServer } from '../gateway/helpers';

const CALLS = 30;
const STEPS = 4;

describe('progress from stdio servers arrives in order', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it(`delivers every progress notification written in the same chunk as the result (${CALLS} calls)`, async () => {
    const { connection } = connect(cleanup, stdioDefinition(['--hostile-tools']));
    await connection.start();
    const counts: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const seen: Progress[] = [];
      const result = await connection.sendToolCall('burst', { steps: STEPS }, { onProgress: (progress) => seen.push(progress) });
      assert.equal(textOf(result), `burst ${STEPS}`);
      counts.push(seen.length);
    }
    assert.deepEqual(counts, Array<number>(CALLS).fill(STEPS));
  });

  it('delivers them through the gateway as well', async () => {
    const { gateway } = await startGateway(cleanup, [toolsServer('alpha', ['--hostile-tools'])]);
    const { client } = await connectClient(cleanup, gateway.endpointUrl('alpha'), gateway.token);
    const counts: number[] = [];
    for (let i = 0; i < 10; i++) {
      let seen = 0;
      await client.callTool({ name: 'burst', arguments: { steps: STEPS } }, { onprogress: () => (seen += 1) });
      counts.push(seen);
    }
    assert.deepEqual(counts, Array<number>(10).fill(STEPS));
  });
});
