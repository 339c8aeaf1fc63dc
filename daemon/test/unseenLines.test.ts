// What a look at a terminal's last lines searches for a key: what the look before had not seen.

import { describe, expect, it } from 'vitest';
import { unseenLines } from '../engine/unseenLines';

const numbered = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `line ${from + i}`);

describe('the lines a look had not seen', () => {
  it('are those printed since, with the screen before them and a line of overlap', () => {
    const before = [...numbered(0, 10), 'screen a', 'screen b'];
    const now = [...numbered(3, 10), 'screen a', 'screen b', 'new 1', 'new 2'];
    expect(unseenLines(before, now, 2, 1)).toEqual(['line 9', 'screen a', 'screen b', 'new 1', 'new 2']);
  });

  it('hold a screen the agent redrew, even with no new line', () => {
    const before = [...numbered(0, 10), 'working…', '> '];
    const now = [...numbered(0, 10), 'session id: 0123', '> '];
    expect(unseenLines(before, now, 2, 0)).toEqual(['session id: 0123', '> ']);
  });

  it('are all of them at the first look, or when history does not line up (a clear, a cut, a resize)', () => {
    const now = numbered(0, 5);
    expect(unseenLines([], now, 2, 1)).toEqual(now);
    expect(unseenLines(numbered(100, 110), now, 2, 1)).toEqual(now);
  });

  it('are all of them when more scrolled out than a look holds', () => {
    expect(unseenLines(numbered(0, 500), numbered(900, 1400), 48, 2)).toEqual(numbered(900, 1400));
  });

  it('leave out only lines the look before showed, however often a line repeats', () => {
    const before = ['x', 'x', 'x', 'x', '> '];
    const now = ['x', 'x', 'x', 'x', 'x', 'x', 'key', 'x', '> '];
    const unseen = unseenLines(before, now, 1, 0);
    expect(unseen).toContain('key');
    expect(now.slice(0, now.length - unseen.length).every((line, i) => before.includes(line) && now[i] === line)).toBe(true);
  });
});
