// JSONC as VS Code writes it: comments and trailing commas allowed. Parse errors become diagnostics
// with a 1-based line and column; a file with errors contributes nothing, because the tolerant
// parser's best guess at a half-written file could start a server the user never asked for.
//
// Settings files are hostile input. The parser recurses, so values nested deeper than
// MAX_JSON_DEPTH are cut out (as `null`, with a diagnostic naming their path) by a flat scan first.
// Objects are built with defined properties, so a key `__proto__` stays a key. Duplicate keys near
// the top (a second `mcpSwitchboard.servers` block, a server named twice) are reported with both
// places; the last one wins, as in the editor.

import {
  createScanner,
  findNodeAtOffset,
  getNodePath,
  parseTree,
  printParseErrorCode,
  visit,
  type Node,
  type ParseError,
  type SyntaxKind,
} from 'jsonc-parser';
import { joinPath } from './jsonPath';
import type { ConfigDiagnostic, ServerSource } from './types';

export interface JsoncResult {
  /**
   * Undefined when the text had any parse error. Otherwise the value, with any part nested too
   * deep replaced by null (and an error in `diagnostics` naming it).
   */
  readonly value: unknown;
  readonly diagnostics: readonly ConfigDiagnostic[];
}

/** Far deeper than any configuration; far shallower than where a recursive parser overflows. */
export const MAX_JSON_DEPTH = 64;
/** Duplicate keys are reported down to this depth (top-level settings and the servers in them). */
const DUPLICATE_KEY_DEPTH = 2;

// jsonc-parser's SyntaxKind is an ambient const enum, which isolated modules cannot read.
const OPEN_BRACE = 1 as SyntaxKind;
const CLOSE_BRACE = 2 as SyntaxKind;
const OPEN_BRACKET = 3 as SyntaxKind;
const CLOSE_BRACKET = 4 as SyntaxKind;
const EOF = 17 as SyntaxKind;

interface Cut {
  readonly start: number;
  readonly end: number;
}

export function parseJsonc(text: string, source: ServerSource): JsoncResult {
  const lineStarts = computeLineStarts(text);
  const at = (offset: number) => positionAt(lineStarts, offset);
  const cuts = findTooDeep(text);
  const safe = blankOut(text, cuts);
  const errors: ParseError[] = [];
  const root = parseTree(safe, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  if (errors.length > 0) {
    return {
      value: undefined,
      diagnostics: errors.map((error): ConfigDiagnostic => {
        const { line, column } = at(error.offset);
        return {
          severity: 'error',
          path: '',
          message: `JSON parse error at line ${line}, column ${column}: ${humanize(printParseErrorCode(error.error))}`,
          source,
          line,
          column,
        };
      }),
    };
  }
  const diagnostics: ConfigDiagnostic[] = cuts.map((cut) => {
    const node = root ? findNodeAtOffset(root, cut.start, true) : undefined;
    const path = node ? joinPath('', getNodePath(node)) : '';
    const { line, column } = at(cut.start);
    return {
      severity: 'error',
      path,
      message: `the value at line ${line}, column ${column} is nested more than ${MAX_JSON_DEPTH} levels deep; it was ignored`,
      source,
      line,
      column,
    };
  });
  const value = root
    ? toValue(
        root,
        0,
        (key, keyPath, first, second) => {
          const a = at(first);
          const b = at(second);
          diagnostics.push({
            severity: 'warning',
            path: keyPath,
            message: `"${key}" is defined twice (line ${a.line} and line ${b.line}); the one at line ${b.line} is used`,
            source,
            line: b.line,
            column: b.column,
          });
        },
        '',
      )
    : undefined;
  return { value, diagnostics };
}

/**
 * Only the objects at `locations` of a large file, each parsed as parseJsonc would: Claude Code's
 * ~/.claude.json keeps every project's history beside the few blocks of servers, and building a
 * tree of all of it cost seconds and hundreds of MB. A flat pass finds the blocks without building
 * anything. Any parse error, value nested too deep, or a location that holds something other than
 * an object sends the whole file through parseJsonc, for its diagnostics and lines. The value holds
 * only the blocks found, at their paths.
 */
export function parseJsoncBlocks(text: string, source: ServerSource, locations: readonly (readonly string[])[]): JsoncResult {
  if (findTooDeep(text).length > 0) return parseJsonc(text, source);
  const wanted = new Set(locations.map((location) => JSON.stringify(location)));
  const depths = new Set(locations.map((location) => location.length));
  const ranges = new Map<string, { start: number; line: number; end?: number }>();
  const open: Array<string | undefined> = [];
  let unusable = false;
  // The path of the value now starting, when it is one of the locations (asked only at their depths).
  const located = (pathSupplier: () => (string | number)[]): string | undefined => {
    if (!depths.has(open.length)) return undefined;
    const key = JSON.stringify(pathSupplier());
    return wanted.has(key) ? key : undefined;
  };
  visit(
    text,
    {
      onObjectBegin: (offset, _length, startLine, _startCharacter, pathSupplier) => {
        const key = located(pathSupplier);
        // A key given twice: the last one wins, as in parseJsonc.
        if (key !== undefined) ranges.set(key, { start: offset, line: startLine });
        open.push(key);
      },
      onObjectEnd: (offset, length) => {
        const key = open.pop();
        const range = key === undefined ? undefined : ranges.get(key);
        if (range) range.end = offset + length;
      },
      onArrayBegin: (_offset, _length, _startLine, _startCharacter, pathSupplier) => {
        if (located(pathSupplier) !== undefined) unusable = true;
        open.push(undefined);
      },
      onArrayEnd: () => void open.pop(),
      onLiteralValue: (_value, _offset, _length, _startLine, _startCharacter, pathSupplier) => {
        if (located(pathSupplier) !== undefined) unusable = true;
      },
      onError: () => {
        unusable = true;
      },
    },
    { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true },
  );
  if (unusable) return parseJsonc(text, source);
  const value: Record<string, unknown> = {};
  const diagnostics: ConfigDiagnostic[] = [];
  for (const [key, range] of ranges) {
    if (range.end === undefined) return parseJsonc(text, source);
    const block = parseJsonc(text.slice(range.start, range.end), source);
    // The block's lines count from its first; the file's from its own.
    diagnostics.push(
      ...block.diagnostics.map((diagnostic) =>
        diagnostic.line === undefined ? diagnostic : { ...diagnostic, line: diagnostic.line + range.line },
      ),
    );
    setAt(value, JSON.parse(key) as string[], block.value);
  }
  return { value, diagnostics };
}

function setAt(root: Record<string, unknown>, keys: readonly string[], value: unknown): void {
  let node = root;
  keys.forEach((key, index) => {
    const last = index === keys.length - 1;
    const next = last ? value : Object.hasOwn(node, key) ? node[key] : {};
    Object.defineProperty(node, key, { value: next, enumerable: true, writable: true, configurable: true });
    if (!last) node = next as Record<string, unknown>;
  });
}

/** Ranges of containers that open deeper than MAX_JSON_DEPTH, found without recursion. */
function findTooDeep(text: string): Cut[] {
  const scanner = createScanner(text, false);
  const cuts: Cut[] = [];
  let depth = 0;
  let cutStart: number | undefined;
  for (let token = scanner.scan(); token !== EOF; token = scanner.scan()) {
    if (token === OPEN_BRACE || token === OPEN_BRACKET) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH && cutStart === undefined) cutStart = scanner.getTokenOffset();
    } else if (token === CLOSE_BRACE || token === CLOSE_BRACKET) {
      if (depth === MAX_JSON_DEPTH + 1 && cutStart !== undefined) {
        cuts.push({ start: cutStart, end: scanner.getTokenOffset() + scanner.getTokenLength() });
        cutStart = undefined;
      }
      depth = Math.max(0, depth - 1);
    }
  }
  // Unclosed: cut to the end, and let the parser report the missing brackets.
  if (cutStart !== undefined) cuts.push({ start: cutStart, end: text.length });
  return cuts;
}

