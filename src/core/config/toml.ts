// TOML (Codex's config.toml) through smol-toml, with the same rules as JSONC: a file with any
// syntax error (a table defined twice, a duplicate key, a bad string) contributes nothing, and the
// diagnostic names the line and column. Nesting is bounded like JSON's.

import { MAX_JSON_DEPTH, type JsoncResult } from './jsonc';
import type { ServerSource } from './types';

export async function parseToml(text: string, source: ServerSource): Promise<JsoncResult> {
  // An ES module; this layer is CommonJS (the bundle inlines it either way).
  const { parse, TomlError } = await import('smol-toml');
  try {
    // Plain objects (smol-toml builds null-prototype ones), numbers rather than bigints, dates as text.
    const value: unknown = JSON.parse(JSON.stringify(parse(text, { maxDepth: MAX_JSON_DEPTH })));
    return { value, diagnostics: [] };
  } catch (error) {
    if (error instanceof TomlError) {
      const reason = error.message.split('\n', 1)[0]?.replace(/^Invalid TOML document: /, '') ?? 'invalid TOML';
      return { value: undefined, diagnostics: [{ severity: 'error', path: '', message: `TOML error at line ${error.line}, column ${error.column}: ${reason}`, source, line: error.line, column: error.column }] };
    }
    return { value: undefined, diagnostics: [{ severity: 'error', path: '', message: `TOML error: ${error instanceof Error ? error.message : String(error)}`, source }] };
  }
}
