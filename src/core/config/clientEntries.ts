// Other clients' server entries in Switchboard's shape. Each client spells the same things its own
// way (`httpUrl`, `serverUrl`, `bearer_token_env_var`, `includeTools`, `enabled = false`); a field
// with no equivalent is left out with a note naming it, so nothing is dropped silently. What comes
// out is checked by the entry schema like any settings entry.

import { isPlainObject } from './objects';

export interface EntryNote {
  /** Relative to the entry: `bearer_token_env_var`, `oauth.scopes`. */
  readonly field: string;
  readonly message: string;
}

export interface AdaptedEntry {
  readonly raw: unknown;
  readonly notes: readonly EntryNote[];
}

export type EntryAdapter = (entry: unknown) => AdaptedEntry;

type Entry = Record<string, unknown>;

/** The editor's own mcp.json shape is Switchboard's: passed through, the schema checks it. */
export const sameShape: EntryAdapter = (entry) => ({ raw: entry, notes: [] });

const VARIABLES = new Set(['workspaceFolder', 'workspaceFolderBasename', 'userHome', 'pathSeparator', 'cwd', 'file']);

/**
 * Claude Code's `${VAR}` and `${VAR:-default}` are environment variables: `${env:VAR}` here. Gemini
 * CLI also reads a bare `$VAR` (`bareDollar`).
 */
export function envVariablesToOurs(value: unknown, bareDollar = false): unknown {
  if (typeof value === 'string') {
    const braced = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}/g, (whole, name: string, fallback: string | undefined) =>
      VARIABLES.has(name) ? whole : `\${env:${name}${fallback ?? ''}}`,
    );
    return bareDollar ? braced.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, (_whole, name: string) => `\${env:${name}}`) : braced;
  }
  if (Array.isArray(value)) return value.map((item) => envVariablesToOurs(item, bareDollar));
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, envVariablesToOurs(item, bareDollar)]));
  return value;
}

function unmapped(entry: Entry, known: ReadonlySet<string>, silent: ReadonlySet<string>, client: string): EntryNote[] {
  return Object.keys(entry)
    .filter((field) => !known.has(field) && !silent.has(field))
    .map((field) => ({ field, message: `${client}'s field "${field}" has no equivalent in Switchboard and is ignored` }));
}

function toolList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? (value as string[]) : undefined;
}

const PORTABLE_FIELDS = new Set([
  'type',
  'transport',
  'command',
  'args',
  'env',
  'envFile',
  'cwd',
  'url',
  'headers',
  'oauth',
  'oauthClientId',
  'dev',
  'tools',
  'disabled',
]);
const PORTABLE_SILENT = new Set(['description', 'gallery', 'version', 'alwaysLoad']);

/**
 * `.mcp.json` at a folder's root, Claude Code's files and Copilot CLI's `mcp-config.json`: the
 * portable shape, `{ type, command, args, env, url, headers }`, as the editor reads it too.
 * Copilot CLI's `type: "local"` is stdio, and its `tools` list is an allow list (`["*"]`: all).
 */
export function portableEntry(client: string): EntryAdapter {
  return (entry) => {
    if (!isPlainObject(entry)) return { raw: entry, notes: [] };
    const source = envVariablesToOurs(entry) as Entry;
    const out: Entry = {};
    for (const field of ['command', 'args', 'env', 'envFile', 'cwd', 'url', 'headers', 'dev'] as const)
      if (source[field] !== undefined) out[field] = source[field];
    const type = typeof source.type === 'string' ? source.type : undefined;
    if (type === 'sse' || source.transport === 'sse') out.type = 'sse';
    else if (type === 'http' || type === 'streamable-http') out.type = 'http';
    else if (type === 'stdio' || type === 'local') out.type = 'stdio';
    else if (type !== undefined) out.type = type;
    const clientId =
      isPlainObject(source.oauth) && typeof source.oauth.clientId === 'string'
        ? source.oauth.clientId
        : typeof source.oauthClientId === 'string'
          ? source.oauthClientId
          : undefined;
    if (clientId) out.oauth = { clientId };
    const tools = toolList(source.tools);
    if (tools && !tools.includes('*')) out.tools = { allow: tools };
    if (source.disabled === true) out.enabled = false;
    const notes = unmapped(source, PORTABLE_FIELDS, PORTABLE_SILENT, client);
    if (isPlainObject(source.oauth))
      notes.push(
        ...Object.keys(source.oauth)
          .filter((key) => key !== 'clientId')
          .map((key) => ({
            field: `oauth.${key}`,
            message: `${client}'s "oauth.${key}" is not carried over; set it in the entry's oauth block here if it is needed`,
          })),
      );
    return { raw: out, notes };
  };
}

const CODEX_FIELDS = new Set([
  'command',
  'args',
  'env',
  'env_vars',
  'cwd',
  'url',
  'bearer_token_env_var',
  'http_headers',
  'env_http_headers',
  'enabled',
  'enabled_tools',
  'disabled_tools',
  'startup_timeout_sec',
  'startup_timeout_ms',
  'tool_timeout_sec',
]);
const CODEX_SILENT = new Set(['required']);

