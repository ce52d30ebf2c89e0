// A team gateway's request made for one of its users, to an upstream that takes each user's own
// credential (`oauth.perUser`): the user's token is got before the request (the gateway exchanges
// theirs, identity/upstreamTokens.ts), rides in the async context of that one request, and the
// transport's fetch puts it in that request's Authorization header in place of the gateway's own.
// Another user's request, running at the same time, has its own context: a token never crosses.
// Requests made for nobody (listing tools, pings) carry the gateway's own credential.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FetchLike } from '@modelcontextprotocol/client';
import type { HttpServerDefinition, ServerDefinition } from '../../config';
import { SwitchboardError } from '../link';

/** The user a request is made for, and how to get their token for an upstream. */
export interface OnBehalfOf {
  /** Who, for messages (the principal's subject). Never a secret. */
  readonly user: string;
  /** The user's own token for this upstream; rejects when there is none to be had. */
  tokenFor(definition: HttpServerDefinition): Promise<string>;
  /** The upstream refused that token: it is not to be given again. */
  refused?(definition: HttpServerDefinition): void;
}

const currentToken = new AsyncLocalStorage<string>();

/** Whether the server takes each user's own credential rather than the gateway's. */
export function takesUserCredential(definition: ServerDefinition): definition is HttpServerDefinition {
  return definition.transport !== 'stdio' && definition.oauth.enabled && definition.oauth.perUser !== undefined;
}

/**
 * The user's token for `definition`, when it takes one: a request for nobody is refused (it would
 * otherwise run as the gateway, with whatever the gateway's own account may do).
 */
export async function userTokenFor(
  definition: ServerDefinition,
  onBehalfOf: OnBehalfOf | undefined,
  what: string,
): Promise<string | undefined> {
  if (!takesUserCredential(definition)) return undefined;
  if (!onBehalfOf)
    throw new SwitchboardError(
      'NOT_RUNNING',
      `${what}: server \`${definition.name}\` acts for each user with their own account; only a signed-in user of a team gateway can use it`,
      { notSent: true },
    );
  try {
    return await onBehalfOf.tokenFor(definition);
  } catch (error) {
    // An answer for the user's client as it is (a JSON-RPC error: the link of a sign-in to make).
    if (typeof (error as { code?: unknown }).code === 'number') throw error;
    throw new SwitchboardError(
      'HTTP_ERROR',
      `${what}: no credential of ${onBehalfOf.user} for \`${definition.name}\`: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * Runs one request with `token` as its credential (undefined: the connection's own). An upstream
 * that refuses the user's token is that user's failure, not the server's: it is not a sign-in the
 * whole server waits for.
 */
export async function asUser<T>(
  token: string | undefined,
  definition: ServerDefinition,
  onBehalfOf: OnBehalfOf | undefined,
  run: () => Promise<T>,
): Promise<T> {
  if (token === undefined) return run();
  try {
    return await currentToken.run(token, run);
  } catch (error) {
    if (!(error instanceof SwitchboardError && error.code === 'NEEDS_SIGN_IN')) throw error;
    if (takesUserCredential(definition)) onBehalfOf?.refused?.(definition);
    throw new SwitchboardError(
      'HTTP_ERROR',
      `\`${definition.name}\` refused the credential of ${onBehalfOf?.user ?? 'the user'}: ${error.message}`,
      {
        cause: error,
        status: 401,
      },
    );
  }
}

/**
 * Runs `run` as the gateway, whatever user's request is under way: what outlives one request (a
 * new session, its stream of notifications) is shared by every user and must never carry one
 * user's token.
 */
export function asGateway<T>(run: () => T): T {
  return currentToken.exit(run);
}

/** The transport's fetch: a request made in a user's context carries that user's token. */
export function userCredentialFetch(base: FetchLike | undefined): FetchLike {
  const send: FetchLike = base ?? ((input, init) => fetch(input, init));
  return (input, init) => {
    const token = currentToken.getStore();
    if (token === undefined) return send(input, init);
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return send(input, { ...init, headers });
  };
}
