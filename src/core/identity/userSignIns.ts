// A team gateway's user, calling an upstream whose authorization server does not know the team's
// identity provider (`oauth.perUser: "signIn"`): each user signs in to it themselves, once, and
// the gateway keeps that user's tokens for that upstream (refreshing them), never anyone else's.
//
// A call with no sign-in yet is answered with a URL elicitation (-32042): a link to the gateway's
// own /oauth/start, sealed (AES-256-GCM) with the user and the server. The browser that opens it
// first signs in to the team's identity provider (/oauth/whoami): the link goes on only for the
// user it was made for, so that nobody can have another member sign in to an upstream on their
// behalf (whose account would then serve them). That page says who the browser is signed in as and
// binds the rest of the flow to this browser (a cookie whose value seals the upstream step's state):
// the upstream's authorization link, forwarded to a colleague whose browser is signed in at the
// upstream, ends at /oauth/callback without the cookie and is refused, so nobody's account is kept
// for someone else. The redirect comes back to /oauth/callback, where the code is redeemed and the
// tokens kept for that user, who calls again. Each step's state is sealed with its PKCE verifier and
// client, bound to its step. The gateway registers itself (dynamic client registration) with the
// team's provider and each upstream's.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type http from 'node:http';
import {
  discoverOAuthServerInfo,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  startAuthorization,
  type AuthorizationServerMetadata,
  type FetchLike,
  type OAuthClientInformationMixed,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/server';
import type { Clock } from '../base/clock';
import { Sealer, type SealContext } from '../base/sealer';
import type { SharedValues } from '../base/sharedValues';
import { errorMessage } from '../base/errorMessage';
import type { Logger } from '../base/logging';
import type { HttpServerDefinition } from '../config';
import type { Principal } from './principal';
import { userServerKey, type UpstreamTokens, type UserPages } from './upstreamTokens';

export const SIGN_IN_START_PATH = '/oauth/start';
export const SIGN_IN_CALLBACK_PATH = '/oauth/callback';
export const SIGN_IN_WHOAMI_PATH = '/oauth/whoami';

/** The team's identity provider, for the browser that opens a sign-in link. */
export interface TeamLogin {
  readonly issuer: string;
  readonly metadata: AuthorizationServerMetadata;
  /** Who an ID token of the provider names (its signature, issuer and lifetime checked). */
  verify(idToken: string): Promise<Principal | undefined>;
}

/** Users × upstreams kept at once; past it the oldest is dropped (that user signs in again). */
const MAX_KEPT = 10_000;
/** A sign-in link, and the page it leads to, are good for this long. */
const FLOW_TTL_MS = 10 * 60_000;
const EXPIRY_MARGIN_MS = 30_000;

interface Kept {
  readonly tokens: OAuthTokens;
  readonly savedAt: number;
  /** The gateway's client they were issued to (a refresh must name it), whichever replica registered it. */
  readonly client: string;
}

interface Upstream {
  readonly authorizationServerUrl: string;
  readonly metadata: AuthorizationServerMetadata | undefined;
  readonly resource: string;
  /** What the resource says it takes, for an entry that names no scopes. */
  readonly scopes: readonly string[];
  readonly client: OAuthClientInformationMixed;
}

/** What a sign-in link carries, sealed: who, for which server, and the PKCE verifier once started. */
interface Flow {
  readonly user: string;
  readonly server: string;
  readonly until: number;
  /** Once started: the PKCE verifier, and the client and redirect the authorization request named. */
  readonly verifier?: string;
  readonly client?: string;
  readonly redirect?: string;
  /** Which authorization request the state answers: the team's login, or the upstream's. */
  readonly step?: 'who' | 'upstream';
  /** The upstream step: the name of the cookie that binds it to the browser that passed whoami. */
  readonly cookie?: string;
}

/** Where a sealed flow travels: the link's `flow`, or the `state` of one authorization request. */
type FlowPlace = { readonly link: true } | { readonly step: 'who' } | { readonly step: 'upstream'; readonly browser: string };

function flowContext(place: FlowPlace): SealContext {
  if ('link' in place) return ['sign-in link'];
  return place.step === 'who' ? ['sign-in state', 'who'] : ['sign-in state', 'upstream', place.browser];
}

/** What binds the upstream step to one browser: a cookie, `__Host-` where the browser keeps it only over a secure origin. */
const COOKIE_PREFIX = 'mcp-switchboard-sign-in-';

export interface UserSignInsOptions {
  readonly clock: Clock;
  readonly logger: Logger;
  /** The gateway's address as the user's browser reaches it (its public URL, without `/mcp`). */
  readonly publicBase: () => string;
  /** The servers by name, to find a flow's server again at the callback. */
  readonly server: (name: string) => HttpServerDefinition | undefined;
  /** Where the browser proves it is the user a link was made for. */
  readonly teamLogin: TeamLogin;
  readonly fetch?: FetchLike;
  /**
   * The replicas' shared key, for links and kept tokens any replica opens. Absent: this process's
   * own (a link works on the replica that made it).
   */
  readonly sealer?: Sealer;
  /** Where every replica finds a user's tokens (Redis), sealed. Absent: this process's memory only. */
  readonly values?: SharedValues;
}

/** How long a user's tokens are kept where the replicas share them: a refresh token outlives its access token. */
const SHARED_TTL_MS = 30 * 24 * 60 * 60_000;
const MAX_SEALED_CHARS = 64 * 1024;

export class UserSignIns implements UpstreamTokens {
  private readonly kept = new Map<string, Kept>();
  private readonly upstreams = new Map<string, Promise<Upstream>>();
  /** Seals the links and the kept tokens. */
  private readonly sealer: Sealer;
  private teamRegistration: Promise<OAuthClientInformationMixed> | undefined;

  constructor(private readonly options: UserSignInsOptions) {
    this.sealer = options.sealer ?? Sealer.ofThisProcess('mcp-switchboard user sign-in');
  }

  async tokenFor(principal: Principal, _subjectToken: string, definition: HttpServerDefinition): Promise<string> {
    const key = userServerKey(principal.key, definition);
    const kept = this.kept.get(key) ?? (await this.readShared(key));
    if (kept && !this.expired(kept)) return kept.tokens.access_token;
    if (kept?.tokens.refresh_token) {
      const refreshed = await this.refresh(definition, kept.tokens.refresh_token, kept.client).catch((error: unknown) => {
        this.options.logger.info(
          `${definition.name}: the refresh of ${principal.subject}'s sign-in failed (${errorMessage(error)}); they sign in again`,
        );
        return undefined;
      });
      if (refreshed) {
        await this.keep(key, refreshed, kept.client);
        return refreshed.access_token;
      }
    }
    await this.drop(key);
    const url = new URL(SIGN_IN_START_PATH, this.options.publicBase());
    url.searchParams.set(
      'flow',
      this.seal({ user: principal.key, server: definition.name, until: this.options.clock.now() + FLOW_TTL_MS }, { link: true }),
    );
    throw new UrlElicitationRequiredError(
      [
        {
          mode: 'url',
          url: url.href,
          elicitationId: randomUUID(),
          message: `Sign in to ${definition.name} with your own account: the team gateway then calls it as you.`,
        },
      ],
      `${definition.name} needs you to sign in with your own account first`,
    );
  }

  /** Forgets a user's tokens for a server that refused them: their next call asks them to sign in. */
  forget(principal: Principal, definition: HttpServerDefinition): void {
    void this.drop(userServerKey(principal.key, definition));
  }

  /** The sign-in pages, which the user's browser opens (no MCP token). */
  readonly pages: UserPages = {
    handles: (path) => path === SIGN_IN_START_PATH || path === SIGN_IN_WHOAMI_PATH || path === SIGN_IN_CALLBACK_PATH,
    answer: (req, res) => this.answer(req, res),
  };

  private async answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (req.method !== 'GET') return page(res, 405, 'Method not allowed.');
    const url = new URL(req.url ?? '/', 'http://gateway');
    try {
      if (url.pathname === SIGN_IN_START_PATH) return await this.start(url, res);
      if (url.pathname === SIGN_IN_WHOAMI_PATH) return await this.whoami(url, res);
      return await this.callback(url, req, res);
    } catch (error) {
      this.options.logger.warn(`sign-in page ${url.pathname} failed: ${errorMessage(error)}`);
      return page(res, 400, 'The sign-in could not be completed. Call the tool again for a new link.');
    }
  }

  /** The link: first the team's login, to know who opened it. */
  private async start(url: URL, res: http.ServerResponse): Promise<void> {
    const flow = this.open(url.searchParams.get('flow'), { link: true });
    const definition = flow && this.options.server(flow.server);
    if (!flow || flow.step !== undefined || !definition)
      return page(res, 400, 'This sign-in link is not valid any more. Call the tool again for a new link.');
    const { issuer, metadata } = this.options.teamLogin;
    const client = await this.teamClient();
    const redirect = new URL(SIGN_IN_WHOAMI_PATH, this.options.publicBase()).href;
    const { authorizationUrl, codeVerifier } = await startAuthorization(issuer, {
      metadata,
      clientInformation: client,
      redirectUrl: redirect,
      scope: 'openid',
    });
    authorizationUrl.searchParams.set(
      'state',
      this.seal({ ...flow, step: 'who', verifier: codeVerifier, client: client.client_id, redirect }, { step: 'who' }),
    );
    res.writeHead(302, { Location: authorizationUrl.href, 'Cache-Control': 'no-store' }).end();
  }

  /**
   * Back from the team's login: on to the upstream's only for the user the link was made for, from
   * a page that says who they are signed in as, bound to this browser.
   */
  private async whoami(url: URL, res: http.ServerResponse): Promise<void> {
    const flow = this.open(url.searchParams.get('state'), { step: 'who' });
    const definition = flow && this.options.server(flow.server);
    const code = url.searchParams.get('code');
    if (flow?.step !== 'who' || !flow.verifier || !flow.client || !flow.redirect || !definition || !code)
      return page(res, 400, 'This sign-in is not valid any more. Call the tool again for a new link.');
    const { issuer, metadata } = this.options.teamLogin;
    const iss = url.searchParams.get('iss');
    const tokens = await exchangeAuthorization(issuer, {
      metadata,
      clientInformation: { client_id: flow.client },
      authorizationCode: code,
      ...(iss ? { iss } : {}),
      codeVerifier: flow.verifier,
      redirectUri: flow.redirect,
      fetchFn: this.options.fetch,
    });
    const who = tokens.id_token ? await this.options.teamLogin.verify(tokens.id_token).catch(() => undefined) : undefined;
    const audiences = [who?.claims.aud].flat();
    if (!who || !audiences.includes(flow.client))
      return page(res, 400, 'The team sign-in did not say who you are. Call the tool again for a new link.');
    if (who.key !== flow.user) {
      this.options.logger.warn(`${definition.name}: a sign-in link was opened by ${who.subject}, not by the user it was made for; refused`);
      return page(
        res,
        403,
        `This link was made for another member of the team. Sign in to ${definition.name} from a link your own agent gives you.`,
      );
    }
    const upstream = await this.upstreamOf(definition);
    const scope = (definition.oauth.scopes ?? upstream.scopes).join(' ');
    const redirect = this.callbackUrl();
    const started = await startAuthorization(upstream.authorizationServerUrl, {
      metadata: upstream.metadata,
      clientInformation: upstream.client,
      redirectUrl: redirect,
      ...(scope ? { scope } : {}),
      resource: upstream.resource,
    });
    // The state carries the verifier, sealed: nothing of the flow is kept here between the pages,
    // and whichever replica the redirect reaches redeems the code as the client that asked. It is
    // sealed with a secret that only this browser holds (the cookie), so that it opens only there.
    const cookie = `${this.cookiePrefix()}${randomBytes(6).toString('hex')}`;
    const browser = randomBytes(32).toString('base64url');
    started.authorizationUrl.searchParams.set(
      'state',
      this.seal(
        {
          user: flow.user,
          server: flow.server,
          until: flow.until,
          step: 'upstream',
          verifier: started.codeVerifier,
          client: upstream.client.client_id,
          redirect,
          cookie,
        },
        { step: 'upstream', browser },
      ),
    );
    const secure = this.cookiePrefix().startsWith('__Host-') ? '; Secure' : '';
    const seconds = Math.max(1, Math.ceil((flow.until - this.options.clock.now()) / 1000));
    const continueUrl = started.authorizationUrl.href;
    res.writeHead(200, {
      ...PAGE_HEADERS,
      'Set-Cookie': `${cookie}=${browser}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${seconds}${secure}`,
    });
    res.end(
      html(
        `<p>You are signed in to the team as <b>${escapeHtml(nameOf(who))}</b>.</p>` +
          `<p>Next, sign in to <b>${escapeHtml(definition.name)}</b> with your own account there: the team gateway then calls it as you.</p>` +
          `<p><a href="${escapeHtml(continueUrl)}">Continue to ${escapeHtml(definition.name)}</a></p>` +
          '<p>Not you? Close this page: nothing has been kept.</p>',
      ),
    );
  }

  /** `__Host-` (kept only for a secure origin, and only for this host's root) where the browser reaches the gateway over one. */
  private cookiePrefix(): string {
    const base = new URL(this.options.publicBase());
    const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(base.hostname);
    return base.protocol === 'https:' || loopback ? `__Host-${COOKIE_PREFIX}` : COOKIE_PREFIX;
  }

  private async callback(url: URL, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const state = url.searchParams.get('state');
    const cookies = browserCookies(req);
    // Only the browser that passed whoami holds the secret the state was sealed with.
    const flow = [...cookies.values()]
      .map((browser) => this.open(state, { step: 'upstream', browser }))
      .find((opened) => opened !== undefined);
    const definition = flow && this.options.server(flow.server);
    const code = url.searchParams.get('code');
    if (!flow && state !== null && cookies.size === 0)
      return page(
        res,
        403,
        'This sign-in was not started in this browser. Nobody can finish a sign-in for someone else: call the tool again and open its link yourself.',
      );
    if (flow?.step !== 'upstream' || !flow.verifier || !flow.client || !flow.redirect || !flow.cookie || !definition)
      return page(res, 400, 'This sign-in is not valid any more. Call the tool again for a new link.');
    // The cookie has done its work: the browser forgets it.
    res.setHeader(
      'Set-Cookie',
      `${flow.cookie}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${flow.cookie.startsWith('__Host-') ? '; Secure' : ''}`,
    );
    if (!code) return page(res, 400, `${definition.name} did not sign you in (${url.searchParams.get('error') ?? 'no code'}).`);
    const upstream = await this.upstreamOf(definition);
    const iss = url.searchParams.get('iss');
    const tokens = await exchangeAuthorization(upstream.authorizationServerUrl, {
      metadata: upstream.metadata,
      clientInformation: { client_id: flow.client },
      authorizationCode: code,
      ...(iss ? { iss } : {}),
      codeVerifier: flow.verifier,
      redirectUri: flow.redirect,
      resource: new URL(upstream.resource),
      fetchFn: this.options.fetch,
    });
    await this.keep(userServerKey(flow.user, definition), tokens, flow.client);
    this.options.logger.info(`${definition.name}: a user signed in with their own account`);
    return page(res, 200, `You are signed in to ${definition.name}. Go back to your agent and call the tool again.`);
  }

  private refresh(definition: HttpServerDefinition, refreshToken: string, client: string): Promise<OAuthTokens> {
    return this.upstreamOf(definition).then((upstream) =>
      refreshAuthorization(upstream.authorizationServerUrl, {
        metadata: upstream.metadata,
        clientInformation: { client_id: client },
        refreshToken,
        resource: upstream.resource,
        fetchFn: this.options.fetch,
      }),
    );
  }

  /** Its authorization server, its resource, and the gateway's registration there: found once. */
  private upstreamOf(definition: HttpServerDefinition): Promise<Upstream> {
    let upstream = this.upstreams.get(definition.url);
    if (!upstream) {
      upstream = (async () => {
        const fetchFn = this.options.fetch;
        const info = await discoverOAuthServerInfo(definition.url, fetchFn ? { fetchFn } : {});
        const metadata = info.authorizationServerMetadata;
        const client = await registerClient(info.authorizationServerUrl, {
          metadata,
          clientMetadata: {
            client_name: 'MCP Switchboard team gateway',
            redirect_uris: [this.callbackUrl()],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none',
          },
          fetchFn,
        });
        return {
          authorizationServerUrl: info.authorizationServerUrl,
          metadata,
          resource: info.resourceMetadata?.resource ?? definition.url,
          scopes: info.resourceMetadata?.scopes_supported ?? [],
          client,
        };
      })();
      upstream.catch(() => this.upstreams.delete(definition.url));
      this.upstreams.set(definition.url, upstream);
    }
    return upstream;
  }

  /** The gateway's registration at the team's provider, for its login page: made once. */
  private teamClient(): Promise<OAuthClientInformationMixed> {
    this.teamRegistration ??= registerClient(this.options.teamLogin.issuer, {
      metadata: this.options.teamLogin.metadata,
      clientMetadata: {
        client_name: 'MCP Switchboard team gateway',
        redirect_uris: [new URL(SIGN_IN_WHOAMI_PATH, this.options.publicBase()).href],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: 'openid',
      },
      fetchFn: this.options.fetch,
    });
    this.teamRegistration.catch(() => (this.teamRegistration = undefined));
    return this.teamRegistration;
  }

  private callbackUrl(): string {
    return new URL(SIGN_IN_CALLBACK_PATH, this.options.publicBase()).href;
  }

  private async keep(key: string, tokens: OAuthTokens, client: string): Promise<void> {
    const kept: Kept = { tokens, savedAt: this.options.clock.now(), client };
    this.kept.delete(key);
    if (this.kept.size >= MAX_KEPT) this.kept.delete(this.kept.keys().next().value as string);
    this.kept.set(key, kept);
    // Before the user is told to call again: the next call may reach another replica. Sealed to
    // its key, user and server: copied under another user's key, it does not open.
    const sealed = this.sealer.seal(JSON.stringify(kept), keptContext(key));
    await this.options.values?.put(sharedKey(key), sealed, SHARED_TTL_MS).catch((error: unknown) => {
      this.options.logger.warn(`a user's sign-in is kept on this replica only: ${errorMessage(error)}`);
    });
  }

  private async drop(key: string): Promise<void> {
    this.kept.delete(key);
    await this.options.values?.delete(sharedKey(key)).catch(() => undefined);
  }

  /** What another replica kept for this user and server, if it opens under the shared key. */
  private async readShared(key: string): Promise<Kept | undefined> {
    const sealed = await this.options.values?.get(sharedKey(key)).catch(() => undefined);
    const text = sealed === undefined ? undefined : this.sealer.open(sealed, MAX_SEALED_CHARS, keptContext(key));
    if (text === undefined) return undefined;
    try {
      const kept = JSON.parse(text) as Kept;
      if (typeof kept.tokens?.access_token !== 'string' || typeof kept.savedAt !== 'number' || typeof kept.client !== 'string')
        return undefined;
      this.kept.set(key, kept);
      return kept;
    } catch {
      return undefined;
    }
  }

  private expired(kept: Kept): boolean {
    const expiresIn = kept.tokens.expires_in;
    return typeof expiresIn === 'number' && kept.savedAt + expiresIn * 1000 - EXPIRY_MARGIN_MS <= this.options.clock.now();
  }

  private seal(flow: Flow, place: FlowPlace): string {
    return this.sealer.seal(JSON.stringify(flow), flowContext(place));
  }

  private open(text: string | null, place: FlowPlace): Flow | undefined {
    const opened = text === null ? undefined : this.sealer.open(text, 4096, flowContext(place));
    if (opened === undefined) return undefined;
    try {
      const flow = JSON.parse(opened) as Flow;
      return typeof flow.user === 'string' && typeof flow.server === 'string' && flow.until > this.options.clock.now() ? flow : undefined;
    } catch {
      return undefined;
    }
  }
}

