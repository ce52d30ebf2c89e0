// A team gateway's user, calling an upstream that acts for each user with their own account
// (`oauth.perUser: "tokenExchange"`): the gateway exchanges the user's access token (the one it
// verified) at the upstream's authorization server for a token of that upstream (RFC 8693 token
// exchange), authenticating as its own client there, and remembers it for that user and that
// upstream only until it expires. Where the upstream's authorization server does not trust the
// team's identity provider, the exchange is refused and so is the user's call: the gateway never
// falls back to its own account.
import type http from 'node:http';
import { discoverOAuthServerInfo, type FetchLike } from '@modelcontextprotocol/client';
import { BodyTooLargeError, readBoundedBody } from '../base/boundedBody';
import type { Clock } from '../base/clock';
import { displayText } from '../base/displayText';
import type { Logger } from '../base/logging';
import type { HttpServerDefinition } from '../config';
import type { Principal } from './principal';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** One user at one upstream: the key of everything kept for them (nothing found for another user). */
export function userServerKey(user: string, definition: HttpServerDefinition): string {
  return JSON.stringify([user, definition.name, definition.url]);
}

/** Where a user's token for an upstream comes from. */
export interface UpstreamTokens {
  tokenFor(principal: Principal, subjectToken: string, definition: HttpServerDefinition): Promise<string>;
  /** The upstream refused the user's token: it is not given again. */
  forget?(principal: Principal, definition: HttpServerDefinition): void;
  /** Pages the user's browser opens (a per-user sign-in's), served without an MCP token. */
  readonly pages?: UserPages;
}

export interface UserPages {
  handles(path: string): boolean;
  answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void>;
}

/** Each server's way (`oauth.perUser`): token exchange, or the user's own sign-in kept here. */
export class PerUserTokens implements UpstreamTokens {
  constructor(
    private readonly exchange: UpstreamTokens,
    private readonly signIns: UpstreamTokens & { readonly pages: UserPages },
  ) {}

  get pages(): UserPages {
    return this.signIns.pages;
  }

  tokenFor(principal: Principal, subjectToken: string, definition: HttpServerDefinition): Promise<string> {
    return this.wayOf(definition).tokenFor(principal, subjectToken, definition);
  }

  forget(principal: Principal, definition: HttpServerDefinition): void {
    this.wayOf(definition).forget?.(principal, definition);
  }

  private wayOf(definition: HttpServerDefinition): UpstreamTokens {
    return definition.oauth.perUser === 'signIn' ? this.signIns : this.exchange;
  }
}

export interface TokenExchangeOptions {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly fetch?: FetchLike;
  /** Per exchange (and per discovery); default 10 s. */
  readonly timeoutMs?: number;
}

/** Users × upstreams remembered at once; past it the oldest is dropped (and exchanged again). */
const MAX_REMEMBERED = 4096;
const MAX_ANSWER_BYTES = 64 * 1024;
/** Used a little before it expires, so that it does not expire on its way. */
const EXPIRY_MARGIN_MS = 30_000;
/** An answer without `expires_in` is remembered this long. */
const DEFAULT_LIFETIME_MS = 5 * 60_000;

interface Exchanged {
  readonly token: string;
  readonly usableUntil: number;
}

interface ExchangeTarget {
  readonly tokenEndpoint: string;
  /** The upstream's protected resource, as its metadata names it. */
  readonly resource: string;
}

export class TokenExchange implements UpstreamTokens {
  private readonly remembered = new Map<string, Exchanged>();
  /** Per upstream URL: its authorization server's token endpoint and its resource, found once. */
  private readonly targets = new Map<string, Promise<ExchangeTarget>>();
  /** One exchange per user and upstream at a time: parallel calls of one user share it. */
  private readonly running = new Map<string, Promise<string>>();

  constructor(private readonly options: TokenExchangeOptions) {}

