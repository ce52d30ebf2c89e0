// Writing one value into a JSON (with comments) configuration file that people also edit by hand:
// jsonc-parser edits in place, so comments, formatting and everything else in the file stay.
import fs from 'node:fs';
import path from 'node:path';
import { readRegularFileSync } from './regularFile';
import { applyEdits, findNodeAtLocation, modify, parseTree, printParseErrorCode, type JSONPath, type ParseError } from 'jsonc-parser';

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

/**
 * Sets `value` at `location` (creating the file and its folder), and says whether it replaced one.
 * A file that does not parse is refused (BrokenConfigFileError), never edited around.
 */
export function writeJsonValue(file: string, location: JSONPath, value: unknown): 'added' | 'replaced' {
  const current = readConfigText(file);
  const text = current.trim() === '' ? '{}\n' : current;
  const broken = firstParseError(text);
  if (broken) throw new BrokenConfigFileError(file, broken.line, broken.column, broken.problem);
  const existed = hasJsonValue(text, location);
  const edits = modify(text, location, value, { formattingOptions: { insertSpaces: true, tabSize: 2 } });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, applyEdits(text, edits));
  return existed ? 'replaced' : 'added';
}
