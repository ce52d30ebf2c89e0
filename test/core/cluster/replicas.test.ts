// A team gateway on two replicas behind a real HAProxy (round robin, no affinity) with a real
// Redis: each replica runs its own servers, as two pods would. Whatever replica a request reaches,
// a 2025 session, a 2026-07-28 round and a 2026-07-28 task work; what the other replica holds is
// sent on to it; a finished task outlives its replica; a replica's marks cannot be forged.
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult, type InputRequiredResult } from '@modelcontextprotocol/client';
import { Sealer } from '../../../src/core/base/sealer';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { RedisTaskStore, Replicas } from '../../../src/core/cluster';
import { FORWARDED_HEADER } from '../../../src/core/gateway';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime/runtime';
import { Cleanup, FIXTURES, MemoryLogger, stdioDefinition, textOf } from '../connection/helpers';
import { waitForRunning } from '../gateway/helpers';
import { freePort } from '../support/ports';
import { startHaproxy, startRedis, whenAllServing, type Service } from '../support/services';
import { modernRequest, sessionRequest } from '../support/wire';

const KEY = Buffer.from('a-key-every-replica-of-this-test-gateway-shares');
const TOKEN = 'team-token-shared-by-both-replicas-0123456789';

interface Replica {
  readonly runtime: SwitchboardRuntime;
  readonly port: number;
  /** Requests it answered (its access log). */
  readonly seen: { requests: number };
}

