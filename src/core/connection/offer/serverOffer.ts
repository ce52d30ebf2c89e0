// What a server offers besides tools: resources, resource templates and prompts, listed in full at
// connect and after each list change; and the requests about them that a client may forward
// (read, get, complete, set the log level). Items are checked one by one, so one malformed
// resource or prompt disables only itself, with a problem naming it.
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate } from '@modelcontextprotocol/client';
import {
  CompleteResultSchema,
  EmptyResultSchema,
  GetPromptResultSchema,
  PromptSchema,
  ReadResourceResultSchema,
  ResourceSchema,
  ResourceTemplateSchema,
} from '@modelcontextprotocol/core';
import { GetSkillResultSchema, ReadResourceDirectoryResultSchema } from '@modelcontextprotocol/core/ext/skills';
import { z } from 'zod';
import { jsonShapeProblem, TOOL_DEFINITION_LIMITS } from '../../base/jsonShape';
import {
  type ProtocolEra,
  SwitchboardError,
  type RequestPolicy,
  type RetryBudget,
  declaresSkills,
  type Skill,
  type SkillListing,
} from '../link';
import { readPages, sessionPages, type ListMethod, type PageRequester, type PagingSession } from './listPaging';
import { errorMessage } from '../../base/errorMessage';

export interface ServerOffer {
  readonly resources: readonly Resource[];
  readonly resourceTemplates: readonly ResourceTemplate[];
  readonly prompts: readonly Prompt[];
  /**
   * Its skills (SEP-2640), when it declares the extension: each entry a manifest of the skill's
   * files with their digests; no file is read until one is asked for.
   */
  readonly skills: readonly Skill[];
  /** Items held back or lists that failed, each naming what and why. */
  readonly problems: readonly string[];
  /**
   * The server's cache hints (2026-07-28 `ttlMs`), the smallest over the pages of each kind of
   * list this offer was listed with; absent where the server gave none.
   */
  readonly ttlMs?: { readonly resources?: number; readonly prompts?: number };
}

export const EMPTY_OFFER: ServerOffer = { resources: [], resourceTemplates: [], prompts: [], skills: [], problems: [] };

/** Which lists a change notification names. */
export type OfferList = 'resources' | 'prompts';

/** More than any real server offers; the rest of a longer list is ignored, with a problem saying so. */
export const MAX_OFFER_ITEMS = 10_000;
const MAX_NAME_IN_MESSAGE = 80;
const METHOD_NOT_FOUND = -32601;

/** Requests a client may send about what a server offers, each with the schema of its result. */
export const FORWARDED_RESULTS = {
  'resources/read': ReadResourceResultSchema,
  'prompts/get': GetPromptResultSchema,
  'completion/complete': CompleteResultSchema,
  'logging/setLevel': EmptyResultSchema,
  // The skills extension (SEP-2640): a skill by URI (listed or not), and a directory's children.
  'skills/get': GetSkillResultSchema,
  'resources/directory/read': ReadResourceDirectoryResultSchema,
} as const;

export type ForwardedMethod = keyof typeof FORWARDED_RESULTS;
export type ForwardedResult<M extends ForwardedMethod> = z.infer<(typeof FORWARDED_RESULTS)[M]>;

interface ListSpec<T> {
  readonly method: Exclude<ListMethod, 'tools/list'>;
  readonly key: 'resources' | 'resourceTemplates' | 'prompts';
  readonly what: string;
  readonly schema: z.ZodType<T>;
  readonly label: (item: unknown) => string;
}

const labelOf =
  (field: string) =>
  (item: unknown): string => {
    const value = typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[field] : undefined;
    return typeof value === 'string' ? value.slice(0, MAX_NAME_IN_MESSAGE) : '(unnamed)';
  };

const RESOURCES: ListSpec<Resource> = {
  method: 'resources/list',
  key: 'resources',
  what: 'resource',
  schema: ResourceSchema,
  label: labelOf('uri'),
};
const RESOURCE_TEMPLATES: ListSpec<ResourceTemplate> = {
  method: 'resources/templates/list',
  key: 'resourceTemplates',
  what: 'resource template',
  schema: ResourceTemplateSchema,
  label: labelOf('uriTemplate'),
};
const PROMPTS: ListSpec<Prompt> = { method: 'prompts/list', key: 'prompts', what: 'prompt', schema: PromptSchema, label: labelOf('name') };

