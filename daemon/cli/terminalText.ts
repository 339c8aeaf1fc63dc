// What the CLI prints that came from the daemon (names, folders, messages, errors) goes to a
// person's terminal: a folder named "\e]0;…\a" or "\e[2J" must not set the window's title or
// clear the screen, and a bidi override must not reorder what a line shows. Such characters are
// shown, never obeyed.

// C0 and C1 controls, DEL, and the bidi embeddings, overrides and isolates.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The text with every control or bidi character written out as \u{…}. With `lines`, newlines
 * and tabs stay (a screen, a list); without, they are written out too (one table cell).
 */
export function terminalSafe(text: string, { lines = true }: { lines?: boolean } = {}): string {
  return text.replace(UNSAFE, (ch) => (lines && (ch === '\n' || ch === '\t') ? ch : `\\u{${ch.codePointAt(0)!.toString(16)}}`));
}

/**
 * JSON for a terminal: JSON.stringify leaves DEL, C1 and bidi characters raw; escape them the JSON
 * way. (A raw newline here is the layout's: a string's own are escaped already.)
 */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(UNSAFE, (ch) => (ch === '\n' ? ch : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