describe('cluster: two replicas behind HAProxy without affinity, with Redis', function () {
  this.timeout(90_000);
  const cleanup = new Cleanup();
  let redis: Service;
  let proxy: Service;
  let replicas: Replica[];
  let url: string;

  async function replica(): Promise<Replica> {
    const port = await freePort();
    const runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {}, hostAnswers: {} });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start([
      stdioDefinition([], { name: 'tools' }),
      stdioDefinition([], { name: 'up', args: [path.join(FIXTURES, 'conformance-upstream.mjs'), '--modern'] }),
    ]);
    await waitForRunning(runtime.manager, ['tools', 'up']);
    const tasks = await RedisTaskStore.connect(`redis://127.0.0.1:${redis.port}`, {
      onError: () => undefined,
      sealer: new Sealer(KEY, 'mcp-switchboard finished task'),
    });
    cleanup.add(() => tasks.close());
    const router = new Replicas({ selfUrl: `http://127.0.0.1:${port}`, key: KEY, tasks });
    cleanup.add(() => router.dispose());
    const seen = { requests: 0 };
    const gateway = runtime.gateway({
      port,
      token: TOKEN,
      replicas: router,
      // Clients name the proxy's address (127.0.0.1 on the proxy's port); the replicas accept it.
      reach: { host: '127.0.0.1', allowedHosts: ['127.0.0.1'], trustedProxies: [], allowedOrigins: [] },
      onAccess: () => (seen.requests += 1),
    });
    await gateway.start();
    return { runtime, port, seen };
  }

  before(async () => {
    redis = await startRedis(cleanup);
    replicas = [await replica(), await replica()];
    proxy = await startHaproxy(
      cleanup,
      replicas.map((entry) => entry.port),
    );
    url = `http://127.0.0.1:${proxy.port}/mcp`;
    await whenAllServing(proxy, replicas.length);
  });
  after(() => cleanup.run());

  function client(era: 'legacy' | 'modern'): Client {
    return new Client(
      { name: `${era}-agent`, version: '1.0.0' },
      era === 'modern'
        ? {
            capabilities: { elicitation: { form: {} } },
            versionNegotiation: { mode: { pin: '2026-07-28' } },
            inputRequired: { autoFulfill: false },
          }
        : {},
    );
  }

  async function connect(era: 'legacy' | 'modern'): Promise<Client> {
    const agent = client(era);
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }),
    );
    cleanup.add(() => agent.close());
    return agent;
  }

  it('serves a 2025 session on either replica: the one that does not hold it sends each request on', async () => {
    const before = replicas.map((entry) => entry.seen.requests);
    const agent = await connect('legacy');
    for (let i = 0; i < 10; i++) {
      assert.equal(
        textOf((await agent.callTool({ name: 'tools__echo', arguments: { text: `call ${i}` } })) as CallToolResult),
        `call ${i}`,
      );
    }
    const served = replicas.map((entry, index) => entry.seen.requests - (before[index] ?? 0));
    // Round robin: both replicas answered requests of the one session (the holder twice: once from the proxy, once forwarded).
    assert.ok(
      served.every((count) => count > 0),
      `requests per replica: ${served.join(', ')}`,
    );
  });

  it('finishes a 2026-07-28 round on whichever replica the retry reaches, and spends its state once', async () => {
    const agent = await connect('modern');
    const call = (extra: Record<string, unknown> = {}) =>
      agent.callTool(
        { name: 'up__test_input_required_result_request_state', arguments: {}, ...extra },
        { allowInputRequired: true },
      ) as Promise<CallToolResult | InputRequiredResult>;
    for (let i = 0; i < 4; i++) {
      const round = (await call()) as InputRequiredResult;
      assert.equal(round.resultType, 'input_required', JSON.stringify(round).slice(0, 200));
      const answer = { inputResponses: { confirm: { action: 'accept', content: { ok: true } } }, requestState: round.requestState };
      assert.match(textOf((await call(answer)) as CallToolResult), /^state-ok/, `round ${i}`);
      // Replayed through the proxy, it reaches the other replica first: sent on to the holder, which refuses it.
      await assert.rejects(call(answer), /already used/);
      await assert.rejects(call(answer), /already used/);
    }
  });

  /** One 2026-07-28 request as a client that declared the tasks extension sends it, through the proxy. */
  const send = (id: number, method: string, params: Record<string, unknown>) => modernRequest(url, TOKEN, id, method, params);

  async function finished(taskId: string): Promise<Record<string, unknown>> {
    for (let poll = 0; poll < 200; poll++) {
      const got = await send(100 + poll, 'tasks/get', { taskId });
      assert.equal(got.error, undefined, JSON.stringify(got));
      if (got.result?.status !== 'working') return got.result ?? {};
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`task ${taskId} did not finish`);
  }

  it('polls a 2026-07-28 task on whichever replica: its replica answers', async () => {
    const started = await send(1, 'tools/call', { name: 'tools__slow', arguments: { ms: 1_200 } });
    assert.equal(started.result?.resultType, 'task', JSON.stringify(started));
    const done = await finished(String(started.result?.taskId));
    assert.equal(done.status, 'completed');
    assert.equal(textOf(done.result as CallToolResult), 'slept 1200');
  });

  it('refuses ids whose mark is not the gateway’s, and never forwards a forwarded request', async () => {
    const other = new Replicas({ selfUrl: 'http://127.0.0.1:1', key: Buffer.from('another-gateway-key-that-is-long-enough-000') });
    cleanup.add(() => other.dispose());
    const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const forged = await fetch(url, { method: 'POST', headers: { ...headers, 'Mcp-Session-Id': other.mint('x') }, body: '{}' });
    assert.equal(forged.status, 404);
    const garbage = await fetch(url, { method: 'POST', headers: { ...headers, 'Mcp-Session-Id': 'not.a-mark' }, body: '{}' });
    assert.equal(garbage.status, 404);
    // A real session of the gateway, with the header that says it was forwarded already: answered where it lands, or 404.
    const agent = await connect('legacy');
    const session = (agent.transport as StreamableHTTPClientTransport | undefined)?.sessionId ?? '';
    assert.ok(session.includes('.'), `a marked session id: ${session}`);
    const statuses = new Set<number>();
    for (let i = 0; i < 4; i++)
      statuses.add(await sessionRequest(url, TOKEN, session, i, 'tools/list', { [FORWARDED_HEADER]: 'a client' }));
    assert.deepEqual([...statuses].sort(), [200, 404]);
  });

  it('answers a finished task from Redis once its replica is gone; its running task is gone with it, its sessions are taken over', async () => {
    // Whose an id is, read as any replica reads it.
    const reader = new Replicas({ selfUrl: 'http://127.0.0.1:1', key: KEY });
    cleanup.add(() => reader.dispose());
    const stopping = `http://127.0.0.1:${replicas[0]?.port ?? 0}`;
    const onStopping = (id: string) => reader.holderOf(id) === stopping;
    const startTask = async (ms: number) => {
      const started = await send(1, 'tools/call', { name: 'tools__slow', arguments: { ms } });
      assert.equal(started.result?.resultType, 'task', JSON.stringify(started));
      return String(started.result?.taskId);
    };
    const finishedIds: string[] = [];
    while (!finishedIds.some(onStopping) || finishedIds.every(onStopping)) {
      assert.ok(finishedIds.length < 10, 'round robin puts tasks on both replicas');
      // Well past the 400 ms after which a call becomes a task, however late the timers run.
      finishedIds.push(await startTask(1_500));
    }
    for (const id of finishedIds) assert.equal((await finished(id)).status, 'completed');
    let runningId = await startTask(30_000);
    for (let tries = 0; !onStopping(runningId); tries++) {
      assert.ok(tries < 10, 'round robin puts a task on the replica that stops');
      runningId = await startTask(30_000);
    }
    const sessions: Array<{ id: string; held: boolean }> = [];
    while (sessions.length < 2 || sessions.every((entry) => entry.held) || !sessions.some((entry) => entry.held)) {
      assert.ok(sessions.length < 10, 'round robin opens sessions on both replicas');
      const agent = await connect('legacy');
      const id = (agent.transport as StreamableHTTPClientTransport | undefined)?.sessionId ?? '';
      sessions.push({ id, held: onStopping(id) });
    }

    await replicas[0]?.runtime.dispose();
    for (const id of finishedIds) {
      const got = await send(10, 'tasks/get', { taskId: id });
      assert.equal(got.result?.status, 'completed', `${onStopping(id) ? 'from Redis' : 'from its replica'}: ${JSON.stringify(got)}`);
      assert.equal(textOf(got.result?.result as CallToolResult), 'slept 1500');
    }
    const lost = await send(11, 'tasks/get', { taskId: runningId });
    assert.match(lost.error?.message ?? '', /the gateway replica that ran it is gone/, JSON.stringify(lost));
    for (const { id, held } of sessions) {
      for (let i = 0; i < 2; i++) {
        const status = await sessionRequest(url, TOKEN, id, i, 'tools/list');
        assert.equal(status, 200, `a session ${held ? 'of the stopped replica, taken over' : 'of the replica still up'}`);
      }
    }
  });
});
