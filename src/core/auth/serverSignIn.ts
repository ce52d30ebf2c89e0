// Sign In and Sign Out for configured servers: what the editor's buttons and `mcp-switchboard
// login` call. One sign-in per server at a time; a second click joins the first instead of
// opening a second browser tab.
import { signsInWithOAuth, type HttpServerDefinition, type ServerDefinition } from '../config';
import type { ServerState } from '../state';
import { Emitter, type Event } from '../base/events';
import { signInUrlOf, type OAuthRegistry } from './oauthRegistry';
import { signIn, type SignInBrowser } from './signIn';

export interface SignInHost {
  server(name: string): { readonly state: ServerState; readonly definition?: ServerDefinition } | undefined;
  servers(): readonly { readonly name: string; readonly definition?: ServerDefinition }[];
  reconnect(name: string): Promise<ServerState>;
}

export type SignInResult = { readonly signedIn: 'refreshed' | 'signedIn'; readonly state: ServerState };

export class ServerSignIn {
  private readonly inFlight = new Map<string, Promise<SignInResult>>();
  private readonly signedInEmitter = new Emitter<string>();
  /** A sign-in finished, with the URL it is for: what it lists may have changed (a team gateway's servers). */
  readonly onDidSignIn: Event<string> = this.signedInEmitter.event;

  constructor(
    private readonly host: SignInHost,
    private readonly registry: OAuthRegistry,
  ) {}

  /** The definition of a server that can sign in: remote, with OAuth not turned off. */
  remoteDefinition(name: string): HttpServerDefinition | undefined {
    const definition = this.host.server(name)?.definition;
    return signsInWithOAuth(definition) ? definition : undefined;
  }

  signIn(name: string, browser: SignInBrowser): Promise<SignInResult> {
    const running = this.inFlight.get(name);
    if (running) return running;
    const started = this.run(name, browser).finally(() => this.inFlight.delete(name));
    this.inFlight.set(name, started);
    return started;
  }

  isSigningIn(name: string): boolean {
    return this.inFlight.has(name);
  }

  private async run(name: string, browser: SignInBrowser): Promise<SignInResult> {
    const definition = this.remoteDefinition(name);
    if (!definition) throw new Error(`\`${name}\` is not a remote server that signs in with OAuth`);
    const provider = this.registry.providerFor(definition);
    if (!provider) throw new Error(`OAuth is turned off for \`${name}\``);
    const before = this.host.server(name)?.state;
    const need = before?.kind === 'needsSignIn' ? before : undefined;
    // Tokens the server refused, and a wider scope, both need the authorization page: a refresh
    // would return the same grant.
    const url = signInUrlOf(definition);
    const signedIn = await signIn(provider, {
      serverUrl: url,
      browser,
      ...(need?.reason === 'scope' && need.scope ? { scope: need.scope } : {}),
      ...(need?.reason === 'refused' ? { fresh: true } : {}),
    });
    const state = await this.reconnectSharing(name, url);
    this.signedInEmitter.fire(url);
    return { signedIn, state };
  }

  /** Forgets the server's tokens and registration, then reconnects (to `needs sign-in`). */
  async signOut(name: string): Promise<ServerState | undefined> {
    const definition = this.remoteDefinition(name);
    const provider = definition ? this.registry.providerFor(definition) : undefined;
    if (!definition || !provider) return undefined;
    await provider.signOut();
    return this.reconnectSharing(name, signInUrlOf(definition));
  }

  /**
   * Reconnects `name` and every other server of the same sign-in (a team gateway's): a sign-in or a
   * sign-out is theirs too, not only the clicked row's. The state of `name` after.
   */
  private async reconnectSharing(name: string, url: string): Promise<ServerState> {
    const sharing = this.host
      .servers()
      .filter((server) => server.name !== name && signsInWithOAuth(server.definition) && signInUrlOf(server.definition) === url);
    const [state] = await Promise.all([this.host.reconnect(name), Promise.all(sharing.map((server) => this.host.reconnect(server.name)))]);
    return state;
  }

  /** Forgets every saved sign-in and reconnects the remote servers that used one. */
  async signOutAll(names: readonly string[]): Promise<number> {
    const forgotten = await this.registry.forgetAll();
    await Promise.all(names.filter((name) => this.remoteDefinition(name)).map((name) => this.host.reconnect(name)));
    return forgotten;
  }
}
