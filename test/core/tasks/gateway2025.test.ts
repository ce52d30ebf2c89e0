// A client that drives tasks itself through the gateway (2025-11-25 tasks; the editor does), against
// the reference server (`@modelcontextprotocol/server-everything`): its `simulate-research-query`
// requires a task and runs four stages of about a second. The requester is real too: the SDK's
// tasks package (`@modelcontextprotocol/ext-tasks`) over the SDK client, and the raw wire where a
// check needs to see it. The store's own rules, on a fake clock: gateway/sessionTasks.test.ts.
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { Cleanup, textOf } from '../connection/helpers';
import { everythingBehindGateway, RESEARCH_TOOL } from './everything';
import { eventually, until } from '../support/poll';

const TOOL = RESEARCH_TOOL;
const RELATED = 'io.modelcontextprotocol/related-task';

const TaskSchema = z.looseObject({
  taskId: z.string(),
  status: z.string(),
  statusMessage: z.string().optional(),
  ttl: z.number().nullable(),
  pollInterval: z.number().optional(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
});
const CreateSchema = z.looseObject({ task: TaskSchema });
const AnyResult = z.looseObject({});

const start = everythingBehindGateway;

/** A 2025 client of the gateway that declares tasks (and elicitation, as the editor does). */
async function taskClient(cleanup: Cleanup, url: string, token: string): Promise<Client> {
  const client = new Client(
    { name: 'task-aware', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} }, tasks: { list: {}, cancel: {}, requests: {} } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  cleanup.add(() => client.close());
  return client;
}

function request<T extends z.ZodType>(client: Client, method: string, params: Record<string, unknown>, schema: T): Promise<z.infer<T>> {
  return client.request({ method, params } as Parameters<Client['request']>[0], schema) as Promise<z.infer<T>>;
}

async function statusOf(client: Client, taskId: string): Promise<string> {
  return (await request(client, 'tasks/get', { taskId }, TaskSchema)).status;
}

describe('tasks driven by a gateway client (2025-11-25)', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it("the SDK's tasks package calls the task-required tool through the gateway: a task, its statuses, its result", async () => {
    const { url, token } = await start(cleanup);
    const [ext, esm] = await Promise.all([import('@modelcontextprotocol/ext-tasks/client'), import('@modelcontextprotocol/client')]);
    const client = new esm.Client(
      { name: 'ext-tasks requester', version: '1.0.0' },
      { capabilities: { tasks: { list: {}, cancel: {}, requests: {} } } },
    );
    await client.connect(
      new esm.StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    );
    cleanup.add(() => client.close());
    const tool = (await client.listTools()).tools.find((candidate) => candidate.name === TOOL);
    assert.deepEqual(tool?.execution, { taskSupport: 'required' }, 'a client that drives tasks is told');
    assert.deepEqual(client.getServerCapabilities()?.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const session = ext.createTaskSessionFromClient(client, { endpointId: 'gateway' });
    cleanup.add(() => session.close());
    const execution = await session.callTool(
      TOOL,
      { topic: 'otters' },
      {
        declaration: ext.toolDeclarationFromMcpTool(tool as Parameters<typeof ext.toolDeclarationFromMcpTool>[0]),
        task: { preference: 'require' },
      },
    );
    assert.equal(execution.kind, 'task', 'the gateway created a task');
    const messages: string[] = [];
    const { outcome } = await execution.settle({
      onEvent: (event) => {
        const view = ext.taskViewFromExecutionEvent(event);
        if (view?.statusMessage && messages.at(-1) !== view.statusMessage) messages.push(view.statusMessage);
      },
    });
    assert.equal(outcome.status, 'completed');
    assert.match(textOf(ext.resultFromTaskOutcome(outcome) as CallToolResult), /^# Research Report: otters/);
    assert.ok(messages.includes('Analyzing content...'), `the upstream's statuses are the task's: ${JSON.stringify(messages)}`);
  });

  it('on the wire: CreateTaskResult, tasks/get, tasks/list, status notifications, and tasks/result with the related task', async () => {
    const { url, token } = await start(cleanup);
    const client = await taskClient(cleanup, url, token);
    const notified: string[] = [];
    client.fallbackNotificationHandler = async (notification) => {
      if (notification.method === 'notifications/tasks/status') notified.push(String((notification.params as { status?: unknown }).status));
    };
    const created = await request(client, 'tools/call', { name: TOOL, arguments: { topic: 'bees' }, task: { ttl: 120_000 } }, CreateSchema);
    const { taskId } = created.task;
    assert.equal(created.task.status, 'working');
    assert.equal(created.task.ttl, 120_000);
    assert.equal(created.task.pollInterval, 500);
    assert.equal(created.content, undefined, 'a CreateTaskResult, not a tool result');
    const listed = await request(client, 'tasks/list', {}, z.looseObject({ tasks: z.array(TaskSchema) }));
    assert.deepEqual(
      listed.tasks.map((task) => task.taskId),
      [taskId],
    );
    await until(() => notified.length > 0, 10_000, 'a status notification');
    const result = await request(client, 'tasks/result', { taskId }, AnyResult);
    assert.match(textOf(result as CallToolResult), /^# Research Report: bees/);
    assert.deepEqual((result._meta as Record<string, unknown> | undefined)?.[RELATED], { taskId });
    assert.equal(await statusOf(client, taskId), 'completed');
    assert.ok(notified.includes('completed'), JSON.stringify(notified));
  });

  it('task ids are per session: another client sees none of them', async () => {
    const { url, token } = await start(cleanup);
    const owner = await taskClient(cleanup, url, token);
    const other = await taskClient(cleanup, url, token);
    const { task } = await request(owner, 'tools/call', { name: TOOL, arguments: { topic: 'moles' }, task: {} }, CreateSchema);
    await assert.rejects(request(other, 'tasks/get', { taskId: task.taskId }, TaskSchema), /Unknown task/);
    await assert.rejects(request(other, 'tasks/cancel', { taskId: task.taskId }, TaskSchema), /Unknown task/);
    assert.deepEqual((await request(other, 'tasks/list', {}, z.looseObject({ tasks: z.array(TaskSchema) }))).tasks, []);
    assert.equal(await statusOf(owner, task.taskId), 'working');
  });

  it('tasks/cancel cancels the task upstream; a second cancel is -32602', async () => {
    const { runtime, url, token } = await start(cleanup);
    const client = await taskClient(cleanup, url, token);
    const connection = runtime.manager.connection('everything');
    assert.ok(connection);
    const { task } = await request(client, 'tools/call', { name: TOOL, arguments: { topic: 'owls' }, task: {} }, CreateSchema);
    await until(() => connection.tasks.size === 1, 10_000, 'the upstream task');
    const cancelled = await request(client, 'tasks/cancel', { taskId: task.taskId }, TaskSchema);
    assert.equal(cancelled.status, 'cancelled');
    await until(() => connection.tasks.size === 0, 10_000, 'the upstream task to end');
    await assert.rejects(request(client, 'tasks/cancel', { taskId: task.taskId }, TaskSchema), /already cancelled/);
    await assert.rejects(request(client, 'tasks/result', { taskId: task.taskId }, AnyResult), /was cancelled/);
  });

  it('a closed session cancels its tasks upstream', async () => {
    const { runtime, url, token } = await start(cleanup);
    const client = await taskClient(cleanup, url, token);
    const connection = runtime.manager.connection('everything');
    assert.ok(connection);
    await request(client, 'tools/call', { name: TOOL, arguments: { topic: 'voles' }, task: {} }, CreateSchema);
    await until(() => connection.tasks.size === 1, 10_000, 'the upstream task');
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    await until(() => connection.tasks.size === 0, 10_000, 'the upstream task to be cancelled');
  });

  it('a server that restarts mid-task fails the task with a message that names it (its tasks are not resumed)', async () => {
    const { runtime, url, token } = await start(cleanup);
    const client = await taskClient(cleanup, url, token);
    const connection = runtime.manager.connection('everything');
    assert.ok(connection);
    const { task } = await request(client, 'tools/call', { name: TOOL, arguments: { topic: 'moths' }, task: {} }, CreateSchema);
    await until(() => connection.tasks.size === 1, 10_000, 'the upstream task');
    await runtime.manager.reconnect('everything');
    const failed = await eventually(async () => {
      const view = await request(client, 'tasks/get', { taskId: task.taskId }, TaskSchema);
      return view.status === 'working' ? undefined : view;
    }, 'the task to end');
    assert.equal(failed.status, 'failed');
    assert.match(failed.statusMessage ?? '', /everything/, `the status message names the server: ${failed.statusMessage}`);
    await assert.rejects(request(client, 'tasks/result', { taskId: task.taskId }, AnyResult), /everything/);
  });

  /** A gateway with the reference server, a task-aware client that answers its elicitation, and a research task that asks. */
  async function askingTask(): Promise<{ client: Client; taskId: string; asked: unknown[]; hostAsked: string[] }> {
    const hostAsked: string[] = [];
    const { url, token } = await start(cleanup, { elicit: async (server) => (hostAsked.push(server), { action: 'decline' }) });
    const client = await taskClient(cleanup, url, token);
    const asked: unknown[] = [];
    client.setRequestHandler('elicitation/create', async (elicit) => {
      asked.push(elicit.params._meta?.[RELATED]);
      return { action: 'accept', content: { interpretation: 'historical' } };
    });
    const { task } = await request(
      client,
      'tools/call',
      { name: TOOL, arguments: { topic: 'seals', ambiguous: true }, task: {} },
      CreateSchema,
    );
    return { client, taskId: task.taskId, asked, hostAsked };
  }

  it('what the task asks goes to the client on its waiting tasks/result, marked with the task; the answer reaches the server', async () => {
    const { client, taskId, asked, hostAsked } = await askingTask();
    const result = await request(client, 'tasks/result', { taskId }, AnyResult);
    assert.deepEqual(asked, [{ taskId }]);
    assert.deepEqual(hostAsked, [], 'the client answered, not the host');
    assert.match(textOf(result as CallToolResult), /^# Research Report: seals \(historical\)/);
  });

  it('a client that only polls (the editor) gets what the task asks on its tasks/get, and the task goes on', async () => {
    const { client, taskId, asked, hostAsked } = await askingTask();
    const statuses = new Set<string>();
    await eventually(async () => {
      const status = await statusOf(client, taskId);
      statuses.add(status);
      return status === 'completed' ? true : undefined;
    }, 'the task to complete');
    assert.deepEqual(asked, [{ taskId }]);
    assert.deepEqual(hostAsked, []);
    const result = await request(client, 'tasks/result', { taskId }, AnyResult);
    assert.match(textOf(result as CallToolResult), /^# Research Report: seals \(historical\)/);
  });

  it('a plain call still gets a plain result; a task-augmented call of a tool without task support is -32601', async () => {
    const { url, token } = await start(cleanup);
    const client = await taskClient(cleanup, url, token);
    const echo = (await client.callTool({ name: 'echo', arguments: { message: 'hi' } })) as CallToolResult;
    assert.match(textOf(echo), /hi/);
    await assert.rejects(
      request(client, 'tools/call', { name: 'echo', arguments: { message: 'hi' }, task: {} }, CreateSchema),
      (error: unknown) => (error as { code?: number }).code === -32601,
    );
  });
});
