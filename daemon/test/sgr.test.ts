// What of an agent's colours a receipt keeps: SGR sequences only, never another escape sequence.

import { describe, expect, it } from 'vitest';
import { onlySgr, withoutEscapes } from '../backends/sgr';

const ESC = '\x1b';

describe("a receipt's colours", () => {
  it('keep colour and attributes only: cursor moves, titles, links and clipboard writes go', () => {
    const agent = `${ESC}[31mred${ESC}[0m ${ESC}[2J${ESC}[H${ESC}]0;title${ESC}\\${ESC}]52;c;c2VjcmV0${ESC}\\${ESC}]8;;https://x.test${ESC}\\link${ESC}]8;;${ESC}\\ ${ESC}(B${ESC}[?25lend`;
    expect(onlySgr(agent)).toBe(`${ESC}[31mred${ESC}[0m link end`);
    expect(withoutEscapes(agent)).toBe('red link end');
  });

});
