// A session on one server under its own names, as the machine host serves a window
// (src/core/gateway/callPassThrough.ts): plain tool calls are made through the catalog and written
// back as the server answered, without the session server's parsing. Raw JSON-RPC over an
// in-memory pair, so that what goes over the hop is seen as it is; the server is a real fixture
// process, the catalog and connection the real ones. Each test runs the same exchange with the
// pass-through off where that shows what it changes.
import assert from 'node:assert/strict';
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { RelayRouter } from '../../../src/core/connection';
import { CallPassThrough } from '../../../src/core/gateway/callPassThrough';
import { serverEndpoint } from '../../../src/core/gateway';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime';
import { nullLogger } from '../../../src/core/base/logging';
import { Cleanup, stdioDefinition } from '../connection/helpers';
import { eventually, until } from '../support/poll';

type Message = JSONRPCMessage & {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: unknown;
};

/** A client that speaks raw JSON-RPC to one session: what it sends and gets, as written. */
class RawClient {
  readonly received: Message[] = [];
  constructor(readonly transport: InMemoryTransport) {
    transport.onmessage = (message) => this.received.push(message as Message);
  }

  send(message: Record<string, unknown>): Promise<void> {
    return this.transport.send({ jsonrpc: '2.0', ...message } as JSONRPCMessage);
  }

  async answerTo(id: string | number, timeoutMs = 15_000): Promise<Message> {
    await until(() => this.received.some((message) => message.id === id && !('method' in message)), timeoutMs, `the answer to ${id}`);
    return this.received.find((message) => message.id === id && !('method' in message)) as Message;
  }

  async initialize(capabilities: Record<string, unknown> = {}): Promise<void> {
    await this.send({
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw', version: '1' } },
    });
    await this.answerTo('init');
    await this.send({ method: 'notifications/initialized' });
  }
}

