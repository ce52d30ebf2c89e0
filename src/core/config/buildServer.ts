// Turns one raw entry into a ServerDefinition, or into an InvalidServer that carries every problem
// found. Order of work: structure (zod), then transport rules, then variables, then files. A later
// step only runs when the earlier ones passed, so the resolver is never asked for an input on
// behalf of an entry that is broken anyway.

import type { z } from 'zod';
import type { BuildContext, ServerCandidate } from './buildContext';
import { describeIssue, describeValue, entrySchema, findUnknownFields, type ParsedEntry } from './entrySchema';
import { readEnvFile } from './envFile';
import { buildSandboxSetting } from './sandboxSetting';
import { FieldResolver } from './fieldResolver';
import { buildOAuth } from './oauthEntry';
import { MAX_NAME_LENGTH } from './limits';
import { baseFolderFor } from './paths';
import { ServerDiagnostics } from './serverDiagnostics';
import { secretsInArgs, secretsInUrl } from './secrets';
import {
  DEFAULT_RECONNECT,
  DEFAULT_TIMEOUTS,
  type ConfigDiagnostic,
  type InvalidServer,
  type LifecycleSettings,
  type ReconnectSettings,
  type ServerDefinition,
  type ServerSource,
  type TimeoutSettings,
  type ToolFilterSettings,
  type TransportType,
} from './types';

/** Names that are safe in tool ids, file names and log lines everywhere. */
const PORTABLE_NAME = /^[A-Za-z0-9_.-]+$/;

export interface BuiltServer {
  readonly server: ServerDefinition | InvalidServer;
  /** Errors and warnings of this entry; an InvalidServer carries the same list. */
  readonly diagnostics: readonly ConfigDiagnostic[];
}

export function isInvalidServer(server: ServerDefinition | InvalidServer): server is InvalidServer {
  return !('transport' in server);
}

export async function buildServer(candidate: ServerCandidate, context: BuildContext): Promise<BuiltServer> {
  const diagnostics = new ServerDiagnostics(candidate.name, candidate.path, candidate.source);
  const server = await buildDefinition(candidate, context, diagnostics);
  return { server: server ?? invalid(candidate, diagnostics), diagnostics: diagnostics.list() };
}

/** Undefined when the entry has errors; they are in `diagnostics`. */
async function buildDefinition(
  candidate: ServerCandidate,
  context: BuildContext,
  diagnostics: ServerDiagnostics,
): Promise<ServerDefinition | undefined> {
  checkName(candidate.name, diagnostics);
  const entry = parseEntry(candidate.raw, diagnostics);
  const transport = entry && checkTransport(entry, diagnostics);
  if (!entry || !transport || diagnostics.hasErrors) return undefined;
  const enabled = entry.enabled ?? true;
  const resolver = new FieldResolver(candidate, context, diagnostics, enabled);
  const common = commonFields(candidate, entry, context, diagnostics, enabled);
  if (transport === 'stdio') return buildStdio(candidate, entry, context, resolver, diagnostics, common);
  return buildRemote(entry, transport, resolver, diagnostics, common, candidate.signInUrl);
}

type CommonFields = Omit<
  ServerDefinition,
  'transport' | 'secrets' | 'command' | 'args' | 'env' | 'cwd' | 'url' | 'headers' | 'sseFallback' | 'oauth'
>;

/** The fields every transport has: timeouts, reconnect, tool filters, what is shown, lifecycle. */
function commonFields(
  candidate: ServerCandidate,
  entry: ParsedEntry,
  context: BuildContext,
  diagnostics: ServerDiagnostics,
  enabled: boolean,
): CommonFields {
  const timeouts: TimeoutSettings = { ...DEFAULT_TIMEOUTS, ...pickDefined(entry.timeouts, ['connectMs', 'requestMs']) };
  const shown = { ...(entry.resources === false ? { resources: false } : {}), ...(entry.prompts === false ? { prompts: false } : {}) };
  const lifecycle: LifecycleSettings = {
    start: entry.lifecycle ?? context.lifecycleDefaults.start,
    idleStopMs: entry.idleStopMinutes === undefined ? context.lifecycleDefaults.idleStopMs : Math.round(entry.idleStopMinutes * 60_000),
  };
  const devWatch = (entry.dev?.watch ?? []).filter((pattern) => pattern.trim() !== '');
  return {
    name: candidate.name,
    source: candidate.source,
    enabled,
    timeouts,
    reconnect: buildReconnect(entry, diagnostics),
    tools: buildTools(entry),
    lifecycle,
    ...shown,
    ...(devWatch.length > 0 ? { devWatch } : {}),
  };
}

