// `serve --otlp-endpoint URL`: the gateway's tool calls as OpenTelemetry traces, sent by OTLP over
// HTTP to a collector (Jaeger, Tempo, the OpenTelemetry Collector). Each call is a server span (the
// client's request, a child of the client's own span when its `_meta` carries a W3C traceparent)
// with a client span under it for the upstream server, whose context goes upstream in the
// request's `_meta`. Attributes after OpenTelemetry's conventions for MCP and generative AI tools;
// never a tool's arguments or result. The SDK owns spans, batching and export; a collector that is
// down costs dropped spans, never a call.
// OpenTelemetry is loaded when traces are asked for: one person's serve carries none of it (memory:
// bench:peers).
import type { Context, TextMapGetter, TextMapSetter } from '@opentelemetry/api';
import type { CallTracer, TraceContext, TracedCall } from '../gateway';
import { PRODUCT_VERSION } from '../base/version';

const getter: TextMapGetter<TraceContext> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => (key === 'traceparent' || key === 'tracestate' ? carrier[key] : undefined),
};
const setter: TextMapSetter<Record<string, string>> = { set: (carrier, key, value) => (carrier[key] = value) };

export interface ServeTracing {
  readonly tracer: CallTracer;
  /** Sends what is still batched, then stops (at most 5 s). */
  shutdown(): Promise<void>;
}

export async function startTracing(endpoint: string, serviceName = 'mcp-switchboard'): Promise<ServeTracing> {
  const [
    { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace },
    { W3CTraceContextPropagator },
    { OTLPTraceExporter },
    { resourceFromAttributes },
    { BatchSpanProcessor, TracerProvider },
  ] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace'),
  ]);
  const propagator = new W3CTraceContextPropagator();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName, 'service.version': PRODUCT_VERSION }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: endpoint, timeoutMillis: 5_000 }),
        // Bounded: a collector that does not keep up loses spans, not memory.
        maxQueueSize: 4096,
        maxExportBatchSize: 512,
        scheduledDelayMillis: 1_000,
      }),
    ],
  });
  const tracer = provider.getTracer('mcp-switchboard-gateway', PRODUCT_VERSION);
  return {
    tracer: {
      startCall: (call): TracedCall => {
        const parent: Context = call.parent ? propagator.extract(ROOT_CONTEXT, call.parent, getter) : ROOT_CONTEXT;
        const attributes = {
          'mcp.method.name': 'tools/call',
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': call.tool,
          'mcp.switchboard.server': call.server,
          'url.path': call.endpoint,
          ...(call.caller ? { 'mcp.switchboard.caller': call.caller } : {}),
        };
        const served = tracer.startSpan(`tools/call ${call.tool}`, { kind: SpanKind.SERVER, attributes }, parent);
        const upstream = tracer.startSpan(
          `tools/call ${call.tool}`,
          { kind: SpanKind.CLIENT, attributes: { ...attributes, 'server.address': call.server } },
          trace.setSpan(parent, served),
        );
        const carrier: Record<string, string> = {};
        propagator.inject(trace.setSpan(ROOT_CONTEXT, upstream), carrier, setter);
        return {
          upstream: {
            ...(carrier.traceparent ? { traceparent: carrier.traceparent } : {}),
            ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}),
          },
          end: (outcome) => {
            for (const span of [upstream, served]) {
              span.setAttribute('mcp.switchboard.outcome', outcome);
              if (outcome !== 'ok' && outcome !== 'input_required' && outcome !== 'task') {
                span.setAttribute('error.type', outcome);
                span.setStatus({ code: SpanStatusCode.ERROR });
              }
              span.end();
            }
          },
        };
      },
    },
    shutdown: async () => {
      await Promise.race([provider.shutdown(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    },
  };
}
