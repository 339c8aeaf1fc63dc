// A receipt's colours as the stopped view shows them.

import { describe, expect, it } from 'vitest';
import { styledRuns } from '../lib/sgr';

const palette = Array.from({ length: 16 }, (_, i) => `#0000${i.toString(16).padStart(2, '0')}`);
const defaults = { fg: '#eeeeee', bg: '#111111' };
const ESC = '\x1b';

describe("a receipt's colours", () => {
  it('are runs of text in the theme colours: the sixteen, the 256, true colour, and inverse', () => {
    const runs = styledRuns(`a${ESC}[31mb${ESC}[1;91mc${ESC}[0m${ESC}[38;5;196md${ESC}[48;2;1;2;3me${ESC}[0;7mf${ESC}[27;2mg${ESC}[m h`, palette, defaults);
    expect(runs).toEqual([
      { text: 'a' },
      { text: 'b', fg: palette[1] },
      { text: 'c', fg: palette[9], bold: true },
      { text: 'd', fg: '#ff0000' },
      { text: 'e', fg: '#ff0000', bg: '#010203' },
      { text: 'f', fg: defaults.bg, bg: defaults.fg },
      { text: 'g', dim: true },
      { text: ' h' },
    ]);
  });

  it('show an escape character left over as nothing, never as markup', () => {
    expect(styledRuns(`<b>x</b>${ESC}[31${ESC}y`, palette, defaults)).toEqual([{ text: '<b>x</b>[31y' }]);
  });
});
