// doctor with a task-required tool (the reference server's simulate-research-query): each tool's
// taskSupport in --json and on the table, and --call runs the task, its statuses on stderr.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../support/cleanup';
import { cliSuite } from '../support/cliSuite';
import { runCli } from './helpers';

const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

describe('doctor: tools that require a task', function () {
  this.timeout(60_000);
  const cleanup = cliSuite();
  let folder: string;

  beforeEach(() => {
    folder = tempDir(cleanup);
    fs.mkdirSync(path.join(folder, '.vscode'));
    fs.writeFileSync(
      path.join(folder, '.vscode', 'settings.json'),
      JSON.stringify({ 'mcpSwitchboard.servers': { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }),
    );
  });

  it('--json gives each tool its taskSupport, and the table names the ones that run as tasks', async () => {
    const json = await runCli(['doctor', '--folder', folder, '--json']);
    assert.equal(json.code, 0, json.stderr);
    const tools =
      (JSON.parse(json.stdout) as { servers: Array<{ tools: Array<{ name: string; taskSupport?: string }> }> }).servers[0]?.tools ?? [];
    assert.deepEqual(
      tools.filter((tool) => tool.taskSupport !== undefined).map((tool) => [tool.name, tool.taskSupport]),
      [['simulate-research-query', 'required']],
    );
    const table = await runCli(['doctor', '--folder', folder]);
    assert.match(table.stdout, /\n {4}tasks {4}simulate-research-query: requires a task; a call runs it and waits for its result\n/);
  });

  it('--call runs the task and prints its result, with each status once on stderr', async () => {
    const run = await runCli(['doctor', '--folder', folder, '--call', 'everything/simulate-research-query', '--args', '{"topic":"moles"}']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /# Research Report: moles/);
    const statuses = run.stderr.split('\n').filter((line) => line.startsWith('  everything/simulate-research-query: '));
    assert.deepEqual(
      statuses.map((line) => line.slice('  everything/simulate-research-query: '.length)),
      ['Gathering sources...', 'Analyzing content...', 'Synthesizing findings...', 'Generating report...'],
    );
  });
});

describe('doctor: a 2026-07-28 server that answers a call only as a task (the tasks extension)', function () {
  this.timeout(60_000);
  const cleanup = cliSuite();

  it("--call runs the task after the server's -32021, and prints its result and its stages", async () => {
    const folder = tempDir(cleanup);
    fs.mkdirSync(path.join(folder, '.vscode'));
    const fixture = path.resolve(__dirname, '../../fixtures/tasks-v2-server.mjs');
    fs.writeFileSync(
      path.join(folder, '.vscode', 'settings.json'),
      JSON.stringify({ 'mcpSwitchboard.servers': { reports: { command: process.execPath, args: [fixture] } } }),
    );
    const run = await runCli(['doctor', '--folder', folder, '--call', 'reports/long_report', '--args', '{"topic":"tides"}']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Report on tides \(not asked\)/);
    const statuses = run.stderr.split('\n').filter((line) => line.startsWith('  reports/long_report: '));
    assert.deepEqual(
      statuses.map((line) => line.slice('  reports/long_report: '.length)),
      ['working', 'Gathering sources...', 'Writing the report...', 'Checking the facts...'],
    );
  });
});
