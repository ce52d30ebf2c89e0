// Every file in corpus/ is a settings.json-like JSONC document; its sibling .expected.json lists the
// exact diagnostics (as a multiset) and which servers must come out valid, invalid or blocked on
// input. One test walks the whole corpus and reports every mismatching case at once.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  createEnvInputResolver,
  isInvalidServer,
  loadConfiguration,
  readWorkspaceSettingsFile,
  settingsEntries,
} from '../../../src/core/config';
import { diagnosticMismatch, TempDirs, type ExpectedDiagnostic } from './helpers';

const corpusDir = path.join(__dirname, 'corpus');

interface Expectation {
  readonly description: string;
  readonly diagnostics: readonly ExpectedDiagnostic[];
  readonly valid: readonly string[];
  readonly invalid: readonly string[];
  readonly needsInput?: Readonly<Record<string, readonly string[]>>;
}

async function runCase(name: string, dirs: TempDirs): Promise<string | undefined> {
  const expected = JSON.parse(fs.readFileSync(path.join(corpusDir, `${name}.expected.json`), 'utf8')) as Expectation;
  const workspace = dirs.make('mcp-corpus-');
  const home = dirs.make('mcp-corpus-home-');
  fs.mkdirSync(path.join(workspace, '.vscode'));
  fs.copyFileSync(path.join(corpusDir, `${name}.jsonc`), path.join(workspace, '.vscode', 'settings.json'));
  const env = {
    HOME: home,
    API_TOKEN: 'tok-123',
    LOOP: '${env:LOOP}',
    EMPTY: '',
    MCP_SWITCHBOARD_INPUT_PROVIDED: 'given',
  };

  const settings = await readWorkspaceSettingsFile(workspace);
  const entries = settingsEntries(settings.servers, settings.source);
  const loaded = await loadConfiguration(
    {
      entries: entries.entries,
      sources: settings.sources,
      sourcesOrigin: settings.source,
      workspaceFolders: [{ name: 'proj', path: workspace }],
      userHome: home,
      env,
      platform: 'linux',
    },
    createEnvInputResolver(env),
  );

  const problems: string[] = [];
  const mismatch = diagnosticMismatch([...settings.diagnostics, ...entries.diagnostics, ...loaded.diagnostics], expected.diagnostics);
  if (mismatch) problems.push(mismatch);
  const valid = loaded.servers.filter((server) => !isInvalidServer(server)).map((server) => server.name);
  const invalid = loaded.servers.filter(isInvalidServer);
  if (JSON.stringify(valid) !== JSON.stringify(expected.valid)) problems.push(`valid: ${JSON.stringify(valid)}`);
  if (JSON.stringify(invalid.map((server) => server.name)) !== JSON.stringify(expected.invalid)) {
    problems.push(`invalid: ${JSON.stringify(invalid.map((server) => server.name))}`);
  }
  const needsInput = Object.fromEntries(invalid.filter((server) => server.needsInput).map((server) => [server.name, server.needsInput]));
  if (JSON.stringify(needsInput) !== JSON.stringify(expected.needsInput ?? {})) problems.push(`needsInput: ${JSON.stringify(needsInput)}`);
  return problems.length === 0 ? undefined : `${name} (${expected.description}):\n${problems.join('\n')}`;
}

describe('config: corpus of broken configurations', () => {
  const dirs = new TempDirs();
  afterEach(() => dirs.cleanup());

  it('every corpus case produces exactly its expected diagnostics', async () => {
    const cases = fs
      .readdirSync(corpusDir)
      .filter((file) => file.endsWith('.jsonc'))
      .map((file) => file.slice(0, -'.jsonc'.length))
      .sort();
    assert.ok(cases.length >= 25, `only ${cases.length} corpus cases`);
    const failures: string[] = [];
    for (const name of cases) {
      const failure = await runCase(name, dirs);
      if (failure) failures.push(failure);
    }
    assert.equal(failures.length, 0, `${failures.length} of ${cases.length} corpus cases failed:\n\n${failures.join('\n\n')}`);
  });
});
