// Text from outside (a server's name or error, a registry's description, a config file's key) as a
// terminal or the editor may show it: control characters, escape sequences, bidirectional overrides
// and line breaks made visible instead of acted on, and length bounded, so that a hostile string
// can neither drive the terminal (retitle it, clear it, hide text) nor forge a line or a table row.

/** C0 and C1 controls, DEL, and the Unicode format characters that reorder or hide text. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/gu;

export const DISPLAY_TEXT_LIMIT = 1_000;

/** One line of plain, inert text: `\n` stays visible as `\n`, ESC as `\x1b`, U+202E as `\u202e`. */
export function displayText(text: string, limit: number = DISPLAY_TEXT_LIMIT): string {
  const bounded = text.length > limit ? `${text.slice(0, limit)}… (${text.length - limit} more characters)` : text;
  return bounded.replace(UNSAFE, (character) => {
    if (character === '\n') return '\\n';
    if (character === '\t') return '\\t';
    const code = character.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
