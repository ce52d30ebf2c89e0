#!/usr/bin/env node
// Side by side with the editor's own MCP client, in the real editor (code-server through Chromium):
// the same 20 stdio servers (8 server-everything, 6 server-memory, 6 server-filesystem, run by this
// Node), once from the editor's user mcp.json and once from Switchboard's user settings, each window
// in a fresh profile, the two alternated round by round. Both are started as a user would, with the
// editor's Start Server (test/editor/versus/versus.test.ts measures inside the extension host):
//   - window → the editor knows every tool list (its tool count's last change, all 20 processes up);
//   - window → first and last server process (the kernel's start times), and first to last;
//   - the extension host's CPU since it started, and its resident memory a few seconds later (with the proportional set size of
//     Switchboard's machine host, where its servers run by default, added), and the servers' own.
// --own adds a third window per round: Switchboard with mcpSwitchboard.shareServers off (its servers
// run in the extension host, as before sharing was the default). Switchboard runs its shipped
// (minified) bundle.
// Not a test; prints a markdown table and rewrites the bench:versus section of bench/RESULTS.md.
//   npm run bench:versus                 (= node bench/versus.mjs)
//   node bench/versus.mjs --rounds 5 --no-write [--own]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dateLine, loadAverage, machineLine, median, replaceSection, repoRoot, roundsOption, runChecked, shouldWrite } from './support.mjs';
import { freePort } from '../test/harness/editor.mjs';

const HEADING = '## bench:versus';
const rounds = roundsOption(3);
const write = shouldWrite();
const withOwn = process.argv.includes('--own');

/** One window of `client` in a fresh profile; what the extension host measured. `switchboard-own`: sharing off. */
async function window(client) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `switchboard-versus-${client}-`));
  const dirs = ['user-data', 'workspace', 'browser'].map((name) => path.join(root, name));
  for (const dir of dirs) fs.mkdirSync(dir, { recursive: true });
  const out = path.join(root, 'result.json');
  try {
    const [userData, workspace, browser] = dirs;
    runChecked(process.execPath, [
      path.join(repoRoot, 'test', 'harness', 'run-editor-tests.mjs'),
      '--suite',
      'versus',
      '--client',
      client === 'switchboard-own' ? 'switchboard' : client,
      ...(client === 'switchboard-own' ? ['--own'] : []),
      '--user-data',
      userData,
      '--workspace-root',
      workspace,
      '--browser-profile',
      browser,
      '--port',
      String(await freePort()),
      '--bench-out',
      out,
    ]);
    return JSON.parse(fs.readFileSync(out, 'utf8'));
  } finally {
    fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  }
}

const ROWS = [
  ['the editor knows every tool list (ms from the window)', 'windowToToolsMs'],
  ['first server process (ms)', 'windowToFirstProcessMs'],
  ['all 20 server processes (ms)', 'windowToLastProcessMs'],
  ['first to twentieth process (ms)', 'firstToLastProcessMs'],
  ['extension host memory (MB)', 'extensionHostRssMb'],
  ['extension host memory after a full GC (MB)', 'extensionHostRssAfterGcMb'],
  // What is held, without the slack V8 keeps (its heap's size moves by ±60 MB between windows of one client).
  ["extension host's JS heap in use after a full GC (MB)", 'extensionHost_heapUsedMb'],
  ["Switchboard's machine host memory (PSS, MB)", 'machineHostPssMb'],
  ['extension host and machine host memory (MB)', 'withMachineHostMb'],
  ["server processes' memory (MB)", 'serversRssMb'],
  ['extension host CPU from its start, until the tool count had not moved for 3 s (ms)', 'extensionHostCpuMs'],
  ['tools the editor has', 'toolsInChat'],
];

