// SEP-2243 (2026-07-28): a tool may mark input properties with `x-mcp-header`, and a streamable
// HTTP client mirrors their values into `Mcp-Param-*` headers. A client MUST leave out a tool whose
// declarations break the rules. The SDK applies this only inside Client.listTools(), which also
// rejects a whole page for one malformed tool (what this host must never do), and exports no check
// of its own; so the rules are checked here, per tool, next to the other screening in session.ts.
const X_MCP_HEADER = 'x-mcp-header';
/** RFC 9110 `token`: no spaces, control characters or delimiters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
/** Subschemas outside the chain of `properties` that a header may sit on. */
const UNREACHABLE = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];
/** Keywords whose value maps names to subschemas. */
const NAMED = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

interface Visit {
  readonly node: unknown;
  readonly path: readonly string[];
  /** Reached only through `properties`. */
  readonly reachable: boolean;
}

function where(path: readonly string[]): string {
  return path.length === 0 ? 'the input schema' : `\`${path.join('.')}\``;
}

/** One parameter a client mirrors into `Mcp-Param-<header>`. */
export interface ParamHeader {
  readonly header: string;
  /** Property names from the input schema's root to the parameter. */
  readonly path: readonly string[];
  readonly type: 'string' | 'integer' | 'boolean';
}

/** Why the tool's header declarations are invalid, or undefined when they are fine (or absent). */
export function paramHeaderProblem(inputSchema: unknown): string | undefined {
  const scan = scanParamHeaders(inputSchema);
  return 'problem' in scan ? scan.problem : undefined;
}

/** The tool's header declarations, when they are all valid (a gateway checks what a client mirrored). */
export function paramHeaders(inputSchema: unknown): readonly ParamHeader[] | undefined {
  const scan = scanParamHeaders(inputSchema);
  return 'problem' in scan ? undefined : scan.declarations;
}

function scanParamHeaders(inputSchema: unknown): { readonly problem: string } | { readonly declarations: readonly ParamHeader[] } {
  const seen = new Map<string, string>();
  const declarations: ParamHeader[] = [];
  // Iterative: the schema's depth was bounded by the screening, but recursion is still avoided.
  const stack: Visit[] = [{ node: inputSchema, path: [], reachable: true }];
  while (stack.length > 0) {
    const { node, path, reachable } = stack.pop() as Visit;
    if (node === null || typeof node !== 'object') continue;
    const schema = node as Record<string, unknown>;
    if (Object.hasOwn(schema, X_MCP_HEADER)) {
      const problem = declarationProblem(schema, path, reachable, seen);
      if (problem) return { problem };
      declarations.push({ header: schema[X_MCP_HEADER] as string, path, type: schema.type as ParamHeader['type'] });
    }
    const properties = schema.properties;
    if (properties !== null && typeof properties === 'object') {
      for (const [key, child] of Object.entries(properties)) stack.push({ node: child, path: [...path, key], reachable });
    }
    for (const keyword of UNREACHABLE) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : NAMED.has(keyword) && sub !== null && typeof sub === 'object'
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) stack.push({ node: branch, path: [...path, `<${keyword}>`], reachable: false });
    }
  }
  return { declarations };
}

function declarationProblem(
  schema: Record<string, unknown>,
  path: readonly string[],
  reachable: boolean,
  seen: Map<string, string>,
): string | undefined {
  if (!reachable || path.length === 0) return `${where(path)}: x-mcp-header is only allowed on a property reached through \`properties\``;
  const header = schema[X_MCP_HEADER];
  if (typeof header !== 'string' || header === '') return `${where(path)}: x-mcp-header must be a non-empty string`;
  if (!TOKEN.test(header)) return `${where(path)}: x-mcp-header "${header.slice(0, 80)}" is not a valid HTTP header token`;
  const type = typeof schema.type === 'string' ? schema.type : undefined;
  if (type === undefined || !HEADER_TYPES.has(type))
    return `${where(path)}: x-mcp-header needs a string, integer or boolean property, not ${type ?? 'an untyped one'}`;
  const earlier = seen.get(header.toLowerCase());
  if (earlier !== undefined) return `x-mcp-header "${header}" is declared twice (also as "${earlier}")`;
  seen.set(header.toLowerCase(), header);
  return undefined;
}
