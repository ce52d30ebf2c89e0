// TOML (Codex's config.toml) through smol-toml, with the same rules as JSONC: a file with any
// syntax error (a table defined twice, a duplicate key, a bad string) contributes nothing, and the
// diagnostic names the line and column. Nesting is bounded like JSON's.

import { MAX_JSON_DEPTH, type JsoncResult } from './jsonc';
import type { ServerSource } from './types';

export async function parseToml(text: string, source: ServerSource): Promise<JsoncResult> {
  // smol-toml's maxDepth counts inline tables and arrays, not the parts of a dotted key, and
  // builds (and we copy) one nested table per part: a key of 200,000 parts overflows the stack.
  const deep = deepKeyLine(text);
  if (deep !== undefined) {
    return {
      value: undefined,
      diagnostics: [
        {
          severity: 'error',
          path: '',
          message: `TOML error at line ${deep}, column 1: a key of more than ${MAX_JSON_DEPTH} parts`,
          source,
          line: deep,
          column: 1,
        },
      ],
    };
  }
  // An ES module; this layer is CommonJS (the bundle inlines it either way).
  const { parse, TomlError } = await import('smol-toml');
  try {
    // Plain objects (smol-toml builds null-prototype ones), numbers rather than bigints, dates as text.
    const value: unknown = JSON.parse(JSON.stringify(parse(text, { maxDepth: MAX_JSON_DEPTH })));
    return { value, diagnostics: [] };
  } catch (error) {
    if (error instanceof TomlError) {
      const reason = error.message.split('\n', 1)[0]?.replace(/^Invalid TOML document: /, '') ?? 'invalid TOML';
      return {
        value: undefined,
        diagnostics: [
          {
            severity: 'error',
            path: '',
            message: `TOML error at line ${error.line}, column ${error.column}: ${reason}`,
            source,
            line: error.line,
            column: error.column,
          },
        ],
      };
    }
    return {
      value: undefined,
      diagnostics: [
        { severity: 'error', path: '', message: `TOML error: ${error instanceof Error ? error.message : String(error)}`, source },
      ],
    };
  }
}

/**
 * The first line with a key (a `[table]` header, a key before `=`, or one inside an inline table)
 * of more than MAX_JSON_DEPTH parts, counting the dots outside quotes. It reads values only to skip
 * them, so a false alarm needs 64 dots in one run of a value between commas.
 */
function deepKeyLine(text: string): number | undefined {
  let line = 1;
  let dots = 0;
  let quote: string | undefined;
  let inKey = true;
  let braces = 0;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (character === '\n') {
      [line, dots, inKey, quote, braces] = [line + 1, 0, true, undefined, 0];
    } else if (quote) {
      if (character === '\\' && quote === '"') index += 1;
      else if (character === quote) quote = undefined;
    } else if (character === '"' || character === "'") {
      quote = character;
    } else if (character === '#') {
      const end = text.indexOf('\n', index);
      index = (end < 0 ? text.length : end) - 1;
    } else if (inKey) {
      if (character === '=' || character === ',') inKey = false;
      else if (character === '.' && ++dots >= MAX_JSON_DEPTH) return line;
    } else if (character === '{' || (character === ',' && braces > 0)) {
      if (character === '{') braces += 1;
      [inKey, dots] = [true, 0];
    } else if (character === '}') {
      braces = Math.max(0, braces - 1);
    }
  }
  return undefined;
}
