// Run Tool's form: a tool's arguments as a list, one row per argument with its type and value;
// picking a row asks for that value in the way its type needs (a typed box, a pick of its enum or
// of true and false, a nested form for an object, a list of items for an array). Run sends them;
// Edit as JSON is still there, the whole object in one box, checked against the schema.
import * as vscode from 'vscode';
import {
  argumentFields,
  argumentSkeleton,
  argumentsChecker,
  describeArguments,
  parseNumberField,
  placeholderOf,
  shortValue,
  type ArgumentField,
} from '../core/presentation';

type Values = Record<string, unknown>;
/** A nested form or list goes this deep; past it, the value is edited as JSON. */
const MAX_DEPTH = 4;
const RUN = '$(play) Run';
const AS_JSON = '$(json) Edit as JSON';
const DONE = '$(check) Done';

interface Row extends vscode.QuickPickItem {
  readonly field?: ArgumentField;
  readonly action?: 'run' | 'json' | 'done';
}

/**
 * The tool's arguments from the form, or undefined when the user left it. `title` names the tool
 * ("Arguments for rich/add"). A tool without arguments needs no form.
 */
export async function askToolArguments(tool: { readonly inputSchema: unknown }, title: string): Promise<object | undefined> {
  const schema = tool.inputSchema as { type: 'object' };
  const fields = argumentFields(schema);
  if (fields.length === 0) return {};
  const check = argumentsChecker({ inputSchema: schema });
  let values = JSON.parse(argumentSkeleton({ inputSchema: schema })) as Values;
  // A required argument starts from a placeholder ("", 0, []) that its schema may well accept: Run
  // waits until the user has given each one (a default in the schema counts as given), and picking
  // it asks for the first one still missing.
  const unset = new Set(fields.filter((field) => field.required && !('default' in field.schema)).map((field) => field.name));
  for (;;) {
    const problem = unset.size > 0 ? `set ${[...unset].join(', ')}` : check(JSON.stringify(values));
    const picked = await pickRow(
      [
        ...fieldRows(fields, values),
        { label: RUN, action: 'run', description: problem ? `not yet: ${problem}` : 'with these arguments' },
        { label: AS_JSON, action: 'json', description: 'the whole object in one box' },
      ],
      title,
      describeArguments({ inputSchema: schema }),
    );
    if (!picked) return undefined;
    if (picked.action === 'run' && !problem) return values;
    if (picked.action === 'json') return askAsJson(schema, values, `${title} (JSON)`);
    const field = picked.field ?? (picked.action === 'run' ? fields.find((candidate) => unset.has(candidate.name)) : undefined);
    if (!field) continue;
    const next = await setField(values, field, `${title} › ${field.name}`, 1);
    if (next !== values) unset.delete(field.name);
    values = next;
  }
}

function fieldRows(fields: readonly ArgumentField[], values: Values): Row[] {
  return fields.map((field) => ({
    label: `${field.name}${field.required ? ' *' : ''}`,
    description: `${field.typeLabel} = ${shortValue(values[field.name])}`,
    ...(field.description ? { detail: field.description } : {}),
    field,
  }));
}

function pickRow(rows: Row[], title: string, placeHolder: string): Promise<Row | undefined> {
  return Promise.resolve(vscode.window.showQuickPick(rows, { title, placeHolder, ignoreFocusOut: true, matchOnDescription: true }));
}

async function setField(values: Values, field: ArgumentField, title: string, depth: number): Promise<Values> {
  const current = values[field.name] ?? placeholderOf(field.schema);
  const value = await askValue(field, current, title, depth);
  return value === undefined ? values : { ...values, [field.name]: value };
}