describe('tool calls passed through a server endpoint (the machine host’s hop)', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  async function runtimeWithFixture(): Promise<SwitchboardRuntime> {
    const runtime = createRuntime({ logger: nullLogger, storage: new MemoryToolCacheStorage(), settings: {} });
    cleanup.add(() => runtime.dispose());
    await runtime.manager.start([stdioDefinition(['--hostile-tools'], { name: 'fx' })]);
    await until(() => runtime.manager.server('fx')?.state.kind === 'running', 20_000, 'fx running');
    return runtime;
  }

  async function session(runtime: SwitchboardRuntime, passToolCalls: boolean, capabilities?: Record<string, unknown>): Promise<RawClient> {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const served = await runtime.stdioSession(serverSide, serverEndpoint('fx', { asItself: true }), { passToolCalls });
    cleanup.add(() => served.close());
    const client = new RawClient(clientSide);
    await clientSide.start();
    await client.initialize(capabilities);
    return client;
  }

  async function stats(client: RawClient, id: string): Promise<{ calls: number; cancellations: number }> {
    await client.send({ id, method: 'tools/call', params: { name: 'stats', arguments: {} } });
    const answer = await client.answerTo(id);
    return JSON.parse((answer.result as { content: [{ text: string }] }).content[0].text) as { calls: number; cancellations: number };
  }

  it('writes a result back as the server sent it, where the session server would have refused it; the window’s own client judges it', async () => {
    const runtime = await runtimeWithFixture();
    // A text block without its text, and a field no revision defines: the SDK's parse refuses the first.
    const sent = { content: [{ type: 'text' }], 'x-kept': { as: 'sent' } };
    const passed = await session(runtime, true);
    await passed.send({ id: 1, method: 'tools/call', params: { name: 'raw_result', arguments: { result: sent } } });
    assert.deepEqual((await passed.answerTo(1)).result, sent);

    const parsed = await session(runtime, false);
    await parsed.send({ id: 1, method: 'tools/call', params: { name: 'raw_result', arguments: { result: sent } } });
    const refused = await parsed.answerTo(1);
    assert.equal(refused.result, undefined, 'the session server parses the result, and refuses it');
    assert.ok(refused.error);
  });

  it('answers a server’s error with the words and code the session server gives it', async () => {
    const runtime = await runtimeWithFixture();
    const answers = [];
    for (const pass of [true, false]) {
      const client = await session(runtime, pass);
      await client.send({ id: 'e', method: 'tools/call', params: { name: 'rpc_error', arguments: {} } });
      await client.send({ id: 'u', method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
      await client.send({ id: 'a', method: 'tools/call', params: { name: 'echo', arguments: { text: 7 } } });
      answers.push([(await client.answerTo('e')).error, (await client.answerTo('u')).error, (await client.answerTo('a')).error]);
    }
    const [passed, parsed] = answers;
    assert.deepEqual(passed, parsed);
    assert.match(JSON.stringify(passed), /fixture rpc error/);
  });

  it('re-addresses the server’s progress to the client’s own token', async () => {
    const runtime = await runtimeWithFixture();
    const client = await session(runtime, true);
    await client.send({
      id: 'p',
      method: 'tools/call',
      params: { name: 'slow', arguments: { progressEveryMs: 5, progressSteps: 3 }, _meta: { progressToken: 'mine' } },
    });
    await client.answerTo('p');
    const progress = client.received.filter((message) => message.method === 'notifications/progress');
    assert.deepEqual(
      progress.map((message) => [message.params?.progressToken, message.params?.progress]),
      [
        ['mine', 1],
        ['mine', 2],
        ['mine', 3],
      ],
    );
  });

  it('a call the client cancels is cancelled upstream and never answered; one still running when the session ends is cancelled too', async () => {
    const runtime = await runtimeWithFixture();
    const client = await session(runtime, true);
    let asked = 0;
    const once = (on: RawClient, met: (counts: { calls: number; cancellations: number }) => boolean, what: string) =>
      eventually(async () => (met(await stats(on, `stats-${(asked += 1)}`)) ? true : undefined), what, 10_000);
    await client.send({ id: 'long', method: 'tools/call', params: { name: 'slow', arguments: { ms: 30_000 } } });
    await once(client, (counts) => counts.calls === 1, 'the call reached the server');
    await client.send({ method: 'notifications/cancelled', params: { requestId: 'long', reason: 'enough' } });
    await once(client, (counts) => counts.cancellations === 1, 'the server was told');
    assert.equal(
      client.received.some((message) => message.id === 'long'),
      false,
      'a cancelled request gets no answer',
    );

    await client.send({ id: 'left', method: 'tools/call', params: { name: 'slow', arguments: { ms: 30_000 } } });
    const other = await session(runtime, true);
    await once(other, (counts) => counts.calls === 2, 'the second call reached the server');
    await client.transport.close();
    await once(other, (counts) => counts.cancellations === 2, 'the server was told when the session ended');
  });

  it('leaves a task-augmented call to the session server', async () => {
    const runtime = await runtimeWithFixture();
    const client = await session(runtime, true, { tasks: { requests: { tools: { call: {} } } } });
    await client.send({ id: 't', method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' }, task: { ttl: 60_000 } } });
    const answer = await client.answerTo('t');
    // The session server's own refusal (echo runs in no task): passed through, the server would have echoed.
    assert.match(JSON.stringify(answer.error), /does not run as a task/, JSON.stringify(answer));
  });

  it('bounds the calls one session has in flight: past the bound, a call is answered with an error, not queued', async () => {
    const runtime = await runtimeWithFixture();
    const sent: Message[] = [];
    const passThrough = new CallPassThrough({
      server: 'fx',
      source: runtime.catalog,
      relays: new RelayRouter(),
      relay: () => undefined,
      send: async (message) => void sent.push(message as Message),
      logger: nullLogger,
      maxCalls: 2,
    });
    cleanup.add(() => passThrough.close());
    const call = (id: number) =>
      passThrough.take({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: { ms: 30_000 } } });
    assert.equal(call(1), true);
    assert.equal(call(2), true);
    assert.equal(call(3), true, 'taken, and refused');
    await until(() => sent.some((message) => message.id === 3), 5_000, 'the refusal');
    assert.match(JSON.stringify(sent.find((message) => message.id === 3)?.error), /more than 2 calls in flight/);
    assert.equal(
      sent.some((message) => message.id === 1 || message.id === 2),
      false,
      'the calls within the bound still run',
    );
    // A duplicate of an id in flight is the session server's to refuse, as it would any duplicate.
    assert.equal(call(1), false);
  });
});
