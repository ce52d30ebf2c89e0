// 2026-07-28 tasks (the tasks extension) through the gateway, for a sessionless client that
// declares the extension: a call still running after a moment becomes a task of the gateway's.
// The requester is the SDK's tasks package (`@modelcontextprotocol/ext-tasks`) with its raw V2
// request path; the upstream is the reference server (`@modelcontextprotocol/server-everything`),
// whose `simulate-research-query` runs four stages of about a second as a 2025-11-25 task. The wire
// rules themselves are the conformance suite's tasks-* scenarios (gatewayModernUpstream.test.ts).
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { ESCALATE_MS } from '../../../src/core/gateway/tasks/modernTasks';
import { Cleanup, textOf } from '../connection/helpers';
import { everythingBehindGateway, RESEARCH_TOOL, type EverythingGateway } from './everything';
import { until } from '../support/poll';

const TOOL = RESEARCH_TOOL;
const VERSION = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';

type Gateway = EverythingGateway;
const start = everythingBehindGateway;

/** One JSON-RPC request over HTTP as a 2026-07-28 client sends it; the response, from JSON or SSE. */
async function post(
  gateway: Gateway,
  request: { id?: unknown; method: string; params?: Record<string, unknown> },
  signal?: AbortSignal,
): Promise<{ result?: unknown; error?: unknown }> {
  const name = request.method === 'tools/call' ? request.params?.name : request.params?.taskId;
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${gateway.token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': VERSION,
      'Mcp-Method': request.method,
      ...(typeof name === 'string' ? { 'Mcp-Name': name } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...request }),
    ...(signal ? { signal } : {}),
  });
  const text = await response.text();
  const messages = (response.headers.get('content-type') ?? '').includes('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => JSON.parse(line.slice(5)) as { id?: unknown; result?: unknown; error?: unknown })
    : [JSON.parse(text) as { id?: unknown; result?: unknown; error?: unknown }];
  const answer = messages.find((message) => message.id === request.id && ('result' in message || 'error' in message));
  assert.ok(answer, `no response to ${request.method}: ${text.slice(0, 300)}`);
  return answer;
}

const envelope = (capabilities: Record<string, unknown>) => ({
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'wire', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

/** The SDK's tasks package over a 2026-07-28 SDK client, its V2 requests sent raw (as the package asks). */
async function requester(cleanup: Cleanup, gateway: Gateway, onElicit?: (params: Record<string, unknown>) => Record<string, unknown>) {
  const [ext, esm] = await Promise.all([import('@modelcontextprotocol/ext-tasks/client'), import('@modelcontextprotocol/client')]);
  const capabilities = { elicitation: { form: {} }, extensions: { [TASKS]: {} } };
  const client = new esm.Client(
    { name: 'ext-tasks v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: VERSION } }, capabilities },
  );
  await client.connect(
    new esm.StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } } }),
  );
  cleanup.add(() => client.close());
  // The package hands over the request without an id: the dispatcher numbers it.
  let nextId = 1;
  const rawDispatch = async (request: unknown, options?: { signal?: AbortSignal }) => {
    const answer = await post(
      gateway,
      { ...(request as { method: string; params?: Record<string, unknown> }), id: `raw-${nextId++}` },
      options?.signal,
    );
    return 'error' in answer
      ? { kind: 'error' as const, error: answer.error as never }
      : { kind: 'result' as const, result: answer.result as never };
  };
  const session = ext.createTaskSessionFromClient(client, {
    endpointId: 'gateway-v2',
    rawDispatch,
    v2RequestFraming: {
      protocolVersion: VERSION,
      clientInfo: { name: 'ext-tasks v2', version: '1.0.0' },
      clientCapabilities: capabilities,
    },
    ...(onElicit
      ? {
          onInputRequest: async (request: { kind: string; params?: Record<string, unknown> }) => {
            assert.equal(request.kind, 'elicitation');
            return onElicit(request.params ?? {}) as never;
          },
        }
      : {}),
  } as Parameters<typeof ext.createTaskSessionFromClient>[1]);
  cleanup.add(() => session.close());
  const tool = (await client.listTools()).tools.find((candidate) => candidate.name === TOOL);
  assert.ok(tool, 'the research tool is listed');
  const call = (args: Record<string, unknown>) =>
    session.callTool(TOOL, args as never, { declaration: ext.toolDeclarationFromMcpTool(tool as never) });
  return { ext, call };
}