/** Every page of one list, bounded in pages and items, with invalid items held back. */
async function listEverything<T>(
  spec: ListSpec<T>,
  requestPage: PageRequester,
  problems: string[],
  hints: { ttlMs?: number },
): Promise<T[]> {
  const items: T[] = [];
  const paging = await readPages(
    spec.method,
    requestPage,
    (page) => {
      for (const raw of Array.isArray(page[spec.key]) ? (page[spec.key] as unknown[]) : []) {
        if (items.length >= MAX_OFFER_ITEMS) break;
        const item = screenItem(spec, raw, problems);
        if (item !== undefined) items.push(item);
      }
    },
    () => items.length < MAX_OFFER_ITEMS,
  );
  if (paging.ttlMs !== undefined) hints.ttlMs = Math.min(hints.ttlMs ?? paging.ttlMs, paging.ttlMs);
  if (items.length >= MAX_OFFER_ITEMS && paging.cursorLeft !== undefined)
    problems.push(`the server offers more than ${MAX_OFFER_ITEMS} ${spec.what}s; the rest are ignored`);
  return items;
}

function screenItem<T>(spec: ListSpec<T>, raw: unknown, problems: string[]): T | undefined {
  const label = spec.label(raw);
  const tooBig = jsonShapeProblem(raw, TOOL_DEFINITION_LIMITS, `${spec.what} \`${label}\``);
  if (tooBig) {
    problems.push(tooBig);
    return undefined;
  }
  const parsed = spec.schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  problems.push(
    `${spec.what} \`${label}\` is not valid MCP: ${issue ? `${issue.path.join('.') || 'the item'}: ${issue.message}` : 'invalid'}`,
  );
  return undefined;
}

/** Which lists a server's capabilities promise. */
export function offeredLists(capabilities: Readonly<Record<string, unknown>>): { resources: boolean; prompts: boolean } {
  return {
    resources: typeof capabilities.resources === 'object' && capabilities.resources !== null,
    prompts: typeof capabilities.prompts === 'object' && capabilities.prompts !== null,
  };
}

/** Whether a capability (`resources`, `prompts`) promises list change notifications. */
export function notifiesChanges(capabilities: Readonly<Record<string, unknown>>, list: OfferList | 'tools'): boolean {
  const capability = capabilities[list] as { listChanged?: unknown } | undefined;
  return capability?.listChanged === true;
}

/** Whether the server lets clients subscribe to resource updates. */
export function offersSubscriptions(capabilities: Readonly<Record<string, unknown>>): boolean {
  return (capabilities.resources as { subscribe?: unknown } | undefined)?.subscribe === true;
}

/** What the offer's lists need of a session (McpSession is one). */
export interface OfferSession extends PagingSession {
  readonly era: ProtocolEra;
  /** Set where the other end lists definitions it screened itself (toolList.ts): the machine host. */
  readonly screenedBy?: 'machine host';
  readonly capabilities: Readonly<Record<string, unknown>>;
  listSkills(policy: RequestPolicy, budget: RetryBudget): Promise<SkillListing>;
  /** A 2026-07-28 session subscribes through its change stream, not by request. */
  setResourceSubscriptions(uris: readonly string[]): void;
}

/**
 * Lists `which` of what the capabilities promise; the other lists are kept from `previous`. A
 * list that fails keeps its previous items and adds a problem: a server whose prompts/list is
 * broken still serves its tools and resources. Cancellation is rethrown.
 */
