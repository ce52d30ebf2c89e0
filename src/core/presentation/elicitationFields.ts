// The fields of an elicitation form, read from the requested schema (the MCP subset of JSON
// Schema: a flat object of strings, numbers, integers, booleans and enums, single or multiple),
// and the checks for what a person types into them. No editor API: the editor renders the fields.

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'choice' | 'choices';

export interface FieldOption {
  readonly value: string;
  readonly label: string;
}

export interface ElicitField {
  readonly key: string;
  readonly title: string;
  readonly description?: string;
  readonly required: boolean;
  readonly kind: FieldKind;
  readonly default?: string | number | boolean | readonly string[];
  /** For `choice` and `choices`. */
  readonly options?: readonly FieldOption[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  /** `email`, `uri`, `date`, `date-time`. */
  readonly format?: string;
  readonly minItems?: number;
  readonly maxItems?: number;
}

/** A form nobody could fill is refused rather than shown; these bound what a server can ask. */
export const MAX_FIELDS = 50;
const MAX_OPTIONS = 500;
const MAX_TEXT = 200;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const short = (value: unknown): string | undefined => (typeof value === 'string' ? value.slice(0, MAX_TEXT) : undefined);
const finite = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

function optionsOf(schema: Json): FieldOption[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.slice(0, MAX_OPTIONS).map((value, index) => ({ value: String(value), label: short(names[index]) ?? String(value) }));
  }
  const titled = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (!titled) return undefined;
  return titled
    .filter(isObject)
    .slice(0, MAX_OPTIONS)
    .map((option) => ({ value: String(option.const), label: short(option.title) ?? String(option.const) }));
}

function fieldOf(key: string, schema: Json, required: boolean): ElicitField | string {
  const base = {
    key,
    title: short(schema.title) ?? key,
    ...(short(schema.description) ? { description: short(schema.description) } : {}),
    required,
  };
  const type = schema.type;
  if (type === 'array') {
    const items = isObject(schema.items) ? schema.items : {};
    const options = optionsOf(items);
    if (!options) return `field "${key}" is a list without a set of options`;
    const defaults = Array.isArray(schema.default) ? schema.default.filter((item): item is string => typeof item === 'string') : undefined;
    return {
      ...base,
      kind: 'choices',
      options,
      ...(defaults ? { default: defaults } : {}),
      ...(finite(schema.minItems) !== undefined ? { minItems: finite(schema.minItems) } : {}),
      ...(finite(schema.maxItems) !== undefined ? { maxItems: finite(schema.maxItems) } : {}),
    };
  }
  const options = optionsOf(schema);
  if (options) return { ...base, kind: 'choice', options, ...(typeof schema.default === 'string' ? { default: schema.default } : {}) };
  if (type === 'boolean') return { ...base, kind: 'boolean', ...(typeof schema.default === 'boolean' ? { default: schema.default } : {}) };
  if (type === 'number' || type === 'integer') {
    return {
      ...base,
      kind: type,
      ...(finite(schema.default) !== undefined ? { default: finite(schema.default) } : {}),
      ...(finite(schema.minimum) !== undefined ? { minimum: finite(schema.minimum) } : {}),
      ...(finite(schema.maximum) !== undefined ? { maximum: finite(schema.maximum) } : {}),
    };
  }
  if (type === 'string') {
    return {
      ...base,
      kind: 'string',
      ...(typeof schema.default === 'string' ? { default: schema.default } : {}),
      ...(finite(schema.minLength) !== undefined ? { minLength: finite(schema.minLength) } : {}),
      ...(finite(schema.maxLength) !== undefined ? { maxLength: finite(schema.maxLength) } : {}),
      ...(short(schema.format) ? { format: short(schema.format) } : {}),
    };
  }
  return `field "${key}" has a type a form cannot ask for (${JSON.stringify(type) ?? 'none'})`;
}

/** The form's fields in the schema's order, or why it cannot be shown. */
export function elicitFields(schema: unknown): { fields: ElicitField[] } | { problem: string } {
  if (!isObject(schema) || !isObject(schema.properties)) return { problem: 'the requested schema has no properties' };
  const keys = Object.keys(schema.properties);
  if (keys.length > MAX_FIELDS) return { problem: `the form has ${keys.length} fields; at most ${MAX_FIELDS} are shown` };
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((item): item is string => typeof item === 'string') : [],
  );
  const fields: ElicitField[] = [];
  for (const key of keys) {
    const property = schema.properties[key];
    const field = isObject(property) ? fieldOf(key, property, required.has(key)) : `field "${key}" has no schema`;
    if (typeof field === 'string') return { problem: field };
    fields.push(field);
  }
  return { fields };
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** What a typed text means for a string or number field, or what is wrong with it. */
export function parseFieldText(field: ElicitField, text: string): { value: string | number } | { problem: string } {
  if (field.kind === 'number' || field.kind === 'integer') {
    const trimmed = text.trim();
    const value = Number(trimmed);
    if (trimmed === '' || !Number.isFinite(value)) return { problem: 'Enter a number' };
    if (field.kind === 'integer' && !Number.isInteger(value)) return { problem: 'Enter a whole number' };
    if (field.minimum !== undefined && value < field.minimum) return { problem: `At least ${field.minimum}` };
    if (field.maximum !== undefined && value > field.maximum) return { problem: `At most ${field.maximum}` };
    return { value };
  }
  if (field.minLength !== undefined && text.length < field.minLength) return { problem: `At least ${field.minLength} characters` };
  if (field.maxLength !== undefined && text.length > field.maxLength) return { problem: `At most ${field.maxLength} characters` };
  if (field.format === 'email' && !EMAIL.test(text)) return { problem: 'Enter an email address' };
  if (field.format === 'uri' && !URL.canParse(text)) return { problem: 'Enter a URL' };
  if (field.format === 'date' && !DATE.test(text)) return { problem: 'Enter a date as YYYY-MM-DD' };
  if (field.format === 'date-time' && Number.isNaN(Date.parse(text))) return { problem: 'Enter a date and time' };
  return { value: text };
}

/** The host part of an elicitation URL, to name it before anything is opened; undefined if unsafe. */
export function urlDomain(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.host : undefined;
}

/**
 * What a form answers when the person accepts it as presented: every field that has a default
 * holds it (SEP-1034; the editor's form pre-fills the same values), the others are left out.
 */
export function acceptedDefaults(fields: readonly ElicitField[]): Record<string, string | number | boolean | string[]> {
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const field of fields) {
    if (field.default !== undefined)
      content[field.key] = Array.isArray(field.default) ? [...field.default] : (field.default as string | number | boolean);
  }
  return content;
}
