// The SDK's OAuthClientProvider for one remote server. The SDK runs the protocol (discovery,
// registration, PKCE, the token requests, step-up); this class decides what the host decides:
// where credentials live (by issuer), when to refresh, and that nothing opens a browser unless a
// person asked to sign in. Outside an interactive sign-in, every path that would need one throws
// SignInRequiredError instead, so a background connect can never start a sign-in loop.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import {
  auth,
  createPrivateKeyJwtAuth,
  withDpopFromProvider,
  type DpopSession,
  extractWWWAuthenticateParams,
  UnauthorizedError,
  type AuthProvider,
  type FetchLike,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { OAuthSettings } from '../config';
import type { Clock } from '../base/clock';
import type { Logger } from '../base/logging';
import type { SavedTokens, ServerCredentials } from './credentials';
import { SignInRequiredError } from './errors';
import { errorMessage } from '../base/errorMessage';
import { signingAlgorithm } from '../base/signingKey';
import { dpopSessionFor } from './dpopKey';
import { grantTypes, isUnattended, unattendedTokenRequest } from './unattendedGrant';

/** What an interactive sign-in lends the provider for its duration. */
export interface InteractiveSignIn {
  readonly redirectUrl: string;
  /** A step-up's scope: a registration made for less must be replaced, or the server refuses it. */
  readonly scope?: string;
  open(authorizationUrl: URL): Promise<void>;
}

/** One sign-in's own secret, kept in its async context. */
interface SignInSession {
  readonly signIn: InteractiveSignIn;
  verifier?: string;
}

export interface OAuthProviderOptions {
  readonly serverUrl: string;
  readonly settings: OAuthSettings;
  readonly credentials: ServerCredentials;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly fetch?: FetchLike;
}

/** Tokens this close to expiry are refreshed before a request rather than after its 401. */
export const REFRESH_MARGIN_MS = 60_000;
const REFRESH_RETRY_MS = 30_000;
/** Where the SDK needs some redirect URI outside a sign-in (it is never sent anywhere then). */
const BACKGROUND_REDIRECT = 'http://127.0.0.1/oauth/callback';
const CLIENT_NAME = 'MCP Switchboard';

export class SwitchboardOAuthProvider implements OAuthClientProvider {
  private keyAuth: OAuthClientProvider['addClientAuthentication'];
  private dpopSession: Promise<DpopSession> | undefined;
  /**
   * The sign-in whose SDK calls are running, by async context: a background connect or refresh
   * that runs at the same time on this provider stays non-interactive (it must never open a
   * browser or register a client because somebody happens to be signing in).
   */
  private readonly signInContext = new AsyncLocalStorage<SignInSession>();
  private discovery: OAuthDiscoveryState | undefined;
  /** The one refresh or re-authorization running; concurrent 401s wait for it instead of racing. */
  private renewal: Promise<void> | undefined;
  /** After a refresh before expiry failed: no new try before this (epoch ms), so that an
   * authorization server that is down does not delay every request with a refresh of its own. */
  private refreshPausedUntil = 0;
  /** What the server's last 401 said (WWW-Authenticate): where its metadata is, what scope it wants. */
  private challenge: { readonly scope?: string; readonly resourceMetadataUrl?: URL } = {};

  constructor(private readonly options: OAuthProviderOptions) {}

  private get settings(): OAuthSettings {
    return this.options.settings;
  }

  private get unattended(): boolean {
    return isUnattended(this.settings);
  }

  /** Runs `body` as an interactive sign-in: the one time a browser may be opened. */
  withInteractiveSignIn<T>(signIn: InteractiveSignIn, body: () => Promise<T>): Promise<T> {
    // The PKCE verifier belongs to this sign-in: a background connect that runs meanwhile makes
    // (and drops) its own.
    return this.signInContext.run({ signIn }, body);
  }

  private get interactive(): InteractiveSignIn | undefined {
    return this.signInContext.getStore()?.signIn;
  }

  get redirectUrl(): string | undefined {
    if (this.unattended) return undefined;
    return this.interactive?.redirectUrl ?? BACKGROUND_REDIRECT;
  }

  get clientMetadataUrl(): string | undefined {
    return this.settings.clientId ? undefined : this.settings.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const redirect = this.redirectUrl;
    const secret = this.settings.clientSecret !== undefined || this.settings.privateKey !== undefined;
    return {
      client_name: CLIENT_NAME,
      client_uri: 'https://github.com/switchboard-labs/mcp-switchboard',
      redirect_uris: redirect ? [redirect] : [],
      grant_types: grantTypes(this.settings),
      response_types: this.unattended ? [] : ['code'],
      token_endpoint_auth_method: this.settings.tokenEndpointAuthMethod ?? (secret ? 'client_secret_basic' : 'none'),
      ...(this.settings.scopes ? { scope: this.settings.scopes.join(' ') } : {}),
    };
  }

