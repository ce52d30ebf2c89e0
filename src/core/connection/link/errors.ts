// What a connection reports goes out as the core's one error (state/errors.ts); the helpers here
// make and read it for connections.
import { SwitchboardError, type ConnectionErrorCode, type SignInReason } from '../../state';

export { SwitchboardError, isConnectionFailure, isSwitchboardError, type ConnectionFailure, type SignInNeed } from '../../state';
export type { ConnectionErrorCode };

/** "MCP error -32603: MCP error -32603: x" -> "x": the SDK's prefix, however often it was added. */
export function stripRpcPrefix(message: string): string {
  return message.replace(/^(?:MCP error -?\d+: )+/, '');
}

/**
 * The one error for a request whose server was not ready by the request's deadline, whoever
 * waited (the catalog's call gate, or the connection when the session dropped before the send).
 */
export function notReadyError(server: string, requestMs: number, what?: string): SwitchboardError {
  return new SwitchboardError(
    'NOT_READY',
    `${what ? `${what}: ` : ''}server \`${server}\` was not ready within ${requestMs} ms (timeouts.requestMs); nothing was sent, try again shortly`,
    { notSent: true },
  );
}

/**
 * Whether waiting can heal the failure of a remote server: it was unreachable, timed out, or
 * answered with a server-side or rate-limit status. Not: a wrong URL path (404), a refused sign-in
 * (401/403), a protocol mismatch, a stdio command that is missing or crashes at start.
 */
export function isTransientRemoteFailure(error: SwitchboardError): boolean {
  switch (error.code) {
    case 'CONNECT_FAILED':
    case 'CONNECT_TIMEOUT':
    case 'CONNECTION_LOST':
    case 'REQUEST_TIMEOUT':
      return true;
    case 'HTTP_ERROR':
      return error.status !== undefined && (error.status >= 500 || error.status === 408 || error.status === 429);
    default:
      return false;
  }
}

/**
 * Why a server cannot be used until somebody signs in. Thrown by an OAuth provider where the SDK
 * would otherwise go on to a browser redirect (or register a client) without anyone watching.
 */
export class SignInRequiredError extends Error {
  constructor(
    readonly reason: SignInReason,
    message: string,
    /** The scope the authorization request would ask for, when the server named one. */
    readonly scope?: string,
  ) {
    super(message);
    this.name = 'SignInRequiredError';
  }
}

/** The SignInRequiredError anywhere in an error's cause chain (the SDK may wrap what we threw). */
export function findSignInRequired(error: unknown): SignInRequiredError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth += 1) {
    if (current instanceof SignInRequiredError) return current;
    current = current.cause;
  }
  return undefined;
}