describe('tasks driven by a 2026-07-28 gateway client (the tasks extension)', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it("the SDK's tasks package gets a task of the gateway's for a long call: the upstream's statuses, then the result", async () => {
    const gateway = await start(cleanup);
    const { ext, call } = await requester(cleanup, gateway);
    const execution = await call({ topic: 'otters' });
    assert.equal(execution.kind, 'task', 'a call still running after a moment is a task');
    const statuses: string[] = [];
    const { outcome } = await execution.settle({
      onEvent: (event) => {
        const view = ext.taskViewFromExecutionEvent(event);
        if (view?.statusMessage && statuses.at(-1) !== view.statusMessage) statuses.push(view.statusMessage);
      },
    });
    assert.equal(outcome.status, 'completed');
    assert.match(textOf(ext.resultFromTaskOutcome(outcome) as CallToolResult), /^# Research Report: otters/);
    assert.ok(
      statuses.some((status) => /Analyzing|Synthesizing|Generating/.test(status)),
      `the upstream's stages are the task's status: ${JSON.stringify(statuses)}`,
    );
  });

  it("what a 2025 upstream asks during the call becomes the task's input request; the client's answer reaches the server", async () => {
    const hostAsked: string[] = [];
    const gateway = await start(cleanup, { elicit: async (server) => (hostAsked.push(server), { action: 'decline' }) });
    const asked: string[] = [];
    const { ext, call } = await requester(cleanup, gateway, (params) => {
      asked.push(String(params.message).slice(0, 40));
      return { action: 'accept', content: { interpretation: 'historical' } };
    });
    const execution = await call({ topic: 'seals', ambiguous: true });
    assert.equal(execution.kind, 'task');
    const { outcome } = await execution.settle();
    assert.equal(outcome.status, 'completed');
    assert.deepEqual(asked, ['The research query "seals" could have mu']);
    assert.deepEqual(hostAsked, [], 'the client answered, not the host');
    assert.match(textOf(ext.resultFromTaskOutcome(outcome) as CallToolResult), /^# Research Report: seals \(historical\)/);
  });

  it('tasks/cancel cancels the call upstream, and the task reads cancelled', async () => {
    const gateway = await start(cleanup);
    const connection = gateway.runtime.manager.connection('everything');
    assert.ok(connection);
    const created = await post(gateway, {
      id: 1,
      method: 'tools/call',
      params: { name: TOOL, arguments: { topic: 'owls' }, _meta: envelope({ extensions: { [TASKS]: {} } }) },
    });
    const { resultType, taskId, ttlMs, pollIntervalMs } = created.result as {
      resultType: string;
      taskId: string;
      ttlMs: number;
      pollIntervalMs: number;
    };
    assert.equal(resultType, 'task');
    assert.equal(ttlMs, 10 * 60_000);
    assert.equal(pollIntervalMs, 500);
    await until(() => connection.tasks.size === 1, 10_000, 'the upstream task');
    const ack = await post(gateway, {
      id: 2,
      method: 'tasks/cancel',
      params: { taskId, _meta: envelope({ extensions: { [TASKS]: {} } }) },
    });
    const { _meta: _stamp, ...acknowledged } = ack.result as Record<string, unknown>;
    assert.deepEqual(acknowledged, { resultType: 'complete' }, 'an empty ack');
    await until(() => connection.tasks.size === 0, 10_000, 'the upstream task to be cancelled');
    const after = await post(gateway, { id: 3, method: 'tasks/get', params: { taskId, _meta: envelope({ extensions: { [TASKS]: {} } }) } });
    assert.equal((after.result as { status: string }).status, 'cancelled');
  });

  it('a client that did not declare the extension waits for a plain result, and may not ask about tasks (-32021)', async () => {
    const gateway = await start(cleanup);
    const plain = await post(gateway, {
      id: 1,
      method: 'tools/call',
      params: { name: TOOL, arguments: { topic: 'bees' }, _meta: envelope({}) },
    });
    assert.match(textOf(plain.result as CallToolResult), /^# Research Report: bees/);
    const refused = await post(gateway, { id: 2, method: 'tasks/get', params: { taskId: 'any', _meta: envelope({}) } });
    assert.equal((refused.error as { code: number }).code, -32021);
  });

  it(`a call that ends within ${ESCALATE_MS} ms is answered as it is, even for a client that declared tasks`, async () => {
    const gateway = await start(cleanup);
    const quick = await post(gateway, {
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'fast' }, _meta: envelope({ extensions: { [TASKS]: {} } }) },
    });
    assert.match(textOf(quick.result as CallToolResult), /fast/);
    assert.equal((quick.result as { resultType?: string }).resultType, 'complete');
  });

  it('a 2025 client of the same gateway still drives its own tasks (the revisions do not mix)', async () => {
    const gateway = await start(cleanup);
    const client = new Client({ name: 'v1', version: '1.0.0' }, { capabilities: { tasks: { list: {}, cancel: {}, requests: {} } } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } } }),
    );
    cleanup.add(() => client.close());
    assert.equal(client.getServerCapabilities()?.extensions, undefined, 'no tasks extension on a 2025 session');
    assert.ok(client.getServerCapabilities()?.tasks, 'but 2025 tasks');
  });
});

