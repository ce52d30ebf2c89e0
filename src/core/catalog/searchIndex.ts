// The inverted index behind tool search: MiniSearch's ranking (per-field BM25 with field boosts, a
// boost per query term, prefix and fuzzy matches at its weights, the score times the number of
// query words a document matched), kept in flat postings that a search adds into an array of
// scores. MiniSearch's own search builds a result object in a Map for every posting it touches:
// at 10,000 tools a query of common words ("list", "get", "api") touches 10,000 postings, and its
// p95 was 6-12 ms here against 5 ms asked; this one reads them at a few nanoseconds each
// (bench/RESULTS.md, bench:search). The term dictionary, and its prefix and fuzzy lookups, are
// still MiniSearch's (its radix tree, SearchableMap).
import SearchableMap from 'minisearch/SearchableMap';

/** MiniSearch's defaults, which the ranking was tuned with. */
const BM25 = { k: 1.2, b: 0.7, d: 0.5 };
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;
/** Slots are renumbered when more than this share of them belongs to discarded documents. */
const MAX_DEAD_SHARE = 0.5;

/** One field's documents for one term, in slot order, with the term's count in each. */
interface FieldPostings {
  readonly slots: number[];
  readonly counts: number[];
}

/** A term's postings, by field. */
type TermPostings = Array<FieldPostings | undefined>;

export interface IndexOptions<F extends string> {
  readonly fields: readonly F[];
  readonly boost: Readonly<Record<F, number>>;
  /** A text's words; a field's length is how many distinct words it has (as MiniSearch counts). */
  readonly tokenize: (text: string) => string[];
  /** A word as the index holds it, or null to leave it out. */
  readonly processTerm: (word: string) => string | null;
}

export interface QueryOptions {
  /** A query term's weight (MiniSearch's boostTerm). */
  readonly boostTerm: (term: string) => number;
  /** Whether a query term also matches the index's terms it is a prefix of. */
  readonly prefix: (term: string) => boolean;
  /** The share of a query term's length that may differ in a fuzzy match (0 or false: none). */
  readonly fuzzy: (term: string) => number | false;
  readonly maxFuzzy: number;
  readonly limit: number;
  /** Only documents it keeps are ranked. */
  readonly filter?: (id: number) => boolean;
  /** Ranks equal scores: lower first. */
  readonly order: (id: number) => number;
}

export interface IndexHit {
  readonly id: number;
  readonly score: number;
  /** The index's terms the document matched, each with the fields it was found in. */
  readonly match: Readonly<Record<string, readonly string[]>>;
}

interface Derived {
  readonly term: string;
  readonly postings: TermPostings;
  readonly weight: number;
  /** Which distinct query word it came from. */
  readonly source: number;
  readonly boost: number;
}

export class SearchIndex<F extends string> {
  /** Every term's postings; `dictionary` holds the same, for prefix and fuzzy lookups (a Map finds an exact term faster). */
  private readonly terms = new Map<string, TermPostings>();
  private readonly dictionary = new SearchableMap<TermPostings>();
  private readonly slotOf = new Map<number, number>();
  /** By slot: the document's id, or -1 once discarded. */
  private ids: number[] = [];
  /** By slot, per field: its length. */
  private lengths: number[][] = [];
  private readonly totalLength: number[];
  private live = 0;
  /** Per slot, reused between searches: the score, and the last query word counted for it. */
  private scores = new Float64Array(0);
  private lastSource = new Int32Array(0);
  private sources = new Uint16Array(0);

  constructor(private readonly options: IndexOptions<F>) {
    this.totalLength = options.fields.map(() => 0);
  }

  get size(): number {
    return this.live;
  }

  /** Slots in use, discarded documents' included: bounded by about twice the size. */
  get slots(): number {
    return this.ids.length;
  }

