// What the gateway asks of the other replicas of a team gateway (serve behind a load balancer,
// without affinity). Everything a replica keeps for a client between requests (a 2025 session,
// a 2026-07-28 task, a round's parked call and its upstream's state) stays where it was made; the
// ids and states a replica hands out name it, sealed, so that whichever replica a later request
// reaches sends it on to the one that holds what it refers to. What must outlive a replica (a
// finished task's result) is kept in a shared store. An interface: the editor's gateway is one
// replica and carries none of this; `serve` makes it (src/core/cluster).
import type http from 'node:http';
import type { SealContext } from '../../base/sealer';

/** The header a forwarded request carries: a replica that receives it never forwards it again. */
export const FORWARDED_HEADER = 'x-switchboard-forwarded';
/** On a 503 of a replica that is stopping (draining): to a peer, it is as good as gone. */
export const STOPPING_HEADER = 'x-switchboard-stopping';

export interface ReplicaRouter {
  /** An id or state made here: `rest`, marked as this replica's. */
  mint(rest: string): string;
  /**
   * The replica (its URL) that holds what `id` refers to, when it is another one; undefined for an
   * id of this replica's, or one that no replica of this gateway made (it is then unknown here).
   */
  holderOf(id: string): string | undefined;
  /** `id` without this replica's mark (what mint was given); as it is when it has none. */
  local(id: string): string;
  /**
   * `text` sealed (encrypted and authenticated) under the key every replica shares, bound to
   * `context` (what it is, whose, where it is kept): URL-safe, no dots.
   */
  seal(text: string, context: SealContext): string;
  /** What seal made of it with the same context, on any replica; undefined for anything else. */
  open(sealed: string, context: SealContext): string | undefined;
  /**
   * Sends the request on to `holder` and its answer back (a stream too). False when the holder
   * cannot be reached or is stopping, before anything was written to `res`.
   */
  forward(req: http.IncomingMessage, res: http.ServerResponse, body: unknown, holder: string): Promise<boolean>;
  /** Finished tasks' results, for when their replica is gone; absent with a single replica. */
  readonly tasks?: SharedTaskStore;
}

/** A finished 2026-07-28 task as tasks/get answers it, and whose it is. */
export interface StoredTask {
  /** The user's key on a team gateway with identities, else ''. */
  readonly owner: string;
  /** The tasks/get result, as the holder would have sent it. */
  readonly result: Record<string, unknown>;
}

export interface SharedTaskStore {
  put(taskId: string, task: StoredTask, ttlMs: number): Promise<void>;
  get(taskId: string): Promise<StoredTask | undefined>;
}

/** What a request refers to that another replica may hold: its session, or (2026-07-28) its task or round. */
export function heldIds(req: http.IncomingMessage, body: unknown): readonly string[] {
  const session = req.headers['mcp-session-id'];
  if (typeof session === 'string') return [session];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const { method, params } = body as { method?: unknown; params?: { taskId?: unknown; requestState?: unknown } };
  const ids: string[] = [];
  if (typeof method === 'string' && method.startsWith('tasks/') && typeof params?.taskId === 'string') ids.push(params.taskId);
  if (typeof params?.requestState === 'string') ids.push(params.requestState);
  return ids;
}
