// The dotenv dialect that `envFile` accepts: `KEY=VALUE` lines, an optional `export ` prefix, `#`
// comments (whole line, or after whitespace in an unquoted value), and single, double or backtick
// quotes. Double quotes understand \n \r \t \" \\ and may span lines. Values are taken literally:
// `${...}` inside an envFile is not expanded, as with the editor's own envFile support.

export interface DotenvProblem {
  /** 1-based. */
  readonly line: number;
  readonly message: string;
}

export interface DotenvResult {
  /** In file order; a later duplicate replaces the earlier value. */
  readonly values: ReadonlyMap<string, string>;
  readonly problems: readonly DotenvProblem[];
}

const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/;
const ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

export function parseDotenv(text: string): DotenvResult {
  const values = new Map<string, string>();
  const problems: DotenvProblem[] = [];
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const lineNumber = index + 1;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const match = ASSIGNMENT.exec(line);
    if (!match) {
      problems.push({ line: lineNumber, message: 'expected KEY=VALUE' });
      continue;
    }
    const key = match[1] ?? '';
    const rest = match[2] ?? '';
    const quote = rest[0];
    if (quote === '"' || quote === "'" || quote === '`') {
      const quoted = readQuoted(lines, index, line.length - rest.length + 1, quote);
      if (quoted === undefined) {
        problems.push({ line: lineNumber, message: `unterminated ${quote} quote` });
        break;
      }
      if (!/^\s*(?:#.*)?$/.test(quoted.trailing)) {
        problems.push({ line: quoted.endLine + 1, message: `unexpected text after the closing quote of ${key}` });
      }
      values.set(key, quoted.value);
      index = quoted.endLine;
      continue;
    }
    values.set(key, rest.replace(/\s+#.*$/, '').trimEnd());
  }
  return { values, problems };
}

interface Quoted {
  readonly value: string;
  readonly endLine: number;
  readonly trailing: string;
}

/** Reads from just after the opening quote, continuing onto later lines until the closing quote. */
function readQuoted(lines: readonly string[], startLine: number, startColumn: number, quote: string): Quoted | undefined {
  let value = '';
  let column = startColumn;
  for (let lineIndex = startLine; lineIndex < lines.length; lineIndex++) {
    const line = lines[lineIndex] ?? '';
    for (let i = column; i < line.length; i++) {
      const char = line[i] ?? '';
      if (quote === '"' && char === '\\' && i + 1 < line.length) {
        const next = line[i + 1] ?? '';
        value += ESCAPES[next] ?? `\\${next}`;
        i++;
      } else if (char === quote) {
        return { value, endLine: lineIndex, trailing: line.slice(i + 1) };
      } else {
        value += char;
      }
    }
    value += '\n';
    column = 0;
  }
  return undefined;
}
