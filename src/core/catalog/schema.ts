// Checks and normalizes a tool definition before anything downstream sees it. A schema that is not
// a JSON object schema would make the editor reject the whole tool set of a request, so such a
// tool is excluded (with its reason) instead of passed on.
import type { Tool } from '@modelcontextprotocol/client';
import { deepFreeze, isDeepFrozenData } from '../base/freeze';
import { errorMessage } from '../base/errorMessage';

export type NormalizedTool = { readonly ok: true; readonly tool: Tool } | { readonly ok: false; readonly problem: string };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

/** Why `schema` is not an object schema, or undefined when it is one. */
export function objectSchemaProblem(schema: unknown, label: string): string | undefined {
  if (!isPlainObject(schema)) return `${label} must be an object, got ${describe(schema)}`;
  if (schema.type !== 'object')
    return `${label}.type must be "object", got ${schema.type === undefined ? 'nothing' : describe(schema.type)}`;
  const properties = schema.properties;
  if (properties !== undefined) {
    if (!isPlainObject(properties)) return `${label}.properties must be an object, got ${describe(properties)}`;
    for (const [name, property] of Object.entries(properties)) {
      // JSON Schema allows `true`/`false` as schemas.
      if (!isPlainObject(property) && typeof property !== 'boolean')
        return `${label}.properties.${name} must be a schema, got ${describe(property)}`;
    }
  }
  const required = schema.required;
  if (required !== undefined && (!Array.isArray(required) || required.some((item) => typeof item !== 'string'))) {
    return `${label}.required must be an array of strings`;
  }
  return undefined;
}

export interface NormalizeOptions {
  /**
   * Return `raw` itself (or a shallow copy with the inputSchema added) when it is already deeply
   * frozen plain data, instead of a deep copy. For lists the caller owns and has frozen.
   */
  readonly shareFrozen?: boolean;
}

/**
 * A deep, frozen copy of `raw` with a missing inputSchema replaced by an empty object schema, or
 * the reason the tool cannot be offered. Never throws, whatever `raw` is.
 */
export function normalizeTool(raw: unknown, options: NormalizeOptions = {}): NormalizedTool {
  if (!isPlainObject(raw)) return { ok: false, problem: `the tool definition must be an object, got ${describe(raw)}` };
  if (typeof raw.name !== 'string') return { ok: false, problem: 'the tool has no name' };
  const input = raw.inputSchema === undefined ? undefined : objectSchemaProblem(raw.inputSchema, 'inputSchema');
  if (input) return { ok: false, problem: input };
  const output = raw.outputSchema === undefined ? undefined : objectSchemaProblem(raw.outputSchema, 'outputSchema');
  if (output) return { ok: false, problem: output };
  // With `shareFrozen`, a definition frozen all the way down (the catalog freezes every list it
  // keeps) is shared rather than copied again: nobody can change it any more.
  const shared = options.shareFrozen === true && isDeepFrozenData(raw);
  let copy: Record<string, unknown>;
  try {
    copy = shared ? raw : structuredClone(raw);
  } catch (error) {
    return { ok: false, problem: `the tool definition cannot be copied: ${errorMessage(error)}` };
  }
  if (copy.inputSchema === undefined) copy = { ...copy, inputSchema: { type: 'object', properties: {} } };
  // The checks above established the parts of Tool that anything downstream relies on.
  return { ok: true, tool: deepFreeze(copy) as unknown as Tool };
}

/** `annotations.readOnlyHint === true`, tolerating any shape. */
export function isReadOnlyTool(raw: unknown): boolean {
  return isPlainObject(raw) && isPlainObject(raw.annotations) && raw.annotations.readOnlyHint === true;
}
