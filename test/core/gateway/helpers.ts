// Gateway test plumbing: a ToolSource over a real ServerManager and real fixture servers (standing
// in for the catalog, which has its own tests), SDK clients connected to gateway endpoints, and
// raw HTTP requests for the security rules that an SDK client cannot break on purpose.
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult, type FetchLike } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { SwitchboardError } from '../../../src/core/state';
import type { CallerOptions } from '../../../src/core/connection';
import type {
  CatalogServer,
  CatalogSnapshot,
  CatalogTool,
  FilterRule,
  ReadyOptions,
  ReadyTool,
  ToolAddress,
  ToolSource,
} from '../../../src/core/catalog/types';
import type { ServerDefinition } from '../../../src/core/config/types';
import { isServed } from '../../../src/core/state/serverState';
import { Emitter, type Disposable } from '../../../src/core/base/events';
import { McpGateway } from '../../../src/core/gateway';
import { ServerManager, type ConfiguredServer } from '../../../src/core/manager';
import { Cleanup, FIXTURES, MemoryLogger, stdioDefinition, textOf, type FixtureStats } from '../connection/helpers';
import { waitForRunning } from '../support/waitFor';

export { waitForRunning };

export { Cleanup, MemoryLogger, textOf, type FixtureStats };

export const CONTENT_SERVER = path.join(FIXTURES, 'content-server.mjs');

/** The stdio fixture (echo, add, slow, fail, stats, ...) under `name`. */
export function toolsServer(name: string, args: string[] = []): ServerDefinition {
  return stdioDefinition(args, { name });
}

/** content-server.mjs under `name`. */
export function contentServer(name: string): ServerDefinition {
  return stdioDefinition([], { name, args: [CONTENT_SERVER] });
}