  /**
   * `private_key_jwt` (RFC 7523): each token request carries an assertion signed with the
   * configured private key, made by the SDK (`createPrivateKeyJwtAuth`); `iss` and `sub` are the
   * client id. Absent for every other method: the SDK then authenticates as registered.
   */
  get addClientAuthentication(): OAuthClientProvider['addClientAuthentication'] {
    const { tokenEndpointAuthMethod, privateKey, clientId, signingAlgorithm: algorithm } = this.settings;
    if (tokenEndpointAuthMethod !== 'private_key_jwt' || !privateKey || !clientId) return undefined;
    this.keyAuth ??= createPrivateKeyJwtAuth({
      issuer: clientId,
      subject: clientId,
      privateKey,
      alg: signingAlgorithm(privateKey, algorithm),
    });
    return this.keyAuth;
  }

  /**
   * DPoP (RFC 9449, the MCP DPoP extension), when the entry asks for it: the SDK signs a proof
   * into each token request, and the transport's fetch (transportFetch) presents a DPoP-bound
   * token with a fresh proof per request. One session per provider, its key kept with the tokens.
   */
  dpop(): Promise<DpopSession> | undefined {
    if (!this.settings.dpop) return undefined;
    this.dpopSession ??= dpopSessionFor(this.options.credentials).catch((error: unknown) => {
      this.dpopSession = undefined;
      throw error;
    });
    return this.dpopSession;
  }

  /** The transport's fetch with DPoP applied; a Bearer token passes through it untouched. */
  transportFetch(base: FetchLike | undefined): FetchLike | undefined {
    if (!this.settings.dpop) return undefined;
    return withDpopFromProvider(this)(base ?? ((input, init) => fetch(input, init)));
  }

  state(): string {
    return randomBytes(32).toString('base64url');
  }

  async clientInformation(ctx?: OAuthClientInformationContext): Promise<StoredOAuthClientInformation | undefined> {
    const { clientId, clientSecret, tokenEndpointAuthMethod } = this.settings;
    if (clientId) {
      return {
        // Stamped with the issuer asked about: configured credentials belong to whichever server the entry names.
        ...(ctx ? { issuer: ctx.issuer } : {}),
        client_id: clientId,
        ...(clientSecret === undefined ? {} : { client_secret: clientSecret }),
        ...(tokenEndpointAuthMethod ? { token_endpoint_auth_method: tokenEndpointAuthMethod } : {}),
      };
    }
    const saved = ctx ? await this.options.credentials.client(ctx.issuer) : undefined;
    // A registration carries its redirect URI; a sign-in from elsewhere (another port, another
    // host name) needs a registration of its own. A metadata-document client has none to match.
    const usable =
      saved &&
      (saved.redirectUrl === undefined ||
        !this.interactive ||
        (saved.redirectUrl === this.interactive.redirectUrl && covers(registeredScope(saved.client), this.interactive.scope)));
    if (usable) return saved.client;
    if (!this.interactive)
      throw new SignInRequiredError('signInRequired', 'the server asks you to sign in (OAuth), and there is no saved sign-in for it yet');
    return undefined;
  }

  async saveClientInformation(client: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext): Promise<void> {
    const issuer = ctx?.issuer ?? client.issuer;
    if (issuer === undefined || this.settings.clientId) return;
    const metadataDocument = client.client_id === this.clientMetadataUrl;
    await this.options.credentials.saveClient(issuer, client, metadataDocument ? undefined : this.redirectUrl);
  }

  async tokens(ctx?: OAuthClientInformationContext): Promise<StoredOAuthTokens | undefined> {
    if (ctx) return (await this.options.credentials.tokens(ctx.issuer))?.tokens;
    // The transport's read before every request: refresh first when they are about to expire.
    const saved = await this.options.credentials.tokens();
    if (!this.expiresSoon(saved)) return saved?.tokens;
    await this.refreshBeforeExpiry();
    return (await this.options.credentials.tokens())?.tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): Promise<void> {
    const issuer = ctx?.issuer ?? tokens.issuer ?? this.discovery?.authorizationServerMetadata?.issuer;
    if (issuer === undefined) throw new Error('cannot keep tokens without the issuer of the authorization server');
    await this.options.credentials.saveTokens(issuer, tokens, this.options.clock.now());
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const interactive = this.interactive;
    // Whatever the host starts to show the page (and anything that starts meanwhile) runs outside
    // this sign-in's context: it is not part of the sign-in.
    if (interactive) return this.signInContext.exit(() => interactive.open(authorizationUrl));
    const scope = authorizationUrl.searchParams.get('scope') ?? undefined;
    const granted = (await this.options.credentials.tokens())?.tokens;
    // Tokens still saved that lack part of the scope asked for: the transport's step-up.
    const have = new Set((granted?.scope ?? '').split(' '));
    if (granted && scope !== undefined && scope.split(' ').some((item) => !have.has(item))) {
      throw new SignInRequiredError('scope', `the server asks for more access (scope "${scope}"); sign in again to grant it`, scope);
    }
    throw new SignInRequiredError('signInRequired', 'the saved sign-in expired or was revoked; sign in again', scope);
  }

