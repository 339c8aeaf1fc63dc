// The stream filter of boxed CLIs: what it hides, what it keeps, and sequences split in two.

import { describe, expect, it } from 'vitest';
import { BoxedFilter, streamFilter, type StreamFilter } from '../streams/boxedFilter';

/** Feeds text as its UTF-8 bytes and reads what is shown as text (Latin-1 where the bytes are no UTF-8). */
const feeder = (filter: StreamFilter) => (text: string, encoding: BufferEncoding = 'utf8') => Buffer.from(filter.feed(Buffer.from(text, encoding))).toString(encoding);

describe('the boxed stream filter', () => {
  it('hides mouse tracking, the alternate screen and scrollback wipes; keeps the rest', () => {
    const feed = feeder(new BoxedFilter());
    expect(feed('hello')).toBe('hello');
    expect(feed('\x1b[?1000h\x1b[?1006hhi')).toBe('hi');
    expect(feed('\x1b[?1000lbye')).toBe('bye');
    expect(feed('\x1b[?1002h\x1b[?1003h\x1b[?1015h\x1b[?1005h\x1b[?9h.')).toBe('.');
    // Bracketed paste stays when it shares a sequence with a mouse mode.
    expect(feed('\x1b[?1000;2004h')).toBe('\x1b[?2004h');
    expect(feed('\x1b[?2004;1006;1049l')).toBe('\x1b[?2004l');
    expect(feed('\x1b[31mred\x1b[0m')).toBe('\x1b[31mred\x1b[0m');
    expect(feed('\x1b[?1049hview\x1b[?1049l')).toBe('view');
    expect(feed('\x1b[?47h\x1b[?1047h.')).toBe('.');
    expect(feed('\x1b[3Jkeep')).toBe('keep');
    // A visible clear still happens, and the cursor keeps its modes.
    expect(feed('\x1b[2J\x1b[H')).toBe('\x1b[2J\x1b[H');
    expect(feed('\x1b[?25l\x1b[?25h')).toBe('\x1b[?25l\x1b[?25h');
  });

  it('holds a sequence split across chunks until it completes, and lets a finished one go', () => {
    const feed = feeder(new BoxedFilter());
    expect(feed('before\x1b[?100')).toBe('before');
    expect(feed('0hOK')).toBe('OK');
    expect(feed('a\x1b')).toBe('a');
    expect(feed('[3')).toBe('');
    expect(feed('Jb')).toBe('b');
    // A split colour comes out whole.
    expect(feed('\x1b[3')).toBe('');
    expect(feed('1mred')).toBe('\x1b[31mred');
  });

  it('works on the bytes: characters of several bytes around a sequence, or split across chunks, come out as they went in', () => {
    const feed = feeder(new BoxedFilter());
    expect(feed('é\x1b[?1049h→ 日本\x1b[3J✓')).toBe('é→ 日本✓');
    // A character split across two chunks is passed on as it came, in two parts.
    const filter = new BoxedFilter();
    const arrow = Buffer.from('→');
    expect([...filter.feed(Buffer.concat([Buffer.from('a'), arrow.subarray(0, 1)]))]).toEqual([0x61, arrow[0]]);
    expect([...filter.feed(Buffer.concat([arrow.subarray(1), Buffer.from('\x1b[?100')]))]).toEqual([arrow[1], arrow[2]]);
    expect(Buffer.from(filter.feed(Buffer.from('0h✓'))).toString()).toBe('✓');
    // Bytes that are no UTF-8 at all pass as they are, and a sequence after them is still hidden.
    expect(feed('\xff\xfe\x1b[?1000hz', 'latin1')).toBe('\xff\xfez');
  });

  it('passes on a chunk with nothing to hide without copying it', () => {
    const chunk = Buffer.from('\x1b[31mred\x1b[0m and é');
    expect(new BoxedFilter().feed(chunk).buffer).toBe(chunk.buffer);
  });

  it('never filters a shell', () => {
    const plain = streamFilter(false);
    for (const raw of ['\x1b[?1000h', '\x1b[?1049hls', '\x1b[3J', 'tail\x1b[?100']) {
      const bytes = Buffer.from(raw);
      expect(plain.feed(bytes)).toBe(bytes);
    }
  });
});
