// Checks a team's OAuth access tokens locally: JWTs (RFC 9068 and the common shapes of Entra ID,
// Okta, Keycloak, Auth0) signed by a key in the issuer's JWKS. `jose` owns the cryptography and
// the JWKS cache (rotation, cooldown, timeouts); the MCP SDK owns what happens around it (the
// Bearer header, the audience as a resource, scopes, expiry, the challenge). This file decides
// only what a token must say to be believed, and turns it into a Principal.
import { discoverAuthorizationServerMetadata, type AuthorizationServerMetadata } from '@modelcontextprotocol/client';
import { OAuthError, OAuthErrorCode, type AuthInfo, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
// jose is published as an ES module only: loaded when a verifier is made, its types imported as such.
import type { JWTPayload, JWTVerifyGetKey } from 'jose' with { 'resolution-mode': 'import' };

type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });
import { systemClock, type Clock } from '../base/clock';
import { errorMessage } from '../base/errorMessage';
import { authInfoOf, type Principal } from './principal';

/** Asymmetric algorithms only: a shared-secret (HS*) or `none` token is never believed. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** Longer is not a token an identity provider issued; refused before any parsing. */
export const MAX_TOKEN_CHARS = 8192;
/** Clocks of the issuer and the gateway may differ this much. */
const CLOCK_TOLERANCE_S = 30;
const DISCOVERY_TIMEOUT_MS = 10_000;
/**
 * Tokens already verified, until they expire: a client sends the same token with every request,
 * and checking its signature again each time was most of the JWT's cost per call (bench:team).
 * A JWT cannot be revoked before it expires anyway; the cache changes nothing about which tokens
 * are believed, only how often the same one is checked.
 */
const MAX_VERIFIED = 4096;
const MAX_CLAIMS_CHARS = 16_384;

export interface JwtVerifierOptions {
  /** The issuer's identifier, exactly as its tokens' `iss` (and its metadata's `issuer`) spell it. */
  readonly issuer: string;
  readonly clock?: Clock;
  /** For discovery and the JWKS (tests give the issuer's own loopback fetch; default: global fetch). */
  readonly fetch?: typeof fetch;
}

/**
 * The verifier, with the issuer's metadata (the gateway's protected resource metadata names it).
 * It checks who signed a token and when it is valid; whether the token is for this gateway (its
 * audience) is the resource server's check, which knows the gateway's URL.
 */
export interface JwtVerifier extends OAuthTokenVerifier {
  readonly issuer: string;
  readonly metadata: AuthorizationServerMetadata;
}

/**
 * Reads the issuer's metadata (RFC 8414, then OpenID discovery) for its JWKS. Throws, naming the
 * issuer, when it cannot be read within 10 s or names another issuer: a gateway that cannot check
 * tokens must not start as if it could.
 */
export async function createJwtVerifier(options: JwtVerifierOptions): Promise<JwtVerifier> {
  const clock = options.clock ?? systemClock;
  const fetchFn = options.fetch ?? fetch;
  const timedFetch: typeof fetch = (input, init) => fetchFn(input, { ...init, signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS) });
  let metadata: AuthorizationServerMetadata | undefined;
  try {
    metadata = await discoverAuthorizationServerMetadata(options.issuer, { fetchFn: timedFetch });
  } catch (error) {
    throw new Error(`The issuer ${options.issuer} could not be read: ${errorMessage(error)}`);
  }
  if (!metadata) throw new Error(`The issuer ${options.issuer} publishes no OAuth or OpenID metadata`);
  const jwksUri = (metadata as { jwks_uri?: unknown }).jwks_uri;
  if (typeof jwksUri !== 'string') throw new Error(`The issuer ${options.issuer} publishes no jwks_uri: its tokens cannot be checked here`);
  let keyUrl: URL;
  try {
    keyUrl = new URL(jwksUri);
  } catch {
    throw new Error(`The issuer ${options.issuer} publishes an unusable jwks_uri`);
  }
  if (keyUrl.protocol !== 'https:' && !isLoopbackUrl(keyUrl))
    throw new Error(`The issuer's keys must be served over HTTPS, not ${keyUrl.href}`);
  const jose: Jose = await import('jose');
  const keys = jose.createRemoteJWKSet(keyUrl, {
    timeoutDuration: 5_000,
    // A token signed by a key not in the cached set makes the set be read again, at most this often.
    cooldownDuration: 30_000,
    cacheMaxAge: 10 * 60_000,
    [jose.customFetch]: (url, init) => fetchFn(url, init),
  });
  const verified = new Map<string, AuthInfo>();
  return {
    issuer: options.issuer,
    metadata,
    verifyAccessToken: async (token) => {
      const known = verified.get(token);
      // Expired on this clock: checked again (and refused) as if never seen.
      if (known && (known.expiresAt ?? 0) * 1000 > clock.now()) return known;
      verified.delete(token);
      const authInfo = await verify(jose, token, keys, options, clock);
      if (verified.size >= MAX_VERIFIED) verified.delete(verified.keys().next().value as string);
      verified.set(token, authInfo);
      return authInfo;
    },
  };
}

