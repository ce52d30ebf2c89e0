#!/usr/bin/env node
// Tool search benchmark: how often the catalog's search (src/core/catalog/toolSearch.ts) puts the
// tool a task needs in its top 5, and how long a search takes, on real tool definitions.
//   npm run bench:search                      (= node --expose-gc bench/search.mjs)
//   node bench/search.mjs --rounds 20 --no-write
// The corpus (bench/search/corpus.json) is what 30-odd real MCP servers from npm list
// (bench/search/build-corpus.mjs); the task phrasings (bench/search/queries.json) were written
// before the search was tuned, each naming the tool (or tools) that do the task. The floor, measured
// side by side, is what the dispatcher did before: keep the tools whose name or description
// contains the query. At 10,000 tools the corpus is repeated under other server names.
// The core is TypeScript: bundled with esbuild first, as the extension ships it (bench/support.mjs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dateLine, loadAverage, loadBundle, machineLine, option, percentile, replaceSection, shouldWrite } from './support.mjs';

const SECTION = '## bench:search';
const here = path.dirname(fileURLToPath(import.meta.url));
const rounds = Number(option('rounds', '20'));
const write = shouldWrite();
const GOAL_RECALL = 0.9;
const GOAL_MS = 5;
const TOP = 5;

/** A server's name as a user would configure it: the package name without its scope and the words "mcp" and "server". */
function shortName(pkg) {
  const [scope, name] = pkg.startsWith('@') ? pkg.slice(1).split('/') : [undefined, pkg];
  const short = /^(mcp|mcp-server)$/.test(name)
    ? ''
    : name.replace(/^(mcp-server-|server-|mcp-)/, '').replace(/(-mcp-server|-mcp|-server)$/, '');
  return { scope, short };
}

/** Each package's server name, unique: the short name, or with its scope when two would clash. */
const names = new Map();
function serverName(pkg) {
  if (names.has(pkg)) return names.get(pkg);
  const { scope, short } = shortName(pkg);
  let name = short || scope;
  if ([...names.values()].includes(name) && scope) name = `${scope}-${name}`;
  names.set(pkg, name);
  return name;
}

const corpus = JSON.parse(fs.readFileSync(path.join(here, 'search', 'corpus.json'), 'utf8'));
for (const server of corpus.servers) serverName(server.package);
// `package#tool` → `server/tool`; a tool the corpus does not have is a mistake in the file, not a miss.
const queries = JSON.parse(fs.readFileSync(path.join(here, 'search', 'queries.json'), 'utf8')).queries.map(({ query, expect }) => ({
  query,
  expect: expect.map((wanted) => {
    const [pkg, tool] = wanted.split('#');
    const server = corpus.servers.find((candidate) => candidate.package === pkg);
    if (!server?.tools.some((candidate) => candidate.name === tool))
      throw new Error(`queries.json: "${query}" expects ${wanted}, which the corpus does not have`);
    return `${serverName(pkg)}/${tool}`;
  }),
}));

const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-bench-search-'));
const core = await loadBundle(path.join(outdir, 'search.cjs'), [
  "export { ToolSearch } from './src/core/catalog/toolSearch';",
  "export { buildSnapshot } from './src/core/catalog/snapshot';",
  "export { prepareToolList } from './src/core/catalog/preparedList';",
]);

const prepared = new Map();
const preparedOf = (server) => {
  if (!prepared.has(server)) prepared.set(server, core.prepareToolList(server.tools));
  return prepared.get(server);
};

function snapshotOf(copies, changed) {
  const servers = [];
  for (let copy = 0; copy < copies; copy++)
    for (const server of corpus.servers)
      servers.push({
        name: copy === 0 ? serverName(server.package) : `${serverName(server.package)}-${copy + 1}`,
        state: 'running',
        fromCache: false,
        // `changed`: the first server lists one more tool, as after a tools/list_changed. The
        // others keep their lists, as the catalog's snapshots share a list until it changes.
        tools:
          changed && copy === 0 && server === corpus.servers[0]
            ? core.prepareToolList([
                ...server.tools,
                { name: 'added_by_update', description: 'A tool the server added', inputSchema: { type: 'object' } },
              ])
            : preparedOf(server),
      });
  return core.buildSnapshot(servers, { globalDeny: [], disabled: [], maxExposed: 1_000_000 }).snapshot;
}

/** What the dispatcher did before: the tools whose qualified name or description contains the query, in catalog order. */
function substringSearch(snapshot) {
  const tools = snapshot.servers.flatMap((server) => server.tools);
  return (query, limit) => {
    const needle = query.toLowerCase();
    return tools
      .filter((tool) => `${tool.qualifiedName} ${tool.tool.description ?? ''}`.toLowerCase().includes(needle))
      .slice(0, limit)
      .map((tool) => `${tool.server}/${tool.name}`);
  };
}

function ranked(search) {
  return (query, limit) => search.search(query, { limit }).map((hit) => `${hit.server}/${hit.name}`);
}

