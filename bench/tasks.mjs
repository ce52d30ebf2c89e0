#!/usr/bin/env node
// A task driven through the gateway against the same task driven directly: the reference server's
// `simulate-research-query` (`@modelcontextprotocol/server-everything`, 2025-11-25 tasks; four
// stages of one second each). Directly: a bare SDK client with the SDK's tasks package
// (`@modelcontextprotocol/ext-tasks`) creates the task, polls it and fetches the result, as a
// task-aware client does. Through the gateway: a 2025 client that does not speak tasks makes a plain
// call of the same tool on `mcp-switchboard serve`'s `/mcp` (its own process), which runs the task for it;
// and a client that drives tasks itself (the SDK's tasks package, as the editor does) gets a task of
// the gateway's, which runs the same call.
// The floor is the server's own four seconds; what is measured is what each way adds to them.
//   npm run bench:tasks                        (= node bench/tasks.mjs)
//   node bench/tasks.mjs --rounds 2 --no-write
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { spawn } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createTaskSessionFromClient, resultFromTaskOutcome, toolDeclarationFromMcpTool } from '@modelcontextprotocol/ext-tasks/client';
import {
  bundle,
  dateLine,
  loadAverage,
  machineLine,
  median,
  option,
  percentile,
  ratio,
  repoRoot,
  replaceSection,
  shouldWrite,
} from './support.mjs';

const EVERYTHING = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const TOOL = 'simulate-research-query';
const SECTION = '## bench:tasks';
const rounds = Number(option('rounds', '3'));
/** Per way and round: this many tasks one after another, then this many at once. */
const SEQUENTIAL = 3;
const CONCURRENT = 8;

async function direct() {
  const client = new Client({ name: 'bench-direct', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
  const tool = (await client.listTools()).tools.find((candidate) => candidate.name === TOOL);
  const session = createTaskSessionFromClient(client, { endpointId: 'bench' });
  return {
    call: async (topic) => {
      const execution = await session.callTool(
        TOOL,
        { topic },
        { declaration: toolDeclarationFromMcpTool(tool), task: { preference: 'require' } },
      );
      return resultFromTaskOutcome((await execution.settle()).outcome);
    },
    close: async () => {
      await session.close();
      await client.close();
    },
  };
}

async function startServe(cli, tempRoot) {
  const folder = fs.mkdtempSync(path.join(tempRoot, 'ws-'));
  fs.mkdirSync(path.join(folder, '.vscode'));
  const servers = { research: { command: process.execPath, args: [EVERYTHING, 'stdio'], tools: { allow: [TOOL] } } };
  fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), JSON.stringify({ 'mcpSwitchboard.servers': servers }));
  const child = spawn(process.execPath, [cli, 'serve', '--folder', folder, '--trust-workspace'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, XDG_CACHE_HOME: path.join(tempRoot, 'cache') },
  });
  child.stderr.resume();
  const ready = await new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once('line', (text) => resolve(JSON.parse(text)));
    child.once('exit', (code) => reject(new Error(`serve exited (${code})`)));
  });
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  };
  return { ready, stop };
}

