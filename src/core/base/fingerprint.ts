import { createHash } from 'node:crypto';

/**
 * Identifies a JSON value by content: equal values have equal fingerprints. Every list this host
 * compares (tools, resources, prompts, what a client was shown) is bounded in depth and size, so
 * serializing it is safe; the hash keeps what is stored small. `length` hex characters (≤ 64).
 */
export function fingerprint(value: unknown, length = 16): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, length);
}
