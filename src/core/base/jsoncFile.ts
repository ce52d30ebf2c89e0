// Writing one value into a JSON (with comments) configuration file that people also edit by hand:
// jsonc-parser edits in place, so comments, formatting and everything else in the file stay.
import fs from 'node:fs';
import path from 'node:path';
import { applyEdits, findNodeAtLocation, modify, parseTree, type JSONPath } from 'jsonc-parser';

/** The file's text; empty when it does not exist (other read errors are thrown). */
export function readConfigText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/** Whether `text` has a value at `location`. */
export function hasJsonValue(text: string, location: JSONPath): boolean {
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  return tree !== undefined && findNodeAtLocation(tree, location) !== undefined;
}

/** Sets `value` at `location` (creating the file and its folder), and says whether it replaced one. */
export function writeJsonValue(file: string, location: JSONPath, value: unknown): 'added' | 'replaced' {
  const current = readConfigText(file);
  const text = current.trim() === '' ? '{}\n' : current;
  const existed = hasJsonValue(text, location);
  const edits = modify(text, location, value, { formattingOptions: { insertSpaces: true, tabSize: 2 } });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, applyEdits(text, edits));
  return existed ? 'replaced' : 'added';
}
