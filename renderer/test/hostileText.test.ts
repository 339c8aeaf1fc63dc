import { describe, expect, it } from 'vitest';
import { BIDI_IN_OUTPUT, BidiControls } from '../terminal/bidiControls';
import { styledRuns } from '../lib/sgr';
import { safePaste } from '../terminal/paste';

const encode = (text: string) => new TextEncoder().encode(text);
/** Every frame through one filter, as one text (decoded as a stream, as xterm.js does). */
const through = (frames: Uint8Array[]) => {
  const bidi = new BidiControls();
  const decoder = new TextDecoder();
  return frames.map((frame) => decoder.decode(bidi.take(frame), { stream: true })).join('') + decoder.decode();
};

describe("bidi controls in an agent's output", () => {
  it('are taken out, each of them, and nothing else: the bytes and the text agree on which', () => {
    const taken: number[] = [];
    for (let code = 0x80; code <= 0x3000; code++) {
      const char = String.fromCodePoint(code);
      const out = through([encode(`a${char}b`)]);
      if (out === 'ab') taken.push(code);
      else expect(out, code.toString(16)).toBe(`a${char}b`);
      // The stopped view's text takes out the same.
      expect(`a${char}b`.replace(BIDI_IN_OUTPUT, '') === 'ab', code.toString(16)).toBe(out === 'ab');
    }
    expect(taken.map((code) => code.toString(16))).toEqual(['61c', '200e', '200f', '202a', '202b', '202c', '202d', '202e', '2066', '2067', '2068', '2069']);
  });

  it('a spoof reads in the order it was written, in the terminal and in the stopped view', () => {
    const spoof = 'run "\u202ehs.fdp\u202c" now ─ — \u2067x\u2069';
    expect(through([encode(spoof)])).toBe('run "hs.fdp" now ─ — x');
    expect(styledRuns(`\x1b[31m${spoof}\x1b[0m`, [], { fg: '#fff', bg: '#000' }).map((run) => run.text).join('')).toBe('run "hs.fdp" now ─ — x');
  });

  it('a control cut between two frames is taken out whole; other characters cut there are kept whole', () => {
    const text = 'ab\u202ecd—e\u200ff─';
    const bytes = encode(text);
    for (let cut = 0; cut <= bytes.length; cut++) {
      for (let second = cut; second <= bytes.length; second++) {
        const frames = [bytes.subarray(0, cut), bytes.subarray(cut, second), bytes.subarray(second)];
        expect(through(frames), `${cut}/${second}`).toBe('abcd—ef─');
      }
    }
  });

  it('output with none comes back as it came, not copied', () => {
    const frame = encode('plain ─ text — with “quotes” and مرحبا\r\n');
    expect(new BidiControls().take(frame)).toBe(frame);
  });
});

describe('a paste into an agent that brackets pastes', () => {
  it('cannot end its brackets early: every escape inside them goes, and what is not a paste is kept as typed', () => {
    expect(safePaste('\x1b[200~harmless\x1b[201~INJECTED\r\x1b[201~')).toBe('\x1b[200~harmless[201~INJECTED\r\x1b[201~');
    expect(safePaste('\x1b[200~a\x9b201~b\x1b\x1b[200~c\x1b[201~')).toBe('\x1b[200~a201~b[200~c\x1b[201~');
    expect(safePaste('\x1b[200~line one\rline two\x1b[201~')).toBe('\x1b[200~line one\rline two\x1b[201~');
    for (const typed of ['\x1b', '\x1b[A', 'plain \x1b[201~ text', '\x1b[200~', '\x1b[200~\x1b[201~x']) expect(safePaste(typed)).toBe(typed);
  });
});
