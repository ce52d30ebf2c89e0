// The index behind tool search ranks as MiniSearch does with the same options (MiniSearch is the
// oracle, run side by side on real tool definitions and real task texts), and stays right as
// documents come and go.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import MiniSearch from 'minisearch';
import type { Tool } from '@modelcontextprotocol/client';
import { SearchIndex } from '../../../src/core/catalog/searchIndex';
import { stem } from '../../../src/core/catalog/toolSearch';

const FIELDS = ['name', 'description', 'arguments', 'server'] as const;
type Field = (typeof FIELDS)[number];
const BOOST: Record<Field, number> = { name: 3, description: 1, arguments: 1.2, server: 1.5 };
const STOP = new Set(['a', 'an', 'the', 'to', 'of', 'and', 'in', 'for', 'on', 'with', 'is', 'it']);
const tokenize = (text: string) => text.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0);
const processTerm = (word: string) => (STOP.has(word.toLowerCase()) ? null : stem(word.toLowerCase()));

type Doc = Record<Field, string> & { id: number; server: string };

const root = path.resolve(__dirname, '../../../bench/search/public/livemcpbench');
const corpus = JSON.parse(fs.readFileSync(path.join(root, 'tools.json'), 'utf8')) as { servers: Array<{ name: string; tools: Tool[] }> };
const tasks = JSON.parse(fs.readFileSync(path.join(root, 'tasks.json'), 'utf8')) as { tasks: Array<{ question: string; steps: string[] }> };
const docs: Doc[] = corpus.servers
  .flatMap((server) =>
    server.tools.map((tool) => ({
      name: tool.name,
      description: tool.description ?? '',
      arguments: Object.keys((tool.inputSchema as { properties?: object }).properties ?? {}).join(' '),
      server: server.name,
    })),
  )
  .map((doc, id) => ({ ...doc, id }));
// Every step and question of the public tasks, and queries that exercise what steps rarely do.
const queries = [
  ...tasks.tasks.flatMap((task) => [task.question, ...task.steps]),
  'file file file',
  'serch wikipedai',
  'pdf',
  'the of and',
];

