// A paste into an agent that asked for bracketed paste (`ESC [ ? 2004 h`) comes to it between
// `ESC [ 200 ~` and `ESC [ 201 ~`, so it takes the text as text: a newline in it submits nothing.
// xterm.js brackets the clipboard's text as it is, so text holding its own `ESC [ 201 ~` would
// end the paste early and have the rest typed as keys (`harmless ESC[201~ rm -rf ~ ⏎`). Inside
// the brackets every escape character goes, as terminals that guard against this do: pasted
// text is text.

/* eslint-disable no-control-regex -- escape characters are what it takes out */

const START = '\x1b[200~';
const END = '\x1b[201~';

/** What xterm.js says a paste is, with no escape character (nor 8-bit CSI) inside its brackets. */
export function safePaste(data: string): string {
  if (data.length < START.length + END.length || !data.startsWith(START) || !data.endsWith(END)) return data;
  const text = data.slice(START.length, -END.length);
  return `${START}${text.replace(/[\x1b\x9b]/g, '')}${END}`;
}
