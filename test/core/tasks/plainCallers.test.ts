// A tool that requires a task, for callers that make plain calls, against the reference server
// (`@modelcontextprotocol/server-everything`, 2025-11-25 tasks): its `simulate-research-query`
// answers only a task-augmented call, and goes through four stages of about a second each.
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport, type CallToolResult, type Progress } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { isSwitchboardError } from '../../../src/core/connection';
import { MAX_TASKS_PER_SERVER, RunningTasks } from '../../../src/core/connection/tasks/runningTasks';
import { Cleanup, textOf } from '../connection/helpers';
import { RESEARCH_TOOL, startEverything } from './everything';
import { until } from '../support/poll';

const TOOL = RESEARCH_TOOL;
const start = (cleanup: Cleanup) => startEverything(cleanup);

describe('tasks: a task-required tool answers a plain call', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('through the catalog (chat, Run Tool, doctor): the task runs, each status is progress, the result comes back', async () => {
    const runtime = await start(cleanup);
    const connection = runtime.manager.connection('everything');
    assert.ok(connection);
    assert.deepEqual(connection.tools.find((tool) => tool.name === TOOL)?.execution, { taskSupport: 'required' });
    const progress: Progress[] = [];
    const seen: string[] = [];
    connection.tasks.onDidChange(() => seen.push(...connection.tasks.list().map((task) => `${task.status}: ${task.message ?? ''}`)));
    const result = await runtime.catalog.callExposedTool(
      'everything',
      TOOL,
      { topic: 'otters' },
      { onProgress: (update) => progress.push(update) },
    );
    assert.match(textOf(result), /^# Research Report: otters/);
    assert.deepEqual(
      progress.map((update) => [update.progress, update.message]),
      [
        [1, 'Gathering sources...'],
        [2, 'Analyzing content...'],
        [3, 'Synthesizing findings...'],
        [4, 'Generating report...'],
      ],
      'each status once, in order',
    );
    assert.ok(seen.includes('working: Analyzing content...'), `the task was listed while it ran: ${JSON.stringify(seen)}`);
    assert.equal(connection.tasks.size, 0, 'and is gone once it ended');
  });

  it('cancelling the task (the tree) ends the call and cancels it upstream', async () => {
    const runtime = await start(cleanup);
    const connection = runtime.manager.connection('everything');
    assert.ok(connection);
    const call = runtime.catalog.callExposedTool('everything', TOOL, { topic: 'owls' });
    await until(() => connection.tasks.list().some((task) => task.message === 'Gathering sources...'), 10_000, 'the task to start');
    const [task] = connection.tasks.list();
    assert.ok(task && connection.tasks.cancel(task.id));
    const failure = await call.then(
      () => assert.fail('the call should fail'),
      (error: unknown) => error,
    );
    assert.ok(isSwitchboardError(failure, 'CANCELLED'), String(failure));
    assert.equal(connection.tasks.size, 0);
    const session = connection.session;
    assert.ok(session);
    const schema = z.object({ status: z.string() }).passthrough();
    const upstream = await session.requestRaw<{ status: string }>(
      'tasks/get',
      { taskId: task.id },
      schema,
      { timeoutMs: 5_000, maxTotalMs: 0 },
      { retried: false },
    );
    assert.equal(upstream.status, 'cancelled', 'the server was told');
  });

  it('through the gateway, a 2025 client that does not speak tasks gets the result and the statuses as progress', async () => {
    const runtime = await start(cleanup);
    const gateway = runtime.gateway();
    await gateway.start();
    const client = new Client({ name: 'plain', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gateway.endpointUrl('everything')), {
        requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } },
      }),
    );
    cleanup.add(() => client.close());
    const listed = (await client.listTools()).tools.find((tool) => tool.name === TOOL);
    assert.ok(listed, 'the tool is served');
    assert.equal(listed.execution, undefined, 'without taskSupport: the gateway runs the task');
    const messages: string[] = [];
    const result = (await client.callTool(
      { name: TOOL, arguments: { topic: 'bees' } },
      { onprogress: (update) => messages.push(update.message ?? '') },
    )) as CallToolResult;
    assert.match(textOf(result), /^# Research Report: bees/);
    assert.ok(messages.includes('Synthesizing findings...'), JSON.stringify(messages));
  });
});

describe('tasks: the bound per server', () => {
  it(`holds at most ${MAX_TASKS_PER_SERVER} at once, refuses the next unsent, and frees a place when one ends`, () => {
    const tasks = new RunningTasks('busy', () => 0);
    const slots = Array.from({ length: MAX_TASKS_PER_SERVER }, (_, index) => {
      const slot = tasks.reserve('tool');
      slot.started(`t${index}`, () => undefined);
      return slot;
    });
    assert.equal(tasks.size, MAX_TASKS_PER_SERVER);
    assert.throws(
      () => tasks.reserve('tool'),
      (error: unknown) => isSwitchboardError(error, 'BUSY') && error.notSent,
    );
    slots[0]?.release();
    slots[0]?.release();
    assert.equal(tasks.size, MAX_TASKS_PER_SERVER - 1);
    tasks.reserve('tool').started('next', () => undefined);
    assert.equal(tasks.size, MAX_TASKS_PER_SERVER);
  });
});

describe('tasks: what a task asks while it waits (input_required)', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('an ambiguous query asks for a clarification: the host answers it, and the task finishes with it', async () => {
    const asked: string[] = [];
    const runtime = await startEverything(cleanup, {
      elicit: async (server, params) => {
        asked.push(`${server}: ${params.message.slice(0, 40)}`);
        return { action: 'accept', content: { interpretation: 'Marine biology' } };
      },
    });
    const statuses: string[] = [];
    const result = await runtime.catalog.callExposedTool(
      'everything',
      TOOL,
      { topic: 'seals', ambiguous: true },
      { onProgress: (update) => statuses.push(update.message ?? '') },
    );
    assert.deepEqual(asked, ['everything: The research query "seals" could have mu']);
    assert.match(textOf(result), /^# Research Report: seals \(Marine biology\)/);
    assert.ok(
      statuses.some((status) => status.startsWith('Continuing with interpretation')),
      JSON.stringify(statuses),
    );
  });

  it('cancelling a task that waits for an answer withdraws its question (the form goes away)', async () => {
    let asked: (() => void) | undefined;
    const questionAsked = new Promise<void>((resolve) => (asked = resolve));
    let withdrawn: ((reason: unknown) => void) | undefined;
    const questionWithdrawn = new Promise<unknown>((resolve) => (withdrawn = resolve));
    const runtime = await startEverything(cleanup, {
      elicit: (_server, _params, signal) => {
        asked?.();
        return new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () => {
            withdrawn?.(signal.reason);
            reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
          }),
        );
      },
    });
    const connection = runtime.manager.connection('everything');
    assert.ok(connection);
    const call = runtime.catalog.callExposedTool('everything', TOOL, { topic: 'seals', ambiguous: true });
    await questionAsked;
    const [task] = connection.tasks.list();
    assert.ok(task && connection.tasks.cancel(task.id));
    await assert.rejects(call, (error: unknown) => isSwitchboardError(error, 'CANCELLED'));
    const reason = await Promise.race([questionWithdrawn, new Promise((resolve) => setTimeout(() => resolve('still asked'), 5_000))]);
    assert.notEqual(reason, 'still asked', 'the question was not withdrawn');
  });
});
