// The catalog as one principal may see it: the servers and tools their grant allows, and nothing
// else. A view, not a copy: it reads the catalog on every use, so it never has to be kept in step.
// Everything the gateway serves a user goes through it (lists, calls, resources, prompts,
// subscriptions), so a tool a policy keeps from a user is one they cannot see, name or call: the
// refusal is the same as for a tool that does not exist, and says nothing about who may call it.
import type { CallToolResult } from '@modelcontextprotocol/server';
import {
  ToolSearch,
  type CallReach,
  type CatalogServer,
  type CatalogSnapshot,
  type FilterRule,
  type OfferSource,
  type ReadyOptions,
  type ReadyTool,
  type ToolAddress,
  type ToolSource,
} from '../catalog';

const POLICY: FilterRule = Object.freeze({ kind: 'policy' });
import type { CallerOptions, CallOutcome, ForwardedMethod, ForwardedResult } from '../connection';
import { SwitchboardError, unknownServer } from '../state';
import type { Grant } from './policy';

/** A call a policy kept from its caller, for the audit log. */
export interface DeniedCall {
  readonly server: string;
  readonly tool: string;
  readonly caller: string | undefined;
  /** The deny rule's name, or "no rule allows it". */
  readonly rule: string;
}

export interface GrantedCatalog {
  readonly source: ToolSource;
  readonly offers: OfferSource | undefined;
  /** The grant's key: views with equal keys show the same. */
  readonly grant: string;
  /** Whether the view shows the server: what it announces (logs, changes, updates) goes only where it does. */
  allowsServer(server: string): boolean;
  /** Brings the view's search index to the catalog's latest snapshot (the gateway does it after changes, off the request path). */
  updateSearch(): void;
  /** Tools in the view's search index, for tests. */
  readonly searchIndexSize: number;
}

export function grantedCatalog(
  source: ToolSource,
  offers: OfferSource | undefined,
  grant: Grant,
  onDenied?: (denied: DeniedCall) => void,
): GrantedCatalog {
  const { view, search } = grantedSource(source, grant, onDenied);
  return {
    source: view,
    offers: offers && grantedOffers(offers, grant),
    grant: grant.key,
    allowsServer: (server) => grant.allowsServer(server),
    updateSearch: () => search.update(),
    get searchIndexSize() {
      return search.size;
    },
  };
}