export async function listOffer(
  session: Pick<OfferSession, 'capabilities' | 'listSkills' | 'requestRaw'>,
  policy: RequestPolicy,
  previous: ServerOffer = EMPTY_OFFER,
  which: readonly OfferList[] = ['resources', 'prompts'],
): Promise<ServerOffer> {
  const offered = offeredLists(session.capabilities);
  const problems: string[] = [];
  const requestPage = sessionPages(session, policy);
  const hints: { resources: { ttlMs?: number }; prompts: { ttlMs?: number } } = { resources: {}, prompts: {} };
  const list = async <T>(spec: ListSpec<T>, wanted: boolean, kept: readonly T[], hint: { ttlMs?: number }): Promise<readonly T[]> => {
    if (!wanted) return kept;
    try {
      return await listEverything(spec, requestPage, problems, hint);
    } catch (error) {
      if (policy.signal?.aborted) throw error;
      // A server with resources but no templates may not know the templates method at all.
      if (error instanceof SwitchboardError && error.rpcCode === METHOD_NOT_FOUND) return [];
      problems.push(`${spec.method} failed: ${errorMessage(error)}`);
      return kept;
    }
  };
  const listResources = offered.resources && which.includes('resources');
  // Skill files are resources: skills are listed again whenever the resources are.
  const skillsOffered = declaresSkills(session.capabilities);
  const listSkillsNow = async (): Promise<readonly Skill[]> => {
    if (!skillsOffered || !which.includes('resources')) return skillsOffered ? previous.skills : [];
    try {
      const listing = await session.listSkills(policy, { retried: false });
      problems.push(...listing.problems);
      return listing.skills;
    } catch (error) {
      if (policy.signal?.aborted) throw error;
      // Declared but not there: a gateway that declared what it could not know yet (its upstream was starting).
      if (error instanceof SwitchboardError && error.rpcCode === METHOD_NOT_FOUND) return [];
      problems.push(`skills/list failed: ${errorMessage(error)}`);
      return previous.skills;
    }
  };
  const [resources, resourceTemplates, prompts, skills] = await Promise.all([
    list(RESOURCES, listResources, offered.resources ? previous.resources : [], hints.resources),
    list(RESOURCE_TEMPLATES, listResources, offered.resources ? previous.resourceTemplates : [], hints.resources),
    list(PROMPTS, offered.prompts && which.includes('prompts'), offered.prompts ? previous.prompts : [], hints.prompts),
    listSkillsNow(),
  ]);
  const ttlMs = {
    ...(hints.resources.ttlMs === undefined
      ? previous.ttlMs?.resources === undefined
        ? {}
        : { resources: previous.ttlMs.resources }
      : { resources: hints.resources.ttlMs }),
    ...(hints.prompts.ttlMs === undefined
      ? previous.ttlMs?.prompts === undefined
        ? {}
        : { prompts: previous.ttlMs.prompts }
      : { prompts: hints.prompts.ttlMs }),
  };
  return { resources, resourceTemplates, prompts, skills, problems, ...(Object.keys(ttlMs).length > 0 ? { ttlMs } : {}) };
}

/**
 * `current` with the `lists` a relisting just listed taken from `listed`: the others stay as they
 * are now, not as they were when that relisting began (another list relisted meanwhile keeps its
 * new items). Skills go with resources, as listOffer lists them.
 */
export function withRelisted(current: ServerOffer, listed: ServerOffer, lists: readonly OfferList[]): ServerOffer {
  const resources = lists.includes('resources');
  const prompts = lists.includes('prompts');
  const ttlMs = {
    ...((resources ? listed.ttlMs?.resources : current.ttlMs?.resources) === undefined
      ? {}
      : { resources: (resources ? listed.ttlMs?.resources : current.ttlMs?.resources) as number }),
    ...((prompts ? listed.ttlMs?.prompts : current.ttlMs?.prompts) === undefined
      ? {}
      : { prompts: (prompts ? listed.ttlMs?.prompts : current.ttlMs?.prompts) as number }),
  };
  return {
    resources: resources ? listed.resources : current.resources,
    resourceTemplates: resources ? listed.resourceTemplates : current.resourceTemplates,
    skills: resources ? listed.skills : current.skills,
    prompts: prompts ? listed.prompts : current.prompts,
    problems: listed.problems,
    ...(Object.keys(ttlMs).length > 0 ? { ttlMs } : {}),
  };
}
