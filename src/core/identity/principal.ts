// Who a request to a team gateway comes from: the subject of a verified access token, with the
// claims a policy may read. Built only by the token verifier (jwtVerifier.ts) from a token whose
// signature, issuer, audience and lifetime it checked; carried through the MCP SDK as its
// pass-through `AuthInfo`, whose `extra` holds it.
import type { AuthInfo } from '@modelcontextprotocol/server';

export interface Principal {
  /** The token's `iss`. */
  readonly issuer: string;
  /** The token's `sub`: who the user is, for the issuer. */
  readonly subject: string;
  /** `issuer` and `subject` together: one user, whoever else uses the same subject at another issuer. */
  readonly key: string;
  /** The OAuth client the token was issued to (`client_id` or `azp`), when the token says. */
  readonly clientId: string | undefined;
  readonly scopes: readonly string[];
  /** The token's claims as issued (JSON values), for the policy's matches. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** When the token expires, in seconds since the epoch. */
  readonly expiresAt: number;
}

const PRINCIPAL = 'mcpSwitchboardPrincipal';

/** The principal a verified token's AuthInfo carries, or undefined for any other AuthInfo. */
export function principalOf(authInfo: AuthInfo | undefined): Principal | undefined {
  const principal = authInfo?.extra?.[PRINCIPAL];
  return isPrincipal(principal) ? principal : undefined;
}

export function authInfoOf(principal: Principal, token: string): AuthInfo {
  return {
    token,
    clientId: principal.clientId ?? '',
    scopes: [...principal.scopes],
    expiresAt: principal.expiresAt,
    extra: { [PRINCIPAL]: principal },
  };
}

function isPrincipal(value: unknown): value is Principal {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Principal>;
  return typeof candidate.key === 'string' && typeof candidate.subject === 'string' && Array.isArray(candidate.scopes);
}