async function buildStdio(
  candidate: ServerCandidate,
  entry: ParsedEntry,
  context: BuildContext,
  resolver: FieldResolver,
  diagnostics: ServerDiagnostics,
  common: CommonFields,
): Promise<ServerDefinition | undefined> {
  const command = await resolver.string(entry.command ?? '', ['command']);
  if (command !== undefined && command.trim() === '') diagnostics.error(['command'], 'must not be empty');
  const args: string[] = [];
  for (const [index, arg] of (entry.args ?? []).entries()) args.push((await resolver.string(arg, ['args', index])) ?? '');
  const env = await buildEnv(entry, resolver, context, diagnostics, candidate.source);
  const cwd = await resolvePath(entry.cwd, ['cwd'], resolver, context, candidate.source, diagnostics);
  const sandbox = await buildSandboxSetting({ candidate, entry, context, resolver, diagnostics, cwd });
  if (diagnostics.hasErrors || command === undefined) return undefined;
  resolver.collectSecrets(env);
  resolver.collectValues(secretsInArgs([command, ...args]));
  return {
    ...common,
    secrets: resolver.secrets(),
    transport: 'stdio',
    command,
    args,
    env,
    cwd,
    // Only what a machine host needs to know: a shared server runs where its entry says, else in the
    // home folder unless its launch names something in the folder (sharing/sharedLaunch.ts).
    cwdIsFolder: entry.cwd === undefined && cwd !== undefined ? true : undefined,
    sandbox,
  };
}

async function buildRemote(
  entry: ParsedEntry,
  transport: 'http' | 'sse',
  resolver: FieldResolver,
  diagnostics: ServerDiagnostics,
  common: CommonFields,
  signInUrl: string | undefined,
): Promise<ServerDefinition | undefined> {
  const url = await resolver.string(entry.url ?? '', ['url']);
  if (url !== undefined) checkUrl(url, diagnostics);
  const headers = await resolveMap(entry.headers, 'headers', resolver);
  for (const [key, value] of Object.entries(headers)) {
    if (/[\r\n\0]/.test(value)) diagnostics.error(['headers', key], 'must not contain line breaks or NUL characters');
  }
  const oauth = await buildOAuth(entry, resolver, diagnostics);
  if (diagnostics.hasErrors || url === undefined) return undefined;
  resolver.collectSecrets(headers);
  resolver.collectValues(secretsInUrl(url));
  if (oauth.clientSecret) resolver.collectValues([oauth.clientSecret]);
  if (oauth.privateKey) resolver.collectValues([oauth.privateKey]);
  if (oauth.assertion) resolver.collectValues([oauth.assertion]);
  // The identity provider's client secret and the user's ID token: never in a log.
  resolver.collectValues(
    [oauth.idp?.clientSecret, oauth.idp?.idToken].filter((value): value is string => value !== undefined && value !== ''),
  );
  return {
    ...common,
    secrets: resolver.secrets(),
    transport,
    url,
    headers,
    sseFallback: entry.type === undefined,
    oauth,
    signInUrl,
  };
}

function invalid(candidate: ServerCandidate, diagnostics: ServerDiagnostics): InvalidServer {
  const needsInput = diagnostics.blockingInputs();
  return {
    name: candidate.name,
    source: candidate.source,
    diagnostics: diagnostics.list(),
    needsInput,
  };
}

