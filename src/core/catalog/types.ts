// What the catalog hands to everything downstream (the gateway, the dispatcher tools, the tree,
// the doctor). Plain data; every value is a copy the receiver may keep.
import type { CallToolResult, Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/client';
import type { CallerOptions, CallOutcome, ServerNotice, ForwardedMethod, ForwardedResult, Skill, SkillFile } from '../connection';
import type { ServerInfo, ServerStateKind } from '../state';
import type { Event } from '../base/events';

/** Why a tool is not exposed (the core's one vocabulary, state/errors.ts). */
export type { FilterRule } from '../state';
import type { FilterRule } from '../state';

export interface CatalogTool {
  readonly server: string;
  /** The upstream tool name, as the server reported it. */
  readonly name: string;
  /** `server__tool`, sanitized to [A-Za-z0-9_-], at most 64 characters, unique across the catalog. */
  readonly qualifiedName: string;
  /** The upstream definition (schemas normalized: a missing inputSchema becomes an empty object schema). */
  readonly tool: Tool;
  readonly readOnly: boolean;
  readonly exposed: boolean;
  /** Set when `exposed` is false. */
  readonly filteredBy?: FilterRule;
}

export interface CatalogServer {
  readonly name: string;
  readonly state: ServerStateKind;
  /** True when the tools come from the cache because the server has not connected yet. */
  readonly fromCache: boolean;
  /** When the tool list was fetched from the server (epoch ms). */
  readonly fetchedAt?: number;
  readonly tools: readonly CatalogTool[];
}

/** What a warning is about, so the editor can offer the right action (e.g. open the filter settings). */
export type CatalogWarningKind =
  /** More eligible tools than `mcpSwitchboard.tools.maxExposed`; the rest are hidden. */
  | 'budgetExceeded'
  /** A per-server `tools.allow` pattern matches none of that server's tools. */
  | 'allowUnmatched'
  /** A tool's input or output schema is not a usable JSON object schema; the tool is hidden. */
  | 'malformedSchema'
  /** A filter step failed (e.g. an unusable glob); the tools it was applied to are hidden. */
  | 'filterError'
  /** The server reported two tools with the same name; only the first is kept. */
  | 'duplicateTool';

export interface CatalogWarning {
  readonly server?: string;
  readonly message: string;
  readonly kind: CatalogWarningKind;
  /** The upstream tool name, for warnings about one tool. */
  readonly tool?: string;
  /** The setting that resolves the warning (for an "Open Settings" action). */
  readonly setting?: string;
}

export interface CatalogSnapshot {
  /** In configuration order. */
  readonly servers: readonly CatalogServer[];
  readonly warnings: readonly CatalogWarning[];
  /** Total tools that passed the filters, before the budget cut. */
  readonly eligible: number;
  readonly maxExposed: number;
}

/**
 * Which tools a call may reach: those chat is offered (`exposed`), or every tool the filters let
 * through, the ones the budget left out of chat's list included (`eligible`: a tool found by search).
 */
export type CallReach = 'exposed' | 'eligible';

/** A tool search found (toolSearch.ts). */
export interface ToolHit {
  readonly qualifiedName: string;
  readonly server: string;
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** What a caller needs to call it, so that nobody looks the tool up again. */
  readonly inputSchema: Tool['inputSchema'];
  readonly readOnly: boolean;
  /** Whether chat is offered it directly too (within the budget), not only through search. */
  readonly inChat: boolean;
  readonly score: number;
  /** Why it was found, in one line: the words of the query it matched, and where. */
  readonly why: string;
}

/** What a call names: a server's tool by its upstream name, or a tool by its qualified name. */
export type ToolAddress = { readonly server: string; readonly tool: string } | { readonly qualifiedName: string };

/** How a call waits for its tool: until its abort signal, within its deadline, for what it may reach. */
export interface ReadyOptions {
  readonly signal?: AbortSignal | undefined;
  /** The call's one deadline, when it was made already (a time on the catalog's clock). */
  readonly readyBy?: number | undefined;
  readonly reach?: CallReach;
  /** Only these servers' tools may be found and waited for (a team user's view). */
  readonly within?: (server: string) => boolean;
  /** Who asks, for the audit log of a refusal (CallerOptions.caller). */
  readonly caller?: string | undefined;
}

/** A call's tool, found, its server ready: where the call goes, and its one deadline. */
export interface ReadyTool {
  readonly server: string;
  /** The upstream name. */
  readonly tool: string;
  readonly readyBy: number | undefined;
}

/** What the gateway and the dispatcher tools need from the catalog. */
export interface ToolSource {
  snapshot(): CatalogSnapshot;
  /** Fires after the snapshot changed (servers, filters, tool lists, states). */
  readonly onDidChange: Event<CatalogSnapshot>;
  /**
   * Calls an exposed tool by server and upstream name. Rejects with a clear error for a tool that is
   * unknown, filtered or disabled; waits (within requestMs) for a server that is still connecting.
   */
  callExposedTool<O extends CallerOptions = CallerOptions>(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options?: O,
    /** `eligible`: a tool found by search, which the budget alone may have left out of the list. */
    reach?: CallReach,
  ): Promise<CallOutcome<O, CallToolResult>>;
  /** Every eligible tool ranked for a query (toolSearch.ts); absent: the source offers no search. */
  searchTools?(query: string, options?: { readonly limit?: number; readonly server?: string }): ToolHit[];
  /**
   * Resolves once none of `servers` (all when omitted) is still starting with no tool list known,
   * each bounded by its connect timeout. Optional: a source without it has nothing to wait for.
   */
  whenToolsKnown?(servers?: readonly string[], signal?: AbortSignal): Promise<void>;
  /**
   * The one place a call waits: finds the tool `address` names (a qualified name no server lists
   * yet is waited for while servers start) and waits until its server is ready, within the call's
   * one deadline (its requestMs from now, or `readyBy`: NOT_READY past it). Rejects with the reason
   * the tool cannot be called. callExposedTool with the answer's `readyBy` does not wait again.
   */
  readyTool(address: ToolAddress, options?: ReadyOptions): Promise<ReadyTool>;
}

/** The capabilities about resources, prompts, completions and logging a server's endpoint can pass on. */
export interface OfferCapabilities {
  readonly resources?: { readonly subscribe?: boolean; readonly listChanged?: boolean };
  readonly prompts?: { readonly listChanged?: boolean };
  readonly completions?: Record<string, unknown>;
  readonly logging?: Record<string, unknown>;
  /** The skills extension (SEP-2640), as the server declared it; served as `extensions["io.modelcontextprotocol/skills"]`. */
  readonly skills?: { readonly directoryRead?: boolean };
}

/** What chat may use of one server besides its tools. */
export interface OfferedServer {
  readonly name: string;
  readonly resources: readonly Resource[];
  readonly resourceTemplates: readonly ResourceTemplateType[];
  readonly prompts: readonly Prompt[];
  /** Its skills (SEP-2640): manifests only; a file is read when asked for (`readSkillFile`). */
  readonly skills: readonly Skill[];
  /** As of the server's current or last connection; absent when it never connected. */
  readonly capabilities?: OfferCapabilities;
  /** The server's `instructions` (initialize or server/discover), from its current or last connection. */
  readonly instructions?: string;
  /** Who the server said it is, from its current or last connection. */
  readonly serverInfo?: ServerInfo;
}

/**
 * A server's offer changed, or whether it is served. `announced`: the lists the server itself said
 * changed (list_changed), which a client in front is told of even when they read the same.
 */
export interface OfferChange {
  readonly server: string;
  readonly announced: readonly ('resources' | 'prompts')[];
}

/** What the gateway needs for resources, prompts, completion and logging (OfferCatalog provides it). */
export interface OfferSource {
  offer(server: string): OfferedServer | undefined;
  offers(): OfferedServer[];
  /** The server whose offer changed. */
  readonly onDidChange: Event<OfferChange>;
  readonly onNotice: Event<ServerNotice>;
  forwardRequest<M extends ForwardedMethod, O extends CallerOptions = CallerOptions>(
    server: string,
    method: M,
    params: Record<string, unknown>,
    options?: O,
  ): Promise<CallOutcome<O, ForwardedResult<M>>>;
  subscribeResource(server: string, uri: string): Promise<void>;
  unsubscribeResource(server: string, uri: string): Promise<void>;
  /** One file of a skill the server listed, checked against its entry; refused like a resource read when resources are hidden. */
  readSkillFile(server: string, skill: Skill, ref?: string, options?: CallerOptions): Promise<SkillFile>;
}