function qualify(server: string, tool: string): string {
  return `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_');
}

/**
 * What the gateway needs from the catalog, built directly over a ServerManager: every tool is
 * exposed unless a test filters it. Records the calls it forwards to the manager.
 */
export class FixtureToolSource implements ToolSource, Disposable {
  private readonly emitter = new Emitter<CatalogSnapshot>();
  readonly onDidChange = this.emitter.event;
  readonly calls: { server: string; tool: string; args: Record<string, unknown> }[] = [];
  private readonly rules = new Map<string, FilterRule>();
  private readonly subscriptions: Disposable[];
  /** A server of the snapshot that is still starting (`coming`), as the catalog has while servers come up. */
  settling = false;

  constructor(readonly manager: ServerManager) {
    this.subscriptions = [manager.onDidChangeState(() => this.changed()), manager.onDidChangeTools(() => this.changed())];
  }

  /** Hides a tool (or shows it again with `undefined`), as a catalog filter would. */
  filter(server: string, tool: string, rule: FilterRule | undefined): void {
    const key = `${server}\u0000${tool}`;
    if (rule) this.rules.set(key, rule);
    else this.rules.delete(key);
    this.changed();
  }

  snapshot(): CatalogSnapshot {
    const servers = this.manager.servers().map((view): CatalogServer => ({
      name: view.name,
      state: view.state.kind,
      fromCache: false,
      tools: view.tools.map((tool): CatalogTool => {
        const rule = this.rules.get(`${view.name}\u0000${tool.name}`);
        return {
          server: view.name,
          name: tool.name,
          qualifiedName: qualify(view.name, tool.name),
          tool,
          readOnly: tool.annotations?.readOnlyHint === true,
          exposed: rule === undefined,
          ...(rule ? { filteredBy: rule } : {}),
        };
      }),
    }));
    if (this.settling) servers.push({ name: 'coming', state: 'starting', fromCache: false, tools: [] });
    const eligible = servers.reduce((sum, server) => sum + server.tools.filter((tool) => tool.exposed).length, 0);
    return { servers, warnings: [], eligible, maxExposed: 128 };
  }

  /** The gate, decided as the catalog decides it (same error codes); records what it forwards. */
  async callExposedTool(server: string, tool: string, args: Record<string, unknown>, options: CallerOptions = {}): Promise<CallToolResult> {
    const entry = this.snapshot().servers.find((candidate) => candidate.name === server);
    if (!entry) throw new SwitchboardError('UNKNOWN_SERVER', `no server named "${server}" is configured`);
    if (!isServed(entry.state)) throw new SwitchboardError('SERVER_HELD_BACK', `server "${server}" is ${entry.state}`);
    const found = entry.tools.find((candidate) => candidate.name === tool);
    if (!found) throw new SwitchboardError('UNKNOWN_TOOL', `server "${server}" has no tool "${tool}"`);
    if (found.filteredBy)
      throw new SwitchboardError(found.filteredBy.kind === 'disabledSetting' ? 'TOOL_DISABLED' : 'TOOL_FILTERED', 'filtered', {
        rule: found.filteredBy,
      });
    this.calls.push({ server, tool, args });
    return this.manager.forwardToolCall(server, tool, args, options);
  }

  /** Nothing to wait for: a qualified name maps through the snapshot, or is unknown. */
  async readyTool(address: ToolAddress, options: ReadyOptions = {}): Promise<ReadyTool> {
    if ('server' in address) return { server: address.server, tool: address.tool, readyBy: undefined };
    for (const server of this.snapshot().servers) {
      if (options.within && !options.within(server.name)) continue;
      const found = server.tools.find((candidate) => candidate.qualifiedName === address.qualifiedName);
      if (found) return { server: server.name, tool: found.name, readyBy: undefined };
    }
    throw new SwitchboardError('UNKNOWN_TOOL', `no server offers a tool named "${address.qualifiedName}"`);
  }

  /** Fires onDidChange with the current snapshot. */
  changed(): void {
    this.emitter.fire(this.snapshot());
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.emitter.dispose();
  }
}

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns something other than undefined. */
export { eventually } from '../support/poll';

export interface Setup {
  readonly manager: ServerManager;
  readonly source: FixtureToolSource;
  readonly gateway: McpGateway;
  readonly logger: MemoryLogger;
}

/** Real fixture servers behind a manager, a FixtureToolSource over it, and a started gateway. */
export async function startGateway(cleanup: Cleanup, servers: readonly ConfiguredServer[]): Promise<Setup> {
  const logger = new MemoryLogger();
  const manager = new ServerManager({ logger });
  cleanup.add(() => manager.dispose());
  const source = new FixtureToolSource(manager);
  cleanup.add(() => source.dispose());
  await manager.start(servers);
  const enabled = servers.filter((server) => 'transport' in server && server.enabled).map((server) => server.name);
  await waitForRunning(manager, enabled);
  const gateway = new McpGateway({ source, logger });
  cleanup.add(() => gateway.dispose());
  await gateway.start();
  return { manager, source, gateway, logger };
}

export interface GatewayClient {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  /** Resolves once the client's GET stream (server notifications) is open. */
  readonly notificationStream: Promise<void>;
}

/** An SDK client connected to a gateway endpoint with the bearer token. */
export async function connectClient(cleanup: Cleanup, url: string, token: string): Promise<GatewayClient> {
  let streamOpened: () => void = () => undefined;
  const notificationStream = new Promise<void>((resolve) => (streamOpened = resolve));
  // The SDK opens the GET stream in the background after initialize; tests that wait for a
  // notification must not trigger it before the stream exists, or the server has nowhere to send it.
  const watchingFetch: FetchLike = async (input, init) => {
    const response = await fetch(input, init);
    if ((init?.method ?? 'GET') === 'GET' && response.ok) streamOpened();
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: watchingFetch,
  });
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  await client.connect(transport);
  cleanup.add(() => client.close());
  return { client, transport, notificationStream };
}

/** A plain SDK client on a fresh stdio process: what the upstream returns with nothing between. */
export async function connectDirect(cleanup: Cleanup, definition: ServerDefinition): Promise<Client> {
  assert.equal(definition.transport, 'stdio');
  if (definition.transport !== 'stdio') throw new Error('stdio only');
  const client = new Client({ name: 'gateway-test-direct', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: definition.command, args: [...definition.args], stderr: 'ignore' }));
  cleanup.add(() => client.close());
  return client;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface RawRequest {
  readonly method?: string;
  readonly path?: string;
  /** Sent as given; a `Host` here replaces the one Node would set. */
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** false: send no Host header at all. */
  readonly setHost?: boolean;
  /** Where to connect; default 127.0.0.1. */
  readonly address?: string;
}

/** One HTTP request to 127.0.0.1:port (or `address`) with full control over Host and Origin (fetch cannot set Host). */
export function rawRequest(port: number, request: RawRequest = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: request.address ?? '127.0.0.1',
        port,
        method: request.method ?? 'POST',
        path: request.path ?? '/mcp',
        headers: request.headers ?? {},
        setHost: request.setHost ?? true,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
}

export const INITIALIZE_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-test', version: '1.0.0' } },
});

/** Headers of a well-formed initialize POST; add Host/Origin/Authorization per test. */
export function initializeHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...extra };
}

export async function stats(source: FixtureToolSource, server: string): Promise<FixtureStats> {
  return JSON.parse(textOf(await source.manager.forwardToolCall(server, 'stats'))) as FixtureStats;
}