/** Who signed in where is not for a reader of the shared store: the key is a hash of it. */
function sharedKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A kept sign-in is bound to where it is stored and to whose it is (the user and the server). */
function keptContext(key: string): SealContext {
  const [user, server, url] = JSON.parse(key) as [string, string, string];
  return ['kept sign-in', sharedKey(key), user, server, url];
}

/** The sign-in cookies the request carries, by name (at most 16: one per sign-in under way). */
function browserCookies(req: http.IncomingMessage): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').slice(0, 8192).split(';')) {
    const index = part.indexOf('=');
    const name = part.slice(0, index).trim();
    if (index > 0 && (name.startsWith(COOKIE_PREFIX) || name.startsWith(`__Host-${COOKIE_PREFIX}`)) && found.size < 16)
      found.set(name, part.slice(index + 1).trim());
  }
  return found;
}

/** How the team's provider names the user, for them to recognise: a name or address before the bare subject. */
function nameOf(who: Principal): string {
  for (const claim of ['preferred_username', 'email', 'name']) {
    const value = who.claims[claim];
    if (typeof value === 'string' && value !== '') return value.slice(0, 200);
  }
  return who.subject.slice(0, 200);
}

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'",
  'X-Content-Type-Options': 'nosniff',
  // Never inside another site's frame: a page that asks to go on must be seen as it is.
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function html(body: string): string {
  return `<!doctype html><meta charset="utf-8"><title>MCP Switchboard</title>${body}`;
}

/** A plain page for the user's browser: text only, nothing from the request in it but a server name. */
function page(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, PAGE_HEADERS);
  res.end(html(`<p>${escapeHtml(text)}</p>`));
}