/** Document frequency of a term, for a boost that differs per term (as the rarity boost does). */
function rarityOver(list: readonly Doc[]) {
  const counts = new Map<string, number>();
  for (const doc of list) {
    const terms = new Set(FIELDS.flatMap((field) => tokenize(doc[field]).map(processTerm)).filter((term): term is string => term !== null));
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  return (term: string) => 0.3 + Math.log(1 + list.length / (1 + (counts.get(term) ?? 0))) / Math.log(1 + list.length);
}

function oracle(list: readonly Doc[]) {
  const mini = new MiniSearch<Doc>({ fields: [...FIELDS], storeFields: [], tokenize, processTerm });
  mini.addAll(list);
  const boostTerm = rarityOver(list);
  return (query: string, limit: number) =>
    mini
      .search(query, {
        boost: BOOST,
        boostTerm,
        prefix: (term) => term.length > 3,
        fuzzy: (term) => (term.length > 5 ? 0.2 : false),
        maxFuzzy: 1,
        combineWith: 'OR',
      })
      .slice(0, limit)
      .map((result) => ({ id: result.id as number, score: result.score, match: result.match }));
}

function ours(index: SearchIndex<Field>, list: readonly Doc[]) {
  const boostTerm = rarityOver(list);
  return (query: string, limit: number) =>
    index.search(query, {
      boostTerm,
      prefix: (term) => term.length > 3,
      fuzzy: (term) => (term.length > 5 ? 0.2 : false),
      maxFuzzy: 1,
      limit,
      order: (id) => id,
    });
}

/** The same documents in the same order with the same scores; among near-equal scores, the same set. */
function assertSameRanking(query: string, expected: ReturnType<ReturnType<typeof oracle>>, actual: ReturnType<ReturnType<typeof ours>>) {
  assert.equal(actual.length, expected.length, `"${query}": how many`);
  expected.forEach((hit, i) => {
    const got = actual[i];
    assert.ok(got, `"${query}": hit ${i}`);
    assert.ok(Math.abs(got.score - hit.score) <= 1e-9 * Math.max(1, hit.score), `"${query}": score ${i}: ${got.score} vs ${hit.score}`);
    if (got.id !== hit.id) {
      // Only a tie may be ordered otherwise: MiniSearch keeps the order it met them in.
      assert.ok(Math.abs(got.score - hit.score) <= 1e-9 * hit.score, `"${query}": hit ${i} is ${got.id}, not ${hit.id}`);
      return;
    }
    assert.deepEqual(
      Object.fromEntries(Object.entries(got.match).map(([term, fields]) => [term, [...fields].sort()])),
      Object.fromEntries(Object.entries(hit.match).map(([term, fields]) => [term, [...fields].sort()])),
      `"${query}": what hit ${i} matched`,
    );
  });
}

describe('the tool search index (against MiniSearch, on LiveMCPBench’s 527 tools and its task texts)', () => {
  it('ranks every public task text and step as MiniSearch does: the same tools, scores and matches', () => {
    const index = new SearchIndex<Field>({ fields: FIELDS, boost: BOOST, tokenize, processTerm });
    for (const doc of docs) index.add(doc.id, doc);
    const expected = oracle(docs);
    const actual = ours(index, docs);
    assert.ok(queries.length > 300, `${queries.length} queries`);
    for (const query of queries) assertSameRanking(query, expected(query, 10), actual(query, 10));
  });

  it('after documents leave and others come, ranks as a MiniSearch built from what is left', () => {
    const index = new SearchIndex<Field>({ fields: FIELDS, boost: BOOST, tokenize, processTerm });
    const held = new Map<number, Set<string>>();
    for (const doc of docs) held.set(doc.id, index.add(doc.id, doc));
    // Two thirds leave (the slots are renumbered on the way), then a server's tools come back under new ids.
    const leaving = docs.filter((doc) => doc.id % 3 !== 0);
    for (const doc of leaving) index.discard(doc.id, held.get(doc.id) ?? []);
    const back = leaving.filter((doc) => doc.server === leaving[0]?.server).map((doc) => ({ ...doc, id: doc.id + 10_000 }));
    for (const doc of back) index.add(doc.id, doc);
    const left = [...docs.filter((doc) => doc.id % 3 === 0), ...back];
    assert.equal(index.size, left.length);
    assert.ok(index.slots <= 2 * index.size + 64, `${index.slots} slots for ${index.size} documents`);
    const expected = oracle(left);
    const actual = ours(index, left);
    for (const query of queries.slice(0, 150)) assertSameRanking(query, expected(query, 10), actual(query, 10));
  });

  it('keeps its slots bounded while the same server lists its tools again and again', () => {
    const index = new SearchIndex<Field>({ fields: FIELDS, boost: BOOST, tokenize, processTerm });
    const list = docs.slice(0, 40);
    let held = list.map((doc) => ({ id: doc.id, terms: index.add(doc.id, doc) }));
    for (let round = 1; round <= 100; round++) {
      for (const { id, terms } of held) index.discard(id, terms);
      held = list.map((doc) => ({ id: doc.id + round * 1_000, terms: index.add(doc.id + round * 1_000, doc) }));
    }
    assert.equal(index.size, 40);
    assert.ok(index.slots <= 2 * 40 + 64, `${index.slots} slots`);
    assert.equal(ours(index, list)('read a file', 1)[0]?.id !== undefined, true);
  });

  it('narrows to what the filter keeps, and breaks ties by the order it is given', () => {
    const index = new SearchIndex<Field>({ fields: FIELDS, boost: BOOST, tokenize, processTerm });
    const twin = { name: 'read_env', description: 'Reads an environment variable', arguments: 'name', server: '' };
    index.add(7, { ...twin, server: 'beta' });
    index.add(3, { ...twin, server: 'alpha' });
    index.add(5, { name: 'echo', description: 'Echoes', arguments: '', server: 'alpha' });
    const search = (order: (id: number) => number, filter?: (id: number) => boolean) =>
      index
        .search('read environment variable', {
          boostTerm: () => 1,
          prefix: () => false,
          fuzzy: () => false,
          maxFuzzy: 1,
          limit: 5,
          order,
          ...(filter ? { filter } : {}),
        })
        .map((hit) => hit.id);
    assert.deepEqual(
      search((id) => id),
      [3, 7],
    );
    assert.deepEqual(
      search((id) => -id),
      [7, 3],
    );
    assert.deepEqual(
      search(
        (id) => id,
        (id) => id !== 3,
      ),
      [7],
    );
  });
});
