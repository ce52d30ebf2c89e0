// A 2026-07-28 server with the tasks extension (test/fixtures/tasks-v2-server.mjs, stdio) whose
// `long_report` runs only as a task: Switchboard's plain call gets -32021 naming the extension,
// makes it again with the extension declared, and follows the task over the raw request path
// (connection/tasks/serverTasks.ts): statuses as progress, what the task asks answered by the host,
// cancellation from the tree, the result to the caller; a task that misbehaves is refused and
// cancelled upstream.
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { isSwitchboardError } from '../../../src/core/connection';
import type { HostAnswers } from '../../../src/core/connection/rounds/relayRouter';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime/runtime';
import { Cleanup, MemoryLogger, stdioDefinition, textOf } from '../connection/helpers';
import { waitForRunning } from '../gateway/helpers';
import { eventually, until } from '../support/poll';
import { callLongReport, LONG_REPORT_STAGES } from './longReport';

const FIXTURE = path.resolve(__dirname, '../../fixtures/tasks-v2-server.mjs');

async function start(cleanup: Cleanup, hostAnswers: HostAnswers = {}, stageMs = 300, knobs: string[] = []): Promise<SwitchboardRuntime> {
  const runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {}, hostAnswers });
  cleanup.add(() => runtime.dispose());
  await runtime.manager.start([stdioDefinition([], { name: 'reports', args: [FIXTURE, '--stage-ms', String(stageMs), ...knobs] })]);
  await waitForRunning(runtime.manager, ['reports']);
  return runtime;
}

