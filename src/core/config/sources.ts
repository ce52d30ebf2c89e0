// Where server entries come from besides the setting itself: `mcpSwitchboard.sources` turns on
// `.vscode/mcp.json` ({servers, inputs}) and the Cursor and Claude Desktop files ({mcpServers}).

import type path from 'node:path';
import type { ServerCandidate } from './buildContext';
import type { WorkspaceFolder } from './configurationInput';
import { describeIssue, describeValue, sandboxRulesSchema, type ParsedSandboxRules } from './entrySchema';
import type { ConfigFileSystem } from './fileSystem';
import { readInputDefinitions, type InputDefinition } from './inputs';
import { appendPath, joinPath } from './jsonPath';
import { parseJsonc } from './jsonc';
import { MAX_FILE_BYTES } from './limits';
import { pathModuleFor } from './paths';
import type { ConfigDiagnostic, ServerSource } from './types';

export const SOURCE_NAMES = ['settings', 'mcpJson', 'cursor', 'claudeDesktop'] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];
export const DEFAULT_SOURCES: readonly SourceName[] = ['settings'];

export interface SourceList {
  readonly sources: ReadonlySet<SourceName>;
  readonly diagnostics: readonly ConfigDiagnostic[];
}

/** A wrong type falls back to the default; an unknown name is skipped. Order does not matter. */
export function parseSourceList(value: unknown, origin: ServerSource): SourceList {
  const path = 'mcpSwitchboard.sources';
  if (value === undefined || value === null) return { sources: new Set(DEFAULT_SOURCES), diagnostics: [] };
  if (!Array.isArray(value)) {
    return {
      sources: new Set(DEFAULT_SOURCES),
      diagnostics: [{
        severity: 'error',
        path,
        message: `expected an array such as ["settings", "mcpJson"], got ${describeValue(value)}; using ["settings"]`,
        source: origin,
      }],
    };
  }
  const sources = new Set<SourceName>();
  const diagnostics: ConfigDiagnostic[] = [];
  for (const [index, item] of (value as unknown[]).entries()) {
    if (typeof item === 'string' && (SOURCE_NAMES as readonly string[]).includes(item)) {
      sources.add(item as SourceName);
    } else {
      diagnostics.push({
        severity: 'warning',
        path: appendPath(path, index),
        message: `unknown source ${describeValue(item)} is ignored; expected one of ${SOURCE_NAMES.map((name) => `"${name}"`).join(', ')}`,
        source: origin,
      });
    }
  }
  return { sources, diagnostics };
}

export interface SourceFile {
  readonly kind: 'mcpJson' | 'cursor' | 'claudeDesktop';
  readonly file: string;
  /** The top-level key holding the servers. */
  readonly key: 'servers' | 'mcpServers';
}

export interface LocationContext {
  readonly workspaceFolders: readonly WorkspaceFolder[];
  readonly userHome: string;
  readonly platform: NodeJS.Platform;
  readonly paths: path.PlatformPath;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Files to read, in precedence order: mcpJson, then Cursor (workspace before home), then Claude. */
export function sourceFiles(sources: ReadonlySet<SourceName>, context: LocationContext): SourceFile[] {
  const { paths } = context;
  const files: SourceFile[] = [];
  if (sources.has('mcpJson')) {
    for (const folder of context.workspaceFolders) {
      files.push({ kind: 'mcpJson', file: paths.join(folder.path, '.vscode', 'mcp.json'), key: 'servers' });
    }
  }
  if (sources.has('cursor')) {
    for (const folder of context.workspaceFolders) {
      files.push({ kind: 'cursor', file: paths.join(folder.path, '.cursor', 'mcp.json'), key: 'mcpServers' });
    }
    files.push({ kind: 'cursor', file: paths.join(context.userHome, '.cursor', 'mcp.json'), key: 'mcpServers' });
  }
  if (sources.has('claudeDesktop')) {
    files.push({ kind: 'claudeDesktop', file: claudeDesktopConfigPath(context), key: 'mcpServers' });
  }
  // A workspace folder that is the home directory would otherwise be read twice.
  const seen = new Set<string>();
  return files.filter((entry) => !seen.has(entry.file) && seen.add(entry.file));
}

export function claudeDesktopConfigPath(context: Pick<LocationContext, 'platform' | 'userHome' | 'env'>): string {
  const paths = pathModuleFor(context.platform);
  const { userHome } = context;
  if (context.platform === 'darwin') {
    return paths.join(userHome, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
  }
  if (context.platform === 'win32') {
    const appData = context.env.APPDATA ?? paths.join(userHome, 'AppData', 'Roaming');
    return paths.join(appData, 'Claude', 'claude_desktop_config.json');
  }
  return paths.join(userHome, '.config', 'Claude', 'claude_desktop_config.json');
}

export interface FileEntries {
  readonly candidates: readonly ServerCandidate[];
  readonly diagnostics: readonly ConfigDiagnostic[];
}

/** A missing file contributes nothing and says nothing: most users have only some of these files. */
export async function readSourceFile(entry: SourceFile, fs: ConfigFileSystem): Promise<FileEntries> {
  const source: ServerSource = { kind: entry.kind, file: entry.file };
  const read = await fs.readText(entry.file, MAX_FILE_BYTES);
  if (read.kind === 'missing') return { candidates: [], diagnostics: [] };
  if (read.kind === 'error') {
    return { candidates: [], diagnostics: [{ severity: 'error', path: '', message: read.message, source }] };
  }
  const parsed = parseJsonc(read.text, source);
  if (parsed.value === undefined) return { candidates: [], diagnostics: parsed.diagnostics };
  if (!isPlainObject(parsed.value)) {
    const message = `expected a JSON object at the top level, got ${describeValue(parsed.value)}`;
    return { candidates: [], diagnostics: [{ severity: 'error', path: '', message, source }] };
  }
  const servers = parsed.value[entry.key];
  if (servers === undefined) return { candidates: [], diagnostics: parsed.diagnostics };
  if (!isPlainObject(servers)) {
    const message = `expected an object keyed by server name, got ${describeValue(servers)}`;
    return { candidates: [], diagnostics: [{ severity: 'error', path: entry.key, message, source }] };
  }
  const inputs: ReadonlyMap<string, InputDefinition> =
    entry.kind === 'mcpJson' ? readInputDefinitions(parsed.value.inputs) : new Map();
  const fileSandbox = entry.kind === 'mcpJson' ? readFileSandbox(parsed.value.sandbox, source) : { diagnostics: [] };
  const candidates = Object.entries(servers).map(([name, raw]): ServerCandidate => ({
    name,
    raw,
    source,
    path: appendPath(entry.key, name),
    inputs,
    ...(fileSandbox.rules ? { fileSandbox: fileSandbox.rules } : {}),
  }));
  return { candidates, diagnostics: [...parsed.diagnostics, ...fileSandbox.diagnostics] };
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
  const where = joinPath('sandbox', (issue?.path ?? []).map((key) => (typeof key === 'symbol' ? String(key) : key)));
  const message = `${issue ? describeIssue(issue, value) : 'is not valid'}; the sandboxed servers of this file use the built-in rules (their folder, no network)`;
  return { diagnostics: [{ severity: 'error', path: where, message, source }] };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
