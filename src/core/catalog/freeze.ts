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
