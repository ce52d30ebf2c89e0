// The gateway's addresses: `/mcp` serves every exposed tool under its qualified name, and
// `/mcp/<server>` serves one server's exposed tools under their upstream names.

export type EndpointId =
  | { readonly kind: 'aggregated' }
  | {
      readonly kind: 'server';
      readonly server: string;
      /**
       * Introduces itself as the upstream does (its own name and title), not by the configured
       * name: the machine host's endpoint for a window, whose row and tooltip show the server as
       * its own. The editor's endpoints keep the configured name, which it prefixes chat's tools with.
       */
      readonly asItself?: true;
    };

export const AGGREGATED: EndpointId = { kind: 'aggregated' };

const ROOT = '/mcp';

export function serverEndpoint(server: string, options: { readonly asItself?: true } = {}): EndpointId {
  return { kind: 'server', server, ...options };
}

/** A map key; `*` cannot clash because server keys carry a prefix. */
export function endpointKey(endpoint: EndpointId): string {
  return endpoint.kind === 'aggregated' ? '*' : `server:${endpoint.server}`;
}

export function endpointPath(endpoint: EndpointId): string {
  return endpoint.kind === 'aggregated' ? ROOT : `${ROOT}/${encodeURIComponent(endpoint.server)}`;
}

/**
 * The endpoint a request path names, or undefined. The server name is exactly one encoded path
 * segment, so `/mcp/a/b` is no endpoint while `/mcp/a%2Fb` is server `a/b`.
 */
export function parseEndpointPath(pathname: string): EndpointId | undefined {
  if (pathname === ROOT) return AGGREGATED;
  if (!pathname.startsWith(`${ROOT}/`)) return undefined;
  const segment = pathname.slice(ROOT.length + 1);
  if (segment.length === 0 || segment.includes('/')) return undefined;
  try {
    return serverEndpoint(decodeURIComponent(segment));
  } catch {
    return undefined; // Malformed percent-encoding names nothing.
  }
}

export function describeEndpoint(endpoint: EndpointId): string {
  return endpoint.kind === 'aggregated' ? 'the aggregated endpoint' : `the endpoint of server "${endpoint.server}"`;
}

/** Where a tools/call of an endpoint goes: the server, and the tool under its upstream name. */
export interface CallTarget {
  readonly server: string;
  /** The upstream tool name. */
  readonly name: string;
  /** The call's one deadline, when mapping its name already waited for its server (CallerOptions.readyBy). */
  readonly readyBy?: number;
  /**
   * Named by its qualified name on the aggregated endpoint: a refusal as unknown then reads as a
   * name that maps to nothing, so that a tool a user may not see and one that does not exist are
   * refused alike.
   */
  readonly qualified?: true;
}
