// Cached tool lists and snapshots are shared by reference between the catalog and its readers;
// freezing them turns an accidental mutation anywhere into an immediate TypeError instead of a
// corrupted cache.

/** Freezes `value` and everything reachable from it. A frozen object counts as already done. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}

/** Deeper than any tool definition nests; beyond it (or in a cycle) the answer is just "no". */
const MAX_DEPTH = 64;

/**
 * True when `value` is a JSON-like tree (plain objects, arrays, primitives) that is frozen all the
 * way down, so that it can be shared instead of copied: nobody can change it any more.
 */
export function isDeepFrozenData(value: unknown, depth = 0): boolean {
  if (typeof value !== 'object' || value === null) return typeof value !== 'function';
  if (depth > MAX_DEPTH || !Object.isFrozen(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (proto !== Array.prototype) return false;
  } else if (proto !== Object.prototype && proto !== null) {
    return false;
  }
  for (const key of Object.keys(value)) if (!isDeepFrozenData((value as Record<string, unknown>)[key], depth + 1)) return false;
  return true;
}