describe("what a 2025 upstream asks during a 2026-07-28 client's call (no tasks): rounds of its own request", function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  const call = (gateway: Gateway, id: number, capabilities: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    post(gateway, {
      id,
      method: 'tools/call',
      params: { name: TOOL, arguments: { topic: 'seals', ambiguous: true }, _meta: envelope(capabilities), ...extra },
    });

  it("the upstream's elicitation is the client's round; its answer, sent with the state, reaches the server", async () => {
    const hostAsked: string[] = [];
    const gateway = await start(cleanup, { elicit: async (server) => (hostAsked.push(server), { action: 'decline' }) });
    const first = (await call(gateway, 1, { elicitation: { form: {} } })).result as {
      resultType: string;
      inputRequests: Record<string, { method: string; params: { message: string } }>;
      requestState: string;
    };
    assert.equal(first.resultType, 'input_required');
    const [key, request] = Object.entries(first.inputRequests)[0] ?? [];
    assert.ok(key && request);
    assert.equal(request.method, 'elicitation/create');
    assert.match(request.params.message, /^The research query "seals" could have multiple interpretations/);
    assert.equal(typeof first.requestState, 'string');
    const answer = { [key]: { action: 'accept', content: { interpretation: 'historical' } } };
    const second = await call(gateway, 2, { elicitation: { form: {} } }, { inputResponses: answer, requestState: first.requestState });
    assert.match(textOf(second.result as CallToolResult), /^# Research Report: seals \(historical\)/);
    assert.deepEqual(hostAsked, [], 'the client answered, not the host');
    const replayed = await call(gateway, 3, { elicitation: { form: {} } }, { inputResponses: answer, requestState: first.requestState });
    assert.equal((replayed.error as { code: number } | undefined)?.code, -32602, 'a spent state is refused');
  });

  it('a client that declared no elicitation is answered by the host, in one request', async () => {
    const hostAsked: string[] = [];
    const gateway = await start(cleanup, {
      elicit: async (server) => (hostAsked.push(server), { action: 'accept', content: { interpretation: 'current' } }),
    });
    const only = await call(gateway, 1, {});
    assert.match(textOf(only.result as CallToolResult), /^# Research Report: seals \(current/);
    assert.deepEqual(hostAsked, ['everything']);
  });
});
