// What a viewer's terminal says on its own: its answers to queries (device attributes, cursor
// position, colours, modes, version). They are never the person's typing, and never reach an
// agent from a viewer: the agent's own terminal answers it once (tmux for a tmux pane, the
// pty backend's screen keeper otherwise). Otherwise every viewer would answer every query,
// including queries replayed from history, and a late answer lands in the agent as keystrokes
// (a shell prompt filled with "0;276;0c"; in Claude Code an ESC that interrupts it).

const REPLIES = new RegExp(
  [
    '\\x1b\\[[?>=][0-9;]*c', // DA1, DA2, DA3 (CSI form) replies
    '\\x1b\\[\\??[0-9]+;[0-9]+(;[0-9]+)?R', // cursor position reports (Shift+F3's CSI 1;2R looks the same)
    '\\x1b\\[\\??[0-9]+n', // device status reports
    '\\x1b\\[\\??[0-9;]*\\$y', // mode reports (DECRPM)
    '\\x1b\\[[0-9]+(;[0-9]+){1,2}t', // window size and position reports
    '\\x1b\\[\\?[0-9]*u', // the keyboard protocol's flags report
    '\\x1b\\][^\\x07\\x1b]*(\\x07|\\x1b\\\\)', // OSC replies: colours, palette, clipboard
    '\\x1bP[\\s\\S]*?\\x1b\\\\', // DCS replies: version, settings, capabilities
  ].join('|'),
  'g',
);

/** The viewer's input without its terminal's answers; keys, pastes and focus reports stay. */
export function withoutReplies(data: string): string {
  return data.includes('\x1b') ? data.replace(REPLIES, '') : data;
}
