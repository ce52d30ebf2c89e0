// Tools found by search instead of cut by a budget: a full-text index (MiniSearch) over every
// eligible tool of the snapshot (those the filters let through, the ones the budget left out of
// chat's list included), by its name, title, description, argument names, and its server. The index belongs to one snapshot and is built again, on the next search, after the
// snapshot changed. What a hit may be called with is still the call gate's decision.
import MiniSearch from 'minisearch';
import { isForModel } from './modelVisibility';
import type { CatalogSnapshot, CatalogTool, ToolHit } from './types';

interface IndexedTool {
  readonly id: number;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly arguments: string;
  readonly server: string;
}

/** How much a match counts in each field: a tool's name says most of what it does. */
const BOOST = { name: 3, title: 2, arguments: 1.2, description: 1, server: 1.5 };
/** Words too common in tool descriptions to tell tools apart. */
const STOP_WORDS = new Set(
  'a an and are as at be by for from in into is it its of on or that the this to with you your use using used can will when which'.split(
    ' ',
  ),
);
const MAX_DESCRIPTION_CHARS = 2_000;
const MAX_ARGUMENT_CHARS = 2_000;
export const MAX_QUERY_CHARS = 500;
export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 50;

/** Words of an identifier or a sentence: `get_file_contents`, `createIssue`, `search-repos` → their words. */
function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
}

/** One form for a word and its plural, -ing and -ed forms: "issues", "listing", "created" find "issue", "list", "create". */
function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('es') && /(ss|sh|ch|x)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/**
 * The argument names, not their descriptions: on 1,018 real tools the descriptions added nothing
 * to recall at 5 and doubled the index, and its search time at 10,000 tools (bench/RESULTS.md).
 */
function argumentText(tool: CatalogTool): string {
  const properties = (tool.tool.inputSchema as { properties?: Record<string, unknown> }).properties ?? {};
  return Object.keys(properties).join(' ').slice(0, MAX_ARGUMENT_CHARS);
}

function newIndex(): MiniSearch<IndexedTool> {
  return new MiniSearch<IndexedTool>({
    fields: ['name', 'title', 'description', 'arguments', 'server'],
    storeFields: [],
    tokenize: words,
    processTerm: (term) => {
      const lower = term.toLowerCase();
      return STOP_WORDS.has(lower) ? null : stem(lower);
    },
    searchOptions: {
      boost: BOOST,
      prefix: (term) => term.length > 3,
      fuzzy: (term) => (term.length > 5 ? 0.2 : false),
      maxFuzzy: 1,
      combineWith: 'OR',
    },
  });
}

export class ToolSearch {
  private built: { readonly snapshot: CatalogSnapshot; readonly index: MiniSearch<IndexedTool>; readonly tools: CatalogTool[] } | undefined;

  constructor(private readonly snapshot: () => CatalogSnapshot) {}

  /** Every tool search can find: what the filters let through, whether or not it fit the budget. */
  static eligible(tool: CatalogTool): boolean {
    return (tool.exposed || tool.filteredBy?.kind === 'budget') && isForModel(tool.tool);
  }

  /** The best `limit` tools for `query`, best first; `server` narrows it to one server. */
  search(query: string, options: { readonly limit?: number; readonly server?: string } = {}): ToolHit[] {
    const { index, tools } = this.current();
    const limit = Math.max(1, Math.min(options.limit ?? DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT));
    const results = index.search(query.slice(0, MAX_QUERY_CHARS), {
      ...(options.server === undefined ? {} : { filter: (result) => tools[result.id as number]?.server === options.server }),
    });
    return results.slice(0, limit).flatMap((result) => {
      const tool = tools[result.id as number];
      if (!tool) return [];
      const title = tool.tool.title ?? tool.tool.annotations?.title;
      return [
        {
          qualifiedName: tool.qualifiedName,
          server: tool.server,
          name: tool.name,
          ...(title ? { title } : {}),
          description: tool.tool.description ?? '',
          inputSchema: tool.tool.inputSchema,
          readOnly: tool.readOnly,
          inChat: tool.exposed,
          score: result.score,
        },
      ];
    });
  }

  private current(): NonNullable<ToolSearch['built']> {
    const snapshot = this.snapshot();
    if (this.built?.snapshot === snapshot) return this.built;
    const tools = snapshot.servers.flatMap((server) => server.tools.filter(ToolSearch.eligible));
    const index = newIndex();
    index.addAll(
      tools.map((tool, id) => ({
        id,
        name: tool.name,
        title: tool.tool.title ?? tool.tool.annotations?.title ?? '',
        description: (tool.tool.description ?? '').slice(0, MAX_DESCRIPTION_CHARS),
        arguments: argumentText(tool),
        server: tool.server,
      })),
    );
    this.built = { snapshot, index, tools };
    return this.built;
  }
}
