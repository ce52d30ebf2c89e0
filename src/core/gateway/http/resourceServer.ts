// The gateway as an OAuth 2.1 resource server (serve for a team): instead of one static token, each
// request carries a user's access token from the team's identity provider. The MCP SDK owns the
// mechanics (the Bearer header, scopes, expiry, the `WWW-Authenticate` challenge, the protected
// resource metadata document); this file adds what is the gateway's: its resource URL and the
// audience a token must name, and the catalog each user may see under the policy.
import type http from 'node:http';
import {
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  type AuthInfo,
  type OAuthProtectedResourceMetadata,
  type VerifyBearerTokenOptions,
} from '@modelcontextprotocol/server';
import type { OfferSource, ToolSource } from '../../catalog';
import {
  audiencesOf,
  FULL_GRANT,
  grantedCatalog,
  principalOf,
  type AccessPolicy,
  type DeniedCall,
  type GrantedCatalog,
  type JwtVerifier,
  type Principal,
} from '../../identity';

export interface GatewayIdentity {
  readonly verifier: JwtVerifier;
  /**
   * The gateway's `/mcp` as clients reach it (`https://mcp.example.com/mcp` behind an ingress): the
   * resource its tokens are for. Absent: `http://<address>:<port>/mcp` as it listens.
   */
  readonly resource?: URL;
  /** What a token's `aud` must contain; the resource URL when absent. */
  readonly audience?: string;
  /** Scopes every request's token must carry (403 insufficient_scope otherwise). */
  readonly requiredScopes?: readonly string[];
  /** Who may see and call what; everyone signed in sees everything when absent. */
  readonly policy?: AccessPolicy;
  /** Told of every call a policy refused (the audit log). */
  readonly onDenied?: (denied: DeniedCall) => void;
}

const METADATA_PREFIX = '/.well-known/oauth-protected-resource';
/** Distinct grants whose catalog views are kept; a team has few. */
const MAX_VIEWS = 1024;

/**
 * What the gateway asks of a team gateway's identity: made by `serve` once the gateway listens
 * (its URL is the default resource). An interface, so that the editor's gateway, which never takes
 * users' tokens, carries none of this (nor jose) in its bundle.
 */
export interface RequestIdentity {
  /** The issuer whose tokens it takes, for the log. */
  readonly issuer: string;
  isMetadataPath(path: string): boolean;
  answerMetadata(req: http.IncomingMessage, res: http.ServerResponse): void;
  authenticate(req: http.IncomingMessage, res: http.ServerResponse): Promise<Authentication>;
  catalogFor(principal: Principal | undefined): GrantedCatalog;
  /** The catalog changed: each user view's search index follows, after the burst of changes, not on a user's next search. */
  catalogChanged(): void;
}

/** Makes the identity once the gateway listens. */
export type IdentityFactory = (listening: {
  readonly url: string;
  readonly source: ToolSource;
  readonly offers: OfferSource | undefined;
}) => RequestIdentity;

/** A factory for `identity` (GatewayOptions): the OAuth resource server below. */
export function oauthIdentity(identity: GatewayIdentity): IdentityFactory {
  return ({ url, source, offers }) => new ResourceServer(identity, url, source, offers);
}

export type Authentication = { readonly ok: true; readonly authInfo: AuthInfo; readonly principal: Principal } | { readonly ok: false };

export class ResourceServer implements RequestIdentity {
  readonly resource: URL;
  readonly issuer: string;
  private readonly audience: string;
  private readonly metadataUrl: string;
  private readonly metadata: OAuthProtectedResourceMetadata;
  private readonly views = new Map<string, GrantedCatalog>();
  /** What the SDK's bearer check and challenge need: the same for every request. */
  private readonly bearerOptions: { readonly requiredScopes?: string[]; readonly resourceMetadataUrl: string };
  private readonly verifyOptions: VerifyBearerTokenOptions;

