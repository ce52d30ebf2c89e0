// What each endpoint offers, decided from one catalog snapshot: which servers get an endpoint,
// which tools an endpoint lists, and which upstream tool a call names (or why it may not be called).
import { createHash } from 'node:crypto';
import { ProtocolErrorCode, type ProtocolError, type Tool } from '@modelcontextprotocol/server';
import { describeFilterRule } from '../catalog/filters';
import type { CatalogServer, CatalogSnapshot, CatalogTool } from '../catalog/types';
import { isServed } from '../connection/state';
import { rpcError } from './callErrors';
import type { EndpointId } from './endpoint';

export interface CallTarget {
  readonly server: string;
  /** The upstream tool name. */
  readonly name: string;
}

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

/**
 * The upstream definition under the name this endpoint uses. `execution` is dropped: it
 * advertises task support, and the gateway forwards plain calls only.
 */
function listing(tool: CatalogTool, name: string): Tool {
  const { execution: _execution, ...definition } = structuredClone(tool.tool);
  // The catalog holds the client package's Tool, served through the server package's: the same
  // wire shape, declared twice (the server's narrows schema properties to objects).
  return { ...definition, name } as Tool;
}

export function listedTools(snapshot: CatalogSnapshot, endpoint: EndpointId): Tool[] {
  const servers = snapshot.servers.filter(isServedServer);
  if (endpoint.kind === 'aggregated') {
    return servers.flatMap((server) => server.tools.filter((tool) => tool.exposed).map((tool) => listing(tool, tool.qualifiedName)));
  }
  const server = servers.find((candidate) => candidate.name === endpoint.server);
  return server ? server.tools.filter((tool) => tool.exposed).map((tool) => listing(tool, tool.name)) : [];
}

/** Equal lists give equal fingerprints; a hash keeps the stored value small for large lists. */
export function listFingerprint(tools: readonly Tool[]): string {
  return createHash('sha256').update(JSON.stringify(tools)).digest('hex');
}

function invalid(message: string): ProtocolError {
  return rpcError(ProtocolErrorCode.InvalidParams, message);
}

/**
 * The upstream tool that `requested` names on this endpoint. Throws an InvalidParams ProtocolError
 * naming the reason for a tool that is unknown, filtered out, or on a server without an endpoint.
 */
export function resolveCall(snapshot: CatalogSnapshot, endpoint: EndpointId, requested: string): CallTarget {
  let server: CatalogServer | undefined;
  let tool: CatalogTool | undefined;
  if (endpoint.kind === 'aggregated') {
    for (const candidate of snapshot.servers) {
      tool = candidate.tools.find((entry) => entry.qualifiedName === requested);
      if (tool) {
        server = candidate;
        break;
      }
    }
    if (!server || !tool) throw invalid(`Unknown tool "${requested}": no server offers a tool with this qualified name`);
  } else {
    server = snapshot.servers.find((candidate) => candidate.name === endpoint.server);
    if (!server) throw invalid(`Unknown tool "${requested}": server "${endpoint.server}" is no longer configured`);
    tool = server.tools.find((entry) => entry.name === requested);
    if (!tool) throw invalid(`Unknown tool "${requested}": server "${server.name}" has no tool with this name`);
  }
  if (!isServedServer(server)) throw invalid(`Tool "${requested}" is unavailable: server "${server.name}" is ${server.state}`);
  if (!tool.exposed) {
    const reason = tool.filteredBy ? describeFilterRule(tool.filteredBy, server.name) : 'filtered out';
    throw invalid(`Tool "${requested}" of server "${server.name}" is not exposed: ${reason}`);
  }
  return { server: server.name, name: tool.name };
}