  /** Adds a document; returns the terms it holds. Ids must be new. */
  add(id: number, document: Readonly<Record<F, string>>): Set<string> {
    const { fields, tokenize, processTerm } = this.options;
    const slot = this.ids.length;
    this.slotOf.set(id, slot);
    this.ids.push(id);
    const lengths: number[] = [];
    const held = new Set<string>();
    fields.forEach((field, fieldId) => {
      const tokens = tokenize(document[field]);
      const length = new Set(tokens).size;
      lengths.push(length);
      this.totalLength[fieldId] = (this.totalLength[fieldId] ?? 0) + length;
      for (const token of tokens) {
        const term = processTerm(token);
        if (term === null) continue;
        held.add(term);
        let postings = this.terms.get(term);
        if (!postings) {
          postings = [];
          this.terms.set(term, postings);
          this.dictionary.set(term, postings);
        }
        let inField = postings[fieldId];
        if (!inField) postings[fieldId] = inField = { slots: [], counts: [] };
        const last = inField.slots.length - 1;
        if (inField.slots[last] === slot) inField.counts[last] = (inField.counts[last] ?? 0) + 1;
        else {
          inField.slots.push(slot);
          inField.counts.push(1);
        }
      }
    });
    this.lengths.push(lengths);
    this.live += 1;
    return held;
  }

