// Whether input from a viewer is a person typing, or only its terminal answering: xterm.js
// replies to queries (device attributes, cursor position, colours) and reports focus on its
// own. Those replies must not count as typing, or a dead resume would look like the person's.

/* eslint-disable no-control-regex -- matching escape sequences is the point */
const SEQUENCES = [
  /\x1b\[[0-9;?<>=]*[ -/]*[@-~]/g, // CSI: DA, DSR, focus in/out, …
  /\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, // OSC replies (colours, …)
  /\x1b[P^_][\s\S]*?\x1b\\/g, // DCS, PM, APC (XTVERSION, …)
  /\x1b[NO][\s\S]/g, // SS2/SS3
];
/* eslint-enable no-control-regex */

export function isTyping(data: string): boolean {
  let rest = data;
  for (const pattern of SEQUENCES) rest = rest.replace(pattern, '');
  return rest.length > 0;
}