describe('tasks of a 2026-07-28 server (the tasks extension), for plain callers', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('a call the server answers only as a task runs as one: its stages are progress, its result comes back', async () => {
    const runtime = await start(cleanup);
    const connection = runtime.manager.connection('reports');
    assert.ok(connection);
    const state = connection.state;
    assert.equal(state.kind === 'running' ? state.era : state.kind, 'modern');
    const listed: string[] = [];
    connection.tasks.onDidChange(() => listed.push(...connection.tasks.list().map((task) => task.status)));
    const report = await callLongReport(runtime.catalog);
    assert.equal(report.text, 'Report on otters (not asked)');
    assert.deepEqual(report.stages, LONG_REPORT_STAGES, 'the status before the first message, then each stage once, in order');
    assert.ok(listed.includes('working'), 'the task was listed while it ran');
    assert.equal(connection.tasks.size, 0);
  });

  it('what the task asks (its input requests) is answered by the host, and the answer reaches the server', async () => {
    const asked: string[] = [];
    const runtime = await start(cleanup, {
      elicit: async (server, params) => {
        asked.push(`${server}: ${params.message}`);
        return { action: 'accept', content: { publish: true } };
      },
    });
    const result = await runtime.catalog.callExposedTool('reports', 'long_report', { topic: 'seals', ask: true });
    assert.deepEqual(asked, ['reports: Publish the report on seals?']);
    assert.equal(textOf(result), 'Report on seals (approved)');
  });

  it('Cancel Task (the tree) ends the call as cancelled', async () => {
    const runtime = await start(cleanup, {}, 2_000);
    const connection = runtime.manager.connection('reports');
    assert.ok(connection);
    const call = runtime.catalog.callExposedTool('reports', 'long_report', { topic: 'owls' });
    await until(() => connection.tasks.size === 1, 10_000, 'the task to start');
    const [task] = connection.tasks.list();
    assert.ok(task && connection.tasks.cancel(task.id));
    const failure = await call.then(
      () => assert.fail('the call should fail'),
      (error: unknown) => error,
    );
    assert.ok(isSwitchboardError(failure, 'CANCELLED'), String(failure));
    assert.equal(connection.tasks.size, 0);
  });

  /** Each task's status as the fixture has it, by id. */
  async function tasksSeen(runtime: SwitchboardRuntime): Promise<Record<string, string | number>> {
    return JSON.parse(textOf(await runtime.catalog.callExposedTool('reports', 'tasks_seen', {}))) as Record<string, string | number>;
  }

  async function failureOf(call: Promise<unknown>): Promise<unknown> {
    return call.then(
      () => assert.fail('the call should fail'),
      (error: unknown) => error,
    );
  }

  it('the caller giving up cancels the task upstream', async () => {
    const runtime = await start(cleanup, {}, 2_000);
    const connection = runtime.manager.connection('reports');
    assert.ok(connection);
    const controller = new AbortController();
    const call = runtime.catalog.callExposedTool('reports', 'long_report', { topic: 'moles' }, { signal: controller.signal });
    await until(() => connection.tasks.size === 1, 10_000, 'the task to start');
    controller.abort(new Error('the caller gave up'));
    assert.ok(isSwitchboardError(await failureOf(call), 'CANCELLED'));
    assert.deepEqual(Object.values(await tasksSeen(runtime)), ['cancelled', 0, 0], 'the server was told');
    assert.equal(connection.tasks.size, 0);
  });

  it('a task that asks more than 16 things at once is refused, and cancelled upstream', async () => {
    let asked = 0;
    const runtime = await start(cleanup, { elicit: () => ((asked += 1), new Promise(() => undefined)) }, 50, ['--asks', '17']);
    const failure = await failureOf(runtime.catalog.callExposedTool('reports', 'long_report', { topic: 'ants', ask: true }));
    assert.ok(isSwitchboardError(failure, 'PROTOCOL_ERROR'), String(failure));
    assert.match(String(failure), /asks more than 16 things at once/);
    assert.equal(asked, 16, 'the first 16 were asked, all at once');
    assert.deepEqual(Object.values(await tasksSeen(runtime)), ['cancelled', 0, 0]);
  });

  it('a tasks/get answer that is not a task is refused, and the task cancelled upstream', async () => {
    const runtime = await start(cleanup, {}, 50, ['--bad-get']);
    const failure = await failureOf(runtime.catalog.callExposedTool('reports', 'long_report', { topic: 'newts' }));
    assert.ok(isSwitchboardError(failure, 'PROTOCOL_ERROR'), String(failure));
    assert.match(String(failure), /answered something that is not a task/);
    assert.deepEqual(Object.values(await tasksSeen(runtime)), ['cancelled', 0, 0]);
  });

  it('a call that declares the extension for its caller, given up before its answer, is cancelled upstream', async () => {
    const runtime = await start(cleanup);
    const controller = new AbortController();
    const call = runtime.catalog.callExposedTool(
      'reports',
      'quick',
      { ms: 30_000 },
      { signal: controller.signal, clientTasks: { declared: true } },
    );
    await eventually(async () => ((await tasksSeen(runtime)).startedCalls === 1 ? true : undefined), 'the server to have the call');
    controller.abort(new Error('the caller gave up'));
    assert.ok(isSwitchboardError(await failureOf(call), 'CANCELLED'));
    await eventually(async () => ((await tasksSeen(runtime)).cancelledCalls === 1 ? true : undefined), 'the server to see it cancelled');
  });

  it('a plain tool of the same server is still a plain call', async () => {
    const runtime = await start(cleanup);
    assert.equal(textOf(await runtime.catalog.callExposedTool('reports', 'quick', {})), 'quick answer');
    assert.equal(runtime.manager.connection('reports')?.tasks.size, 0);
  });

  it("through the gateway, a 2025 client gets the task's result for a plain call", async () => {
    const runtime = await start(cleanup);
    const gateway = runtime.gateway();
    await gateway.start();
    const client = new Client({ name: 'plain', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gateway.endpointUrl('reports')), {
        requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } },
      }),
    );
    cleanup.add(() => client.close());
    const result = (await client.callTool({ name: 'long_report', arguments: { topic: 'bees' } })) as CallToolResult;
    assert.equal(textOf(result), 'Report on bees (not asked)');
  });
});
