// Turns whatever an SDK request threw into a SwitchboardError with a code, and decides whether the
// request provably never left this process (the only case in which it may be sent again).
import {
  InsufficientScopeError,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { SwitchboardError, findSignInRequired, stripRpcPrefix, type SignInNeed } from './errors';
import { describeFetchFailure, httpStatus, isUnreachable } from './httpTransport';
import { errorMessage } from '../../base/errorMessage';
import type { RequestEnd } from './requestDeadlines';

const METHOD_NOT_FOUND = -32601;

export interface RequestErrorContext {
  /** e.g. `tools/call echo` */
  readonly what: string;
  readonly timeoutMs: number;
  readonly maxTotalMs: number;
  /** Which of the request's own limits ended it, if one did (requestDeadlines.ts). */
  readonly ended?: RequestEnd;
  /** The session was being closed on purpose (stop, dispose, reconnect). */
  readonly closing: boolean;
}

export function translateRequestError(error: unknown, context: RequestErrorContext): SwitchboardError {
  const { what } = context;
  if (context.ended === 'caller') return new SwitchboardError('CANCELLED', `${what} was cancelled`, { cause: error });
  if (context.ended === 'timeout')
    return new SwitchboardError('REQUEST_TIMEOUT', `${what} got no response within ${context.timeoutMs} ms`, { cause: error });
  if (context.ended === 'maxTotal') {
    return new SwitchboardError(
      'REQUEST_TIMEOUT',
      `${what} did not finish within ${context.maxTotalMs} ms (the maximum even while the server reports progress)`,
      { cause: error },
    );
  }
  if (context.closing) return new SwitchboardError('CLOSED', `${what} was interrupted: the connection was closed`, { cause: error });
  if (error instanceof SwitchboardError) return error;
  const signIn = signInFailure(error, what);
  if (signIn) return signIn;
  if (error instanceof SdkError) {
    const known = translateSdkError(error, context);
    if (known) return known;
  } else if (error instanceof ProtocolError) {
    // The upstream's own text, without the SDK's "MCP error <code>: " prefix: the code travels in
    // rpcCode, and every hop that wraps the message would add the prefix once more.
    return new SwitchboardError('SERVER_ERROR', `${what} failed: ${stripRpcPrefix(error.message)}`, {
      cause: error,
      rpcCode: error.code,
      data: error.data,
    });
  }
  if (isUnreachable(error)) {
    return new SwitchboardError('CONNECTION_LOST', `${what} failed: server unreachable: ${describeFetchFailure(error)}`, {
      cause: error,
      notSent: true,
    });
  }
  const status = httpStatus(error);
  // A 2026-07-28 server answers an unknown method with HTTP 404 and the JSON-RPC error in the body,
  // which the SDK reports as an HTTP error: the body is the answer (a list the server does not have).
  const answered = rpcErrorInBody(error);
  if (answered?.code === METHOD_NOT_FOUND) {
    return new SwitchboardError('SERVER_ERROR', `${what} failed: ${answered.message}`, { cause: error, rpcCode: answered.code, status });
  }
  if (status !== undefined) {
    return new SwitchboardError('HTTP_ERROR', `${what} failed: HTTP ${status}: ${errorMessage(error)}`, { cause: error, status });
  }
  if (error instanceof TypeError && error.message === 'fetch failed') {
    return new SwitchboardError('CONNECTION_LOST', `${what} failed: ${describeFetchFailure(error)}`, { cause: error });
  }
  // Zod errors (a result that does not match the schema) and anything else unexpected.
  return new SwitchboardError('PROTOCOL_ERROR', `${what} failed: ${errorMessage(error)}`, { cause: error });
}

/** What the SDK itself reports (never from the wire); undefined for HTTP errors, read by status below. */
function translateSdkError(error: SdkError, context: RequestErrorContext): SwitchboardError | undefined {
  const { what } = context;
  switch (error.code) {
    case SdkErrorCode.RequestTimeout:
      return new SwitchboardError('REQUEST_TIMEOUT', `${what} got no response within ${context.timeoutMs} ms`, { cause: error });
    case SdkErrorCode.ConnectionClosed:
      // The request was written; the server may have acted on it before the connection died.
      return new SwitchboardError('CONNECTION_LOST', `${what} failed: the connection closed before the server answered`, { cause: error });
    case SdkErrorCode.NotConnected:
      return new SwitchboardError('CONNECTION_LOST', `${what} failed: not connected`, { cause: error, notSent: true });
    case SdkErrorCode.CapabilityNotSupported:
    case SdkErrorCode.InputRequiredRoundsExceeded:
      // An input_required round (2026-07-28) asking for something no handler answers yet.
      return new SwitchboardError(
        'PROTOCOL_ERROR',
        `${what} failed: the server asked for input Switchboard cannot give here: ${error.message}`,
        { cause: error },
      );
    default:
      return undefined;
  }
}

/**
 * The server wants a sign-in: our provider said so (no credentials, a refused refresh, a step-up),
 * the SDK gave up on its redirect, or the retry after a refresh was refused again.
 */
export function signInFailure(error: unknown, what?: string): SwitchboardError | undefined {
  const need = (message: string, signIn: SignInNeed, notSent = true) =>
    new SwitchboardError('NEEDS_SIGN_IN', what ? `${what}: ${message}` : message, { cause: error, notSent, signIn });
  const required = findSignInRequired(error);
  if (required) return need(required.message, { reason: required.reason, ...(required.scope ? { scope: required.scope } : {}) });
  if (InsufficientScopeError.isInstance(error)) {
    const scope = error.requiredScope;
    return need(`the server asks for more access${scope ? ` (scope "${scope}")` : ''}; sign in again to grant it`, {
      reason: 'scope',
      ...(scope ? { scope } : {}),
    });
  }
  if (UnauthorizedError.isInstance(error)) return need('sign-in required', { reason: 'signInRequired' });
  if (error instanceof SdkError && error.code === SdkErrorCode.ClientHttpAuthentication) {
    // The request was sent (with the fresh token) and refused: not "never sent".
    return need('the server refused the new access token too (HTTP 401); sign in again', { reason: 'refused' }, false);
  }
  return undefined;
}

/** The JSON-RPC error an HTTP error's body carries, if it is one (bounded: the body is the SDK's whole text). */
function rpcErrorInBody(error: unknown): { readonly code: number; readonly message: string } | undefined {
  if (!(error instanceof SdkHttpError)) return undefined;
  const text = error.data.text;
  if (typeof text !== 'string' || text.length > 64 * 1024 || !text.trimStart().startsWith('{')) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const answer = (body as { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown } } | null)?.error;
  if ((body as { jsonrpc?: unknown } | null)?.jsonrpc !== '2.0' || typeof answer?.code !== 'number' || !Number.isInteger(answer.code))
    return undefined;
  return { code: answer.code, message: typeof answer.message === 'string' ? answer.message.slice(0, 1000) : `error ${answer.code}` };
}