/** A copy's server (`github-3`) is the same server as the original for what a task wants. */
const original = (name) => name.replace(/^([^/]+)-\d+\//, '$1/');

/**
 * Top 1 and top 5 over distinct tools: at 10,000 tools each tool has ten copies (one per server
 * name), which would otherwise fill the top 5 with one tool.
 */
function recall(find, copies) {
  let top1 = 0;
  let top5 = 0;
  const misses = [];
  for (const { query, expect } of queries) {
    const found = [...new Set(find(query, copies > 1 ? TOP * copies : TOP).map(original))].slice(0, TOP);
    if (expect.includes(found[0])) top1 += 1;
    if (found.some((name) => expect.includes(name))) top5 += 1;
    else misses.push({ query, expect, found: found.slice(0, 3) });
  }
  return { top1: top1 / queries.length, top5: top5 / queries.length, misses };
}

/** The heap in use after a full GC, when node runs with --expose-gc (npm run bench:search does). */
function heapAfterGc() {
  if (typeof globalThis.gc !== 'function') return undefined;
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}

function timeSearches(find) {
  const times = [];
  for (let round = 0; round < rounds; round++)
    for (const { query } of queries) {
      const start = process.hrtime.bigint();
      find(query, TOP);
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  return { p50: percentile(times, 50), p95: percentile(times, 95), max: Math.max(...times) };
}

const loadBefore = loadAverage();
const rows = [];
let measuredRecall;
for (const copies of [1, Math.ceil(10_000 / corpus.servers.reduce((sum, server) => sum + server.tools.length, 0))]) {
  const snapshot = snapshotOf(copies);
  const toolCount = snapshot.servers.reduce((sum, server) => sum + server.tools.length, 0);
  let current = snapshot;
  const search = new core.ToolSearch(() => current);
  const heapBefore = heapAfterGc();
  const buildStart = process.hrtime.bigint();
  search.search('warm up', { limit: 1 });
  const buildMs = Number(process.hrtime.bigint() - buildStart) / 1e6;
  // What the index holds: the heap after a full GC with it, less before it (the snapshot is in both).
  const indexMb = heapBefore === undefined ? undefined : (heapAfterGc() - heapBefore) / 1024 / 1024;
  // One server's list changes: the index takes in that, not the catalog again (median of 5).
  const updates = [];
  for (let round = 0; round < 5; round++) {
    current = snapshotOf(copies, round % 2 === 0);
    const start = process.hrtime.bigint();
    search.update();
    updates.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  current = snapshot;
  search.update();
  const updateMs = percentile(updates, 50);
  const find = ranked(search);
  const floor = substringSearch(snapshot);
  const ours = recall(find, copies);
  const before = recall(floor, copies);
  if (copies === 1) measuredRecall = ours;
  const oursTime = timeSearches(find);
  const floorTime = timeSearches(floor);
  rows.push({ toolCount, buildMs, updateMs, indexMb, ours, before, oursTime, floorTime });
}

const fmt = (ms) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
const pct = (x) => `${(x * 100).toFixed(1)}%`;
const lines = [
  SECTION,
  '',
  `Command: \`npm run bench:search\` (\`node bench/search.mjs\`, ${rounds} rounds of ${queries.length} queries)  `,
  `${dateLine()}  `,
  `${machineLine()}  `,
  `Load average at start: ${loadBefore}; at end: ${loadAverage()}.`,
  '',
  `Corpus: ${rows[0].toolCount} tool definitions as ${corpus.servers.length} real MCP servers from npm list them (\`bench/search/corpus.json\`, built by \`bench/search/build-corpus.mjs\`); ${queries.length} task phrasings written before the search was tuned (\`bench/search/queries.json\`), each naming the tool or tools that do it. The floor is the dispatcher's search before this change (substring of the query in a tool's name or description), measured in the same run. At ${rows[1].toolCount} tools the corpus is repeated under other server names, so each task has several right answers' copies competing.`,
  '',
  '| Tools | Search | Recall at 5 | Top 1 | p50 (ms) | p95 (ms) | max (ms) | Index build (ms) | Update, one server changed (ms) | Index memory (MB) |',
  '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.flatMap((row) => [
    `| ${row.toolCount} | MiniSearch (ours) | ${pct(row.ours.top5)} | ${pct(row.ours.top1)} | ${fmt(row.oursTime.p50)} | ${fmt(row.oursTime.p95)} | ${fmt(row.oursTime.max)} | ${fmt(row.buildMs)} | ${fmt(row.updateMs)} | ${row.indexMb === undefined ? '–' : row.indexMb.toFixed(1)} |`,
    `| ${row.toolCount} | substring (before) | ${pct(row.before.top5)} | ${pct(row.before.top1)} | ${fmt(row.floorTime.p50)} | ${fmt(row.floorTime.p95)} | ${fmt(row.floorTime.max)} | – | – | – |`,
  ]),
  '',
  `**Goals: recall at 5 ≥ ${pct(GOAL_RECALL)} on the corpus: ${measuredRecall.top5 >= GOAL_RECALL ? 'met' : 'missed'} (${pct(measuredRecall.top5)}); a search under ${GOAL_MS} ms at 10,000 tools: ${rows[1].oursTime.p95 < GOAL_MS ? 'met' : rows[1].oursTime.p50 < GOAL_MS ? 'met at the median, not at p95' : 'missed'} (p50 ${fmt(rows[1].oursTime.p50)} ms, p95 ${fmt(rows[1].oursTime.p95)} ms).**`,
  '',
  `Missed at 5 (${measuredRecall.misses.length}): ${measuredRecall.misses.map((miss) => `"${miss.query}" (wanted ${miss.expect.join(' or ')}; got ${miss.found.join(', ') || 'nothing'})`).join('; ') || 'none'}.`,
  '',
];
const text = lines.join('\n');
console.log(text);
if (write) replaceSection(SECTION, text);
fs.rmSync(outdir, { recursive: true, force: true });