/** One value, asked for as its kind needs; undefined when the user left without one. */
async function askValue(
  field: Pick<ArgumentField, 'kind' | 'schema' | 'typeLabel'>,
  current: unknown,
  title: string,
  depth: number,
): Promise<unknown> {
  const kind = depth > MAX_DEPTH && (field.kind === 'object' || field.kind === 'array') ? 'json' : field.kind;
  switch (kind) {
    case 'string':
      return vscode.window.showInputBox({
        title,
        value: typeof current === 'string' ? current : '',
        prompt: field.typeLabel,
        ignoreFocusOut: true,
      });
    case 'number':
    case 'integer': {
      const text = await vscode.window.showInputBox({
        title,
        value: typeof current === 'number' ? String(current) : '',
        prompt: field.typeLabel,
        ignoreFocusOut: true,
        validateInput: (typed) => {
          const parsed = parseNumberField(typed, kind === 'integer');
          return 'error' in parsed ? parsed.error : undefined;
        },
      });
      if (text === undefined) return undefined;
      const parsed = parseNumberField(text, kind === 'integer');
      return 'value' in parsed ? parsed.value : undefined;
    }
    case 'boolean': {
      const picked = await vscode.window.showQuickPick(['true', 'false'], { title, ignoreFocusOut: true });
      return picked === undefined ? undefined : picked === 'true';
    }
    case 'enum': {
      const options = (field.schema.enum as unknown[]).map((option) => ({ label: String(option), option }));
      return (await vscode.window.showQuickPick(options, { title, ignoreFocusOut: true }))?.option;
    }
    case 'object':
      return askObject(field.schema, isValues(current) ? current : {}, title, depth);
    case 'array':
      return askArray(field.schema, Array.isArray(current) ? current : [], title, depth);
    case 'json':
      return askJsonValue(current, title);
  }
}

async function askObject(schema: Record<string, unknown>, start: Values, title: string, depth: number): Promise<Values | undefined> {
  const fields = argumentFields(schema);
  let values = start;
  for (;;) {
    const picked = await pickRow([...fieldRows(fields, values), { label: DONE, action: 'done' }], title, 'Pick a property to set it');
    if (!picked) return undefined;
    if (picked.action === 'done') return values;
    if (picked.field) values = await setField(values, picked.field, `${title} › ${picked.field.name}`, depth + 1);
  }
}

async function askArray(schema: Record<string, unknown>, start: unknown[], title: string, depth: number): Promise<unknown[] | undefined> {
  const itemSchema = (typeof schema.items === 'object' && schema.items !== null ? schema.items : {}) as Record<string, unknown>;
  const item = argumentFields({ properties: { item: itemSchema } })[0];
  let items = start;
  for (;;) {
    const picked = await vscode.window.showQuickPick(
      [
        ...items.map((value, index) => ({ label: `[${index}]`, description: shortValue(value), index })),
        { label: '$(add) Add an item', index: -1 },
        { label: DONE, index: -2 },
      ],
      { title, placeHolder: 'Pick an item to change or remove it', ignoreFocusOut: true },
    );
    if (!picked) return undefined;
    if (picked.index === -2) return items;
    if (!item) continue;
    if (picked.index === -1) {
      const added = await askValue(item, placeholderOf(itemSchema), `${title} › [${items.length}]`, depth + 1);
      if (added !== undefined) items = [...items, added];
      continue;
    }
    const what = await vscode.window.showQuickPick(['Change', 'Remove'], { title: `${title} › [${picked.index}]`, ignoreFocusOut: true });
    if (what === 'Remove') items = items.filter((_, index) => index !== picked.index);
    if (what === 'Change') {
      const changed = await askValue(item, items[picked.index], `${title} › [${picked.index}]`, depth + 1);
      if (changed !== undefined) items = items.map((value, index) => (index === picked.index ? changed : value));
    }
  }
}

async function askJsonValue(current: unknown, title: string): Promise<unknown> {
  const text = await vscode.window.showInputBox({
    title: `${title} (JSON)`,
    value: JSON.stringify(current ?? null),
    ignoreFocusOut: true,
    validateInput: (typed) => {
      try {
        JSON.parse(typed);
        return undefined;
      } catch (error) {
        return `Not JSON: ${error instanceof Error ? error.message : String(error)}`;
      }
    },
  });
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

/** The whole object in one box, checked against the tool's schema as the user types. */
async function askAsJson(schema: { type: 'object' }, values: Values, title: string): Promise<object | undefined> {
  const check = argumentsChecker({ inputSchema: schema });
  const text = await vscode.window.showInputBox({
    title,
    value: JSON.stringify(values),
    prompt: describeArguments({ inputSchema: schema }),
    ignoreFocusOut: true,
    validateInput: check,
  });
  return text === undefined ? undefined : (JSON.parse(text) as object);
}

function isValues(value: unknown): value is Values {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
