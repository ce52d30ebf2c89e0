// GET /servers: the servers a gateway client may use, each with its endpoint and its state, so that
// an editor can show a team gateway's servers as rows of their own (core/team). What it lists is
// what the request's user sees: on a team gateway their view under the policy, else the catalog.
import type http from 'node:http';
import type { CatalogSnapshot } from '../../catalog';
import { endpointPath, serverEndpoint } from '../http';
import { servedServers } from './exposure';

export const SERVER_LISTING_PATH = '/servers';

/** One listed server. `state` is the gateway's own view of its upstream (a ServerStateKind). */
export interface ListedServer {
  readonly name: string;
  /** The server's endpoint, a path below the gateway's base URL (`/mcp/<name>`). */
  readonly path: string;
  readonly state: string;
  /** The tools this user may call on it. */
  readonly tools: number;
}

export interface ServerListing {
  readonly servers: readonly ListedServer[];
}

export function listServers(snapshot: CatalogSnapshot): ServerListing {
  const served = new Set(servedServers(snapshot));
  return {
    servers: snapshot.servers
      .filter((server) => served.has(server.name))
      .map((server) => ({
        name: server.name,
        path: endpointPath(serverEndpoint(server.name)),
        state: server.state,
        tools: server.tools.filter((tool) => tool.exposed).length,
      })),
  };
}

/** The answer to GET /servers, from the snapshot of what the user sees; no server is started for it. */
export function answerListing(snapshot: CatalogSnapshot, req: http.IncomingMessage, res: http.ServerResponse): void {
  if (req.method !== 'GET') {
    res.writeHead(405, { Allow: 'GET', 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed' }, id: null }));
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(listServers(snapshot)));
}
