// What a connection is built with, and what a caller gives with each request.
import type { OnBehalfOf } from './credentials';
import type { FetchLike, Implementation, Progress, AuthProvider } from '@modelcontextprotocol/client';
import type { Clock } from '../base/clock';
import type { Logger } from '../base/logging';
import { PRODUCT_VERSION } from '../base/version';
import type { HttpServerDefinition } from '../config';
import type { ServerRequestHandlers } from './link';
import type { ClientInputRound, ClientRounds, ClientTasks } from './rounds';
import type { LaunchOptions } from './launchDiagnostics';

/** What a connection needs of an OAuth provider (auth/ implements it). */
export interface SignInProvider {
  /** Saved credentials may have changed since the last attempt (a sign-in, a sign-out). */
  credentialsMayHaveChanged(): void;
  /** The provider as the SDK's transports take it. */
  transportAuth(): AuthProvider;
  /**
   * The transport's fetch, presenting a DPoP-bound token with a fresh proof per request (RFC 9449);
   * undefined when the provider does not use DPoP.
   */
  transportFetch?(base: FetchLike | undefined): FetchLike | undefined;
}

export interface OAuthProviders {
  providerFor(definition: HttpServerDefinition): SignInProvider | undefined;
}

export interface ConnectionOptions extends LaunchOptions {
  readonly logger?: Logger;
  /**
   * Timestamps, backoff timers, the connect deadline and the maximum total time of a request. The
   * per-request timeout (reset by progress) is the SDK's, in real time.
   */
  readonly clock?: Clock;
  /** Jitter source for backoff, in [0, 1). */
  readonly random?: () => number;
  readonly clientInfo?: Implementation;
  /** For HTTP servers; defaults to the global fetch. */
  readonly fetch?: FetchLike;
  /** After the circuit breaker opened on a transient remote failure, the time between slow retries. Default 5 minutes. */
  readonly slowRetryMs?: number;
  /** Answers what the server asks of the client (elicitation, sampling, roots), in both eras. */
  readonly serverRequests?: ServerRequestHandlers;
  /** Signs in to HTTP servers that ask for OAuth; absent, a 401 is an HTTP error. */
  readonly oauth?: OAuthProviders;
  /**
   * This Switchboard's id (base/selfLoop.ts): what a server lists that came through it already is
   * dropped. The runtime's fetch says it on every HTTP request.
   */
  readonly switchboardId?: string;
}

/** What a caller gives with a request: a cancel signal, and where progress goes. */
export interface CallerOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: Progress) => void;
  /**
   * For a 2026-07-28 upstream, `_meta` keys the request carries for the gateway client it is made
   * for: that client's capabilities, its log level, its trace context. A 2025 upstream gets only
   * the trace context (`traceparent`, `tracestate`).
   */
  readonly meta?: Readonly<Record<string, unknown>>;
  /**
   * For a 2026-07-28 upstream: the client answers the request's `input_required` rounds itself,
   * so one can be the outcome (ClientInputRound); without, the host answers them all.
   */
  readonly rounds?: ClientRounds;
  /**
   * When a server that is not ready yet stops being waited for (a time on the connection's clock):
   * set by whoever first waits for it (the catalog's call gate), so that a later wait (the
   * connection's, if the session dropped in between) ends at the same moment, with the same
   * NOT_READY error. Without it, the request waits up to `timeouts.requestMs` from now.
   */
  readonly readyBy?: number;
  /**
   * Whether the caller is a 2026-07-28 client that declared the tasks extension itself (a gateway
   * client), for an upstream that supports it. `declared`: the call declares it upstream, the
   * upstream may answer with a task of its own, and the connection follows that task for the
   * caller (telling `onUpstreamTask`). Not declared: an upstream that answers such a caller only
   * with a task (-32021) gives it that error. Without this (the host's own callers, 2025 clients),
   * a tool that needs a task is run as one for the caller.
   */
  readonly clientTasks?: ClientTasks;
  /**
   * Who asked, for the audit log: the gateway client's name and version as it gave them (not
   * authenticated: any client with the token can say anything). Never sent upstream.
   */
  readonly caller?: string;
  /**
   * On a team gateway, the signed-in user the request is made for: an upstream that takes each
   * user's own credential (`oauth.perUser`) gets theirs (userCredential.ts). Never sent upstream.
   */
  readonly onBehalfOf?: OnBehalfOf;
  /**
   * A tool call's result is passed on as the server sent it, not parsed into the SDK's shape: for a
   * hop whose own client parses it anyway (a window's session on the machine host,
   * gateway/callPassThrough.ts). Only a 2025-era server's plain call; a call that runs as a task,
   * or a 2026-07-28 server's, is made as any other.
   */
  readonly asSent?: boolean;
}

/** A request's outcome: its result, or with `rounds` a round for the client to answer. */
export type CallOutcome<O extends CallerOptions, R> = O extends { readonly rounds: ClientRounds } ? R | ClientInputRound : R;

export const DEFAULT_CLIENT_INFO: Implementation = { name: 'mcp-switchboard', version: PRODUCT_VERSION };
