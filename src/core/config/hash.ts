// The manager restarts a server when this hash changes, so it covers exactly what a running
// connection depends on. `enabled` (start/stop, not restart), `tools` (applied by the catalog),
// `name`, `source` and `secrets` are left out. A sandbox's rules are covered only while it is on:
// rules of a server that runs unsandboxed do not change how it runs, and its hash (the key of its
// cached tool list) stays what it was before sandboxes existed.

import { createHash } from 'node:crypto';
import type { ServerDefinition } from './types';

/** Bump when the covered fields change, so old and new hashes never compare equal by accident. */
const HASH_VERSION = 2;

export function hashServerConnection(definition: ServerDefinition): string {
  const common = { v: HASH_VERSION, timeouts: definition.timeouts, reconnect: definition.reconnect };
  const relevant =
    definition.transport === 'stdio'
      ? {
          ...common,
          transport: 'stdio',
          command: definition.command,
          args: definition.args,
          env: definition.env,
          cwd: definition.cwd ?? null,
          sandbox: definition.sandbox?.enabled ? definition.sandbox : undefined,
        }
      : {
          ...common,
          transport: definition.transport,
          url: definition.url,
          headers: definition.headers,
          sseFallback: definition.sseFallback,
          oauth: definition.oauth,
        };
  return createHash('sha256').update(canonicalJson(relevant)).digest('hex');
}

/** JSON with object keys sorted at every level; array order is kept because it matters (args). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
