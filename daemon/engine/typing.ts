// Whether input from a viewer is a person typing, or only its terminal answering: xterm.js
// replies to queries (device attributes, cursor position, colours) and reports focus on its
// own. Those replies must not count as typing, or a dead resume would look like the person's.
// And whether typed text shows on an agent's screen (printable), or is only keys.

/* eslint-disable no-control-regex -- matching escape sequences is the point */
const SEQUENCES = [
  /\x1b\[[0-?]*[ -/]*[@-~]/g, // CSI: DA, DSR, focus in/out, keys, mouse reports, …
  /\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, // OSC replies (colours, …)
  /\x1b[P^_][\s\S]*?\x1b\\/g, // DCS, PM, APC (XTVERSION, …)
  /\x1b[NO][\s\S]/g, // SS2/SS3
];
/* eslint-enable no-control-regex */

function withoutSequences(data: string): string {
  let rest = data;
  for (const pattern of SEQUENCES) rest = rest.replace(pattern, '');
  return rest;
}

export function isTyping(data: string): boolean {
  return withoutSequences(data).length > 0;
}

/**
 * Whether typing this shows on an agent's screen: a printable character, not only keys (arrows,
 * Escape, Alt with a key, mouse reports, the kitty keyboard's codes) or a terminal's strings.
 */
export function shows(data: string): boolean {
  // Alt with a key is an ESC before it.
  // eslint-disable-next-line no-control-regex -- control characters are what does not show
  return /[^\x00-\x20\x7f-\x9f]/.test(withoutSequences(data).replace(/\x1b[\s\S]?/g, ''));
}
