#!/usr/bin/env node
// Tool search on a public set nobody here wrote: LiveMCPBench (70 real MCP servers, 527 tools, 95
// tasks whose authors annotated the tools a solution uses; Apache-2.0, vendored under
// bench/search/public/livemcpbench). The catalog's search (src/core/catalog/toolSearch.ts) beside a
// plain BM25 over name and description (k1 1.2, b 0.75, no stemming, no stop words), in the same run:
//   - a whole task: its question as the query; the share of its tools in the top 10 (recall at 10),
//     and whether one of them is in the top 5;
//   - one step: where a task lists as many steps as tools, step i is taken to need tool i (the
//     annotation does not pair them); the step as the query, its tool in the top 1 and top 5.
// A tool is matched by name (the annotation names no server). A quarter of the tasks, chosen by a
// hash of their id, is held out: reported apart, never to be looked at while tuning.
//   npm run bench:search:public          node bench/searchPublic.mjs --no-write
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dateLine, loadAverage, loadBundle, machineLine, replaceSection, shouldWrite } from './support.mjs';

const SECTION = '## bench:search:public';
const here = path.dirname(fileURLToPath(import.meta.url));
const write = shouldWrite();
const set = path.join(here, 'search', 'public', 'livemcpbench');
const corpus = JSON.parse(fs.readFileSync(path.join(set, 'tools.json'), 'utf8'));
const { tasks } = JSON.parse(fs.readFileSync(path.join(set, 'tasks.json'), 'utf8'));

const toolNames = new Set(corpus.servers.flatMap((server) => server.tools.map((tool) => tool.name)));
/** The held-out quarter: fixed by the task's id, not by anything a search does. */
const heldOut = (task) => crypto.createHash('sha256').update(task.id).digest()[0] < 64;

const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-bench-search-public-'));
const core = await loadBundle(path.join(outdir, 'search.cjs'), [
  "export { ToolSearch } from './src/core/catalog/toolSearch';",
  "export { buildSnapshot } from './src/core/catalog/snapshot';",
  "export { prepareToolList } from './src/core/catalog/preparedList';",
]);

const snapshot = core.buildSnapshot(
  corpus.servers.map((server) => ({ name: server.name, state: 'running', fromCache: false, tools: core.prepareToolList(server.tools) })),
  { globalDeny: [], disabled: [], maxExposed: 1_000_000 },
).snapshot;
const search = new core.ToolSearch(() => snapshot);
const ours = (query, limit) => search.search(query, { limit: limit * 3 }).map((hit) => hit.name);

/** Words of a text: lower case, split at anything not a letter or digit and at camelCase. */
function words(text) {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The floor: plain BM25 over each tool's name and description. */
function plainBm25() {
  const docs = corpus.servers.flatMap((server) =>
    server.tools.map((tool) => ({ name: tool.name, terms: words(`${tool.name} ${tool.description ?? ''}`) })),
  );
  const df = new Map();
  for (const doc of docs) for (const term of new Set(doc.terms)) df.set(term, (df.get(term) ?? 0) + 1);
  const avg = docs.reduce((sum, doc) => sum + doc.terms.length, 0) / docs.length;
  const k1 = 1.2;
  const b = 0.75;
  return (query, limit) => {
    const terms = [...new Set(words(query))];
    return docs
      .map((doc) => {
        let score = 0;
        for (const term of terms) {
          const tf = doc.terms.filter((candidate) => candidate === term).length;
          if (tf === 0) continue;
          const idf = Math.log(1 + (docs.length - df.get(term) + 0.5) / (df.get(term) + 0.5));
          score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * doc.terms.length) / avg));
        }
        return { name: doc.name, score };
      })
      .filter((hit) => hit.score > 0)
      .sort((x, y) => y.score - x.score)
      .slice(0, limit * 3)
      .map((hit) => hit.name);
  };
}

/** The first `limit` distinct tool names a search returns. */
const top = (find, query, limit) => [...new Set(find(query, limit))].slice(0, limit);

function evaluate(find, part) {
  let recall10 = 0;
  let taskHit5 = 0;
  let taskCount = 0;
  let step1 = 0;
  let step5 = 0;
  let stepCount = 0;
  for (const task of part) {
    const wanted = task.tools.filter((name) => toolNames.has(name));
    if (wanted.length === 0) continue;
    taskCount += 1;
    const found10 = top(find, task.question, 10);
    recall10 += wanted.filter((name) => found10.includes(name)).length / wanted.length;
    if (found10.slice(0, 5).some((name) => wanted.includes(name))) taskHit5 += 1;
    if (task.steps.length !== task.tools.length) continue;
    task.steps.forEach((step, index) => {
      const tool = task.tools[index];
      if (!toolNames.has(tool)) return;
      stepCount += 1;
      const found = top(find, step, 5);
      if (found[0] === tool) step1 += 1;
      if (found.includes(tool)) step5 += 1;
    });
  }
  return {
    taskCount,
    stepCount,
    recall10: recall10 / taskCount,
    taskHit5: taskHit5 / taskCount,
    step1: step1 / stepCount,
    step5: step5 / stepCount,
  };
}

const floor = plainBm25();
// --tuning: the tuning part only, so that a tuning session never sees the held-out figures.
const parts = [
  ['tuning part', tasks.filter((task) => !heldOut(task))],
  ...(process.argv.includes('--tuning') ? [] : [['held out', tasks.filter(heldOut)]]),
];
const pct = (x) => x.toFixed(2);
const rows = [];
for (const [label, part] of parts) {
  const a = evaluate(ours, part);
  const f = evaluate(floor, part);
  rows.push(
    `| ${label} (${a.taskCount} tasks, ${a.stepCount} steps) | step → its tool, top 1 | ${pct(a.step1)} | ${pct(f.step1)} |`,
    `| | step → its tool, top 5 | ${pct(a.step5)} | ${pct(f.step5)} |`,
    `| | task → share of its tools in the top 10 | ${pct(a.recall10)} | ${pct(f.recall10)} |`,
    `| | tasks with one of their tools in the top 5 | ${pct(a.taskHit5)} | ${pct(f.taskHit5)} |`,
  );
}
const block = [
  `${dateLine()} · ${machineLine()} · load average ${loadAverage()}`,
  '',
  `LiveMCPBench: ${corpus.servers.length} servers, ${toolNames.size} distinct tool names, ${tasks.length} tasks.`,
  '',
  '| part | measure | Switchboard | plain BM25 |',
  '|---|---|---:|---:|',
  ...rows,
].join('\n');
console.log(`\n${block}\n`);
if (write) {
  replaceSection(
    SECTION,
    `${SECTION}\n\nGenerated by \`npm run bench:search:public\` (bench/searchPublic.mjs); the whole section is rewritten.\n\n${block}`,
  );
  console.log('[bench] bench/RESULTS.md updated');
}
fs.rmSync(outdir, { recursive: true, force: true });
