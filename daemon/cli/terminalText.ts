// What the CLI prints that came from the daemon (names, folders, messages, errors) goes to a
// person's terminal: a folder named "\e]0;…\a" or "\e[2J" must not set the window's title or
// clear the screen, and a bidi override must not reorder what a line shows. Such characters are
// shown, never obeyed.

import { HIDDEN } from '../contract/hiddenCharacters';

/**
 * The text with every control or bidi character, and every one drawn as nothing
 * (hiddenCharacters.ts), written out as \u{…}. With `lines`, newlines and tabs stay (a screen, a
 * list); without, they are written out too (one table cell).
 */
export function terminalSafe(text: string, { lines = true }: { lines?: boolean } = {}): string {
  return text.replace(HIDDEN, (ch) => (lines && (ch === '\n' || ch === '\t') ? ch : `\\u{${ch.codePointAt(0)!.toString(16)}}`));
}

/**
 * JSON for a terminal: JSON.stringify leaves DEL, C1 and bidi characters raw; escape them the JSON
 * way. (A raw newline here is the layout's: a string's own are escaped already.)
 */
export function terminalJson(value: unknown): string {
  // Each UTF-16 unit its own escape: a tag character is two.
  const escaped = (ch: string) => [...Array(ch.length).keys()].map((i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
  return JSON.stringify(value, null, 2).replace(HIDDEN, (ch) => (ch === '\n' ? ch : escaped(ch)));
}
