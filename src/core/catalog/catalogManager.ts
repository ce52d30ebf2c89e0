// What the catalogs need of the manager and its connections, as interfaces of their own: the
// catalog sits above connections, not above the manager, and tests hand in fakes.
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import type { Event } from '../base/events';
import type { ServerDefinition } from '../config';
import type { CallerOptions, CallOutcome, ToolsChangeEvent } from '../connection';
import type { ServerState, ServerStateChangeEvent } from '../state';

/** What the catalog needs of a connection; ServerConnection provides it. */
export interface CatalogConnection {
  /** The definition it was made from (its timeouts decide a call's deadline). */
  readonly definition: ServerDefinition;
  /** As last listed, kept while the server reconnects or idles; frozen, and replaced (never changed) by a new list. */
  readonly tools: readonly Tool[];
  /** `fingerprint(tools)` (base/fingerprint.ts, as fingerprintTools): the connection hashes each list once, the catalog reads it. */
  readonly toolsFingerprint: string;
  /** Whether the server has listed its tools yet: before that, `tools` is empty for want of an answer. */
  readonly toolsListed: boolean;
  listTools(): Promise<Tool[]>;
}

/** What a call of the catalog's needs of a connection; ServerConnection provides it. */
export interface CallableConnection {
  sendToolCall<O extends CallerOptions>(name: string, args: Record<string, unknown>, options: O): Promise<CallOutcome<O, CallToolResult>>;
}

/** What the catalog reads of a configured server; the manager's ServerView provides it. */
export interface CatalogServerInfo {
  readonly name: string;
  readonly state: ServerState;
  readonly definition?: ServerDefinition;
}

/** What the catalog needs of the manager; ServerManager provides it. */
export interface CatalogManager {
  readonly onDidChangeState: Event<ServerStateChangeEvent>;
  readonly onDidChangeTools: Event<ToolsChangeEvent>;
  /** The configured servers changed (added, removed, reordered, a definition replaced): read servers() again. */
  readonly onDidChangeServers: Event<unknown>;
  servers(): readonly CatalogServerInfo[];
  server(name: string): CatalogServerInfo | undefined;
  connection(name: string): CatalogConnection | undefined;
  /** The connection a call goes to; throws NOT_RUNNING, naming why, for a server that cannot take one. */
  usableConnection(name: string): CallableConnection;
  /** Starts an idle server: a call (`why`) needs it. */
  wake(server: string, why?: string): void;
  /** Starts an idle server with nothing cached, to learn its lists; it idles again once unused. */
  learn(server: string): void;
}
