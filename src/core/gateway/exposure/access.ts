// What one request to the gateway may see and for how long: the whole catalog, or on a team
// gateway its user's view under the policy, from the token that very request carries. Sessions,
// listeners and the notifier all ask it, so that every answer and every notification is decided
// by the access of the client that gets it.
import type http from 'node:http';
import type { Clock } from '../../base/clock';
import type { OfferSource, ToolSource } from '../../catalog';
import type { GrantedCatalog, Principal } from '../../identity';

/**
 * What one request may see: the catalog, or on a team gateway its user's view under the policy,
 * decided from the token that very request carries. A 2025 session is opened with one and serves
 * only requests whose access is the same (gateway.ts closes it when a request's is not).
 */
export interface SessionAccess {
  readonly source: ToolSource;
  readonly offers: OfferSource | undefined;
  readonly principal?: Principal;
  /** The view's grant (`''` without identity): sessions and listeners of equal grants see the same. */
  readonly grant: string;
  /** Whether the view shows the server: nothing it announces reaches a client whose view does not. */
  allowsServer(server: string): boolean;
}

/** The whole catalog: the editor's gateway, or `serve` without identity. */
export function fullAccess(source: ToolSource, offers: OfferSource | undefined): SessionAccess {
  return { source, offers, grant: '', allowsServer: () => true };
}

/** Until when a request's token is valid, in epoch ms; Infinity without identity. */
export function tokenUntil(access: SessionAccess): number {
  return access.principal ? access.principal.expiresAt * 1000 : Number.POSITIVE_INFINITY;
}

/** A team gateway's request: its user's view. */
export function viewAccess(view: GrantedCatalog, principal: Principal | undefined): SessionAccess {
  return {
    source: view.source,
    offers: view.offers,
    grant: view.grant,
    allowsServer: (server) => view.allowsServer(server),
    principal,
  };
}

/**
 * Ends a stream of notifications when the token that opened it expires: what it would carry
 * after is for a user whose access nobody checked since. The client opens it again with a fresh
 * token, which decides anew what it may see.
 */
export function endWithToken(res: http.ServerResponse, principal: Principal, clock: Clock): void {
  const timer = clock.setTimeout(
    () => {
      if (!res.writableEnded) res.end();
    },
    Math.max(0, principal.expiresAt * 1000 - clock.now()),
  );
  res.once('close', () => clock.clearTimeout(timer));
}
