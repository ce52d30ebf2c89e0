// JSONC as VS Code writes it: comments and trailing commas allowed. Parse errors become diagnostics
// with a 1-based line and column; a file with errors contributes nothing, because the tolerant
// parser's best guess at a half-written file could start a server the user never asked for.

import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import type { ConfigDiagnostic, ServerSource } from './types';

export interface JsoncResult {
  /** Undefined when the text had any parse error. */
  readonly value: unknown;
  readonly diagnostics: readonly ConfigDiagnostic[];
}

export function parseJsonc(text: string, source: ServerSource): JsoncResult {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  if (errors.length === 0) return { value, diagnostics: [] };
  const lineStarts = computeLineStarts(text);
  const diagnostics = errors.map((error): ConfigDiagnostic => {
    const { line, column } = positionAt(lineStarts, error.offset);
    return {
      severity: 'error',
      path: '',
      message: `JSON parse error at line ${line}, column ${column}: ${humanize(printParseErrorCode(error.error))}`,
      source,
      line,
      column,
    };
  });
  return { value: undefined, diagnostics };
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
