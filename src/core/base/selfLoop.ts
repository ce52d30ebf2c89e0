// A Switchboard never serves itself back to itself. Each runtime has a random id:
// - its requests to HTTP servers carry it (Mcp-Switchboard-Via), and its gateway refuses at once a
//   request that carries its own (HTTP 508): its own gateway's URL in its own configuration, or a
//   team source that is itself, fails on the first request instead of waiting for itself;
// - what its gateway lists (tools, prompts, resources, templates) carries, in `_meta`, the ids of
//   the Switchboards it has come through, and a Switchboard drops what comes back with its own: two
//   gateways that list each other (or any ring of them) get each other's own offer, never their own
//   back under a longer name, round after round;
// - its client says it is a Switchboard (an experimental capability), and a gateway answers such a
//   client's lists with what it knows now instead of waiting for servers still starting: in a ring,
//   each would wait for the other to finish listing. Later changes reach it as list_changed.
// An entry that starts Switchboard itself (Share writes them for other agents) is recognized before
// anything runs: config/switchboardEntries.ts.
import { randomBytes } from 'node:crypto';

export const VIA_HEADER = 'mcp-switchboard-via';
export const VIA_META = 'io.github.mcp-switchboard/via';
/** The experimental client capability a Switchboard's connections declare. */
export const SWITCHBOARD_CLIENT = 'io.github.mcp-switchboard';
/** HTTP 508 Loop Detected: the answer to a request from the gateway's own Switchboard. */
export const LOOP_STATUS = 508;
/** A trail longer than this is no real chain of gateways: such an item is dropped. */
export const MAX_TRAIL = 16;
const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** A new runtime's id: 96 random bits, header- and URL-safe. */
export function newSwitchboardId(): string {
  return randomBytes(12).toString('base64url');
}

/** Whether a request's Mcp-Switchboard-Via header names `id` (the gateway's own Switchboard). */
export function cameFrom(header: string | readonly string[] | undefined, id: string): boolean {
  const values = typeof header === 'string' ? [header] : (header ?? []);
  return values.some((value) => value.split(',').some((part) => part.trim() === id));
}

/** The ids an item as listed says it came through; none for an item without a (valid) trail. */
export function trailOf(item: unknown): readonly string[] {
  const meta = typeof item === 'object' && item !== null ? (item as { _meta?: unknown })._meta : undefined;
  const trail = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)[VIA_META] : undefined;
  return Array.isArray(trail) ? trail.filter((id): id is string => typeof id === 'string' && ID_PATTERN.test(id)) : [];
}

/**
 * Whether a listed item is not to be taken: it came through Switchboard `id` already (it would be
 * served back to where it came from), or through more gateways than any real chain has.
 */
export function cameBack(item: unknown, id: string): boolean {
  const trail = trailOf(item);
  return trail.length >= MAX_TRAIL || trail.includes(id);
}

/** The item as gateway `id` lists it: a copy whose trail ends with `id`. */
export function withTrail<T extends object>(item: T, id: string): T {
  const meta = (item as { _meta?: unknown })._meta;
  const own = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : {};
  return { ...item, _meta: { ...own, [VIA_META]: [...trailOf(item), id] } };
}

/** Splits a list into the items to take and how many came back (see cameBack). */
export function withoutReturns<T>(items: readonly T[], id: string | undefined): { kept: T[]; returned: number } {
  if (id === undefined) return { kept: [...items], returned: 0 };
  const kept = items.filter((item) => !cameBack(item, id));
  return { kept, returned: items.length - kept.length };
}

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** `base` (default: the global fetch) with every request saying it comes from Switchboard `id`. */
export function fetchSayingVia(base: Fetch | undefined, id: string): Fetch {
  const send: Fetch = base ?? ((url, init) => fetch(url, init));
  return (url, init) => {
    const headers = new Headers(init?.headers);
    headers.set(VIA_HEADER, id);
    return send(url, { ...init, headers });
  };
}
