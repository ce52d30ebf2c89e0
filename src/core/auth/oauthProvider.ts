// The SDK's OAuthClientProvider for one remote server. The SDK runs the protocol (discovery,
// registration, PKCE, the token requests, step-up); this class decides what the host decides:
// where credentials live (by issuer), when to refresh, and that nothing opens a browser unless a
// person asked to sign in. Outside an interactive sign-in, every path that would need one throws
// SignInRequiredError instead, so a background connect can never start a sign-in loop.
import { randomBytes } from 'node:crypto';
import {
  auth,
  type FetchLike,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { OAuthSettings } from '../config/types';
import type { Clock } from '../connection/clock';
import type { Logger } from '../logging';
import type { ServerCredentials } from './credentials';
import { SignInRequiredError } from './errors';

/** What an interactive sign-in lends the provider for its duration. */
export interface InteractiveSignIn {
  readonly redirectUrl: string;
  open(authorizationUrl: URL): Promise<void>;
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
/** Where the SDK needs some redirect URI outside a sign-in (it is never sent anywhere then). */
const BACKGROUND_REDIRECT = 'http://127.0.0.1/oauth/callback';
const CLIENT_NAME = 'MCP Switchboard';

export class SwitchboardOAuthProvider implements OAuthClientProvider {
  private interactive: InteractiveSignIn | undefined;
  private verifier: string | undefined;
  private pendingState: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(private readonly options: OAuthProviderOptions) {}

  private get settings(): OAuthSettings {
    return this.options.settings;
  }

  private get unattended(): boolean {
    return this.settings.grant === 'client_credentials';
  }

  /** The `state` sent with the current authorization request, to match its callback. */
  get expectedState(): string | undefined {
    return this.pendingState;
  }

  /** Runs `body` as an interactive sign-in: the one time a browser may be opened. */
  async withInteractiveSignIn<T>(signIn: InteractiveSignIn, body: () => Promise<T>): Promise<T> {
    this.interactive = signIn;
    try {
      return await body();
    } finally {
      this.interactive = undefined;
      this.verifier = undefined;
      this.pendingState = undefined;
    }
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
    const secret = this.settings.clientSecret !== undefined;
    return {
      client_name: CLIENT_NAME,
      client_uri: 'https://github.com/switchboard-labs/mcp-switchboard',
      redirect_uris: redirect ? [redirect] : [],
      grant_types: this.unattended ? ['client_credentials'] : ['authorization_code', 'refresh_token'],
      response_types: this.unattended ? [] : ['code'],
      token_endpoint_auth_method: this.settings.tokenEndpointAuthMethod ?? (secret ? 'client_secret_basic' : 'none'),
      ...(this.settings.scopes ? { scope: this.settings.scopes.join(' ') } : {}),
    };
  }

  state(): string {
    this.pendingState = randomBytes(32).toString('base64url');
    return this.pendingState;
  }

  async clientInformation(ctx?: OAuthClientInformationContext): Promise<StoredOAuthClientInformation | undefined> {
    const { clientId, clientSecret, tokenEndpointAuthMethod } = this.settings;
    if (clientId) {
      return {
        client_id: clientId,
        ...(clientSecret === undefined ? {} : { client_secret: clientSecret }),
        ...(tokenEndpointAuthMethod ? { token_endpoint_auth_method: tokenEndpointAuthMethod } : {}),
      };
    }
    const saved = ctx ? await this.options.credentials.client(ctx.issuer) : undefined;
    // A registration carries its redirect URI; a sign-in from elsewhere (another port, another
    // host name) needs a registration of its own. A metadata-document client has none to match.
    const usable = saved && (saved.redirectUrl === undefined || !this.interactive || saved.redirectUrl === this.interactive.redirectUrl);
    if (usable) return saved.client;
    if (!this.interactive) throw new SignInRequiredError('signInRequired', 'sign-in required: this server asks for OAuth and Switchboard has no credentials for it');
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
    if (await this.expiresSoon()) await this.refreshBeforeExpiry();
    return (await this.options.credentials.tokens())?.tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): Promise<void> {
    const issuer = ctx?.issuer ?? tokens.issuer ?? this.discovery?.authorizationServerMetadata?.issuer;
    if (issuer === undefined) throw new Error('cannot keep tokens without the issuer of the authorization server');
    await this.options.credentials.saveTokens(issuer, tokens, this.options.clock.now());
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (this.interactive) return this.interactive.open(authorizationUrl);
    const scope = authorizationUrl.searchParams.get('scope') ?? undefined;
    const granted = (await this.options.credentials.tokens())?.tokens;
    // Tokens still saved that lack part of the scope asked for: the transport's step-up.
    const have = new Set((granted?.scope ?? '').split(' '));
    if (granted && scope !== undefined && scope.split(' ').some((item) => !have.has(item))) {
      throw new SignInRequiredError('scope', `sign-in required: the server asks for more access (scope "${scope}")`, scope);
    }
    throw new SignInRequiredError('signInRequired', 'sign-in required: the saved sign-in expired or was revoked', scope);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no sign-in is in progress for this server');
    return this.verifier;
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
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }

  /** Another process (`mcp-switchboard login`) or window may have signed in: read them again. */
  credentialsMayHaveChanged(): void {
    this.options.credentials.invalidateCache();
  }

  /** Whether a sign-in was saved (a token from any issuer). */
  hasSavedSignIn(): Promise<boolean> {
    return this.options.credentials.hasTokens();
  }

  /** Forgets everything this server's sign-in saved (Sign Out). */
  async signOut(): Promise<void> {
    this.discovery = undefined;
    this.verifier = undefined;
    await this.options.credentials.forget();
  }

  private async expiresSoon(): Promise<boolean> {
    const saved = await this.options.credentials.tokens();
    const expiresIn = saved?.tokens.expires_in;
    if (!saved?.tokens.refresh_token || typeof expiresIn !== 'number') return false;
    return saved.savedAt + expiresIn * 1000 - REFRESH_MARGIN_MS <= this.options.clock.now();
  }

  /** One refresh at a time; a failure leaves the old tokens, and the 401 that follows decides. */
  private refreshBeforeExpiry(): Promise<void> {
    this.refreshing ??= auth(this, { serverUrl: this.options.serverUrl, ...(this.options.fetch ? { fetchFn: this.options.fetch } : {}) })
      .then(() => this.options.logger.info('oauth: refreshed the access token before it expired'))
      .catch((error: unknown) => this.options.logger.warn(`oauth: refresh before expiry failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }
}
