import { timingSafeEqual } from 'node:crypto';

/** What a gateway token may be: URL-safe, 32 to 512 characters (the generated ones are 43). */
export const GATEWAY_TOKEN_PATTERN = /^[A-Za-z0-9_-]{32,512}$/;

/**
 * Constant time for a token of the expected length. A token of another length is refused at once:
 * that tells an attacker only the length, which for a gateway's or the machine host's own token is in its source (43
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
