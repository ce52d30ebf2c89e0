// Where server entries come from besides the setting itself: `mcpSwitchboard.sources` turns on the
// files of sourceLocations.ts (the editor's mcp.json files, the portable .mcp.json, other clients').

import type { ServerCandidate } from './buildContext';
import { describeIssue, describeValue, sandboxRulesSchema, type ParsedSandboxRules } from './entrySchema';
import type { ConfigFileSystem } from './fileSystem';
import { readInputDefinitions, type InputDefinition } from './inputs';
import { appendPath, joinPath } from './jsonPath';
import { parseJsonc, parseJsoncBlocks } from './jsonc';
import { isPlainObject } from './objects';
import type { SourceFile } from './sourceLocations';

export type { SourceFile } from './sourceLocations';
import { teamGatewayBase } from './teamSources';
import { parseToml } from './toml';
import { FILE_SOURCES, type ConfigDiagnostic, type ServerSource } from './types';

export const SOURCE_NAMES = ['settings', ...FILE_SOURCES] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];
export const DEFAULT_SOURCES: readonly SourceName[] = ['settings'];
/** More team gateways than any user has; each is a request at every reload. */
const MAX_TEAM_GATEWAYS = 8;

export interface SourceList {
  readonly sources: ReadonlySet<SourceName>;
  /** Team gateways' base URLs, in the order listed, each once (teamSources.ts). */
  readonly teams: readonly string[];
  readonly diagnostics: readonly ConfigDiagnostic[];
}

/** A wrong type falls back to the default; an unknown name is skipped. Order does not matter. */
export function parseSourceList(value: unknown, origin: ServerSource): SourceList {
  const path = 'mcpSwitchboard.sources';
  if (value === undefined || value === null) return { sources: new Set(DEFAULT_SOURCES), teams: [], diagnostics: [] };
  if (!Array.isArray(value)) {
    return {
      sources: new Set(DEFAULT_SOURCES),
      teams: [],
      diagnostics: [
        {
          severity: 'error',
          path,
          message: `expected an array such as ["settings", "mcpJsonPortable"], got ${describeValue(value)}; using ["settings"]`,
          source: origin,
        },
      ],
    };
  }
  const sources = new Set<SourceName>();
  const teams: string[] = [];
  const diagnostics: ConfigDiagnostic[] = [];
  for (const [index, item] of (value as unknown[]).entries()) {
    const team = typeof item === 'string' ? teamGatewayBase(item) : undefined;
    if (team !== undefined) {
      if (origin.kind !== 'user') {
        // A repository must not choose where the user's sign-in goes, nor whose servers they run.
        diagnostics.push({
          severity: 'warning',
          path: appendPath(path, index),
          message: `team gateway ${describeValue(item)} is ignored: a team gateway is read from user settings only, not from a workspace's`,
          source: origin,
        });
      } else if (teams.length >= MAX_TEAM_GATEWAYS) {
        diagnostics.push({
          severity: 'warning',
          path: appendPath(path, index),
          message: `more than ${MAX_TEAM_GATEWAYS} team gateways; this one is ignored`,
          source: origin,
        });
      } else if (!teams.includes(team)) teams.push(team);
    } else if (typeof item === 'string' && /^https?:/i.test(item)) {
      diagnostics.push({
        severity: 'warning',
        path: appendPath(path, index),
        message: `team gateway ${describeValue(item)} is ignored: it must be an https URL (http only on this machine) without credentials, query or fragment`,
        source: origin,
      });
    } else if (typeof item === 'string' && (SOURCE_NAMES as readonly string[]).includes(item)) {
      sources.add(item as SourceName);
    } else {
      diagnostics.push({
        severity: 'warning',
        path: appendPath(path, index),
        message: `unknown source ${describeValue(item)} is ignored; expected one of ${SOURCE_NAMES.map((name) => `"${name}"`).join(', ')}, or a team gateway's https URL`,
        source: origin,
      });
    }
  }
  return { sources, teams, diagnostics };
}

export interface FileEntries {
  readonly candidates: readonly ServerCandidate[];
  readonly diagnostics: readonly ConfigDiagnostic[];
}

