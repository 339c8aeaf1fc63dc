// Text with its colours, for a receipt: the only escape sequences kept are SGR (ESC [ … m: colour,
// bold, dim, italic, underline, inverse); any other (cursor moves, titles, links, queries) goes.

/* eslint-disable no-control-regex -- escape sequences are what it reads */

/** Every escape sequence: CSI (ESC [ … final), OSC and other strings (up to BEL or ST), and two-byte ones. */
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -/]*[0-~])/g;
const SGR = /^\x1b\[[0-9;:]*m$/;

/** The text with its SGR sequences only. */
export function onlySgr(text: string): string {
  return text.replace(ESCAPES, (sequence) => (SGR.test(sequence) ? sequence : ''));
}

/** The text with no escape sequence at all. */
export function withoutEscapes(text: string): string {
  return text.replace(ESCAPES, '');
}
