// The stream filter of boxed CLIs: what it hides, what it keeps, and sequences split in two.

import { describe, expect, it } from 'vitest';
import { BoxedFilter, streamFilter } from '../streams/boxedFilter';

describe('the boxed stream filter', () => {
  it('hides mouse tracking, the alternate screen and scrollback wipes; keeps the rest', () => {
    const filter = new BoxedFilter();
    expect(filter.feed('hello')).toBe('hello');
    expect(filter.feed('\x1b[?1000h\x1b[?1006hhi')).toBe('hi');
    expect(filter.feed('\x1b[?1000lbye')).toBe('bye');
    expect(filter.feed('\x1b[?1002h\x1b[?1003h\x1b[?1015h\x1b[?1005h\x1b[?9h.')).toBe('.');
    // Bracketed paste stays when it shares a sequence with a mouse mode.
    expect(filter.feed('\x1b[?1000;2004h')).toBe('\x1b[?2004h');
    expect(filter.feed('\x1b[?2004;1006;1049l')).toBe('\x1b[?2004l');
    expect(filter.feed('\x1b[31mred\x1b[0m')).toBe('\x1b[31mred\x1b[0m');
    expect(filter.feed('\x1b[?1049hview\x1b[?1049l')).toBe('view');
    expect(filter.feed('\x1b[?47h\x1b[?1047h.')).toBe('.');
    expect(filter.feed('\x1b[3Jkeep')).toBe('keep');
    // A visible clear still happens, and the cursor keeps its modes.
    expect(filter.feed('\x1b[2J\x1b[H')).toBe('\x1b[2J\x1b[H');
    expect(filter.feed('\x1b[?25l\x1b[?25h')).toBe('\x1b[?25l\x1b[?25h');
  });

  it('holds a sequence split across chunks until it completes, and lets a finished one go', () => {
    const filter = new BoxedFilter();
    expect(filter.feed('before\x1b[?100')).toBe('before');
    expect(filter.feed('0hOK')).toBe('OK');
    expect(filter.feed('a\x1b')).toBe('a');
    expect(filter.feed('[3')).toBe('');
    expect(filter.feed('Jb')).toBe('b');
    // A split colour comes out whole.
    expect(filter.feed('\x1b[3')).toBe('');
    expect(filter.feed('1mred')).toBe('\x1b[31mred');
  });

  it('never filters a shell', () => {
    const plain = streamFilter(false);
    for (const raw of ['\x1b[?1000h', '\x1b[?1049hls', '\x1b[3J', 'tail\x1b[?100']) expect(plain.feed(raw)).toBe(raw);
  });
});