/** The value at `keys` under `root`, if every step is an object. */
function valueAt(root: Record<string, unknown>, keys: readonly string[]): unknown {
  let value: unknown = root;
  for (const key of keys) {
    if (!isPlainObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

type ReadDocument =
  | { readonly kind: 'missing' }
  | { readonly kind: 'failed'; readonly diagnostics: readonly ConfigDiagnostic[] }
  | { readonly kind: 'parsed'; readonly value: Record<string, unknown>; readonly diagnostics: readonly ConfigDiagnostic[] };

/** Past this size a JSON file is scanned for the blocks it is read for, instead of parsed whole. */
const WHOLE_PARSE_MAX_CHARS = 1024 * 1024;

/**
 * Every entry's servers, in the entries' order. A file named by several entries (Claude Code's
 * ~/.claude.json: each open folder's block and the user's) is read and parsed once, and its
 * problems are reported once, with its first entry. A missing file contributes nothing and says
 * nothing: most users have only some of these files.
 */
export async function readSourceFiles(entries: readonly SourceFile[], fs: ConfigFileSystem): Promise<FileEntries[]> {
  const documents = new Map<string, Promise<ReadDocument>>();
  for (const entry of entries) {
    if (documents.has(entry.file)) continue;
    const sharing = entries.filter((other) => other.file === entry.file);
    documents.set(
      entry.file,
      readDocument(
        entry,
        sharing.flatMap((other) => other.serversAt),
        fs,
      ),
    );
  }
  const reported = new Set<string>();
  return Promise.all(
    entries.map(async (entry) => {
      const document = await (documents.get(entry.file) as Promise<ReadDocument>);
      const first = !reported.has(entry.file) && reported.add(entry.file);
      const fileDiagnostics = first && document.kind !== 'missing' ? document.diagnostics : [];
      if (document.kind !== 'parsed') return { candidates: [], diagnostics: fileDiagnostics };
      const found = entriesIn(entry, document.value);
      return { candidates: found.candidates, diagnostics: [...fileDiagnostics, ...found.diagnostics] };
    }),
  );
}

async function readDocument(entry: SourceFile, locations: readonly (readonly string[])[], fs: ConfigFileSystem): Promise<ReadDocument> {
  const source: ServerSource = { kind: entry.kind, file: entry.file };
  const read = await fs.readText(entry.file, entry.maxBytes);
  // An empty file is no source: an empty file is what a sandbox leaves where it keeps a server from
  // making one (a mount point), and it holds no server anyway.
  if (read.kind === 'missing' || (read.kind === 'ok' && read.text.trim() === '')) return { kind: 'missing' };
  if (read.kind === 'error') return { kind: 'failed', diagnostics: [{ severity: 'error', path: '', message: read.message, source }] };
  const blocksOnly =
    entry.syntax === 'jsonc' && !entry.editorFile && read.text.length > WHOLE_PARSE_MAX_CHARS && locations.every((keys) => keys.length > 0);
  const parsed =
    entry.syntax === 'toml'
      ? await parseToml(read.text, source)
      : blocksOnly
        ? parseJsoncBlocks(read.text, source, locations)
        : parseJsonc(read.text, source);
  if (parsed.value === undefined) return { kind: 'failed', diagnostics: parsed.diagnostics };
  if (!isPlainObject(parsed.value)) {
    const message = `expected ${entry.syntax === 'toml' ? 'a TOML table' : 'a JSON object'} at the top level, got ${describeValue(parsed.value)}`;
    return { kind: 'failed', diagnostics: [{ severity: 'error', path: '', message, source }] };
  }
  return { kind: 'parsed', value: parsed.value, diagnostics: parsed.diagnostics };
}

/** One entry's servers in its file's document. */
function entriesIn(entry: SourceFile, document: Record<string, unknown>): FileEntries {
  const source: ServerSource = { kind: entry.kind, file: entry.file };
  const at = entry.serversAt.find((keys) => valueAt(document, keys) !== undefined);
  if (at === undefined) return { candidates: [], diagnostics: [] };
  const servers = valueAt(document, at);
  const serversPath = joinPath('', at);
  if (!isPlainObject(servers)) {
    const message = `expected an object keyed by server name, got ${describeValue(servers)}`;
    return { candidates: [], diagnostics: [{ severity: 'error', path: serversPath, message, source }] };
  }
  const inputs: ReadonlyMap<string, InputDefinition> = entry.editorFile ? readInputDefinitions(document.inputs) : new Map();
  const fileSandbox = entry.editorFile ? readFileSandbox(document.sandbox, source) : { diagnostics: [] };
  const diagnostics: ConfigDiagnostic[] = [...fileSandbox.diagnostics];
  const candidates = Object.entries(servers).map(([name, raw]): ServerCandidate => {
    const path = appendPath(serversPath, name);
    const adapted = entry.adapt(raw);
    for (const note of adapted.notes)
      diagnostics.push({ severity: 'warning', server: name, path: appendPath(path, note.field), message: note.message, source });
    return { name, raw: adapted.raw, source, path, inputs, fileSandbox: fileSandbox.rules };
  });
  return { candidates, diagnostics };
}

/** One file on its own (Import Servers reads the files one by one). */
export async function readSourceFile(entry: SourceFile, fs: ConfigFileSystem): Promise<FileEntries> {
  const [read] = await readSourceFiles([entry], fs);
  return read ?? { candidates: [], diagnostics: [] };
}

/**
 * The editor's mcp.json keeps one `sandbox` block for all its sandboxed servers. A broken block is
 * an error and is not used: those servers get the built-in rules (their folder only, no network),
 * never more than the block meant to give.
 */
function readFileSandbox(value: unknown, source: ServerSource): { rules?: ParsedSandboxRules; diagnostics: ConfigDiagnostic[] } {
  if (value === undefined) return { diagnostics: [] };
  const parsed = sandboxRulesSchema.safeParse(value);
  if (parsed.success) return { rules: parsed.data, diagnostics: [] };
  const issue = parsed.error.issues[0];
  const where = joinPath(
    'sandbox',
    (issue?.path ?? []).map((key) => (typeof key === 'symbol' ? String(key) : key)),
  );
  const message = `${issue ? describeIssue(issue, value) : 'is not valid'}; the sandboxed servers of this file use the built-in rules (their folder, no network)`;
  return { diagnostics: [{ severity: 'error', path: where, message, source }] };
}
