// Paging through one list method (tools, resources, templates, prompts): follows `nextCursor`, keeps
// the smallest `ttlMs` over the pages, and is bounded in pages so that a server cannot make a
// client loop forever. What a page holds is screened by the caller, item by item.
import { PaginatedResultSchema } from '@modelcontextprotocol/core';
import { z } from 'zod';
import { SwitchboardError, type RequestPolicy, type RetryBudget } from '../link';

/** Each list method and the field of its result that holds the items. */
const ITEMS_KEY = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
} as const;

export type ListMethod = keyof typeof ITEMS_KEY;

/**
 * A page's envelope only: the SDK's own result schemas reject a whole page (and so a whole server)
 * for one malformed item, which is what this host must never do; items are checked one by one.
 * Built once per method: zod compiles a parser for each schema object the first time it parses,
 * and a schema made per request compiled one per page (a window opening ten sessions spent 20 ms
 * of its 130 ms to ready in that compiler, profiled, bench/RESULTS.md).
 */
const pageSchemas = new Map<ListMethod, z.ZodType>();

export function pageSchema(method: ListMethod): z.ZodType {
  let schema = pageSchemas.get(method);
  if (!schema) {
    schema = PaginatedResultSchema.extend({ [ITEMS_KEY[method]]: z.array(z.unknown()), ttlMs: z.number().optional() });
    pageSchemas.set(method, schema);
  }
  return schema;
}

/** What paging needs of a session (McpSession provides it). */
export interface PagingSession {
  requestRaw<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: z.ZodType,
    policy: RequestPolicy,
    budget: RetryBudget,
  ): Promise<T>;
}

/** Pages of a session's lists with `policy`; `budget`, when given, is shared by all of them (else one per page). */
export function sessionPages(session: PagingSession, policy: RequestPolicy, budget?: RetryBudget): PageRequester {
  return (method, params) => session.requestRaw(method, params, pageSchema(method), policy, budget ?? { retried: false });
}

/** One request for the page at `cursor` (undefined: the first). */
export type PageRequester = (method: ListMethod, params: { cursor: string } | undefined) => Promise<Record<string, unknown>>;

export interface PagingResult {
  /** The server's cache hint, the smallest over the pages; absent where no page gave one. */
  readonly ttlMs?: number;
  /** Where the list went on when `wantMore` stopped it; undefined when the server's list ended. */
  readonly cursorLeft?: string;
}

const MAX_PAGES = 1_000;

/**
 * Requests pages of `method` and hands each to `take`, until the list ends or `wantMore` says
 * enough. A cursor seen twice, or more than 1,000 pages, is a protocol error.
 */
export async function readPages(
  method: ListMethod,
  requestPage: PageRequester,
  take: (page: Record<string, unknown>) => void,
  wantMore: () => boolean,
): Promise<PagingResult> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  let ttlMs: number | undefined;
  do {
    const page = await requestPage(method, cursor === undefined ? undefined : { cursor });
    if (typeof page.ttlMs === 'number') ttlMs = Math.min(ttlMs ?? page.ttlMs, page.ttlMs);
    take(page);
    pages += 1;
    cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
    if (cursor !== undefined) {
      if (seen.has(cursor)) throw new SwitchboardError('PROTOCOL_ERROR', `${method} returned the cursor "${cursor.slice(0, 80)}" twice`);
      if (pages >= MAX_PAGES) throw new SwitchboardError('PROTOCOL_ERROR', `${method} did not end after ${MAX_PAGES} pages`);
      seen.add(cursor);
    }
  } while (cursor !== undefined && wantMore());
  return { ttlMs, cursorLeft: cursor };
}
