// Test doubles for the catalog: a clock whose time and timers the test drives, a manager whose
// servers, states and tool lists the test sets directly, and tool definitions.
import { fingerprint } from '../../../src/core/base/fingerprint';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import type { CallerOptions, ToolsChangeEvent } from '../../../src/core/connection';
import type { CatalogConnection, CatalogManager } from '../../../src/core/catalog/catalogManager';
import type { StdioServerDefinition } from '../../../src/core/config/types';
import type { ServerState, ServerStateChangeEvent, ServerStateKind } from '../../../src/core/state/serverState';
import { Emitter } from '../../../src/core/base/events';
import { stdioDefinition } from '../connection/helpers';
import { hashServerConnection } from '../../../src/core/config';

/** Time stands still until advance(); timers fire in due order as time passes them. */
export { FakeClock } from '../support/fakeClock';

export function tool(name: string, extra: Partial<Tool> = {}): Tool {
  return { name, description: `The ${name} tool.`, inputSchema: { type: 'object', properties: {} }, ...extra };
}

export function tools(...names: string[]): Tool[] {
  return names.map((name) => tool(name));
}

export function definition(name: string, overrides: Partial<StdioServerDefinition> = {}): StdioServerDefinition {
  return stdioDefinition([], { name, ...overrides });
}

function stateOfKind(kind: ServerStateKind): ServerState {
  switch (kind) {
    case 'running':
      return {
        kind,
        transport: 'stdio',
        serverInfo: { name: 'fake', version: '1' },
        protocolVersion: '2025-06-18',
        era: 'legacy',
        capabilities: {},
        since: 0,
        connectMs: 1,
        toolCount: 0,
      };
    case 'starting':
      return { kind, since: 0 };
    case 'idle':
      return { kind, reason: 'lazy', since: 0 };
    case 'reconnecting':
      return { kind, attempt: 1, maxAttempts: 3, nextTryAt: 0, lastError: 'gone' };
    case 'error':
      return { kind, code: 'CONNECT_FAILED', message: 'refused', stderrTail: [], since: 0 };
    case 'blocked':
      return { kind, reason: 'untrusted', detail: 'untrusted workspace' };
    case 'invalid':
      return { kind, diagnostics: [] };
    case 'needsSignIn':
      return { kind, reason: 'signInRequired', detail: 'sign-in required', since: 0 };
    default:
      return { kind };
  }
}

interface FakeServer {
  definition: StdioServerDefinition;
  state: ServerState;
  /** As the connection last listed them: frozen, replaced by each new list (as a connection's are). */
  tools: readonly Tool[];
  listed: boolean;
  /** Counts the lists asked for or set: a slow answer overtaken by a newer one is dropped, as a connection drops it. */
  generation: number;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * Servers are configured, moved between states and given tool lists by the test. listTools()
 * answers with the server's current list unless the test queued its own answers (`nextFetches`),
 * which is how a test makes a fetch slow or makes fetches answer out of order. Like a connection,
 * the fake keeps the list it last got (an answer overtaken by a newer request is dropped), and a
 * changed connection config is a new connection that has listed nothing yet.
 */
export class FakeManager implements CatalogManager {
  private readonly stateEmitter = new Emitter<ServerStateChangeEvent>();
  private readonly toolsEmitter = new Emitter<ToolsChangeEvent>();
  private readonly serversEmitter = new Emitter<void>();
  readonly onDidChangeState = this.stateEmitter.event;
  readonly onDidChangeTools = this.toolsEmitter.event;
  readonly onDidChangeServers = this.serversEmitter.event;
  private entries = new Map<string, FakeServer>();
  private order: string[] = [];
  readonly fetches: string[] = [];
  readonly nextFetches = new Map<string, Deferred<Tool[]>[]>();
  readonly calls: { server: string; tool: string; args: Record<string, unknown> }[] = [];
  /** Servers the catalog asked to start for a call (wake) or to learn their lists (learn). */
  readonly wakes: string[] = [];
  readonly learns: string[] = [];

  /** Replaces the configuration; like a manager update, says the servers changed (and no state changes). */
  configure(definitions: readonly StdioServerDefinition[]): void {
    const next = new Map<string, FakeServer>();
    for (const item of definitions) {
      const previous = this.entries.get(item.name);
      const sameConnection = previous !== undefined && hashServerConnection(previous.definition) === hashServerConnection(item);
      next.set(
        item.name,
        previous && sameConnection
          ? { ...previous, definition: item }
          : { definition: item, state: previous?.state ?? stateOfKind('starting'), tools: [], listed: false, generation: 0 },
      );
    }
    this.entries = next;
    this.order = definitions.map((item) => item.name);
    this.serversEmitter.fire();
  }

  setState(name: string, kind: ServerStateKind): void {
    const entry = this.require(name);
    const previous = entry.state;
    entry.state = stateOfKind(kind);
    this.stateEmitter.fire({ server: name, state: entry.state, previous, at: 0 });
  }

  /**
   * The server's list changes; like a connection, it announces the new list, after a
   * running → running state event carrying the new toolCount.
   */
  setTools(name: string, list: Tool[], announce = true): void {
    const entry = this.require(name);
    this.list(entry, list);
    if (!announce) return;
    if (entry.state.kind === 'running') {
      const previous = entry.state;
      entry.state = { ...entry.state, toolCount: list.length };
      this.stateEmitter.fire({ server: name, state: entry.state, previous, at: 0 });
    }
    this.toolsEmitter.fire({ server: name, tools: structuredClone(list) });
  }

  /** Makes the next fetch of `name` wait for the test; returns its control. */
  holdNextFetch(name: string): Deferred<Tool[]> {
    const control = deferred<Tool[]>();
    const queue = this.nextFetches.get(name) ?? [];
    queue.push(control);
    this.nextFetches.set(name, queue);
    return control;
  }

  servers() {
    return this.order.map((name) => this.view(name));
  }

  server(name: string) {
    return this.entries.has(name) ? this.view(name) : undefined;
  }

  connection(name: string): CatalogConnection | undefined {
    const entry = this.entries.get(name);
    if (!entry) return undefined;
    return {
      definition: entry.definition,
      tools: entry.tools,
      // As a connection's keeper computes it, once per list (here on each read: a test's lists are small).
      toolsFingerprint: fingerprint(entry.tools),
      toolsListed: entry.listed,
      listTools: async () => {
        this.fetches.push(name);
        const generation = ++entry.generation;
        const held = this.nextFetches.get(name)?.shift();
        const answer = held ? await held.promise : structuredClone([...entry.tools]);
        if (generation === entry.generation) this.list(entry, answer, false);
        return structuredClone(answer);
      },
    };
  }

  wake(server: string): void {
    this.wakes.push(server);
  }

  learn(server: string): void {
    this.learns.push(server);
  }

  usableConnection(server: string) {
    this.require(server);
    return {
      sendToolCall: async (tool: string, args: Record<string, unknown>, _options: CallerOptions): Promise<CallToolResult> => {
        this.calls.push({ server, tool, args });
        return { content: [{ type: 'text', text: `${server}/${tool}` }] };
      },
    };
  }

  private view(name: string) {
    const entry = this.require(name);
    return { name, state: entry.state, definition: entry.definition };
  }

  private list(entry: FakeServer, list: readonly Tool[], newer = true): void {
    entry.tools = deepFreeze(structuredClone([...list]));
    entry.listed = true;
    if (newer) entry.generation += 1;
  }

  private require(name: string): FakeServer {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`no fake server ${name}`);
    return entry;
  }
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
