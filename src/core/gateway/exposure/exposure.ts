// What each endpoint offers, decided from one catalog snapshot: which servers get an endpoint,
// which tools an endpoint lists, and whether a tool can run as a task there. Which tool a call
// names is the catalog's to find (ToolSource.readyTool).
import type { Tool } from '@modelcontextprotocol/server';
import type { CatalogServer, CatalogSnapshot, CatalogTool } from '../../catalog';
import { isServed } from '../../state';
import type { CallTarget, EndpointId } from '../http';
import { deepFreeze } from '../../base/freeze';
import { fingerprint } from '../../base/fingerprint';

/** A server that is starting, reconnecting or failing keeps its endpoint, so clients keep their URL. */
function isServedServer(server: CatalogServer): boolean {
  return isServed(server.state);
}

/** Names of the servers that have an endpoint, in configuration order. */
export function servedServers(snapshot: CatalogSnapshot): string[] {
  return snapshot.servers.filter(isServedServer).map((server) => server.name);
}

export function hasEndpoint(snapshot: CatalogSnapshot, endpoint: EndpointId): boolean {
  if (endpoint.kind === 'aggregated') return true;
  const server = snapshot.servers.find((candidate) => candidate.name === endpoint.server);
  return server !== undefined && isServedServer(server);
}

/** What a listing carries besides the upstream's definition. */
export interface ListingOptions {
  /**
   * The tool's `execution` (its task support): only for a client that drives tasks through the
   * gateway. Any other gets a plain result from every tool, a task-required one included
   * (connection/tasks/taskCalls.ts), so it is not told to call it as a task.
   */
  readonly execution?: boolean;
}

/** The upstream definition under the name this endpoint uses. */
function listing(tool: CatalogTool, name: string, options: ListingOptions): Tool {
  // Shared, not copied: the catalog's tools are frozen all the way down.
  const { execution, ...definition } = tool.tool;
  // The catalog holds the client package's Tool, served through the server package's: the same
  // wire shape, declared twice (the server's narrows schema properties to objects).
  return { ...definition, ...(options.execution && execution ? { execution } : {}), name } as Tool;
}

/**
 * Tools found by search instead of cut by the budget, for any client of the aggregated endpoint: when
 * the budget left tools out of the list, the list ends with these two, which find every tool the
 * filters (and a team gateway's policy) let through and call it by its qualified name.
 */
export const FIND_TOOLS = 'switchboard__find_tools';
export const CALL_TOOL = 'switchboard__call_tool';

const SEARCH_TOOLS: readonly Tool[] = deepFreeze<Tool[]>([
  {
    name: FIND_TOOLS,
    title: 'Find tools',
    description:
      'Finds tools that are not in your tool list (there are more than the tool budget lets through): give what you want to do, in a few words; returns the best matches, ranked, with their qualified names and argument schemas. Call one with switchboard__call_tool.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What you want to do, e.g. "create a pull request".' },
        limit: { type: 'integer', minimum: 1, maximum: 50, description: 'How many matches (default 10).' },
      },
      required: ['query'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: CALL_TOOL,
    title: 'Call a found tool',
    description: 'Calls a tool that switchboard__find_tools found, by its qualified name, with arguments matching its input schema.',
    inputSchema: {
      type: 'object',
      properties: {
        tool: { type: 'string', description: 'The qualified name switchboard__find_tools returned (server__tool).' },
        arguments: { type: 'object', description: "The tool's arguments." },
      },
      required: ['tool'],
    },
  },
]);

/** Whether the aggregated endpoint adds the search tools: the budget left tools out, and no tool has their names. */
export function offersSearchTools(snapshot: CatalogSnapshot): boolean {
  // Asked on every tools/call of the aggregated endpoint: a snapshot (10,000 tools) is scanned once.
  let offered = searchToolsOffered.get(snapshot);
  if (offered === undefined) {
    const tools = snapshot.servers.filter(isServedServer).flatMap((server) => server.tools);
    offered =
      tools.some((tool) => tool.filteredBy?.kind === 'budget') &&
      !tools.some((tool) => tool.qualifiedName === FIND_TOOLS || tool.qualifiedName === CALL_TOOL);
    searchToolsOffered.set(snapshot, offered);
  }
  return offered;
}

const searchToolsOffered = new WeakMap<CatalogSnapshot, boolean>();

export function listedTools(snapshot: CatalogSnapshot, endpoint: EndpointId, options: ListingOptions = {}): Tool[] {
  const servers = snapshot.servers.filter(isServedServer);
  if (endpoint.kind === 'aggregated') {
    const listed = servers.flatMap((server) =>
      server.tools.filter((tool) => tool.exposed).map((tool) => listing(tool, tool.qualifiedName, options)),
    );
    return offersSearchTools(snapshot) ? [...listed, ...SEARCH_TOOLS] : listed;
  }
  const server = servers.find((candidate) => candidate.name === endpoint.server);
  return server ? server.tools.filter((tool) => tool.exposed).map((tool) => listing(tool, tool.name, options)) : [];
}

/** A tool's task support (2025-11-25 `execution.taskSupport`), "forbidden" when it says nothing. */
export function taskSupportOf(snapshot: CatalogSnapshot, target: CallTarget): 'forbidden' | 'optional' | 'required' {
  const tool = snapshot.servers.find((server) => server.name === target.server)?.tools.find((entry) => entry.name === target.name);
  const support = (tool?.tool.execution as { taskSupport?: unknown } | undefined)?.taskSupport;
  return support === 'optional' || support === 'required' ? support : 'forbidden';
}

/** Equal lists give equal fingerprints; a hash keeps the stored value small for large lists. */
export function listFingerprint(tools: readonly Tool[]): string {
  return fingerprint(tools, 64);
}