/** `drives`: the client declares tasks and drives the gateway's task with the tasks package; else a plain call. */
async function throughGateway(cli, tempRoot, drives) {
  const { ready, stop } = await startServe(cli, tempRoot);
  const client = new Client(
    { name: 'bench-gateway', version: '1.0.0' },
    drives ? { capabilities: { tasks: { list: {}, cancel: {}, requests: {} } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(ready.url), { requestInit: { headers: { Authorization: `Bearer ${ready.token}` } } }),
  );
  const name = `research__${TOOL}`;
  const close = async () => {
    await client.close();
    await stop();
  };
  if (!drives) return { call: (topic) => client.callTool({ name, arguments: { topic } }, { timeout: 120_000 }), close };
  const tool = (await client.listTools()).tools.find((candidate) => candidate.name === name);
  if (tool?.execution?.taskSupport !== 'required')
    throw new Error(`the gateway did not list ${name} as a task tool: ${JSON.stringify(tool?.execution)}`);
  const session = createTaskSessionFromClient(client, { endpointId: 'bench-gateway' });
  return {
    call: async (topic) => {
      const execution = await session.callTool(
        name,
        { topic },
        { declaration: toolDeclarationFromMcpTool(tool), task: { preference: 'require' } },
      );
      if (execution.kind !== 'task') throw new Error('the gateway did not create a task');
      return resultFromTaskOutcome((await execution.settle()).outcome);
    },
    close: async () => {
      await session.close();
      await close();
    },
  };
}

async function timed(call, topic) {
  const started = performance.now();
  const result = await call(topic);
  if (!/Research Report/.test(result.content?.[0]?.text ?? '')) throw new Error(`no report: ${JSON.stringify(result).slice(0, 200)}`);
  return performance.now() - started;
}

async function main() {
  const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-tasks-'));
  const cli = path.join(tempRoot, 'cli.cjs');
  await bundle(cli, { entryPoints: [path.join(repoRoot, 'src', 'cli.ts')] });
  const ways = [
    { key: 'direct', label: 'SDK client + tasks package → server (stdio): the task driven directly', open: () => direct() },
    {
      key: 'gateway',
      label: 'SDK client (2025, plain call) → gateway (`serve`) → server (stdio): the gateway drives the task',
      open: () => throughGateway(cli, tempRoot, false),
    },
    {
      key: 'driven',
      label: "SDK client + tasks package → gateway (`serve`) → server (stdio): the client drives a task of the gateway's",
      open: () => throughGateway(cli, tempRoot, true),
    },
  ];
  const samples = Object.fromEntries(ways.map((way) => [way.key, { sequential: [], concurrent: [] }]));
  const opened = {};
  for (const way of ways) opened[way.key] = await way.open();
  try {
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? ways : [...ways].reverse();
      for (const way of order) {
        const { call } = opened[way.key];
        for (let index = 0; index < SEQUENTIAL; index += 1) samples[way.key].sequential.push(await timed(call, `topic ${round}.${index}`));
        samples[way.key].concurrent.push(
          ...(await Promise.all(Array.from({ length: CONCURRENT }, (_, index) => timed(call, `batch ${round}.${index}`)))),
        );
      }
    }
  } finally {
    for (const way of ways) await opened[way.key].close();
    fs.rmSync(tempRoot, { recursive: true, force: true });
  }
  const row = (way) => {
    const { sequential, concurrent } = samples[way.key];
    return `| ${way.label} | ${median(sequential).toFixed(0)} | ${percentile(sequential, 95).toFixed(0)} | ${median(concurrent).toFixed(0)} | ${percentile(concurrent, 95).toFixed(0)} |`;
  };
  const extra = (key, kind) => median(samples[key][kind]) - median(samples.direct[kind]);
  const compare = (key) =>
    `sequential p50 is ${ratio(median(samples[key].sequential) / median(samples.direct.sequential))} the direct one (${extra(key, 'sequential').toFixed(0)} ms more); concurrent ${ratio(median(samples[key].concurrent) / median(samples.direct.concurrent))} (${extra(key, 'concurrent').toFixed(0)} ms more)`;
  const section = [
    SECTION,
    '',
    `Command: \`node bench/tasks.mjs --rounds ${rounds}\`. ${dateLine()}. ${machineLine()}. Load average at the end: ${loadAverage()}.`,
    '',
    `The reference server's \`${TOOL}\` (four stages of one second each: the floor is the server's own ~4 s), ${rounds * SEQUENTIAL} tasks one after another and ${rounds * CONCURRENT} at once (${CONCURRENT} per batch) per way, the ways interleaved. Each way has its own server process.`,
    '',
    '| Way | sequential p50 (ms) | p95 | concurrent p50 (ms) | p95 |',
    '|---|---|---|---|---|',
    ...ways.map(row),
    '',
    `Through the gateway with a plain call, ${compare('gateway')}. Driven by the client through the gateway, ${compare('driven')}; the gateway's poll interval is 500 ms.`,
  ].join('\n');
  console.log(section);
  if (shouldWrite()) replaceSection(SECTION, section);
}

await main();
