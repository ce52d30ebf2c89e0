// The checks every gateway request passes before the MCP SDK sees it. The gateway listens on
// loopback only, so the threats are other local processes without the token and web pages the
// user visits: a page can reach 127.0.0.1 directly (Origin check) or through a hostname it
// rebinds to 127.0.0.1 (Host check). The token stops both; the header checks are defence in depth
// that also holds if the token leaks into a page.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export type GuardVerdict = { readonly ok: true } | { readonly ok: false; readonly status: 401 | 403; readonly message: string };

const LOOPBACK_ORIGIN_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** 256 random bits, URL- and header-safe. */
export function createToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Constant time for a token of the expected length. A token of another length is refused at once:
 * that tells an attacker only the length, which for the gateway's own token is in its source (43
 * characters, 256 bits) and for a token file is no help in guessing it. Hashing both sides first
 * would hide the length too, but a hash object per request was 30 µs of the gateway's time per call
 * (bench/RESULTS.md, "Where a gateway call's time goes").
 */
export function tokenMatches(presented: string, expected: string): boolean {
  if (expectedBytes?.token !== expected) expectedBytes = { token: expected, bytes: Buffer.from(expected, 'utf8') };
  const presentedBytes = Buffer.from(presented, 'utf8');
  return presentedBytes.length === expectedBytes.bytes.length && timingSafeEqual(presentedBytes, expectedBytes.bytes);
}

/** The gateway's own token changes once per start: its bytes are made once, not on every request. */
let expectedBytes: { readonly token: string; readonly bytes: Buffer } | undefined;

/** The token from `Authorization: Bearer <token>`, or undefined for any other shape. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  return match?.[1];
}

/** Only the exact names a loopback client uses for this port; a rebound name never matches. */
export function isAllowedHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  const normalized = host.toLowerCase();
  return normalized === `127.0.0.1:${port}` || normalized === `localhost:${port}`;
}

/**
 * Any port: a page on another local port still cannot call without the token, and local tools
 * (inspectors, dev servers) legitimately send their own origin.
 */
export function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file://) and garbage are not loopback.
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_ORIGIN_HOSTS.has(url.hostname);
}

/** Host, then Origin, then the token: header failures are 403 even without a token. */
export function checkRequest(headers: IncomingHttpHeaders, port: number, token: string): GuardVerdict {
  if (!isAllowedHost(headers.host, port)) {
    return { ok: false, status: 403, message: `Forbidden: the Host header must be 127.0.0.1:${port} or localhost:${port}` };
  }
  const origin = headers.origin;
  if (origin !== undefined && !isLoopbackOrigin(origin)) {
    return { ok: false, status: 403, message: 'Forbidden: requests from a non-loopback Origin are not accepted' };
  }
  const presented = bearerToken(headers.authorization);
  if (presented === undefined || !tokenMatches(presented, token)) {
    return { ok: false, status: 401, message: 'Unauthorized: a valid bearer token is required' };
  }
  return { ok: true };
}
