// Writing one value into a JSON (with comments) configuration file that people also edit by hand:
// edited in place (jsoncEdit.ts), so comments, formatting and everything else in the file stay.
import fs from 'node:fs';
import path from 'node:path';
import { readRegularFileSync } from './regularFile';
import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode, type JSONPath, type ParseError } from 'jsonc-parser';
import { applyJsonEdit, type JsonEdit } from './jsoncEdit';

export type { JsonEdit } from './jsoncEdit';

/** Larger configuration files are refused rather than read into memory and rewritten. */
const MAX_CONFIG_BYTES = 32 * 1024 * 1024;

/** The file's text; empty when it does not exist. Anything that is not a regular file (a FIFO is not waited for) or is too large throws. */
export function readConfigText(file: string): string {
  return readRegularFileSync(file, MAX_CONFIG_BYTES) ?? '';
}

/** Whether `text` has a value at `location`. */
export function hasJsonValue(text: string, location: JSONPath): boolean {
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  return tree !== undefined && findNodeAtLocation(tree, location) !== undefined;
}

/** A file that does not parse: editing it would keep its broken part, so it is left as it is. */
export class BrokenConfigFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    problem: string,
  ) {
    super(`${file}:${line}:${column}: ${problem}; fix the file (or move it away), then try again. Nothing was written`);
    this.name = 'BrokenConfigFileError';
  }
}

/** The first parse error of `text`, at its line and column, or undefined. */
function firstParseError(text: string): { line: number; column: number; problem: string } | undefined {
  const errors: ParseError[] = [];
  parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (!first) return undefined;
  const before = text.slice(0, first.offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1, problem: printParseErrorCode(first.error) };
}

/** The value at `location` in `text`, as JSON (undefined where there is none). */
export function jsonValueAt(text: string, location: JSONPath): unknown {
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  const node = tree && findNodeAtLocation(tree, location);
  return node === undefined ? undefined : getNodeValue(node);
}

/**
 * `text` with each edit made in place (jsoncEdit.ts): only the characters of the edited value
 * change, so that comments, order and formatting everywhere else stay as the user wrote them. A text
 * that does not parse is refused (BrokenConfigFileError naming `file`), never edited around.
 */
export function editJsonText(file: string, current: string, edits: readonly JsonEdit[]): string {
  let text = current.trim() === '' ? '{}\n' : current;
  const broken = firstParseError(text);
  if (broken) throw new BrokenConfigFileError(file, broken.line, broken.column, broken.problem);
  for (const edit of edits) text = applyJsonEdit(text, edit);
  return text;
}

/**
 * Writes a configuration file in place (its folder made if missing): a symbolic link to it (a
 * dotfiles manager's) and its permissions stay as they were.
 */
export function writeConfigText(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/**
 * Sets `value` at `location` (creating the file and its folder), and says whether it replaced one.
 * A file that does not parse is refused (BrokenConfigFileError), never edited around.
 */
export function writeJsonValue(file: string, location: JSONPath, value: unknown): 'added' | 'replaced' {
  const current = readConfigText(file);
  const existed = current.trim() !== '' && hasJsonValue(current, location);
  writeConfigText(file, editJsonText(file, current, [{ location, value }]));
  return existed ? 'replaced' : 'added';
}
