// What ships is not what the other unit tests run. They run src through tsx on the SDK as
// published; the extension and the CLI are bundles built with the build's own plugins
// (scripts/bundleTrim.mjs), which patch the SDK (its result validator made once per method and era)
// and swap its JSON Schema validator. Switchboard also reaches into the SDK at run time, all of it in
// src/core/sdk (its README lists each): the tap on a client's transport, which the raw requests and
// the stream reissue hook into, and the gateway's server that lets a task handle through the SDK's
// `_wrapHandler`. Each contract
// here runs twice, on the source and on a bundle built as the CLI's is, with the same assertions, so
// that the shipped path is tested in the unit stage and not only in a real editor.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { z } from 'zod';
import * as esbuild from 'esbuild';
import * as catalogSource from '../../../src/core/catalog';
import * as runtimeSource from '../../../src/core/runtime/runtime';
import { Cleanup, MemoryLogger, stdioDefinition, textOf } from '../connection/helpers';
import { waitForRunning } from '../gateway/helpers';
import { EVERYTHING, RESEARCH_TOOL } from '../tasks/everything';
import { callLongReport, LONG_REPORT_STAGES } from '../tasks/longReport';
import { eventually } from '../support/poll';

interface Build {
  readonly createRuntime: typeof runtimeSource.createRuntime;
  readonly MemoryToolCacheStorage: typeof catalogSource.MemoryToolCacheStorage;
}

const REPO = path.resolve(__dirname, '../../..');
const TASKS_V2 = path.join(REPO, 'test/fixtures/tasks-v2-server.mjs');

/** The core bundled as the CLI is (scripts/cliBuild.mjs: the same plugins), and loaded. */
async function bundled(): Promise<{ build: Build; source: string; outfile: string }> {
  const { TRIM_PLUGINS } = (await import(path.join(REPO, 'scripts/bundleTrim.mjs'))) as { TRIM_PLUGINS: esbuild.Plugin[] };
  const outfile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sb-shipped-')), 'core.cjs');
  await esbuild.build({
    stdin: {
      contents: [
        "export { createRuntime } from './src/core/runtime/runtime';",
        "export { MemoryToolCacheStorage } from './src/core/catalog';",
      ].join('\n'),
      resolveDir: REPO,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile,
    logLevel: 'error',
    absWorkingDir: REPO,
    mainFields: ['module', 'main'],
    plugins: TRIM_PLUGINS,
  });
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a file made at run time
  return { build: require(outfile) as Build, source: fs.readFileSync(outfile, 'utf8'), outfile };
}

async function runtimeWith(
  build: Build,
  cleanup: Cleanup,
  definitions: Parameters<runtimeSource.SwitchboardRuntime['manager']['start']>[0],
) {
  const runtime = build.createRuntime({ logger: new MemoryLogger(), storage: new build.MemoryToolCacheStorage(), settings: {} });
  cleanup.add(() => runtime.dispose());
  await runtime.manager.start(definitions);
  await waitForRunning(
    runtime.manager,
    definitions.map((definition) => definition.name),
  );
  return runtime;
}

async function gatewayClient(cleanup: Cleanup, url: string, token: string, capabilities: Record<string, unknown> = {}): Promise<Client> {
  const client = new Client({ name: 'contract', version: '1.0.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  cleanup.add(() => client.close());
  return client;
}

const AnyResult = z.looseObject({});
const Created = z.looseObject({ task: z.looseObject({ taskId: z.string(), status: z.string() }) });
const Status = z.looseObject({ status: z.string() });

describe('the shipped bundle against the SDK: the same contracts as the source', function () {
  this.timeout(120_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());
  let shipped: Awaited<ReturnType<typeof bundled>>;
  before(async () => {
    shipped = await bundled();
  });
  after(() => fs.rmSync(path.dirname(shipped.outfile), { recursive: true, force: true }));

  it('the bundle under test is the patched one (else these contracts would test the published SDK twice)', () => {
    assert.match(shipped.source, /function codecResultValidatorOnce\d*\(/, 'the result validator is made once per method');
    assert.doesNotMatch(shipped.source, /new Ajv\(/, 'ajv is left out');
  });

  for (const which of ['source', 'bundle'] as const) {
    const build = (): Build => (which === 'source' ? { ...runtimeSource, ...catalogSource } : shipped.build);

    it(`${which}: tool calls over stdio, the second after the first (the validator made once is used again)`, async () => {
      const runtime = await runtimeWith(build(), cleanup, [stdioDefinition()]);
      for (const word of ['first', 'second']) {
        const result = await runtime.catalog.callExposedTool('fixture', 'echo', { text: word });
        assert.equal(textOf(result), word);
      }
      // A tool error is a result, not a thrown error, on both.
      const failed = await runtime.catalog.callExposedTool('fixture', 'fail', {});
      assert.equal(failed.isError, true);
    });

    it(`${which}: a 2025 and a 2026-07-28 client call through the gateway`, async () => {
      const runtime = await runtimeWith(build(), cleanup, [stdioDefinition()]);
      const gateway = runtime.gateway();
      await gateway.start();
      const legacy = await gatewayClient(cleanup, gateway.endpointUrl('fixture'), gateway.token);
      const answer = (await legacy.callTool({ name: 'echo', arguments: { text: 'legacy' } })) as CallToolResult;
      assert.equal(textOf(answer), 'legacy');
      const tools = await legacy.listTools();
      assert.ok(tools.tools.some((tool) => tool.name === 'echo'));
    });

    it(`${which}: a 2026-07-28 server's task over the raw request path: its stages as progress, its result`, async () => {
      const runtime = await runtimeWith(build(), cleanup, [
        stdioDefinition([], { name: 'reports', args: [TASKS_V2, '--stage-ms', '100'] }),
      ]);
      const report = await callLongReport(runtime.catalog);
      assert.equal(report.text, 'Report on otters (not asked)');
      assert.deepEqual(report.stages, LONG_REPORT_STAGES);
    });

    it(`${which}: a 2025-11-25 task-augmented call through the gateway: a task at once, then its result`, async () => {
      const runtime = await runtimeWith(build(), cleanup, [stdioDefinition([], { name: 'everything', args: [EVERYTHING, 'stdio'] })]);
      const gateway = runtime.gateway();
      await gateway.start();
      const client = await gatewayClient(cleanup, gateway.endpointUrl('everything'), gateway.token, {
        tasks: { list: {}, cancel: {}, requests: {} },
      });
      const request = (method: string, params: Record<string, unknown>, schema: z.ZodType) =>
        client.request({ method, params } as Parameters<Client['request']>[0], schema);
      const created = Created.parse(
        await request('tools/call', { name: RESEARCH_TOOL, arguments: { topic: 'otters' }, task: { ttl: 60_000 } }, AnyResult),
      );
      assert.equal(created.task.status, 'working');
      const ended = await eventually(
        async () => {
          const { status } = Status.parse(await request('tasks/get', { taskId: created.task.taskId }, AnyResult));
          return status === 'working' || status === 'input_required' ? undefined : status;
        },
        'the task to end',
        60_000,
      );
      assert.equal(ended, 'completed');
      const result = (await request('tasks/result', { taskId: created.task.taskId }, AnyResult)) as CallToolResult;
      assert.match(textOf(result), /otters/);
    });
  }
});
