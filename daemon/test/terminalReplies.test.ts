import { describe, expect, it } from 'vitest';
import { withoutReplies } from '../streams/terminalReplies';

describe("a viewer's terminal answers", () => {
  it('are taken out of its input, whatever they answer', () => {
    const replies = [
      '\x1b[?1;2c', // DA1, as xterm.js answers
      '\x1b[>0;276;0c', // DA2
      '\x1b[12;40R', // cursor position
      '\x1b[0n', // status
      '\x1b[?2004;1$y', // a mode report
      '\x1b[8;48;160t', // the text area's size
      '\x1b[?0u', // keyboard protocol flags
      '\x1b]11;rgb:1616/1818/1d1d\x1b\\', // background colour
      '\x1b]10;rgb:d8d8/dcdc/e3e3\x07', // foreground colour, BEL-ended
      '\x1bP>|xterm.js(6.0.0)\x1b\\', // version
      '\x1bP1$r0m\x1b\\', // a setting
    ];
    for (const reply of replies) expect(withoutReplies(reply), JSON.stringify(reply)).toBe('');
    expect(withoutReplies(`ls${replies.join('')}\r`)).toBe('ls\r');
  });

  it('leave typing, keys, pastes and focus reports alone', () => {
    const typing = ['hello\r', '\x1b', '\x1b[A', '\x1b[1;5D', '\x1bOP', '\x1b[15~', '\x1b[200~pasted\x1b[201~', '\x1b[I', '\x1b[O', '\x1b[<0;10;5M', '0;276;0c'];
    for (const keys of typing) expect(withoutReplies(keys), JSON.stringify(keys)).toBe(keys);
  });
});
