// Traces of the gateway's tool calls (serve --otlp-endpoint): a span for each call a client makes,
// child of the client's own when its request carries a W3C trace context in `_meta`, and the
// context passed on to the upstream server in its request's `_meta`, so one trace runs from the
// agent through the gateway to the server. An interface: `serve` makes it with OpenTelemetry's SDK
// (src/core/cli/serveTracing.ts); the editor's gateway has none.

/** The W3C trace context, as `_meta` carries it. */
export interface TraceContext {
  readonly traceparent?: string;
  readonly tracestate?: string;
}

export interface CallTracer {
  /** Starts the spans of one tools/call; `parent` is what the client's request carried. */
  startCall(call: TracedCallInfo): TracedCall;
}

export interface TracedCallInfo {
  /** The endpoint's path (`/mcp`, `/mcp/github`). */
  readonly endpoint: string;
  readonly server: string;
  readonly tool: string;
  /** As the audit log names the caller. */
  readonly caller?: string;
  readonly parent?: TraceContext;
}

export interface TracedCall {
  /** The context for the upstream request (its `_meta`). */
  readonly upstream: TraceContext;
  /** `ok`, `toolError`, or the error code that ended the call. */
  end(outcome: string): void;
}

/** The trace context a request's `_meta` carries, if it is one (bounded: a client sends what it likes). */
export function traceContextOf(meta: unknown): TraceContext | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const { traceparent, tracestate } = meta as { traceparent?: unknown; tracestate?: unknown };
  if (typeof traceparent !== 'string' || traceparent.length > 64) return undefined;
  return { traceparent, ...(typeof tracestate === 'string' && tracestate.length <= 512 ? { tracestate } : {}) };
}