  tokenFor(principal: Principal, subjectToken: string, definition: HttpServerDefinition): Promise<string> {
    // The user is part of every key: nothing one user was given is found for another.
    const key = userServerKey(principal.key, definition);
    const known = this.remembered.get(key);
    if (known && known.usableUntil > this.options.clock.now()) return Promise.resolve(known.token);
    let exchange = this.running.get(key);
    if (!exchange) {
      exchange = this.exchange(key, subjectToken, definition).finally(() => this.running.delete(key));
      this.running.set(key, exchange);
    }
    return exchange;
  }

  /** The upstream refused the token it was given for this user: the next call exchanges again. */
  forget(principal: Principal, definition: HttpServerDefinition): void {
    this.remembered.delete(userServerKey(principal.key, definition));
  }

  private async exchange(key: string, subjectToken: string, definition: HttpServerDefinition): Promise<string> {
    const target = await this.targetOf(definition);
    const { clientId, clientSecret, scopes, tokenEndpointAuthMethod } = definition.oauth;
    const body = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE_GRANT,
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      requested_token_type: ACCESS_TOKEN_TYPE,
      resource: target.resource,
    });
    if (scopes && scopes.length > 0) body.set('scope', scopes.join(' '));
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (clientSecret !== undefined && tokenEndpointAuthMethod !== 'client_secret_post') {
      // RFC 6749 2.3.1: each part form-encoded before the Basic encoding.
      const pair = `${encodeURIComponent(clientId ?? '')}:${encodeURIComponent(clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    } else {
      body.set('client_id', clientId ?? '');
      if (clientSecret !== undefined) body.set('client_secret', clientSecret);
    }
    const response = await this.fetch(target.tokenEndpoint, { method: 'POST', headers, body });
    const answer = await this.readJson(response);
    if (!response.ok) {
      const error = typeof answer?.error === 'string' ? answer.error : `HTTP ${response.status}`;
      const description = typeof answer?.error_description === 'string' ? `: ${answer.error_description}` : '';
      throw new Error(`the token exchange at ${target.tokenEndpoint} was refused (${displayText(`${error}${description}`, 200)})`);
    }
    const token = answer?.access_token;
    if (typeof token !== 'string' || token.length === 0 || token.length > 16_384)
      throw new Error(`the token exchange at ${target.tokenEndpoint} answered without a usable access_token`);
    const lifetimeMs = typeof answer?.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in * 1000 : DEFAULT_LIFETIME_MS;
    if (this.remembered.size >= MAX_REMEMBERED) this.remembered.delete(this.remembered.keys().next().value as string);
    this.remembered.set(key, { token, usableUntil: this.options.clock.now() + lifetimeMs - Math.min(EXPIRY_MARGIN_MS, lifetimeMs / 2) });
    return token;
  }

  private targetOf(definition: HttpServerDefinition): Promise<ExchangeTarget> {
    let target = this.targets.get(definition.url);
    if (!target) {
      target = discoverOAuthServerInfo(definition.url, { fetchFn: this.fetch }).then((info) => {
        const tokenEndpoint = info.authorizationServerMetadata?.token_endpoint;
        if (!tokenEndpoint)
          throw new Error(`no token endpoint found for ${definition.url} (its authorization server ${info.authorizationServerUrl})`);
        return { tokenEndpoint, resource: info.resourceMetadata?.resource ?? definition.url };
      });
      // A failed discovery is tried again at the next call, not remembered.
      target.catch(() => this.targets.delete(definition.url));
      if (this.targets.size >= MAX_REMEMBERED) this.targets.delete(this.targets.keys().next().value as string);
      this.targets.set(definition.url, target);
    }
    return target;
  }

  private readonly fetch: FetchLike = (input, init) =>
    (this.options.fetch ?? fetch)(input, { ...init, signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000) });

  private async readJson(response: Response): Promise<Record<string, unknown> | undefined> {
    let text: string;
    try {
      text = await readBoundedBody(response, MAX_ANSWER_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLargeError) throw new Error(`the token endpoint's answer is over ${MAX_ANSWER_BYTES} bytes`);
      throw error;
    }
    try {
      const value = JSON.parse(text) as unknown;
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }
}
