// Prometheus metrics of a running gateway (`serve --metrics`, scraped at /metrics with the token),
// made with prom-client: what the calls did (counted once, where the one call path ends: the
// catalog's onDidSettleCall), what the HTTP edge answered, and how many sessions and servers of each
// state there are. Labels are the configured server names and bounded sets (outcomes, states,
// methods, statuses), never a tool name or anything a client or an upstream chose.
import type { Disposable } from '../base/events';
import type { ToolCatalog } from '../catalog';
import type { AccessEntry, MetricsEndpoint } from '../gateway';
import type { ServerManager } from '../manager';

export interface GatewayMetrics extends MetricsEndpoint, Disposable {
  /** Counts one HTTP request (the gateway's onAccess). */
  readonly access: (entry: AccessEntry) => void;
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const METHODS = new Set(['GET', 'POST', 'DELETE', 'HEAD']);

/** Loaded when asked for: a gateway without --metrics pays nothing for prom-client. */
export async function createGatewayMetrics(parts: {
  readonly catalog: ToolCatalog;
  readonly manager: ServerManager;
  /** Open 2025-era sessions of the gateway. */
  readonly sessions: () => number;
}): Promise<GatewayMetrics> {
  const prom = await import('prom-client');
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry, prefix: 'mcp_switchboard_' });
  const calls = new prom.Counter({
    name: 'mcp_switchboard_tool_calls_total',
    help: 'Tool calls through the gateway and the dispatcher tools, by server and outcome (ok, toolError, or the error code).',
    labelNames: ['server', 'outcome'] as const,
    registers: [registry],
  });
  const durations = new prom.Histogram({
    name: 'mcp_switchboard_tool_call_duration_seconds',
    help: 'How long tool calls took, from arrival to answer (waits for a starting server included), by server.',
    labelNames: ['server'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const requests = new prom.Counter({
    name: 'mcp_switchboard_http_requests_total',
    help: 'HTTP requests the gateway answered, by method and status.',
    labelNames: ['method', 'status'] as const,
    registers: [registry],
  });
  new prom.Gauge({
    name: 'mcp_switchboard_sessions',
    help: 'Open 2025-era client sessions.',
    registers: [registry],
    collect() {
      this.set(parts.sessions());
    },
  });
  new prom.Gauge({
    name: 'mcp_switchboard_servers',
    help: 'Configured servers, by state.',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const counts = new Map<string, number>();
      for (const view of parts.manager.servers()) counts.set(view.state.kind, (counts.get(view.state.kind) ?? 0) + 1);
      for (const [state, count] of counts) this.set({ state }, count);
    },
  });
  const subscription = parts.catalog.onDidSettleCall((call) => {
    calls.inc({ server: call.server, outcome: call.outcome });
    durations.observe({ server: call.server }, call.ms / 1000);
  });
  return {
    contentType: registry.contentType,
    render: () => registry.metrics(),
    access: (entry) => requests.inc({ method: METHODS.has(entry.method) ? entry.method : 'other', status: String(entry.status) }),
    dispose: () => {
      subscription.dispose();
      registry.clear();
    },
  };
}