/**
 * Empty names are errors (nothing could refer to the server). Other characters only warn: the
 * catalog sanitises names when it builds tool ids, and users may reasonably write "My Server".
 */
function checkName(name: string, diagnostics: ServerDiagnostics): void {
  if (name.trim() === '') diagnostics.error([], 'server name must not be empty');
  // Assigned as an object key anywhere, it would replace the object's prototype instead.
  else if (name === '__proto__') diagnostics.error([], 'server name "__proto__" is reserved; choose another name');
  else if (name.length > MAX_NAME_LENGTH) diagnostics.error([], `server name is longer than ${MAX_NAME_LENGTH} characters`);
  else if (!PORTABLE_NAME.test(name)) {
    diagnostics.warning([], `server name "${name}" has characters outside A-Z a-z 0-9 _ . - and will be adjusted in tool names`);
  }
}

/**
 * `"oauth": false | {...}`: for an object, the object branch's own issues (with their paths) say
 * what is wrong; zod's union issue alone would only say "Invalid input".
 */
function flattenUnions(issues: readonly z.core.$ZodIssue[], raw: unknown): z.core.$ZodIssue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'invalid_union') return [issue];
    const value = issue.path.reduce<unknown>(
      (current, key) => (typeof current === 'object' && current !== null ? (current as Record<PropertyKey, unknown>)[key] : undefined),
      raw,
    );
    const branch =
      typeof value === 'object' && value !== null
        ? issue.errors.find((branchIssues) => branchIssues.every((inner) => inner.path.length > 0))
        : undefined;
    const expected = issue.path.at(-1) === 'sandbox' ? 'true, false or an object' : 'false or an object';
    return branch
      ? branch.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }))
      : [{ ...issue, message: `expected ${expected}` }];
  });
}

function parseEntry(raw: unknown, diagnostics: ServerDiagnostics): ParsedEntry | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    diagnostics.error([], `a server entry must be an object, got ${describeValue(raw)}`);
    return undefined;
  }
  for (const field of findUnknownFields(raw as Record<string, unknown>)) {
    diagnostics.warning(field.path, `unknown field "${field.path.join('.')}" is ignored`);
  }
  const parsed = entrySchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  for (const issue of flattenUnions(parsed.error.issues, raw)) diagnostics.error(issue.path, describeIssue(issue, raw));
  return undefined;
}

/** mcp.json rules: `command` means stdio, `url` means HTTP (with SSE fallback unless typed). */
function checkTransport(entry: ParsedEntry, diagnostics: ServerDiagnostics): TransportType | undefined {
  const hasCommand = entry.command !== undefined;
  const hasUrl = entry.url !== undefined;
  if (hasCommand && hasUrl) {
    diagnostics.error([], 'has both "command" (stdio) and "url" (http/sse); keep one of them');
    return undefined;
  }
  if (entry.type === 'stdio' && !hasCommand) {
    diagnostics.error(['type'], `type "stdio" needs a "command"${hasUrl ? '; for a url use type "http" or "sse"' : ''}`);
    return undefined;
  }
  if ((entry.type === 'http' || entry.type === 'sse') && !hasUrl) {
    diagnostics.error(['type'], `type "${entry.type}" needs a "url"${hasCommand ? '; for a command use type "stdio"' : ''}`);
    return undefined;
  }
  if (!hasCommand && !hasUrl) {
    diagnostics.error([], 'needs a "command" (stdio server) or a "url" (http/sse server)');
    return undefined;
  }
  if (hasCommand) {
    if (entry.command?.trim() === '') diagnostics.error(['command'], 'must not be empty');
    if (entry.headers !== undefined) diagnostics.warning(['headers'], '"headers" only applies to http/sse servers and is ignored');
    if (entry.oauth !== undefined) diagnostics.warning(['oauth'], '"oauth" only applies to http/sse servers and is ignored');
    return 'stdio';
  }
  for (const field of ['args', 'env', 'envFile', 'cwd', 'sandboxEnabled', 'sandbox'] as const) {
    if (entry[field] !== undefined) diagnostics.warning([field], `"${field}" only applies to stdio servers and is ignored`);
  }
  return entry.type ?? 'http';
}

