// The shape of one server entry: the editor's `.vscode/mcp.json` server entry plus our own fields.
// Objects are loose on purpose: an unknown key is a warning (reported by unknownFieldWarnings), never
// a reason to reject a server that would otherwise run.

import { z } from 'zod';
import { MAX_ARGS, MAX_IDLE_STOP_MINUTES, MAX_MAP_ENTRIES, MAX_RECONNECT_ATTEMPTS, MAX_STRING_LENGTH, MAX_TIMER_MS } from './limits';

const text = z.string().max(MAX_STRING_LENGTH, { error: `is longer than ${MAX_STRING_LENGTH} characters` });

const stringList = (limit: number, what: string) => z.array(text).max(limit, { error: `has more than ${limit} ${what}` });

const stringMap = (key: z.ZodString, what: string) =>
  z.record(key, text).refine((value) => Object.keys(value).length <= MAX_MAP_ENTRIES, {
    error: `has more than ${MAX_MAP_ENTRIES} ${what}`,
  });

const milliseconds = z
  .int()
  .min(0, { error: 'must not be negative' })
  .max(MAX_TIMER_MS, { error: `must be at most ${MAX_TIMER_MS} ms` });

/** An env var name cannot be empty or contain `=` (the OS would split it) or NUL. */
const envName = z.string().regex(/^[^=\0]+$/, { error: 'is not a valid environment variable name' });

/** RFC 9110 token; fetch throws on anything else, so refuse it here with a path. */
const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { error: 'is not a valid HTTP header name' });

export const TRANSPORT_TYPES = ['stdio', 'http', 'sse'] as const;
export const LIFECYCLES = ['eager', 'lazy'] as const;

export const timeoutsSchema = z.looseObject({
  connectMs: milliseconds.optional(),
  requestMs: milliseconds.optional(),
});

export const reconnectSchema = z.looseObject({
  maxAttempts: z
    .int()
    .min(0, { error: 'must not be negative' })
    .max(MAX_RECONNECT_ATTEMPTS, { error: `must be at most ${MAX_RECONNECT_ATTEMPTS}` })
    .optional(),
  initialDelayMs: milliseconds.optional(),
  maxDelayMs: milliseconds.optional(),
});

export const toolsSchema = z.looseObject({
  allow: stringList(MAX_MAP_ENTRIES, 'patterns').optional(),
  deny: stringList(MAX_MAP_ENTRIES, 'patterns').optional(),
  readOnly: z.boolean().optional(),
});

export const OAUTH_GRANTS = ['authorization_code', 'client_credentials', 'jwt_bearer', 'enterprise'] as const;
export const TOKEN_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'] as const;
/** JWS algorithms for a `private_key_jwt` client assertion (RFC 7523); absent, the key's type decides. */
export const SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

/** How Switchboard signs in to a remote server that asks for OAuth; `false` turns sign-in off. */
export const oauthSchema = z.union([
  z.literal(false),
  z.looseObject({
    clientId: text.optional(),
    clientSecret: text.optional(),
    scopes: stringList(MAX_MAP_ENTRIES, 'scopes').optional(),
    grant: z.enum(OAUTH_GRANTS).optional(),
    clientMetadataUrl: text.optional(),
    tokenEndpointAuthMethod: z.enum(TOKEN_AUTH_METHODS).optional(),
    privateKey: text.optional(),
    signingAlgorithm: z.enum(SIGNING_ALGORITHMS).optional(),
    dpop: z.boolean().optional(),
    assertion: text.optional(),
    assertionFile: text.optional(),
    perUser: z.enum(['tokenExchange', 'signIn']).optional(),
    /** `enterprise`: the enterprise's identity provider, where the user's ID token is exchanged for a grant. */
    idp: z
      .looseObject({
        issuer: text.optional(),
        tokenEndpoint: text.optional(),
        clientId: text.optional(),
        clientSecret: text.optional(),
        idToken: text.optional(),
        idTokenFile: text.optional(),
      })
      .optional(),
  }),
]);

/**
 * A sandbox host name: `example.com`, `*.example.com`, an optional `:port`, or a bracketed IPv6
 * literal. Checked here so that a typo is a diagnostic, not a sandbox runtime refusing to start.
 */