function seconds(value: unknown): number | unknown {
  return typeof value === 'number' && Number.isFinite(value) ? Math.round(value * 1000) : value;
}

/**
 * Codex's `[mcp_servers.<name>]` tables. Secrets stay variables: `bearer_token_env_var = "X"`
 * becomes `Authorization: Bearer ${env:X}`, `env_http_headers` the same for any header. `env_vars`
 * names variables passed through; Switchboard passes the whole environment, so they need nothing.
 */
export const codexEntry: EntryAdapter = (entry) => {
  if (!isPlainObject(entry)) return { raw: entry, notes: [] };
  const out: Entry = {};
  for (const field of ['command', 'args', 'env', 'cwd', 'url'] as const) if (entry[field] !== undefined) out[field] = entry[field];
  const headers: Entry = isPlainObject(entry.http_headers) ? { ...entry.http_headers } : {};
  if (isPlainObject(entry.env_http_headers)) {
    for (const [header, variable] of Object.entries(entry.env_http_headers))
      headers[header] = typeof variable === 'string' ? `\${env:${variable}}` : variable;
  }
  if (typeof entry.bearer_token_env_var === 'string') headers.Authorization = `Bearer \${env:${entry.bearer_token_env_var}}`;
  if (Object.keys(headers).length > 0) out.headers = headers;
  if (entry.enabled === false) out.enabled = false;
  const allow = toolList(entry.enabled_tools);
  const deny = toolList(entry.disabled_tools);
  if (allow || deny) out.tools = { ...(allow ? { allow } : {}), ...(deny ? { deny } : {}) };
  const connect = entry.startup_timeout_ms ?? seconds(entry.startup_timeout_sec);
  const request = seconds(entry.tool_timeout_sec);
  if (connect !== undefined || request !== undefined)
    out.timeouts = { ...(connect !== undefined ? { connectMs: connect } : {}), ...(request !== undefined ? { requestMs: request } : {}) };
  return { raw: out, notes: unmapped(entry, CODEX_FIELDS, CODEX_SILENT, 'Codex') };
};

const GEMINI_FIELDS = new Set([
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'httpUrl',
  'headers',
  'timeout',
  'includeTools',
  'excludeTools',
  'trust',
  'oauth',
]);
const GEMINI_SILENT = new Set(['description']);

/**
 * Gemini CLI's `mcpServers`: `url` is SSE and `httpUrl` streamable HTTP; `timeout` is per request
 * (ms); include/exclude lists are tool filters. `trust: true` skips Gemini's confirmations, which
 * Switchboard leaves to the editor, so it is noted, not carried.
 */
export const geminiEntry: EntryAdapter = (entry) => {
  if (!isPlainObject(entry)) return { raw: entry, notes: [] };
  const source = envVariablesToOurs(entry, true) as Entry;
  const out: Entry = {};
  for (const field of ['command', 'args', 'env', 'cwd', 'headers'] as const) if (source[field] !== undefined) out[field] = source[field];
  if (source.httpUrl !== undefined) {
    out.url = source.httpUrl;
    out.type = 'http';
  } else if (source.url !== undefined) {
    out.url = source.url;
    out.type = 'sse';
  }
  if (source.timeout !== undefined) out.timeouts = { requestMs: source.timeout };
  const allow = toolList(source.includeTools);
  const deny = toolList(source.excludeTools);
  if (allow || deny) out.tools = { ...(allow ? { allow } : {}), ...(deny ? { deny } : {}) };
  const notes = unmapped(source, GEMINI_FIELDS, GEMINI_SILENT, 'Gemini CLI');
  if (source.trust === true)
    notes.push({
      field: 'trust',
      message:
        'Gemini CLI\'s "trust": true (no confirmations) is not carried over: the editor still asks before tools that are not read-only',
    });
  if (source.oauth !== undefined)
    notes.push({
      field: 'oauth',
      message:
        'Gemini CLI\'s "oauth" block is not carried over: Switchboard discovers the server\'s authorization itself (Sign In on its row)',
    });
  return { raw: out, notes };
};

const WINDSURF_FIELDS = new Set(['command', 'args', 'env', 'serverUrl', 'url', 'headers', 'disabled', 'disabledTools']);

/** Windsurf's `mcp_config.json`: `serverUrl` for remote servers, `disabled` and `disabledTools`. */
export const windsurfEntry: EntryAdapter = (entry) => {
  if (!isPlainObject(entry)) return { raw: entry, notes: [] };
  const out: Entry = {};
  for (const field of ['command', 'args', 'env', 'headers'] as const) if (entry[field] !== undefined) out[field] = entry[field];
  const url = entry.serverUrl ?? entry.url;
  if (url !== undefined) out.url = url;
  if (entry.disabled === true) out.enabled = false;
  const deny = toolList(entry.disabledTools);
  if (deny && deny.length > 0) out.tools = { deny };
  return { raw: out, notes: unmapped(entry, WINDSURF_FIELDS, new Set(), 'Windsurf') };
};
