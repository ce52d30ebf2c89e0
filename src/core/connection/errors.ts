// One error type for everything a connection reports, with a stable `code` that callers (the
// manager, the UI, the doctor) switch on instead of parsing messages.
import type { ConnectionErrorCode, SignInReason } from '../state';

export type { ConnectionErrorCode };

/** Why a sign-in is needed, and the scope to ask for when the server named one. */
export interface SignInNeed {
  readonly reason: SignInReason;
  readonly scope?: string;
}

export interface ConnectionErrorOptions {
  readonly cause?: unknown;
  /** JSON-RPC error code, for SERVER_ERROR. */
  readonly rpcCode?: number;
  /** JSON-RPC error data, for SERVER_ERROR. */
  readonly data?: unknown;
  /** HTTP status, for HTTP_ERROR. */
  readonly status?: number;
  /** The request provably never reached the server, so sending it again cannot repeat an effect. */
  readonly notSent?: boolean;
  /** For NEEDS_SIGN_IN. */
  readonly signIn?: SignInNeed;
}

export class ConnectionError extends Error {
  readonly rpcCode?: number;
  readonly data?: unknown;
  readonly status?: number;
  readonly notSent: boolean;
  readonly signIn?: SignInNeed;

  constructor(
    readonly code: ConnectionErrorCode,
    message: string,
    options: ConnectionErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ConnectionError';
    this.rpcCode = options.rpcCode;
    this.data = options.data;
    this.status = options.status;
    this.notSent = options.notSent ?? false;
    if (options.signIn) this.signIn = options.signIn;
  }
}

export function isConnectionError(error: unknown, code?: ConnectionErrorCode): error is ConnectionError {
  return error instanceof ConnectionError && (code === undefined || error.code === code);
}

/** "MCP error -32603: MCP error -32603: x" -> "x": the SDK's prefix, however often it was added. */
export function stripRpcPrefix(message: string): string {
  return message.replace(/^(?:MCP error -?\d+: )+/, '');
}

/**
 * The one error for a request whose server was not ready by the request's deadline, whoever
 * waited (the catalog's call gate, the gateway mapping a name, the connection itself).
 */
export function notReadyError(server: string, requestMs: number, what?: string): ConnectionError {
  return new ConnectionError(
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
export function isTransientRemoteFailure(error: ConnectionError): boolean {
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
