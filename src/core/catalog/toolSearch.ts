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
/**
 * Words that tell no tool from another: function words, and the conversational ones a person puts
 * around a request ("can you show me what's ..."). The same list for tools and queries.
 */
const STOP_WORDS = new Set(
  (
    'a about above after again all also am an and any are as at be been before being below between both but by ' +
    'can could did do does doing down during each either etc few for from further had has have having he her here hers ' +
    'him his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other ' +
    'our ours out over own please same she should so some such than that the their theirs them then there these they ' +
    'this those through to too under until up us very was we were what when where which while who whom why will with ' +
    'would you your yours s t d ll m re ve using use used uses via e g ie eg let lets want need like'
  ).split(' '),
);
/** Words whose last "s" is not a plural ("news" is not "new"), kept as they are. */
const KEEP_AS_IS = new Set(
  'news canvas alias status bias atlas analysis axis basis series species chaos lens aws dns sms gis ios macos kubernetes redis jenkins postgres https always'.split(
    ' ',
  ),
);
const MAX_DESCRIPTION_CHARS = 2_000;
const MAX_ARGUMENT_CHARS = 2_000;
/** Long enough for a task pasted whole; the words past it are not read. */
export const MAX_QUERY_CHARS = 2_000;
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

function stripEnding(word: string): string {
  if (word.length > 5 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('es') && /(ss|sh|ch|x)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/**
 * One form for a word and its plural, -ing and -ed forms, the same for tools and queries:
 * endings come off until none is left ("trendings" and "trending" meet at "trend"), then a final
 * "e" ("create" and "creating" meet at "creat").
 */
export function stem(word: string): string {
  if (KEEP_AS_IS.has(word)) return word;
  let current = word;
  for (let step = 0; step < 3; step++) {
    const next = stripEnding(current);
    if (next === current) break;
    current = next;
  }
  return current.length > 4 && current.endsWith('e') ? current.slice(0, -1) : current;
}

/** A word as the index holds it, or null for a stop word. */
function indexTerm(term: string): string | null {
  const lower = term.toLowerCase();
  return STOP_WORDS.has(lower) ? null : stem(lower);
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
    processTerm: indexTerm,
    searchOptions: {
      boost: BOOST,
      prefix: (term) => term.length > 3,
      fuzzy: (term) => (term.length > 5 ? 0.2 : false),
      maxFuzzy: 1,
      combineWith: 'OR',
    },
  });
}

/**
 * How much each word of a query counts, by how few tools have it in any field. MiniSearch weighs a
 * word's rarity per field, so a common word that tools repeat in name, title and description
 * ("document" on 25 tools) outweighed the rare one that decides ("merge").
 */
function rarity(documents: readonly IndexedTool[]): (term: string) => number {
  const holders = new Map<string, number>();
  for (const document of documents) {
    const terms = new Set<string>();
    for (const field of [document.name, document.title, document.description, document.arguments, document.server])
      for (const word of words(field)) {
        const term = indexTerm(word);
        if (term) terms.add(term);
      }
    for (const term of terms) holders.set(term, (holders.get(term) ?? 0) + 1);
  }
  const most = Math.log(1 + documents.length);
  return (term) => RARITY_FLOOR + Math.log(1 + documents.length / (1 + (holders.get(term) ?? 0))) / most;
}

/** What the commonest word still counts, beside the rarest's 1 + RARITY_FLOOR. */
const RARITY_FLOOR = 0.3;

const FIELD_NAMES: Readonly<Record<string, string>> = {
  name: 'name',
  title: 'title',
  description: 'description',
  arguments: 'arguments',
  server: 'server name',
};
const MAX_REASONS = 4;

/**
 * "matched “merge” (name, description), “pdf” (description)": the query's own words (not the
 * index's stems) that a tool matched, each with the fields it was found in.
 */
function explain(match: Readonly<Record<string, readonly string[]>>, queryWords: readonly string[]): string {
  const parts: string[] = [];
  const seen = new Set<string>();
  for (const [term, fields] of Object.entries(match)) {
    const word = queryWords.find((candidate) => {
      const own = indexTerm(candidate);
      return own !== null && (term === own || term.startsWith(own) || own.startsWith(term));
    });
    const shown = (word ?? term).toLowerCase();
    if (seen.has(shown)) continue;
    seen.add(shown);
    parts.push(`“${shown.slice(0, 40)}” (${fields.map((field) => FIELD_NAMES[field] ?? field).join(', ')})`);
    if (parts.length === MAX_REASONS) break;
  }
  return parts.length > 0 ? `matched ${parts.join(', ')}` : 'matched the query';
}

export class ToolSearch {
  private built:
    | {
        readonly snapshot: CatalogSnapshot;
        readonly index: MiniSearch<IndexedTool>;
        readonly tools: CatalogTool[];
        readonly rarity: (term: string) => number;
      }
    | undefined;

  constructor(private readonly snapshot: () => CatalogSnapshot) {}

  /** Every tool search can find: what the filters let through, whether or not it fit the budget. */
  static eligible(tool: CatalogTool): boolean {
    return (tool.exposed || tool.filteredBy?.kind === 'budget') && isForModel(tool.tool);
  }

  /** The best `limit` tools for `query`, best first; `server` narrows it to one server. */
  search(query: string, options: { readonly limit?: number; readonly server?: string } = {}): ToolHit[] {
    const { index, tools, rarity } = this.current();
    const queryWords = words(query.slice(0, MAX_QUERY_CHARS));
    const limit = Math.max(1, Math.min(options.limit ?? DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT));
    const results = index.search(query.slice(0, MAX_QUERY_CHARS), {
      boostTerm: rarity,
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
          why: explain(result.match, queryWords),
        },
      ];
    });
  }

  private current(): NonNullable<ToolSearch['built']> {
    const snapshot = this.snapshot();
    if (this.built?.snapshot === snapshot) return this.built;
    const tools = snapshot.servers.flatMap((server) => server.tools.filter(ToolSearch.eligible));
    const index = newIndex();
    const documents = tools.map((tool, id) => ({
      id,
      name: tool.name,
      title: tool.tool.title ?? tool.tool.annotations?.title ?? '',
      description: (tool.tool.description ?? '').slice(0, MAX_DESCRIPTION_CHARS),
      arguments: argumentText(tool),
      server: tool.server,
    }));
    index.addAll(documents);
    this.built = { snapshot, index, tools, rarity: rarity(documents) };
    return this.built;
  }
}
