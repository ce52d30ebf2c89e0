// Run Tool's argument box: a skeleton of the arguments a tool's schema asks for, and the check of
// what the user typed, with the JSON Schema validator the connection uses, before anything is sent.
import type { JsonSchemaType, Tool } from '@modelcontextprotocol/client';
import { jsonSchemaValidator as validator } from '../base/jsonSchemaValidator';

type Schema = Record<string, unknown>;

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
      // One item of the shape an array of objects takes (the memory server's `entities`: objects
      // with a name, a type and a list of observations), so the box shows what goes in it. An array
      // of strings or numbers starts empty: an item "" or 0 would be sent as if the user meant it.
      const items = asSchema(schema.items);
      const itemType = Array.isArray(items.type) ? items.type[0] : items.type;
      return depth < 3 && (itemType === 'object' || items.properties !== undefined) ? [placeholder(items, depth + 1)] : [];
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
    return result === undefined || result.valid
      ? undefined
      : `Does not fit the tool's schema: ${readableSchemaErrors(result.errorMessage ?? '')}`;
  };
}

/** `#/nested/list/1` as a person names it: `nested.list[1]`; the object itself is `the arguments`. */
function argumentPath(location: string): string {
  const parts = location
    .replace(/^#\/?/, '')
    .split('/')
    .filter((part) => part !== '');
  if (parts.length === 0) return 'the arguments';
  return parts
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`), '');
}

/** A JSON type as a noun: `a number`, `an object`. */
function typeNoun(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** One validator message, said of its argument. Anything not recognized keeps its words. */
function readableError(location: string, message: string): string {
  const where = argumentPath(location);
  const required = /^Instance does not have required property "(.*)"\.$/.exec(message);
  if (required) return `${where === 'the arguments' ? '' : `${where}.`}${required[1]} is required`;
  const type = /^Instance type "(\w+)" is invalid\. Expected "(\w+)"\.$/.exec(message);
  if (type) return `${where} must be ${typeNoun(type[2] ?? '')}, not ${typeNoun(type[1] ?? '')}`;
  const oneOf = /^Instance does not match any of (.*)\.$/.exec(message);
  if (oneOf) return `${where} must be one of ${oneOf[1]}`;
  if (message === 'False boolean schema.') return `${where} is not an argument of this tool`;
  return `${where}: ${message.replace(/\.$/, '')}`;
}

/**
 * The validator's report (`#/a: Instance type "string" is invalid. Expected "number".`, after the
 * summaries of every object around it) as what to fix, each argument once: `a must be a number,
 * not a string`. The summaries (`Property "a" does not match schema.`) say nothing the specific
 * errors do not.
 */
export function readableSchemaErrors(report: string): string {
  const errors = report
    .split(/; (?=#)/)
    .map((entry) => /^(#[^:]*): (.*)$/s.exec(entry))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ location: match[1] ?? '#', message: match[2] ?? '' }));
  const summary = /^(Property ".*" does not match( additional properties)? schema|Items did not match schema|.* did not match)\.$/;
  const specific = errors.filter((error) => !summary.test(error.message));
  const said = (specific.length > 0 ? specific : errors).map((error) => readableError(error.location, error.message));
  return said.length > 0 ? [...new Set(said)].join('; ') : report;
}

/** One check of `text` (see argumentsChecker). */
export function checkArgumentsText(tool: Pick<Tool, 'inputSchema'>, text: string): string | undefined {
  return argumentsChecker(tool)(text);
}

/** How the form asks for one value. */
export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'object' | 'array' | 'json';

/** One argument (or one property of a nested object) as the form lists it. */
export interface ArgumentField {
  readonly name: string;
  readonly schema: Record<string, unknown>;
  readonly required: boolean;
  readonly kind: FieldKind;
  /** `number`, `array of object`, `one of fast, slow`. */
  readonly typeLabel: string;
  readonly description?: string;
}

/** How a value of this schema is asked for: a typed box, a pick, a nested form, or JSON. */
export function fieldKind(schema: Record<string, unknown>): FieldKind {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return 'enum';
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
    case 'number':
    case 'integer':
    case 'boolean':
    case 'array':
      return type;
    case 'object':
      return schema.properties !== undefined ? 'object' : 'json';
    default:
      return 'json';
  }
}

/** The properties of an object schema, required first, each with how it is asked for. */
export function argumentFields(schema: unknown): ArgumentField[] {
  const object = asSchema(schema);
  const properties = asSchema(object.properties);
  const required = new Set(Array.isArray(object.required) ? object.required : []);
  return Object.keys(properties)
    .map((name) => {
      const property = asSchema(properties[name]);
      const kind = fieldKind(property);
      const description = typeof property.description === 'string' ? property.description.slice(0, 300) : undefined;
      return {
        name,
        schema: property,
        required: required.has(name),
        kind,
        typeLabel: kind === 'enum' ? `one of ${(property.enum as unknown[]).map(String).join(', ').slice(0, 80)}` : typeName(property),
        ...(description ? { description } : {}),
      };
    })
    .sort((a, b) => Number(b.required) - Number(a.required));
}

/** A new value of the schema's type, as a new array item or a property set for the first time. */
export function placeholderOf(schema: unknown): unknown {
  return placeholder(asSchema(schema), 0);
}

/** The typed text of a `number` or `integer` field, or why it is not one. */
export function parseNumberField(text: string, integer: boolean): { readonly value: number } | { readonly error: string } {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(value)) return { error: 'Enter a number.' };
  if (integer && !Number.isInteger(value)) return { error: 'Enter a whole number.' };
  return { value };
}

/** A value in a few characters, for a form's row. */
export function shortValue(value: unknown): string {
  if (value === undefined) return 'not set';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}