  /** Unattended sign-in: the client's own credentials, or a workload's identity token, are the grant. */
  prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    const discovery = this.discovery;
    const audience = discovery?.authorizationServerMetadata?.issuer ?? discovery?.authorizationServerUrl;
    const resource = discovery?.resourceMetadata?.resource ?? this.options.serverUrl.toString();
    return unattendedTokenRequest(this.settings, scope, {
      audience,
      resource,
      fetchFn: this.options.fetch,
    });
  }

  saveCodeVerifier(codeVerifier: string): void {
    const session = this.signInContext.getStore();
    if (session) session.verifier = codeVerifier;
  }

  codeVerifier(): string {
    const verifier = this.signInContext.getStore()?.verifier;
    if (verifier === undefined) throw new Error('no sign-in is in progress for this server');
    return verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    const { credentials, logger } = this.options;
    if (scope === 'all' || scope === 'tokens') {
      logger.info('oauth: the saved tokens were refused; they are forgotten');
      await credentials.forgetTokens();
    }
    if (scope === 'all' || scope === 'client') {
      logger.info('oauth: the authorization server no longer knows the client registration; it is forgotten');
      await credentials.forgetClients();
    }
    if (scope === 'all' || scope === 'verifier') {
      const session = this.signInContext.getStore();
      if (session) delete session.verifier;
    }
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }

  /** Another process (`mcp-switchboard login`) or window may have signed in: read them again. */
  credentialsMayHaveChanged(): void {
    this.options.credentials.invalidateCache();
  }

  /** Forgets everything this server's sign-in saved (Sign Out). */
  async signOut(): Promise<void> {
    this.discovery = undefined;
    await this.options.credentials.forget();
  }

  private expiresSoon(saved: SavedTokens | undefined): boolean {
    const expiresIn = saved?.tokens.expires_in;
    if (!saved?.tokens.refresh_token || typeof expiresIn !== 'number') return false;
    const now = this.options.clock.now();
    return now >= this.refreshPausedUntil && saved.savedAt + expiresIn * 1000 - REFRESH_MARGIN_MS <= now;
  }

  /** A failed refresh leaves the old tokens; the 401 that follows decides. */
  private refreshBeforeExpiry(): Promise<void> {
    return this.renew(() => auth(this, { serverUrl: this.options.serverUrl, fetchFn: this.options.fetch })).then(
      () => this.options.logger.info('oauth: refreshed the access token before it expired'),
      (error: unknown) => {
        this.refreshPausedUntil = this.options.clock.now() + REFRESH_RETRY_MS;
        this.options.logger.warn(
          `oauth: refresh before expiry failed (next try in ${REFRESH_RETRY_MS / 1000} s, or at the server's 401): ${errorMessage(error)}`,
        );
      },
    );
  }

  /**
   * What the transport uses: the bearer token before each request, and one renewal on a 401.
   * Renewals are single-flight: authorization servers that rotate refresh tokens treat a second
   * use of one as theft and revoke the whole grant, and parallel requests (a call, a list, the
   * event stream) all see the same 401. A step-up (403 insufficient_scope) is not the transport's
   * to run here: it surfaces as InsufficientScopeError, and the server waits for Sign In.
   */
  transportAuth(): AuthProvider {
    return {
      token: async () => (await this.tokens())?.access_token,
      onUnauthorized: async ({ response, serverUrl, fetchFn }) => {
        const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
        this.challenge = { ...(scope ? { scope } : {}), resourceMetadataUrl };
        await this.renew(async () => {
          const result = await auth(this, {
            serverUrl,
            fetchFn,
            resourceMetadataUrl,
            ...(scope ? { scope } : {}),
          });
          if (result !== 'AUTHORIZED') throw new UnauthorizedError();
        });
      },
    };
  }

  /** The last 401's challenge, for the sign-in that answers it. */
  get lastChallenge(): { readonly scope?: string; readonly resourceMetadataUrl?: URL } {
    return this.challenge;
  }

  /** The scope the saved tokens were granted (for a step-up, which must keep it). */
  async grantedScope(): Promise<string | undefined> {
    return (await this.options.credentials.tokens())?.tokens.scope;
  }

  private renew(run: () => Promise<unknown>): Promise<void> {
    this.renewal ??= run()
      .then(() => undefined)
      .finally(() => (this.renewal = undefined));
    return this.renewal;
  }
}

/** Whether a client registered for `registered` may ask for `wanted` (no scope on record: any). */
function covers(registered: string | undefined, wanted: string | undefined): boolean {
  if (registered === undefined || wanted === undefined) return true;
  const allowed = new Set(registered.split(' '));
  return wanted.split(' ').every((scope) => scope === 'offline_access' || allowed.has(scope));
}

/** The scope a dynamic registration was made for, when the authorization server echoed it. */
function registeredScope(client: StoredOAuthClientInformation): string | undefined {
  const { scope } = client as { scope?: unknown };
  return typeof scope === 'string' ? scope : undefined;
}
