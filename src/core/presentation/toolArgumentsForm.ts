// Run Tool's argument box: a skeleton of the arguments a tool's schema asks for, and the check of
// what the user typed, with the SDK's own JSON Schema validator (ajv), before anything is sent.
import type { JsonSchemaType, Tool } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';

type Schema = Record<string, unknown>;

const validator = new AjvJsonSchemaValidator();

function asSchema(value: unknown): Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Schema) : {};
}

/** A placeholder value of the schema's type: its default, its first enum value, or an empty one. */
function placeholder(schema: Schema, depth: number): unknown {
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    case 'array': {
      // One item of the shape the array takes (the memory server's `entities`: objects with a name,
      // a type and a list of observations), so the box shows what goes in it; no shape, no item.
      const items = asSchema(schema.items);
      return depth < 3 && (items.type !== undefined || items.properties !== undefined) ? [placeholder(items, depth + 1)] : [];
    }
    case 'object':
      return depth < 3 ? skeletonOf(schema, depth + 1) : {};
    default:
      return null;
  }
}

function skeletonOf(schema: Schema, depth: number): Record<string, unknown> {
  const properties = asSchema(schema.properties);
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
  return Object.fromEntries(required.map((name) => [name, placeholder(asSchema(properties[name]), depth)]));
}

/** The required arguments, each with a placeholder of its type, as the box's first text. */
export function argumentSkeleton(tool: Pick<Tool, 'inputSchema'>): string {
  const skeleton = skeletonOf(asSchema(tool.inputSchema), 0);
  return JSON.stringify(skeleton, null, Object.keys(skeleton).length > 3 ? 1 : undefined);
}

/** `number`, `array of object`: an argument's type as the prompt names it. */
function typeName(schema: Schema): string {
  const type = String(schema.type ?? 'any');
  if (type !== 'array') return type;
  const items = asSchema(schema.items);
  return items.type === undefined ? 'array' : `array of ${String(items.type)}`;
}

/** `a (number, required), b (string)`: what the prompt lists. */
export function describeArguments(tool: Pick<Tool, 'inputSchema'>): string {
  const schema = asSchema(tool.inputSchema);
  const properties = asSchema(schema.properties);
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const names = Object.keys(properties);
  if (names.length === 0) return 'This tool takes no arguments.';
  return `Arguments: ${names.map((name) => `${name} (${typeName(asSchema(properties[name]))}${required.has(name) ? ', required' : ''})`).join(', ')}`;
}

/**
 * A check of typed text against the tool's schema, compiled once: the box calls it on every
 * keystroke. It says why the text is not a valid argument object, or undefined when it is.
 */
export function argumentsChecker(tool: Pick<Tool, 'inputSchema'>): (text: string) => string | undefined {
  let fits: ((value: unknown) => { valid: boolean; errorMessage?: string }) | undefined;
  try {
    fits = validator.getValidator(tool.inputSchema as JsonSchemaType);
  } catch {
    // A schema the validator cannot compile: the server checks the arguments itself.
    fits = undefined;
  }
  return (text) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return `Not JSON: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'Enter a JSON object.';
    const result = fits?.(value);
    return result === undefined || result.valid ? undefined : `Does not fit the tool's schema: ${result.errorMessage}`;
  };
}

/** One check of `text` (see argumentsChecker). */
export function checkArgumentsText(tool: Pick<Tool, 'inputSchema'>, text: string): string | undefined {
  return argumentsChecker(tool)(text);
}