/** Replaces each cut with `null` and spaces, keeping line breaks so later positions stay right. */
function blankOut(text: string, cuts: readonly Cut[]): string {
  if (cuts.length === 0) return text;
  let result = '';
  let last = 0;
  for (const cut of cuts) {
    const blank = text.slice(cut.start, cut.end).replace(/[^\r\n]/g, ' ');
    result += text.slice(last, cut.start) + 'null' + blank.slice(4);
    last = cut.end;
  }
  return result + text.slice(last);
}

type DuplicateReporter = (key: string, path: string, firstOffset: number, secondOffset: number) => void;

/** The node as plain data. Depth is bounded by the cuts above, so recursion is safe here. */
function toValue(node: Node, depth: number, duplicate: DuplicateReporter, path: string): unknown {
  switch (node.type) {
    case 'object': {
      const result: Record<string, unknown> = {};
      const seen = new Map<string, number>();
      for (const property of node.children ?? []) {
        const [keyNode, valueNode] = property.children ?? [];
        if (!keyNode || typeof keyNode.value !== 'string') continue;
        const key = keyNode.value;
        const previous = seen.get(key);
        if (previous !== undefined && depth < DUPLICATE_KEY_DEPTH) duplicate(key, joinPath(path, [key]), previous, keyNode.offset);
        seen.set(key, keyNode.offset);
        // defineProperty: an assignment to `__proto__` would set the prototype and lose the key.
        Object.defineProperty(result, key, {
          value: valueNode ? toValue(valueNode, depth + 1, duplicate, joinPath(path, [key])) : undefined,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return result;
    }
    case 'array':
      return (node.children ?? []).map((child, index) => toValue(child, depth + 1, duplicate, joinPath(path, [index])));
    default:
      return node.value;
  }
}

function computeLineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 10) starts.push(i + 1);
  }
  return starts;
}

function positionAt(lineStarts: readonly number[], offset: number): { line: number; column: number } {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((lineStarts[mid] ?? 0) <= offset) low = mid;
    else high = mid - 1;
  }
  return { line: low + 1, column: offset - (lineStarts[low] ?? 0) + 1 };
}

/** `CloseBraceExpected` -> `close brace expected`. */
function humanize(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}
