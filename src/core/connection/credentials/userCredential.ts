// A team gateway's request made for one of its users, to an upstream that takes each user's own
// credential (`oauth.perUser`): the user's token is got before the request (the gateway exchanges
// theirs, identity/upstreamTokens.ts) and passed with it (`RequestPolicy.credential`). The session
// puts it on that request's own messages as a header the SDK sends per message (with its input
// rounds, its task follow-ups and its cancel); the transport's fetch takes that header off and puts
// the token in the Authorization header in place of the gateway's own. The SDK reserves
// Authorization for its own auth, so the token rides under a name of ours as far as the fetch.
// A message sent without it (listing tools, pings, a new session's handshake, the gateway's own
// token refresh) carries the gateway's own credential: a token reaches no message it was not
// passed with. Legacy SSE sends no per-message headers: a user's request on it is refused.
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

/** The header the user's token rides in from the request to the transport's fetch, which takes it off. */
const USER_CREDENTIAL_HEADER = 'x-switchboard-user-credential';

/** The per-message headers of a request made with `credential` (the SDK's `TransportSendOptions.headers`). */
export function credentialHeaders(credential: string | undefined): Readonly<Record<string, string>> | undefined {
  return credential === undefined ? undefined : { [USER_CREDENTIAL_HEADER]: credential };
}

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
 * Runs one request made with `token` (undefined: the connection's own). An upstream that refuses
 * the user's token is that user's failure, not the server's: it is not a sign-in the whole server
 * waits for.
 */
export async function asUser<T>(
  token: string | undefined,
  definition: ServerDefinition,
  onBehalfOf: OnBehalfOf | undefined,
  run: () => Promise<T>,
): Promise<T> {
  if (token === undefined) return run();
  try {
    return await run();
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
 * The transport's fetch for a server that takes each user's own credential: a message sent with a
 * user's token (credentialHeaders) goes with it as its Authorization, and the header that carried
 * it is taken off; any other message goes as it is, with the connection's own.
 */
export function userCredentialFetch(base: FetchLike | undefined): FetchLike {
  const send: FetchLike = base ?? ((input, init) => fetch(input, init));
  return (input, init) => {
    const headers = new Headers(init?.headers);
    const token = headers.get(USER_CREDENTIAL_HEADER);
    if (token === null) return send(input, init);
    headers.delete(USER_CREDENTIAL_HEADER);
    headers.set('authorization', `Bearer ${token}`);
    return send(input, { ...init, headers });
  };
}
