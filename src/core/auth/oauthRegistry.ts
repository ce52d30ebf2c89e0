// One OAuth provider per remote server (per URL and `oauth` settings), shared by its connection
// and its sign-in, so that the discovery a connect made is the one the sign-in uses.
import type { FetchLike } from '@modelcontextprotocol/client';
import { canonicalJson, signsInWithOAuth, type HttpServerDefinition, type OAuthSettings } from '../config';
import type { Clock } from '../base/clock';
import type { Logger } from '../base/logging';
import { credentialKey, isCredentialKey, ServerCredentials } from './credentials';
import { SwitchboardOAuthProvider } from './oauthProvider';
import type { SecretStore } from './secretStore';

export interface OAuthRegistryOptions {
  readonly store: SecretStore;
  readonly clock: Clock;
  /** The provider's log lines, per server. */
  readonly logger: (server: string) => Logger;
  readonly fetch?: FetchLike;
}

/** Where a server signs in: its own URL, or the one it shares (HttpServerDefinition.signInUrl). */
export function signInUrlOf(definition: HttpServerDefinition): string {
  return definition.signInUrl ?? definition.url;
}

/** Far more remote servers than anyone configures; past it the oldest provider is dropped. */
const MAX_PROVIDERS = 1000;

export class OAuthRegistry {
  private readonly providers = new Map<string, SwitchboardOAuthProvider>();

  constructor(private readonly options: OAuthRegistryOptions) {}

  providerFor(definition: HttpServerDefinition): SwitchboardOAuthProvider | undefined {
    if (!signsInWithOAuth(definition)) return undefined;
    return this.providerForUrl(signInUrlOf(definition), definition.oauth, definition.name);
  }

  /**
   * The provider of one sign-in: a server's URL, or the URL several servers share (a team
   * gateway's). `logAs` names whose log its lines go to, for the first to ask.
   */
  providerForUrl(url: string, settings: OAuthSettings, logAs: string): SwitchboardOAuthProvider {
    const key = `${credentialKey(url)} ${canonicalJson(settings)}`;
    let provider = this.providers.get(key);
    if (!provider) {
      if (this.providers.size >= MAX_PROVIDERS) this.providers.delete(this.providers.keys().next().value as string);
      provider = new SwitchboardOAuthProvider({
        serverUrl: url,
        settings,
        credentials: new ServerCredentials(this.options.store, credentialKey(url)),
        clock: this.options.clock,
        logger: this.options.logger(logAs),
        fetch: this.options.fetch,
      });
      this.providers.set(key, provider);
    }
    return provider;
  }

  /** Forgets every saved sign-in; the number of servers that had one. */
  async forgetAll(): Promise<number> {
    const keys = (await this.options.store.keys()).filter(isCredentialKey);
    for (const key of keys) await this.options.store.delete(key);
    for (const provider of this.providers.values()) {
      provider.credentialsMayHaveChanged();
      await provider.invalidateCredentials('discovery');
    }
    return keys.length;
  }
}
