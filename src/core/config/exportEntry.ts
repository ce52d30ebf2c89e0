// A Switchboard entry, as written (variables unresolved), in another client's format: the snippet to
// paste into Claude Code's .mcp.json, Copilot CLI's mcp-config.json, Codex's config.toml or Gemini
// CLI's settings.json. Secrets stay variables: `${env:X}` becomes that client's spelling of an
// environment variable, and `${input:id}` an environment variable the user sets (named in a note),
// since no other client can read Switchboard's keychain.

import { inputEnvVarName } from './inputs';
import { isPlainObject } from './objects';

export const EXPORT_FORMATS = ['claudeCode', 'copilotCli', 'codex', 'gemini'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_TITLES: Readonly<Record<ExportFormat, string>> = {
  claudeCode: 'Claude Code (.mcp.json, the portable format)',
  copilotCli: 'Copilot CLI (~/.copilot/mcp-config.json)',
  codex: 'Codex (~/.codex/config.toml)',
  gemini: 'Gemini CLI (settings.json)',
};

export interface ExportedEntry {
  readonly text: string;
  /** What the user must do or know: variables to set, fields the client has no place for. */
  readonly notes: readonly string[];
}

export interface ExportContext {
  /** `${workspaceFolder}` and `${userHome}` are written out: other clients do not expand them. */
  readonly workspaceFolder?: string;
  readonly userHome: string;
}

type Entry = Record<string, unknown>;

const CARRIED = new Set(['type', 'command', 'args', 'env', 'cwd', 'url', 'headers', 'tools', 'timeouts', 'enabled']);

/** Rewrites our variables for a client that reads `${NAME}` environment variables. */
function variables(
  value: unknown,
  context: ExportContext,
  notes: Set<string>,
  envSpelling: (name: string, fallback?: string) => string,
): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([^}]+)\}/g, (whole, body: string) => {
      if (body === 'workspaceFolder' && context.workspaceFolder) return context.workspaceFolder;
      if (body === 'userHome') return context.userHome;
      const env = /^env:([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/.exec(body);
      if (env?.[1]) return envSpelling(env[1], env[2]);
      const input = /^input:(.+)$/.exec(body);
      if (input?.[1]) {
        const name = inputEnvVarName(input[1]);
        notes.add(`set ${name} to the value of \${input:${input[1]}} (other clients cannot read Switchboard's keychain)`);
        return envSpelling(name);
      }
      notes.add(`${whole} is left as written: the other client may not expand it`);
      return whole;
    });
  }
  if (Array.isArray(value)) return value.map((item) => variables(item, context, notes, envSpelling));
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, variables(item, context, notes, envSpelling)]));
  return value;
}

const braced = (name: string, fallback?: string) => `\${${name}${fallback === undefined ? '' : `:-${fallback}`}}`;

function transportOf(entry: Entry): 'stdio' | 'http' | 'sse' {
  if (entry.type === 'sse') return 'sse';
  if (entry.type === 'http' || (entry.type === undefined && entry.command === undefined && entry.url !== undefined)) return 'http';
  return 'stdio';
}

function leftOut(entry: Entry, client: string, alsoCarried: readonly string[] = []): string[] {
  return Object.keys(entry)
    .filter((key) => !CARRIED.has(key) && !alsoCarried.includes(key))
    .map((key) => `"${key}" has no place in ${client}'s format and is left out`);
}

function portable(name: string, entry: Entry, context: ExportContext, copilot: boolean): ExportedEntry {
  const notes = new Set<string>();
  const source = variables(entry, context, notes, braced) as Entry;
  const transport = transportOf(source);
  const out: Entry = { type: transport === 'stdio' ? (copilot ? 'local' : 'stdio') : transport };
  for (const field of ['command', 'args', 'env', 'cwd', 'url', 'headers'] as const)
    if (source[field] !== undefined) out[field] = source[field];
  const tools = isPlainObject(source.tools) ? source.tools : {};
  if (copilot) out.tools = Array.isArray(tools.allow) ? tools.allow : ['*'];
  else if (tools.allow || tools.deny)
    notes.add("tools.allow/tools.deny have no place in Claude Code's format; use its permission settings");
  if (source.enabled === false) notes.add('the server is disabled here; the other client will run it');
  for (const note of leftOut(source, copilot ? 'Copilot CLI' : 'Claude Code')) notes.add(note);
  return { text: JSON.stringify({ mcpServers: { [name]: out } }, null, 2), notes: [...notes] };
}

/** TOML: a bare key when it can be, else a quoted one. */
function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

function tomlValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (isPlainObject(value))
    return `{ ${Object.entries(value)
      .map(([key, item]) => `${tomlKey(key)} = ${tomlValue(item)}`)
      .join(', ')} }`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(String(value));
}