function grantedSource(
  source: ToolSource,
  grant: Grant,
  onDenied: ((denied: DeniedCall) => void) | undefined,
): { view: ToolSource; search: ToolSearch } {
  // The catalog's snapshot is one object until it changes: the view is made once per snapshot.
  let seen: { readonly from: CatalogSnapshot; readonly view: CatalogSnapshot } | undefined;
  const view = (snapshot: CatalogSnapshot): CatalogSnapshot => {
    if (seen?.from === snapshot) return seen.view;
    const servers = snapshot.servers
      .filter((server) => grant.allowsServer(server.name))
      // A tool kept from the user is never listed nor found by search, but its name still maps to
      // it, so that calling it reaches callExposedTool below: refused as unknown, and told to the
      // audit log with the rule.
      .map((server): CatalogServer => ({
        ...server,
        tools: server.tools.map((tool) =>
          (tool.exposed || tool.filteredBy?.kind === 'budget') && !grant.allowsTool(server.name, tool.name)
            ? { ...tool, exposed: false, filteredBy: POLICY }
            : tool,
        ),
      }));
    const allowed = new Set(servers.map((server) => server.name));
    const result: CatalogSnapshot = {
      servers,
      warnings: snapshot.warnings.filter((warning) => warning.server === undefined || allowed.has(warning.server)),
      eligible: servers.reduce((count, server) => count + server.tools.filter((tool) => tool.exposed).length, 0),
      maxExposed: snapshot.maxExposed,
    };
    seen = { from: snapshot, view: result };
    return result;
  };
  const granted = (servers: readonly string[] | undefined) =>
    (servers ?? source.snapshot().servers.map((server) => server.name)).filter((server) => grant.allowsServer(server));
  const search = new ToolSearch(() => view(source.snapshot()));
  /** Why the grant refuses a call of `tool` (told to the audit log), or undefined. */
  const refuse = (server: string, tool: string, caller: string | undefined): SwitchboardError | undefined => {
    const rule = grant.denialOf(server, tool);
    if (rule === undefined) return undefined;
    onDenied?.({ server, tool, caller, rule });
    return grant.allowsServer(server)
      ? new SwitchboardError('UNKNOWN_TOOL', `server "${server}" has no tool "${tool}"`, { notSent: true })
      : unknownServer(server);
  };
  const viewSource: ToolSource = {
    snapshot: () => view(source.snapshot()),
    // Over the user's own view: what their grant keeps from them is never found.
    ...(source.searchTools && { searchTools: (query, options) => search.search(query, options) }),
    onDidChange: (listener) => source.onDidChange((snapshot) => listener(view(snapshot))),
    callExposedTool<O extends CallerOptions = CallerOptions>(
      server: string,
      tool: string,
      args: Record<string, unknown>,
      options?: O,
      reach?: CallReach,
    ): Promise<CallOutcome<O, CallToolResult>> {
      const refusal = refuse(server, tool, options?.caller);
      return refusal ? Promise.reject(refusal) : source.callExposedTool(server, tool, args, options, reach);
    },
    ...(source.whenToolsKnown && {
      whenToolsKnown: (servers?: readonly string[], signal?: AbortSignal) =>
        source.whenToolsKnown?.(granted(servers), signal) ?? Promise.resolve(),
    }),
    // The catalog finds and waits among the user's servers only; the grant decides before any wait
    // for a tool it names, and for a qualified name once the catalog found it.
    async readyTool(address: ToolAddress, options: ReadyOptions = {}): Promise<ReadyTool> {
      const refusedNow = 'server' in address ? refuse(address.server, address.tool, options.caller) : undefined;
      if (refusedNow) throw refusedNow;
      const within = options.within;
      const ready = await source.readyTool(address, {
        ...options,
        within: (server) => grant.allowsServer(server) && (within?.(server) ?? true),
      });
      const refusal = 'server' in address ? undefined : refuse(ready.server, ready.tool, options.caller);
      if (refusal) throw refusal;
      return ready;
    },
  };
  return { view: viewSource, search };
}

function grantedOffers(offers: OfferSource, grant: Grant): OfferSource {
  const check = (server: string): void => {
    if (!grant.allowsServer(server)) throw unknownServer(server);
  };
  return {
    offer: (server) => (grant.allowsServer(server) ? offers.offer(server) : undefined),
    offers: () => offers.offers().filter((offer) => grant.allowsServer(offer.name)),
    onDidChange: (listener) => offers.onDidChange((change) => grant.allowsServer(change.server) && listener(change)),
    onNotice: (listener) => offers.onNotice((notice) => grant.allowsServer(notice.server) && listener(notice)),
    forwardRequest<M extends ForwardedMethod, O extends CallerOptions = CallerOptions>(
      server: string,
      method: M,
      params: Record<string, unknown>,
      options?: O,
    ): Promise<CallOutcome<O, ForwardedResult<M>>> {
      if (!grant.allowsServer(server)) return Promise.reject(unknownServer(server));
      return offers.forwardRequest(server, method, params, options);
    },
    subscribeResource: async (server, uri) => {
      check(server);
      return offers.subscribeResource(server, uri);
    },
    unsubscribeResource: async (server, uri) => {
      check(server);
      return offers.unsubscribeResource(server, uri);
    },
    readSkillFile: async (server, skill, ref, options) => {
      check(server);
      return offers.readSkillFile(server, skill, ref, options);
    },
  };
}
