// Tools found by search instead of cut by a budget: a full-text index (searchIndex.ts, MiniSearch's
// ranking) over every eligible tool of the snapshot (those the filters let through, the ones the
// budget left out of chat's list included), by its name, title, description, argument names, and
// its server, kept up to date as snapshots change. What a hit may be called with is still the call
// gate's decision.
import { createHash } from 'node:crypto';
import { isForModel } from './modelVisibility';
import { SearchIndex } from './searchIndex';
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

const FIELDS = ['name', 'title', 'description', 'arguments', 'server'] as const;
type Field = (typeof FIELDS)[number];

function newIndex(): SearchIndex<Field> {
  return new SearchIndex<Field>({ fields: FIELDS, boost: BOOST, tokenize: words, processTerm: indexTerm });
}

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

/** What the commonest word still counts, beside the rarest's 1 + RARITY_FLOOR. */
const RARITY_FLOOR = 0.3;

interface Entry {
  readonly id: number;
  /** Its terms, each the one string the rarity count holds (10,000 tools hold 500,000 of them). */
  readonly terms: readonly string[];
  tool: CatalogTool;
  /** Where the tool is in the snapshot (servers in configuration order): equal scores rank in this order. */
  order: number;
}

/** How many documents hold a term; `term` is the one copy of the string the entries share. */
interface Holders {
  readonly term: string;
  count: number;
}

/**
 * The index of every eligible tool of the latest snapshot, kept up to date: a new snapshot
 * discards the documents of tools that left or changed and adds the new ones, so one server's new
 * list costs its own tools, not the catalog's. `update()` is called when the snapshot changes
 * (the catalog does it off the request path); a search of a newer snapshot updates first.
 */
export class ToolSearch {
  private readonly index = newIndex();
  /** By what a document holds: the same key is the same document. */
  private readonly entries = new Map<string, Entry>();
  private readonly byId = new Map<number, Entry>();
  /** How many documents hold each term, for rarity(). */
  private readonly holders = new Map<string, Holders>();
  private nextId = 0;
  private indexed: CatalogSnapshot | undefined;
  private readonly rarity = (term: string): number => {
    const count = this.entries.size;
    return RARITY_FLOOR + Math.log(1 + count / (1 + (this.holders.get(term)?.count ?? 0))) / Math.log(1 + Math.max(count, 1));
  };

  constructor(private readonly snapshot: () => CatalogSnapshot) {}

  /** Every tool search can find: what the filters let through, whether or not it fit the budget. */
  static eligible(tool: CatalogTool): boolean {
    return (tool.exposed || tool.filteredBy?.kind === 'budget') && isForModel(tool.tool);
  }

  /** The best `limit` tools for `query`, best first; `server` narrows it to one server. */
  search(query: string, options: { readonly limit?: number; readonly server?: string } = {}): ToolHit[] {
    this.update();
    const text = query.slice(0, MAX_QUERY_CHARS);
    const queryWords = words(text);
    const limit = Math.max(1, Math.min(options.limit ?? DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT));
    const results = this.index.search(text, {
      boostTerm: this.rarity,
      prefix: (term) => term.length > 3,
      fuzzy: (term) => (term.length > 5 ? 0.2 : false),
      maxFuzzy: 1,
      limit,
      ...(options.server === undefined ? {} : { filter: (id: number) => this.byId.get(id)?.tool.server === options.server }),
      // Equal scores in the snapshot's order, not in the order servers happened to list their tools.
      order: (id) => this.byId.get(id)?.order ?? Number.MAX_SAFE_INTEGER,
    });
    return results.flatMap((result) => {
      const tool = this.byId.get(result.id)?.tool;
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

  /** Whether the index holds the current snapshot. */
  isCurrent(): boolean {
    return this.indexed === this.snapshot();
  }

  /** Brings the index to the current snapshot; a no-op when it is there. */
  update(): void {
    const snapshot = this.snapshot();
    if (this.indexed === snapshot) return;
    this.indexed = snapshot;
    const next = new Map<string, CatalogTool>();
    for (const server of snapshot.servers)
      for (const tool of server.tools) if (ToolSearch.eligible(tool)) next.set(documentKey(tool), tool);
    for (const [key, entry] of this.entries) {
      if (next.has(key)) continue;
      this.index.discard(entry.id, entry.terms);
      this.counters.discarded += 1;
      for (const term of entry.terms) {
        const holders = this.holders.get(term);
        if (holders && --holders.count === 0) this.holders.delete(term);
      }
      this.entries.delete(key);
      this.byId.delete(entry.id);
    }
    let added = 0;
    let order = 0;
    for (const [key, tool] of next) {
      order += 1;
      const known = this.entries.get(key);
      if (known) {
        // The same document; the catalog's view of it (in chat or past the budget) may have changed.
        known.tool = tool;
        known.order = order;
        continue;
      }
      const document = documentOf(this.nextId++, tool);
      const terms = this.index.add(document.id, document);
      const shared: string[] = [];
      for (const term of terms) {
        let holders = this.holders.get(term);
        if (holders) holders.count += 1;
        else this.holders.set(term, (holders = { term, count: 1 }));
        shared.push(holders.term);
      }
      const entry: Entry = { id: document.id, terms: shared, tool, order };
      this.entries.set(key, entry);
      this.byId.set(document.id, entry);
      added += 1;
    }
    this.counters.added += added;
  }

  /** Documents in the index, and how many were added and discarded in all, for tests and the bench. */
  get size(): number {
    return this.entries.size;
  }
  readonly counters = { added: 0, discarded: 0 };
}

function documentOf(id: number, tool: CatalogTool): IndexedTool {
  return {
    id,
    name: tool.name,
    title: tool.tool.title ?? tool.tool.annotations?.title ?? '',
    description: (tool.tool.description ?? '').slice(0, MAX_DESCRIPTION_CHARS),
    arguments: argumentText(tool),
    server: tool.server,
  };
}

/** The part of a document the upstream definition decides, hashed once per definition (they are shared and frozen). */
const contentKeys = new WeakMap<object, string>();

/** What a document holds, and the name calls use: equal keys index the same way. */
function documentKey(tool: CatalogTool): string {
  let content = contentKeys.get(tool.tool);
  if (content === undefined) {
    const title = tool.tool.title ?? tool.tool.annotations?.title ?? '';
    content = createHash('sha256')
      .update([title, argumentText(tool), (tool.tool.description ?? '').slice(0, MAX_DESCRIPTION_CHARS)].join('\u0000'))
      .digest('base64');
    contentKeys.set(tool.tool, content);
  }
  return `${tool.server}\u0000${tool.name}\u0000${tool.qualifiedName}\u0000${content}`;
}