/** Only `${env:NAME}` standing alone: Codex reads a whole value from a variable, never a part. */
function wholeEnv(value: unknown): string | undefined {
  return typeof value === 'string' ? /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value)?.[1] : undefined;
}

function codex(name: string, entry: Entry, context: ExportContext): ExportedEntry {
  const notes = new Set<string>();
  // Codex expands no variables: an input becomes an env variable it passes through or reads.
  const source = variables(entry, context, notes, (variable) => `\${env:${variable}}`) as Entry;
  const lines = [`[mcp_servers.${tomlKey(name)}]`];
  const put = (key: string, value: unknown) => lines.push(`${key} = ${tomlValue(value)}`);
  for (const field of ['command', 'args', 'cwd', 'url'] as const) if (source[field] !== undefined) put(field, source[field]);
  if (isPlainObject(source.env)) {
    const literal: Entry = {};
    const passed: string[] = [];
    for (const [key, value] of Object.entries(source.env)) {
      if (wholeEnv(value) === key) passed.push(key);
      else if (typeof value === 'string' && value.includes('${env:'))
        notes.add(`env ${key}: Codex does not expand variables; set ${key} yourself and list it in env_vars`);
      else literal[key] = value;
    }
    if (Object.keys(literal).length > 0) put('env', literal);
    if (passed.length > 0) put('env_vars', passed);
  }
  if (isPlainObject(source.headers)) {
    const literal: Entry = {};
    const fromEnv: Entry = {};
    for (const [header, value] of Object.entries(source.headers)) {
      const bearer = typeof value === 'string' ? /^Bearer \$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value)?.[1] : undefined;
      if (header.toLowerCase() === 'authorization' && bearer) put('bearer_token_env_var', bearer);
      else if (wholeEnv(value)) fromEnv[header] = wholeEnv(value);
      else if (typeof value === 'string' && value.includes('${env:'))
        notes.add(`header ${header}: Codex reads a header from a variable only whole; write its whole value to a variable`);
      else literal[header] = value;
    }
    if (Object.keys(literal).length > 0) put('http_headers', literal);
    if (Object.keys(fromEnv).length > 0) put('env_http_headers', fromEnv);
  }
  const tools = isPlainObject(source.tools) ? source.tools : {};
  if (Array.isArray(tools.allow)) put('enabled_tools', tools.allow);
  if (Array.isArray(tools.deny)) put('disabled_tools', tools.deny);
  const timeouts = isPlainObject(source.timeouts) ? source.timeouts : {};
  if (typeof timeouts.connectMs === 'number') put('startup_timeout_sec', timeouts.connectMs / 1000);
  if (typeof timeouts.requestMs === 'number') put('tool_timeout_sec', timeouts.requestMs / 1000);
  if (source.enabled === false) put('enabled', false);
  if (transportOf(source) === 'sse') notes.add('Codex speaks streamable HTTP only; this server is SSE');
  for (const note of leftOut(source, 'Codex')) notes.add(note);
  return { text: `${lines.join('\n')}\n`, notes: [...notes] };
}

function gemini(name: string, entry: Entry, context: ExportContext): ExportedEntry {
  const notes = new Set<string>();
  const source = variables(entry, context, notes, braced) as Entry;
  const out: Entry = {};
  for (const field of ['command', 'args', 'env', 'cwd', 'headers'] as const) if (source[field] !== undefined) out[field] = source[field];
  const transport = transportOf(source);
  if (transport === 'http') out.httpUrl = source.url;
  if (transport === 'sse') out.url = source.url;
  const tools = isPlainObject(source.tools) ? source.tools : {};
  if (Array.isArray(tools.allow)) out.includeTools = tools.allow;
  if (Array.isArray(tools.deny)) out.excludeTools = tools.deny;
  const timeouts = isPlainObject(source.timeouts) ? source.timeouts : {};
  if (typeof timeouts.requestMs === 'number') out.timeout = timeouts.requestMs;
  if (source.enabled === false) notes.add('the server is disabled here; Gemini CLI will run it');
  for (const note of leftOut(source, 'Gemini CLI')) notes.add(note);
  return { text: JSON.stringify({ mcpServers: { [name]: out } }, null, 2), notes: [...notes] };
}

export function exportEntry(name: string, raw: unknown, format: ExportFormat, context: ExportContext): ExportedEntry {
  const entry: Entry = isPlainObject(raw) ? raw : {};
  switch (format) {
    case 'claudeCode':
      return portable(name, entry, context, false);
    case 'copilotCli':
      return portable(name, entry, context, true);
    case 'codex':
      return codex(name, entry, context);
    case 'gemini':
      return gemini(name, entry, context);
  }
}
