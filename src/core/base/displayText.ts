// Text from outside (a server's name or error, a registry's description, a config file's key) as a
// terminal or the editor may show it: control characters, escape sequences, bidirectional overrides
// and line breaks made visible instead of acted on, and length bounded, so that a hostile string
// can neither drive the terminal (retitle it, clear it, hide text) nor forge a line or a table row.
//
// C0 controls become `\x1b`; DEL, C1 controls and format characters become `\u202e`. Text that is
// already JSON keeps its meaning: JSON.stringify leaves no raw C0 control, and `\uNNNN` is a JSON
// escape of the same character.

/** C0 and C1 controls, DEL, and the Unicode format characters that reorder or hide text. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/gu;
// The same, but line breaks and tabs are the text's own.
const UNSAFE_IN_LINES =
  // eslint-disable-next-line no-control-regex -- finding control characters is the point.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/gu;

export const DISPLAY_TEXT_LIMIT = 1_000;

function visible(character: string): string {
  if (character === '\n') return '\\n';
  if (character === '\t') return '\\t';
  if (character === '\r') return '\\r';
  const code = character.charCodeAt(0);
  return code < 0x20 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

function bounded(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}… (${text.length - limit} more characters)` : text;
}

/** One line of plain, inert text: `\n` stays visible as `\n`, ESC as `\x1b`, U+202E as `\u202e`. */
export function displayText(text: string, limit: number = DISPLAY_TEXT_LIMIT): string {
  return bounded(text, limit).replace(UNSAFE, visible);
}

/** Text of several lines for a terminal: its line breaks and tabs kept, everything else as displayText; each line bounded. */
export function displayLines(text: string, lineLimit = 8_000): string {
  return text
    .split('\n')
    .map((line) => bounded(line, lineLimit).replace(UNSAFE_IN_LINES, visible))
    .join('\n');
}

/**
 * JSON for a terminal or a pipe: still exactly JSON, whatever it holds, and inert. JSON.stringify
 * escapes every C0 control; what it leaves raw (DEL, C1 controls, line and paragraph separators,
 * bidirectional overrides) becomes a `\uNNNN` escape of the same character, and no line is cut
 * short: a program reading it gets every value as it was.
 */
export function displayJson(json: string): string {
  return json.replace(UNSAFE_IN_LINES, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
