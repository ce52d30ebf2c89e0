// Diagnostic paths read like the JSON the user wrote: `servers.git.args[2]`,
// `servers["my server"].headers["X-Api-Key"]`. Segments that are not plain identifiers are quoted so
// that a path can always be mapped back to exactly one key.

import { MAX_NAME_LENGTH } from './limits';

const PLAIN_SEGMENT = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export type PathSegment = string | number;

export function appendPath(base: string, segment: PathSegment): string {
  if (typeof segment === 'number') return `${base}[${segment}]`;
  const key = segment.length > MAX_NAME_LENGTH ? `${segment.slice(0, 64)}…` : segment;
  if (PLAIN_SEGMENT.test(key)) return base === '' ? key : `${base}.${key}`;
  return `${base}[${JSON.stringify(key)}]`;
}

export function joinPath(base: string, segments: readonly PathSegment[]): string {
  return segments.reduce<string>(appendPath, base);
}