  constructor(
    private readonly identity: GatewayIdentity,
    listeningUrl: string,
    private readonly source: ToolSource,
    private readonly offers: OfferSource | undefined,
  ) {
    this.resource = identity.resource ?? new URL('/mcp', listeningUrl);
    this.issuer = identity.verifier.issuer;
    this.audience = identity.audience ?? this.resource.href;
    this.metadataUrl = getOAuthProtectedResourceMetadataUrl(this.resource);
    this.bearerOptions = {
      ...(identity.requiredScopes?.length ? { requiredScopes: [...identity.requiredScopes] } : {}),
      resourceMetadataUrl: this.metadataUrl,
    };
    this.verifyOptions = { verifier: identity.verifier, ...this.bearerOptions };
    const issuer = new URL(identity.verifier.issuer);
    this.metadata = buildOAuthProtectedResourceMetadata({
      oauthMetadata: identity.verifier.metadata,
      resourceServerUrl: this.resource,
      resourceName: 'MCP Switchboard',
      ...(identity.requiredScopes?.length ? { scopesSupported: [...identity.requiredScopes] } : {}),
      // The SDK asks for HTTPS outside localhost; an issuer on a loopback address is a test's or one machine's.
      dangerouslyAllowInsecureIssuerUrl: issuer.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(issuer.hostname),
    });
  }

  /**
   * RFC 9728's document, at `/.well-known/oauth-protected-resource` followed by the path of any
   * endpoint (a client of `/mcp/github` looks there first) or by nothing. Every endpoint is part of
   * one resource, so a token for it serves them all.
   */
  isMetadataPath(path: string): boolean {
    return path === METADATA_PREFIX || path === `${METADATA_PREFIX}/mcp` || path.startsWith(`${METADATA_PREFIX}/mcp/`);
  }

  answerMetadata(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'application/json' }).end('{"error":"method_not_allowed"}');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=300' });
    res.end(req.method === 'HEAD' ? undefined : JSON.stringify(this.metadata));
  }

  /** The request's user, or undefined once a challenge (401, 403 or 500) has been answered. */
  async authenticate(req: http.IncomingMessage, res: http.ServerResponse): Promise<Authentication> {
    const options = this.bearerOptions;
    try {
      const authInfo = await verifyBearerToken(req.headers.authorization, this.verifyOptions);
      const principal = principalOf(authInfo);
      if (!principal) throw new OAuthError(OAuthErrorCode.InvalidToken, 'Invalid access token');
      if (!audiencesOf(principal).includes(this.audience))
        throw new OAuthError(OAuthErrorCode.InvalidToken, 'Invalid access token: the token is for another audience');
      return { ok: true, authInfo, principal };
    } catch (error) {
      const answer = bearerAuthChallengeResponse(error, options);
      const headers: Record<string, string> = {};
      answer.headers.forEach((value, name) => (headers[name] = value));
      res.writeHead(answer.status, headers).end(await answer.text());
      return { ok: false };
    }
  }

  private searchUpdate: ReturnType<typeof setImmediate> | undefined;

  catalogChanged(): void {
    if (this.searchUpdate) return;
    this.searchUpdate = setImmediate(() => {
      this.searchUpdate = undefined;
      for (const view of this.views.values()) {
        try {
          view.updateSearch();
        } catch {
          // Not in any request: the view's next search updates it again, and a failure there is
          // answered and logged as that request's.
        }
      }
    });
    this.searchUpdate.unref?.();
  }

  /** What `principal` may see and call: one view per distinct grant, shared by everyone it fits. */
  catalogFor(principal: Principal | undefined): GrantedCatalog {
    const policy = this.identity.policy;
    const grant = principal && policy ? policy.grantFor(principal) : FULL_GRANT;
    let view = this.views.get(grant.key);
    if (!view) {
      view = grantedCatalog(this.source, this.offers, grant, this.identity.onDenied);
      if (this.views.size >= MAX_VIEWS) this.views.clear();
      this.views.set(grant.key, view);
    }
    return view;
  }
}
