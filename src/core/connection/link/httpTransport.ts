// Creating the SDK's HTTP transports, and reading the errors they throw.
import {
  SdkHttpError,
  SSEClientTransport,
  SseError,
  StreamableHTTPClientTransport,
  type AuthProvider,
  type FetchLike,
} from '@modelcontextprotocol/client';
import { errorMessage } from '../../base/errorMessage';

export interface HttpTransportOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** For tests and proxies; defaults to the global fetch. */
  readonly fetch?: FetchLike;
  /** OAuth for a server that asks for it; the SDK runs the protocol, the provider keeps the tokens. */
  readonly authProvider?: AuthProvider;
}

export function createStreamableHttpTransport(options: HttpTransportOptions): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(options.url), {
    requestInit: { headers: { ...options.headers } },
    fetch: options.fetch,
    authProvider: options.authProvider,
  });
}

export function createSseTransport(options: HttpTransportOptions): SSEClientTransport {
  return new SSEClientTransport(new URL(options.url), {
    requestInit: { headers: { ...options.headers } },
    fetch: options.fetch,
    authProvider: options.authProvider,
  });
}

/** The HTTP status behind an SDK transport error, if there was one. */
export function httpStatus(error: unknown): number | undefined {
  if (error instanceof SdkHttpError) return error.status;
  // SseError keeps the status on its numeric code.
  if (error instanceof SseError) return typeof error.code === 'number' && error.code >= 100 ? error.code : undefined;
  // SSEClientTransport.send throws a plain Error naming the status.
  const match = error instanceof Error ? /\(HTTP (\d{3})\)/.exec(error.message) : null;
  return match ? Number(match[1]) : undefined;
}

/**
 * The server no longer knows the session (it restarted, or expired it). The spec says 404; the
 * reference servers and servers built from the SDK's examples answer 400 "No valid session ID
 * provided". Callers only ask for requests that carried a session id.
 */
export function isSessionRejected(error: unknown): boolean {
  if (!(error instanceof SdkHttpError)) return false;
  return error.status === 404 || (error.status === 400 && /session/i.test(error.message));
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

function causeCodes(error: unknown, depth = 0): string[] {
  if (typeof error !== 'object' || error === null || depth > 4) return [];
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  return [
    ...(typeof code === 'string' ? [code] : []),
    ...causeCodes(cause, depth + 1),
    ...(Array.isArray(errors) ? errors.flatMap((inner) => causeCodes(inner, depth + 1)) : []),
  ];
}

/**
 * fetch failed before a connection was made (refused, no such host): the request cannot have
 * reached the server.
 */
export function isUnreachable(error: unknown): boolean {
  return causeCodes(error).some((code) => UNREACHABLE_CODES.has(code));
}

function innermostCause(error: unknown): Error | undefined {
  let inner: Error | undefined;
  let current: unknown = (error as { cause?: unknown } | undefined)?.cause;
  for (let depth = 0; current instanceof Error && depth < 5; depth += 1) {
    inner = current;
    current = current.cause;
  }
  return inner;
}

/** A readable reason for a fetch failure: `fetch failed` alone says nothing. */
export function describeFetchFailure(error: unknown): string {
  const codes = causeCodes(error);
  // The SDK may wrap fetch's TypeError ("Version negotiation probe failed: fetch failed"); the
  // socket error (ECONNREFUSED) is the innermost cause.
  const cause = innermostCause(error);
  const detail = cause?.message ? cause.message : codes[0];
  const message = errorMessage(error);
  return detail && !message.includes(detail) ? `${message} (${detail})` : message;
}