function checkUrl(url: string, diagnostics: ServerDiagnostics): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    diagnostics.error(['url'], `is not a valid URL: ${describeValue(url)}`);
    return;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    diagnostics.error(['url'], `must be an http:// or https:// URL, got "${parsed.protocol}"`);
  }
}

function buildReconnect(entry: ParsedEntry, diagnostics: ServerDiagnostics): ReconnectSettings {
  const reconnect: ReconnectSettings = {
    ...DEFAULT_RECONNECT,
    ...pickDefined(entry.reconnect, ['maxAttempts', 'initialDelayMs', 'maxDelayMs']),
  };
  if (reconnect.initialDelayMs > reconnect.maxDelayMs) {
    diagnostics.error(['reconnect', 'initialDelayMs'], `must not exceed reconnect.maxDelayMs (${reconnect.maxDelayMs})`);
  }
  return reconnect;
}

function buildTools(entry: ParsedEntry): ToolFilterSettings {
  return pickDefined(entry.tools, ['allow', 'deny', 'readOnly']);
}

/** Copies the named keys that are set; loose zod objects also carry unknown keys we must drop. */
function pickDefined<T extends object, K extends keyof T>(
  value: T | undefined,
  keys: readonly K[],
): { [P in K]?: Exclude<T[P], undefined> } {
  const picked: { [P in K]?: Exclude<T[P], undefined> } = {};
  if (!value) return picked;
  for (const key of keys) {
    if (value[key] !== undefined) picked[key] = value[key] as Exclude<T[K], undefined>;
  }
  return picked;
}

/** envFile values first, then `env`: a key in both takes the `env` value. */
async function buildEnv(
  entry: ParsedEntry,
  resolver: FieldResolver,
  context: BuildContext,
  diagnostics: ServerDiagnostics,
  source: ServerSource,
): Promise<Record<string, string>> {
  const merged = new Map<string, string>();
  const envFile = await resolvePath(entry.envFile, ['envFile'], resolver, context, source, diagnostics);
  if (envFile !== undefined) {
    for (const [key, value] of await readEnvFile(envFile, context.fs, diagnostics)) merged.set(key, value);
  }
  for (const [key, value] of Object.entries(await resolveMap(entry.env, 'env', resolver))) merged.set(key, value);
  // fromEntries defines own properties, so a key such as "__proto__" stays an ordinary variable.
  return Object.fromEntries(merged);
}

async function resolveMap(
  map: Readonly<Record<string, string>> | undefined,
  field: 'env' | 'headers',
  resolver: FieldResolver,
): Promise<Record<string, string>> {
  const resolved = new Map<string, string>();
  for (const [key, value] of Object.entries(map ?? {})) {
    const expanded = await resolver.string(value, [field, key]);
    if (expanded !== undefined) resolved.set(key, expanded);
  }
  return Object.fromEntries(resolved);
}

/**
 * Expands a path field and anchors a relative result at the owning workspace folder. With no value,
 * returns the default: the owning folder for `cwd`, nothing for `envFile`.
 */
async function resolvePath(
  value: string | undefined,
  segments: ['cwd'] | ['envFile'],
  resolver: FieldResolver,
  context: BuildContext,
  source: ServerSource,
  diagnostics: ServerDiagnostics,
): Promise<string | undefined> {
  const base = baseFolderFor(source, context.workspaceFolders, context.paths);
  if (value === undefined) return segments[0] === 'cwd' ? base : undefined;
  const expanded = await resolver.string(value, segments);
  if (expanded === undefined) return undefined;
  if (expanded.trim() === '') {
    diagnostics.error(segments, 'must not be empty');
    return undefined;
  }
  if (context.paths.isAbsolute(expanded)) return expanded;
  if (base === undefined) {
    diagnostics.error(segments, `"${expanded}" is a relative path, but no workspace folder is open to resolve it against`);
    return undefined;
  }
  return context.paths.join(base, expanded);
}