async function main() {
  runChecked(process.execPath, [path.join(repoRoot, 'scripts', 'setup-editor.mjs')]);
  // The bundles as the package ships them (minified): the development build is twice the size, which
  // each window's extension host and the machine host parse and keep as source.
  runChecked(process.execPath, [path.join(repoRoot, 'scripts', 'build.mjs'), '--production', '--tests']);
  const load = loadAverage();
  console.log(`[bench] ${rounds} rounds, each a window per client in a fresh profile, alternated; load average ${load}`);
  const clients = ['builtin', 'switchboard', ...(withOwn ? ['switchboard-own'] : [])];
  const samples = Object.fromEntries(clients.map((client) => [client, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? clients : [...clients].reverse();
    for (const client of order) {
      samples[client].push(await window(client));
      console.log(`[bench] round ${round + 1} ${client}: ${JSON.stringify(samples[client].at(-1))}`);
    }
  }
  const pick = (client, key) => median(samples[client].map((sample) => sample[key]));
  const cell = (value) => (Number.isInteger(value) ? String(value) : value.toFixed(0));
  const ratio = (ours, builtin) => (builtin > 0 ? `${(ours / builtin).toFixed(2)}×` : '–');
  const table = [
    `| 20 stdio servers, fresh profile, medians | editor's own client | Switchboard | ratio |${withOwn ? ' Switchboard, sharing off | ratio |' : ''}`,
    `|---|---:|---:|---:|${withOwn ? '---:|---:|' : ''}`,
    ...ROWS.map(([label, key]) => {
      const builtin = pick('builtin', key);
      const ours = pick('switchboard', key);
      const own = withOwn ? ` ${cell(pick('switchboard-own', key))} | ${ratio(pick('switchboard-own', key), builtin)} |` : '';
      return `| ${label} | ${cell(builtin)} | ${cell(ours)} | ${ratio(ours, builtin)} |${own}`;
    }),
  ].join('\n');
  const readyRatio = pick('switchboard', 'windowToToolsMs') / pick('builtin', 'windowToToolsMs');
  const memoryRatio = pick('switchboard', 'extensionHostRssMb') / pick('builtin', 'extensionHostRssMb');
  const withHostRatio = pick('switchboard', 'withMachineHostMb') / pick('builtin', 'withMachineHostMb');
  const spread = pick('switchboard', 'firstToLastProcessMs');
  // Each round's pair, side by side: how far the two windows of one round differ is the noise.
  const perRound = (key) => samples.switchboard.map((ours, round) => `${(ours[key] / samples.builtin[round][key]).toFixed(2)}×`).join(', ');
  const verdict = [
    `- All 20 ready at ≤ 0.9× the editor's own client: ${readyRatio.toFixed(2)}×, ${readyRatio <= 0.9 ? 'met' : 'NOT met'}.`,
    `- First to last process ≤ 1 s: ${Math.round(spread)} ms, ${spread <= 1000 ? 'met' : 'NOT met'}.`,
    `- Extension host memory ≤ 1.1× the editor's own client: ${memoryRatio.toFixed(2)}×, ${memoryRatio <= 1.1 ? 'met' : 'NOT met'}; with Switchboard's machine host added (where its servers run): ${withHostRatio.toFixed(2)}×, ${withHostRatio <= 1.1 ? 'met' : 'NOT met'}.`,
    `- Per round: ready ${perRound('windowToToolsMs')}; memory ${perRound('extensionHostRssMb')}; after a full GC ${perRound('extensionHostRssAfterGcMb')}; with the machine host ${perRound('withMachineHostMb')}.`,
    "- Switchboard's servers are in its user settings (no consent dialog), shared through its machine host (the default); the editor's own client has Switchboard installed but idle (no servers). Chat gets 128 of Switchboard's tools (the budget, shared between servers; search finds the rest).",
  ].join('\n');
  const block = [`${dateLine()} · ${machineLine()} · load average at start ${load} · ${rounds} rounds`, '', table, '', verdict].join('\n');
  console.log(`\n${block}\n`);
  if (write) {
    replaceSection(
      HEADING,
      `${HEADING}\n\nGenerated by \`npm run bench:versus\` (bench/versus.mjs); the whole section is rewritten.\n\n${block}`,
    );
    console.log('[bench] bench/RESULTS.md updated');
  }
}

await main();