const DOMAIN = /^(?:\*\.)?[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;
/** A denial may also be `*` (every host), optionally on one port. */
const DENIED_DOMAIN = /^\*(?::\d{1,5})?$/;
const domainList = (denied: boolean) =>
  z
    .array(
      text.refine((value) => DOMAIN.test(value) || (denied && DENIED_DOMAIN.test(value)), {
        error: 'is not a host name (example.com, *.example.com, host:port)',
      }),
    )
    .max(MAX_MAP_ENTRIES, { error: `has more than ${MAX_MAP_ENTRIES} domains` });
const pathList = stringList(MAX_MAP_ENTRIES, 'paths');

export const sandboxFilesystemSchema = z.looseObject({
  allowWrite: pathList.optional(),
  denyRead: pathList.optional(),
  denyWrite: pathList.optional(),
});

export const sandboxNetworkSchema = z.looseObject({
  allowedDomains: domainList(false).optional(),
  deniedDomains: domainList(true).optional(),
});

/** The editor's `sandbox` block: what a sandboxed stdio server may write, read and reach. */
export const sandboxRulesSchema = z.looseObject({
  filesystem: sandboxFilesystemSchema.optional(),
  network: sandboxNetworkSchema.optional(),
});

export type ParsedSandboxRules = z.infer<typeof sandboxRulesSchema>;

/** Most watch patterns an entry may list: each is a file watcher in the editor. */
export const MAX_WATCH_PATTERNS = 32;

/** The editor's `dev` block: `watch` restarts the server when matching files change. */
export const devSchema = z.looseObject({
  // One pattern is a list of one: the errors then name the list's limit, not a union.
  watch: z.preprocess((value) => (typeof value === 'string' ? [value] : value), stringList(MAX_WATCH_PATTERNS, 'patterns')).optional(),
  /** The editor's debugger launch; accepted, not used. */
  debug: z.unknown().optional(),
});

export const entrySchema = z.looseObject({
  type: z.enum(TRANSPORT_TYPES).optional(),
  command: text.optional(),
  args: stringList(MAX_ARGS, 'arguments').optional(),
  env: stringMap(envName, 'variables').optional(),
  envFile: text.optional(),
  cwd: text.optional(),
  url: text.optional(),
  headers: stringMap(headerName, 'headers').optional(),
  oauth: oauthSchema.optional(),
  enabled: z.boolean().optional(),
  timeouts: timeoutsSchema.optional(),
  tools: toolsSchema.optional(),
  /** false: the server's resources (or prompts) are not offered to chat. */
  resources: z.boolean().optional(),
  prompts: z.boolean().optional(),
  reconnect: reconnectSchema.optional(),
  /** eager: starts with the window; lazy: on the first request that needs it. */
  lifecycle: z.enum(LIFECYCLES).optional(),
  /** Stops a server no client has used for this long; 0 or absent: never. */
  idleStopMinutes: z
    .number()
    .min(0, { error: 'must not be negative' })
    .max(MAX_IDLE_STOP_MINUTES, { error: `must be at most ${MAX_IDLE_STOP_MINUTES} (a week)` })
    .optional(),
  /** The editor's switch: run this stdio server in a sandbox. */
  sandboxEnabled: z.boolean().optional(),
  /** `true`/`false` as sandboxEnabled, or the rules (which also turn the sandbox on). */
  sandbox: z.union([z.boolean(), sandboxRulesSchema]).optional(),
  dev: devSchema.optional(),
});

export type ParsedEntry = z.infer<typeof entrySchema>;

/** Fields of the editor's mcp.json (and of neighbouring clients) that we accept and do not use. */
export const IGNORED_FIELDS: ReadonlySet<string> = new Set(['gallery', 'version', 'description']);

const NESTED_KNOWN_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  timeouts: new Set(Object.keys(timeoutsSchema.shape)),
  tools: new Set(Object.keys(toolsSchema.shape)),
  reconnect: new Set(Object.keys(reconnectSchema.shape)),
  oauth: new Set(Object.keys((oauthSchema.options[1] as z.ZodObject).shape)),
  sandbox: new Set(Object.keys(sandboxRulesSchema.shape)),
  dev: new Set(Object.keys(devSchema.shape)),
};

const KNOWN_FIELDS: ReadonlySet<string> = new Set(Object.keys(entrySchema.shape));

export interface UnknownField {
  readonly path: readonly string[];
}

/** Keys that are neither ours nor on the ignore list, at the top level and in our nested objects. */
export function findUnknownFields(entry: Readonly<Record<string, unknown>>): UnknownField[] {
  const unknown: UnknownField[] = [];
  for (const key of Object.keys(entry)) {
    if (!KNOWN_FIELDS.has(key)) {
      if (!IGNORED_FIELDS.has(key)) unknown.push({ path: [key] });
      continue;
    }
    const known = NESTED_KNOWN_FIELDS[key];
    const nested = entry[key];
    if (!known || typeof nested !== 'object' || nested === null || Array.isArray(nested)) continue;
    for (const nestedKey of Object.keys(nested)) {
      if (!known.has(nestedKey)) unknown.push({ path: [key, nestedKey] });
    }
  }
  return unknown;
}

/** Readable zod messages: "expected an array, got "x"" rather than zod's generic wording. */
export function describeIssue(issue: z.core.$ZodIssue, root: unknown): string {
  if (issue.code === 'invalid_type') {
    return `expected ${EXPECTED_NOUNS[issue.expected] ?? issue.expected}, got ${describeValue(valueAt(root, issue.path))}`;
  }
  if (issue.code === 'invalid_value') {
    const options = issue.values.map((option) => JSON.stringify(option)).join(', ');
    return `expected one of ${options}, got ${describeValue(valueAt(root, issue.path))}`;
  }
  if (issue.code === 'invalid_key') {
    return issue.issues[0]?.message ?? issue.message;
  }
  return issue.message;
}

const EXPECTED_NOUNS: Readonly<Record<string, string>> = {
  string: 'a string',
  array: 'an array',
  object: 'an object',
  record: 'an object',
  int: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
};

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return value.length > 40 ? `a ${value.length}-character string` : JSON.stringify(value);
  if (value === undefined) return 'nothing';
  return String(value);
}
