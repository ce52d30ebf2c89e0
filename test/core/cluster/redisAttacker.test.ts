// What someone who can read or write a team gateway's Redis can do with it: nothing. A real
// redis-server holds the replicas' finished tasks; the probes are an attacker's, made with a Redis
// client of their own: reading what is there, writing a forged entry, copying one entry under another
// task's id, making an entry huge, and stopping Redis mid-request.
import assert from 'node:assert/strict';
import { createClient } from '@redis/client';
import { Sealer } from '../../../src/core/base/sealer';
import { RedisTaskStore } from '../../../src/core/cluster';
import { Cleanup } from '../support/cleanup';
import { startRedis, type Service } from '../support/services';

const KEY = Buffer.from('a-key-every-replica-of-this-test-gateway-shares');
const OWNER = 'https://idp.example.com alice\u0000client@1';

describe('cluster: Redis in an attacker’s hands holds nothing to read, forge or move', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  let redis: Service;
  let store: RedisTaskStore;
  let attacker: ReturnType<typeof createClient>;
  const refused: string[] = [];

  before(async () => {
    redis = await startRedis(cleanup);
    store = await RedisTaskStore.connect(`redis://127.0.0.1:${redis.port}`, {
      onError: (message) => refused.push(message),
      sealer: new Sealer(KEY, 'mcp-switchboard finished task'),
      commandMs: 300,
    });
    cleanup.add(() => store.close());
    attacker = createClient({ url: `redis://127.0.0.1:${redis.port}` });
    await attacker.connect();
    cleanup.add(() => attacker.close());
  });
  after(() => cleanup.run());

  const finished = (text: string) => ({
    owner: OWNER,
    result: { status: 'completed', result: { content: [{ type: 'text', text }] } },
  });

  it('keeps finished tasks sealed: neither the output nor whose it is can be read there', async () => {
    await store.put('task-1', finished('the quarterly numbers are 42'), 60_000);
    const raw = String(await attacker.get('mcp-switchboard:task:task-1'));
    assert.ok(raw.length > 0);
    assert.ok(!raw.includes('quarterly') && !raw.includes('alice') && !raw.includes('completed'), raw);
    assert.deepEqual(await store.get('task-1'), finished('the quarterly numbers are 42'));
  });

  it('serves no entry it did not seal, nor one moved under another task’s id', async () => {
    await attacker.set('mcp-switchboard:task:forged', JSON.stringify(finished('forged result')));
    assert.equal(await store.get('forged'), undefined);
    await store.put('task-2', finished('bob’s result'), 60_000);
    await attacker.set('mcp-switchboard:task:task-3', String(await attacker.get('mcp-switchboard:task:task-2')));
    assert.equal(await store.get('task-3'), undefined, 'a copy under another id does not open');
    assert.deepEqual(await store.get('task-2'), finished('bob’s result'));
    assert.ok(
      refused.some((message) => /did not open under the cluster key/.test(message)),
      refused.join('\n'),
    );
  });

  it('reads at most its bound of an entry someone made huge', async () => {
    const sent = async () => Number(/total_net_output_bytes:(\d+)/.exec(await attacker.info('stats'))?.[1]);
    await attacker.set('mcp-switchboard:task:huge', 'A'.repeat(80 * 1024 * 1024));
    await attacker.set('mcp-switchboard:secret:huge', 'A'.repeat(1024 * 1024));
    const before = await sent();
    assert.equal(await store.get('huge'), undefined);
    assert.equal(await store.values.get('huge'), undefined);
    // What Redis sent for both reads (the attacker's INFO included): the bound, not the 81 MiB.
    const read = (await sent()) - before;
    assert.ok(read < 7 * 1024 * 1024, `${read} bytes read`);
    assert.ok(refused.some((message) => /larger than/.test(message)));
  });

  it('gives up on a Redis that stops answering, after its command bound', async () => {
    await store.put('task-4', finished('before the stall'), 60_000);
    assert.ok(redis.process.kill('SIGSTOP'));
    try {
      const started = Date.now();
      await assert.rejects(store.get('task-4'));
      await assert.rejects(store.values.get('anything'));
      // Two commands of 300 ms each; a busy machine's timers run late, never this late.
      assert.ok(Date.now() - started < 5_000, `${Date.now() - started} ms`);
    } finally {
      redis.process.kill('SIGCONT');
    }
    assert.deepEqual(await store.get('task-4'), finished('before the stall'));
  });
});
