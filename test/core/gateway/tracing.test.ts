// serve --otlp-endpoint: the gateway's tool calls as OpenTelemetry traces, exported by the SDK's
// real OTLP/HTTP exporter to a collector this test runs (it keeps what it is sent), with the trace
// context of the client's request continued through the gateway to the upstream server.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { runServe, type ServeReady } from '../../../src/core/cli';
import { STDIO_SERVER } from '../connection/helpers';
import { MODERN_VERSION } from '../support/eraClient';
import { Cleanup, eventually, textOf } from './helpers';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: { stringValue?: string } }>;
  status?: { code?: number };
}

/** A collector: every span of every OTLP/JSON export it is sent. */
async function startCollector(cleanup: Cleanup): Promise<{ url: string; spans: OtlpSpan[] }> {
  const spans: OtlpSpan[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: OtlpSpan[] }> }> };
      for (const resource of parsed.resourceSpans ?? []) for (const scope of resource.scopeSpans ?? []) spans.push(...(scope.spans ?? []));
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/traces`, spans };
}

const attribute = (span: OtlpSpan, key: string) => span.attributes.find((entry) => entry.key === key)?.value.stringValue;

describe('gateway: traces of tool calls (serve --otlp-endpoint)', function () {
  this.timeout(60_000);
  const cleanup = new Cleanup();
  after(() => cleanup.run());

  it('continues the client’s trace through the gateway to the upstream, in both eras, and exports the spans', async () => {
    const collector = await startCollector(cleanup);
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-trace-'));
    cleanup.add(() => fs.rmSync(folder, { recursive: true, force: true }));
    fs.mkdirSync(path.join(folder, '.vscode'));
    fs.writeFileSync(
      path.join(folder, '.vscode', 'settings.json'),
      JSON.stringify({ 'mcpSwitchboard.servers': { alpha: { command: process.execPath, args: [STDIO_SERVER, '--trace-tool'] } } }),
    );
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const controller = new AbortController();
    const exit = runServe({
      folder,
      trustWorkspace: true,
      stdout,
      stderr: new PassThrough(),
      signal: controller.signal,
      otlpEndpoint: collector.url,
      env: { ...process.env, XDG_CACHE_HOME: path.join(folder, 'cache') },
    });
    const ready = JSON.parse(await eventually(() => (out.includes('\n') ? out : undefined), 'the ready line')) as ServeReady;

    const traces: Array<{ era: string; traceId: string; parentId: string; upstream: string }> = [];
    for (const era of ['legacy', 'modern'] as const) {
      const client = new Client(
        { name: `traced-${era}`, version: '1.0.0' },
        era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_VERSION } } } : {},
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(ready.url), { requestInit: { headers: { Authorization: `Bearer ${ready.token}` } } }),
      );
      const traceId = era === 'legacy' ? '0af7651916cd43dd8448eb211c80319c' : '4bf92f3577b34da6a3ce929d0e0e4736';
      const parentId = era === 'legacy' ? 'b7ad6b7169203331' : '00f067aa0ba902b7';
      const result = (await client.callTool({
        name: 'alpha__trace_context',
        arguments: {},
        _meta: { traceparent: `00-${traceId}-${parentId}-01` },
      })) as CallToolResult;
      const seen = JSON.parse(textOf(result)) as { traceparent: string | null };
      assert.match(
        seen.traceparent ?? '',
        new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`),
        `${era}: the upstream continues the client's trace`,
      );
      assert.ok(!(seen.traceparent ?? '').includes(parentId), `${era}: under the gateway's span, not the client's`);
      traces.push({ era, traceId, parentId, upstream: (seen.traceparent ?? '').split('-')[2] ?? '' });
      // A call without a trace context starts a trace of its own.
      const untraced = JSON.parse(textOf((await client.callTool({ name: 'alpha__trace_context', arguments: {} })) as CallToolResult)) as {
        traceparent: string | null;
      };
      assert.match(untraced.traceparent ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      await client.close();
    }

    controller.abort();
    assert.equal(await exit, 0);
    // Shutting down sends what was batched.
    for (const { era, traceId, parentId, upstream } of traces) {
      const spans = collector.spans.filter((span) => span.traceId === traceId);
      const served = spans.find((span) => span.kind === 2);
      const client = spans.find((span) => span.kind === 3);
      assert.ok(served && client, `${era}: a server span and a client span (${JSON.stringify(spans).slice(0, 300)})`);
      assert.equal(served.parentSpanId, parentId, `${era}: the gateway's span is the client's span's child`);
      assert.equal(client.parentSpanId, served.spanId);
      assert.equal(client.spanId, upstream, `${era}: the upstream got the client span's context`);
      assert.equal(served.name, 'tools/call trace_context');
      assert.equal(attribute(served, 'gen_ai.tool.name'), 'trace_context');
      assert.equal(attribute(served, 'mcp.switchboard.server'), 'alpha');
      assert.equal(attribute(served, 'mcp.switchboard.outcome'), 'ok');
      assert.equal(attribute(served, 'mcp.switchboard.caller'), `traced-${era}@1.0.0`);
    }
    assert.ok(collector.spans.length >= 8, `two spans per call, four calls: ${collector.spans.length}`);
  });
});
