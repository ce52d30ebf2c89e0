// A 2026-07-28 server with the tasks extension (test/fixtures/tasks-v2-server.mjs, stdio) whose
// `long_report` runs only as a task: Switchboard's plain call gets -32021 naming the extension,
// makes it again with the extension declared, and drives the task with the SDK's tasks package
// over the raw request path (connection/rawRequests.ts): statuses as progress, what the task asks
// answered by the host, cancellation from the tree, the result to the caller.
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult, type Progress } from '@modelcontextprotocol/client';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { isConnectionError } from '../../../src/core/connection';
import type { HostAnswers } from '../../../src/core/connection/serverRequests';
import { createRuntime, type SwitchboardRuntime } from '../../../src/core/runtime/runtime';
import { Cleanup, MemoryLogger, stdioDefinition, textOf } from '../connection/helpers';
import { waitForRunning } from '../gateway/helpers';
import { until } from '../support/poll';

const FIXTURE = path.resolve(__dirname, '../../fixtures/tasks-v2-server.mjs');

async function start(cleanup: Cleanup, hostAnswers: HostAnswers = {}, stageMs = 300): Promise<SwitchboardRuntime> {
  const runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {}, hostAnswers });
  cleanup.add(() => runtime.dispose());
  await runtime.manager.start([stdioDefinition([], { name: 'reports', args: [FIXTURE, '--stage-ms', String(stageMs)] })]);
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
    const progress: Progress[] = [];
    const listed: string[] = [];
    connection.tasks.onDidChange(() => listed.push(...connection.tasks.list().map((task) => task.status)));
    const result = await runtime.catalog.callExposedTool(
      'reports',
      'long_report',
      { topic: 'otters' },
      { onProgress: (update) => progress.push(update) },
    );
    assert.equal(textOf(result), 'Report on otters (not asked)');
    assert.deepEqual(
      progress.map((update) => update.message),
      ['working', 'Gathering sources...', 'Writing the report...', 'Checking the facts...'],
      'the status before the first message, then each stage once, in order',
    );
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
    assert.ok(isConnectionError(failure, 'CANCELLED'), String(failure));
    assert.equal(connection.tasks.size, 0);
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