  /** Removes a document, given the terms `add` returned for it. */
  discard(id: number, terms: Iterable<string>): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.slotOf.delete(id);
    for (const term of terms) {
      const postings = this.terms.get(term);
      if (!postings) continue;
      let empty = true;
      for (const inField of postings) {
        if (!inField) continue;
        const at = findSlot(inField.slots, slot);
        if (at >= 0) {
          inField.slots.splice(at, 1);
          inField.counts.splice(at, 1);
        }
        if (inField.slots.length > 0) empty = false;
      }
      if (empty) {
        this.terms.delete(term);
        this.dictionary.delete(term);
      }
    }
    this.lengths[slot]?.forEach((length, fieldId) => (this.totalLength[fieldId] = (this.totalLength[fieldId] ?? 0) - length));
    this.ids[slot] = -1;
    this.live -= 1;
    if (this.ids.length > 64 && this.ids.length - this.live > this.ids.length * MAX_DEAD_SHARE) this.renumber();
  }

  /** The best `limit` documents for `query`, best first, ties by `order`. */
  search(query: string, options: QueryOptions): IndexHit[] {
    const derived = this.expand(query, options);
    if (derived.length === 0 || this.live === 0) return [];
    const slots = this.ids.length;
    if (this.scores.length < slots) {
      this.scores = new Float64Array(slots * 2);
      this.lastSource = new Int32Array(slots * 2).fill(-1);
      this.sources = new Uint16Array(slots * 2);
    }
    const { scores, lastSource, sources } = this;
    const touched: number[] = [];
    const { fields, boost } = this.options;
    const averages = this.totalLength.map((total) => total / this.live);
    const { k, b, d } = BM25;
    for (const term of derived) {
      term.postings.forEach((inField, fieldId) => {
        if (!inField) return;
        const field = fields[fieldId] as F;
        const matching = inField.slots.length;
        const idf = Math.log(1 + (this.live - matching + 0.5) / (matching + 0.5));
        const weight = term.weight * term.boost * boost[field];
        const average = averages[fieldId] ?? 0;
        const { slots: inSlots, counts } = inField;
        for (let i = 0; i < inSlots.length; i++) {
          const slot = inSlots[i] as number;
          const count = counts[i] as number;
          const length = (this.lengths[slot] as number[])[fieldId] as number;
          const score = weight * idf * (d + (count * (k + 1)) / (count + k * (1 - b + (b * length) / average)));
          // A document counts each query word once, however many of its forms it matched (a word's
          // forms come one after another: expand() takes each distinct word once).
          if (lastSource[slot] !== term.source) {
            if (lastSource[slot] === -1) touched.push(slot);
            lastSource[slot] = term.source;
            sources[slot] = (sources[slot] ?? 0) + 1;
          }
          scores[slot] = (scores[slot] ?? 0) + score;
        }
      });
    }
    // The best `limit`, kept sorted as the touched documents go by (limit is at most 50).
    const best: Array<{ readonly id: number; readonly slot: number; readonly score: number }> = [];
    const before = (x: { id: number; score: number }, y: { id: number; score: number }) =>
      x.score > y.score || (x.score === y.score && options.order(x.id) < options.order(y.id));
    for (const slot of touched) {
      const id = this.ids[slot] as number;
      const score = (scores[slot] ?? 0) * (sources[slot] ?? 1);
      scores[slot] = 0;
      lastSource[slot] = -1;
      sources[slot] = 0;
      if (options.filter && !options.filter(id)) continue;
      const candidate = { id, slot, score };
      const worst = best[best.length - 1];
      if (best.length === options.limit && worst && !before(candidate, worst)) continue;
      let at = best.length;
      while (at > 0 && before(candidate, best[at - 1] as { id: number; score: number })) at -= 1;
      best.splice(at, 0, candidate);
      if (best.length > options.limit) best.pop();
    }
    return best.map(({ id, slot, score }) => ({ id, score, match: this.matchOf(slot, derived) }));
  }

  /** Each query word with its matches in the index: itself, its prefixes' terms and its fuzzy neighbours. */
  private expand(query: string, options: QueryOptions): Derived[] {
    const { tokenize, processTerm } = this.options;
    const words = tokenize(query)
      .map(processTerm)
      .filter((term): term is string => term !== null);
    // A word said twice counts twice (as in MiniSearch, which adds each occurrence's score).
    const times = new Map<string, number>();
    for (const word of words) times.set(word, (times.get(word) ?? 0) + 1);
    const derived: Derived[] = [];
    let source = 0;
    for (const [word, count] of times) {
      const boost = options.boostTerm(word) * count;
      source += 1;
      const exact = this.terms.get(word);
      if (exact) derived.push({ term: word, postings: exact, weight: 1, source, boost });
      const fuzzyShare = options.fuzzy(word);
      const maxDistance = fuzzyShare === false || fuzzyShare === 0 ? 0 : Math.min(options.maxFuzzy, Math.round(word.length * fuzzyShare));
      const fuzzy = maxDistance > 0 ? this.dictionary.fuzzyGet(word, maxDistance) : undefined;
      if (options.prefix(word)) {
        for (const [term, postings] of this.dictionary.atPrefix(word)) {
          const distance = term.length - word.length;
          if (distance === 0) continue;
          fuzzy?.delete(term);
          derived.push({ term, postings, weight: (PREFIX_WEIGHT * term.length) / (term.length + 0.3 * distance), source, boost });
        }
      }
      if (fuzzy)
        for (const [term, [postings, distance]] of fuzzy) {
          if (distance === 0) continue;
          derived.push({ term, postings, weight: (FUZZY_WEIGHT * term.length) / (term.length + distance), source, boost });
        }
    }
    return derived;
  }

  /** The terms `slot` matched, and where: for the hits shown, not for every document touched. */
  private matchOf(slot: number, derived: readonly Derived[]): Record<string, string[]> {
    const match: Record<string, string[]> = {};
    for (const term of derived)
      term.postings.forEach((inField, fieldId) => {
        if (!inField || findSlot(inField.slots, slot) < 0) return;
        const found = (match[term.term] ??= []);
        const field = this.options.fields[fieldId] as string;
        if (!found.includes(field)) found.push(field);
      });
    return match;
  }

  /** Gives the live documents slots 0..n-1 again, in the same order (postings stay sorted). */
  private renumber(): void {
    const next = new Int32Array(this.ids.length).fill(-1);
    const ids: number[] = [];
    const lengths: number[][] = [];
    this.ids.forEach((id, slot) => {
      if (id < 0) return;
      next[slot] = ids.length;
      this.slotOf.set(id, ids.length);
      ids.push(id);
      lengths.push(this.lengths[slot] ?? []);
    });
    for (const postings of this.terms.values())
      for (const inField of postings)
        if (inField) for (let i = 0; i < inField.slots.length; i++) inField.slots[i] = next[inField.slots[i] as number] as number;
    this.ids = ids;
    this.lengths = lengths;
  }
}

/** Where `slot` is in sorted `slots`, or -1. */
function findSlot(slots: readonly number[], slot: number): number {
  let low = 0;
  let high = slots.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const at = slots[middle] as number;
    if (at === slot) return middle;
    if (at < slot) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}
