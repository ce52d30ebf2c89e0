// Editing JSON with comments as a person would: a value set, added or removed changes only its own
// characters (and the comma beside it), laid out like its neighbours, and everything else of the
// file, its comments, order, spacing and trailing commas included, stays byte for byte. An edit
// undone gives back the text it started from. jsonc-parser finds the nodes; its own `modify`
// formats whole lines around an edit (an `args` array reflowed because a property was added after
// it), so the layout is done here.
import { findNodeAtLocation, parseTree, type JSONPath, type Node } from 'jsonc-parser';

/** One edit: set the value at `location`, remove it (undefined), or insert it into an array at an index. */
export interface JsonEdit {
  readonly location: JSONPath;
  /** Undefined removes what is at `location`. */
  readonly value: unknown;
  /** `location` ends with an index of an array: the value goes in there, the rest moves on. */
  readonly insert?: boolean;
}

const PARSE = { allowTrailingComma: true, disallowComments: false } as const;

/** `text` with the edit made in place; the text as it was when there is nothing to do. */
export function applyJsonEdit(text: string, edit: JsonEdit): string {
  const root = parseTree(text, [], PARSE);
  if (!root) return text;
  const { location, value } = edit;
  const target = location.length === 0 ? root : findNodeAtLocation(root, location);
  if (value === undefined) {
    if (!target || location.length === 0) return text;
    return removeMember(text, memberOf(target));
  }
  if (target && !(edit.insert && typeof location.at(-1) === 'number')) return replaceValue(text, target, value);
  // The deepest container on the way that exists gets what is missing below it, as one value.
  for (let depth = location.length - 1; depth >= 0; depth--) {
    const parent = depth === 0 ? root : findNodeAtLocation(root, location.slice(0, depth));
    if (!parent) continue;
    const key = location[depth] as string | number;
    const nested = location
      .slice(depth + 1)
      .reduceRight<unknown>((inner, step) => (typeof step === 'number' ? [inner] : { [step]: inner }), value);
    if (parent.type === 'object' && typeof key === 'string') return insertMember(text, parent, `${JSON.stringify(key)}: `, nested);
    if (parent.type === 'array' && typeof key === 'number') return insertMember(text, parent, '', nested, key);
    return text;
  }
  return text;
}

/** The node that is one member of its container: a property for a property's value, the value for an array item. */
function memberOf(node: Node): Node {
  return node.parent?.type === 'property' ? node.parent : node;
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function lineEnd(text: string, offset: number): number {
  const end = text.indexOf('\n', offset);
  return end < 0 ? text.length : end;
}

/** The whitespace that begins the line `offset` is on. */
function indentAt(text: string, offset: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart(text, offset)))?.[0] ?? '';
}

/** Where the next token after `offset` is, past whitespace and comments. */
function nextToken(text: string, offset: number): number {
  let at = offset;
  for (;;) {
    while (at < text.length && /\s/.test(text[at] ?? '')) at++;
    if (text.startsWith('//', at)) at = lineEnd(text, at);
    else if (text.startsWith('/*', at)) {
      const end = text.indexOf('*/', at + 2);
      at = end < 0 ? text.length : end + 2;
    } else return at;
  }
}

/** Whether nothing but whitespace, and a comma or a comment, shares `node`'s lines: it has lines of its own. */
function ownsItsLines(text: string, node: Node): boolean {
  const before = text.slice(lineStart(text, node.offset), node.offset);
  const after = text.slice(node.offset + node.length, lineEnd(text, node.offset + node.length));
  return /^[ \t]*$/.test(before) && /^[ \t]*,?[ \t]*(\/\/.*|\/\*.*\*\/[ \t]*)?$/.test(after);
}

/** The unit one level of nesting adds in this text: a tab, or its first indent's spaces (two by default). */
function indentUnit(text: string): string {
  if (/^\t/m.test(text)) return '\t';
  const first = /^( +)\S/m.exec(text);
  return first?.[1] && first[1].length <= 8 ? first[1] : '  ';
}

/** `value` as JSON laid out for a line that begins with `indent`. */
function render(value: unknown, indent: string, unit: string): string {
  return JSON.stringify(value, null, unit).split('\n').join(`\n${indent}`);
}