async function verify(jose: Jose, token: string, keys: JWTVerifyGetKey, options: JwtVerifierOptions, clock: Clock): Promise<AuthInfo> {
  if (token.length > MAX_TOKEN_CHARS) throw invalid('the token is too long');
  let payload: JWTPayload;
  try {
    ({ payload } = await jose.jwtVerify(token, keys, {
      issuer: options.issuer,
      algorithms: ALGORITHMS,
      clockTolerance: CLOCK_TOLERANCE_S,
      currentDate: new Date(clock.now()),
      requiredClaims: ['exp', 'sub'],
    }));
  } catch (error) {
    throw refusal(jose, error);
  }
  if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 255) throw invalid('the token names no subject');
  if (JSON.stringify(payload).length > MAX_CLAIMS_CHARS) throw invalid('the token carries too many claims');
  const principal: Principal = {
    issuer: options.issuer,
    subject: payload.sub,
    key: `${options.issuer} ${payload.sub}`,
    clientId: stringClaim(payload, 'client_id') ?? stringClaim(payload, 'azp'),
    scopes: scopesOf(payload),
    claims: payload as Record<string, unknown>,
    expiresAt: payload.exp ?? 0,
  };
  return authInfoOf(principal, token);
}

/** The token's `aud`: one value or a list (RFC 7519). */
export function audiencesOf(principal: Principal): readonly string[] {
  const aud = principal.claims.aud;
  if (typeof aud === 'string') return [aud];
  return Array.isArray(aud) ? aud.filter((entry): entry is string => typeof entry === 'string') : [];
}

/** `scope` (RFC 9068, a space-separated string) or `scp` (Entra, Okta: a string or a list). */
function scopesOf(payload: JWTPayload): string[] {
  const raw = payload.scope ?? payload.scp;
  const list = typeof raw === 'string' ? raw.split(' ') : Array.isArray(raw) ? raw : [];
  return list.filter((scope): scope is string => typeof scope === 'string' && scope !== '').slice(0, 256);
}

function stringClaim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name];
  return typeof value === 'string' && value.length <= 255 ? value : undefined;
}

function invalid(reason: string): OAuthError {
  return new OAuthError(OAuthErrorCode.InvalidToken, `Invalid access token: ${reason}`);
}

/**
 * What the client is told: why its token was refused, never which key or claim value the gateway
 * expected. A failure to read the issuer's keys is the gateway's problem (500), not the token's.
 */
function refusal({ errors: joseErrors }: Jose, error: unknown): OAuthError {
  if (error instanceof joseErrors.JWTExpired) return invalid('the token has expired');
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return invalid('the token is for another audience');
    if (error.claim === 'iss') return invalid('the token is from another issuer');
    if (error.claim === 'nbf') return invalid('the token is not valid yet');
    return invalid(`the token's "${error.claim}" claim is missing or wrong`);
  }
  if (error instanceof joseErrors.JWKSNoMatchingKey) return invalid('the token is not signed by a key of the issuer');
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return invalid('the signature does not verify');
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return invalid('the token is signed with an algorithm this gateway does not accept');
  if (error instanceof joseErrors.JWKSTimeout || !(error instanceof joseErrors.JOSEError)) {
    return new OAuthError(OAuthErrorCode.ServerError, `The issuer's keys could not be read: ${errorMessage(error).slice(0, 200)}`);
  }
  return invalid('the token is not a JWT this gateway can check');
}

function isLoopbackUrl(url: URL): boolean {
  return url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
}