function replaceValue(text: string, node: Node, value: unknown): string {
  const indent = indentAt(text, node.offset);
  return `${text.slice(0, node.offset)}${render(value, indent, indentUnit(text))}${text.slice(node.offset + node.length)}`;
}

/** Adds `prefix` + `value` to `container` (at `index` for an array; else last), laid out like its members. */
function insertMember(text: string, container: Node, prefix: string, value: unknown, index?: number): string {
  const members = container.children ?? [];
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  if (members.length === 0) {
    // Nothing to follow: the member on a line of its own, one level in.
    const indent = indentAt(text, container.offset);
    const unit = indentUnit(text);
    const [open, close] = container.type === 'object' ? ['{', '}'] : ['[', ']'];
    const inner = `${indent}${unit}`;
    const filled = `${open}${eol}${inner}${prefix}${render(value, inner, unit)}${eol}${indent}${close}`;
    return `${text.slice(0, container.offset)}${filled}${text.slice(container.offset + container.length)}`;
  }
  const unit = indentUnit(text);
  const at = index === undefined ? members.length : Math.max(0, Math.min(index, members.length));
  const reference = members[Math.min(at, members.length - 1)] as Node;
  const multiline = members.every((member) => ownsItsLines(text, member));
  const indent = indentAt(text, reference.offset);
  const member = `${prefix}${multiline ? render(value, indent, unit) : JSON.stringify(value)}`;
  if (at < members.length) {
    // Before the member now at `at`: on a line of its own, or before it on its line.
    const next = members[at] as Node;
    if (multiline)
      return `${text.slice(0, lineStart(text, next.offset))}${indent}${member},${eol}${text.slice(lineStart(text, next.offset))}`;
    return `${text.slice(0, next.offset)}${member}, ${text.slice(next.offset)}`;
  }
  // After the last member, keeping whether the container ends with a comma.
  const last = members.at(-1) as Node;
  const end = last.offset + last.length;
  const comma = nextToken(text, end);
  const trailing = text[comma] === ',';
  if (multiline) {
    const where = lineEnd(text, end);
    const line = `${eol}${indent}${member}${trailing ? ',' : ''}`;
    const withComma = trailing ? text : `${text.slice(0, end)},${text.slice(end)}`;
    const shift = trailing ? 0 : 1;
    return `${withComma.slice(0, where + shift)}${line}${withComma.slice(where + shift)}`;
  }
  if (trailing) return `${text.slice(0, comma + 1)} ${member},${text.slice(comma + 1)}`;
  return `${text.slice(0, end)}, ${member}${text.slice(end)}`;
}

/** Removes one member and the comma that belonged to it; its own lines go whole when it has lines of its own. */
function removeMember(text: string, member: Node): string {
  const container = member.parent;
  const members = container?.children ?? [];
  const index = members.indexOf(member);
  const end = member.offset + member.length;
  const after = nextToken(text, end);
  const hasComma = text[after] === ',';
  if (ownsItsLines(text, member)) {
    const from = lineStart(text, member.offset);
    let to = lineEnd(text, end);
    to = text[to] === '\r' ? to + 2 : text[to] === '\n' ? to + 1 : to;
    let result = `${text.slice(0, from)}${text.slice(to)}`;
    // The last member, without a comma of its own: the one before it gives up its comma.
    if (!hasComma && index > 0) {
      const previous = members[index - 1] as Node;
      const comma = nextToken(result, previous.offset + previous.length);
      if (result[comma] === ',') result = `${result.slice(0, comma)}${result.slice(comma + 1)}`;
    }
    return result;
  }
  // On a shared line: the member, and the comma after it (or, for the last, the one before).
  if (hasComma) {
    const next = nextToken(text, after + 1);
    const stop = index < members.length - 1 ? next : after + 1;
    return `${text.slice(0, member.offset)}${text.slice(stop)}`;
  }
  if (index > 0) {
    const previous = members[index - 1] as Node;
    return `${text.slice(0, previous.offset + previous.length)}${text.slice(end)}`;
  }
  return `${text.slice(0, member.offset)}${text.slice(end)}`;
}
