// A receipt's output with its colours (text whose only escape sequences are SGR, ESC [ … m) as
// runs of text with their colours and attributes, in the terminal's colours for the theme: what
// the stopped view shows. Nothing in it is markup: each run's text is shown as text.

/* eslint-disable no-control-regex -- escape sequences are what it reads */

import { BIDI_IN_OUTPUT } from '../terminal/bidiControls';

export interface StyledRun {
  text: string;
  /** "#rrggbb"; undefined for the default. */
  fg?: string;
  bg?: string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
}

interface Pen {
  fg?: number | string;
  bg?: number | string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
  inverse?: boolean;
}

/**
 * The runs of `text`. `palette` is the sixteen ANSI colours, `fg` and `bg` the defaults (what an
 * inverse run swaps when it has no colour of its own).
 */
export function styledRuns(text: string, palette: readonly string[], defaults: { fg: string; bg: string }): StyledRun[] {
  const runs: StyledRun[] = [];
  let pen: Pen = {};
  const parts = text.split(/\x1b\[([0-9;:]*)m/);
  for (let i = 0; i < parts.length; i++) {
    if (i % 2 === 1) {
      pen = apply(pen, parts[i]!);
      continue;
    }
    // Any other escape character left is dropped: it is not shown, and it does nothing. Bidi
    // controls too: the page would draw the line reordered by them (terminal/bidiControls.ts).
    const part = parts[i]!.replace(/\x1b/g, '').replace(BIDI_IN_OUTPUT, '');
    if (!part) continue;
    const colour = (value: number | string | undefined) => (typeof value === 'number' ? indexed(value, palette) : value);
    let fg = colour(pen.fg);
    let bg = colour(pen.bg);
    if (pen.inverse) [fg, bg] = [bg ?? defaults.bg, fg ?? defaults.fg];
    const run: StyledRun = { text: part };
    if (fg) run.fg = fg;
    if (bg) run.bg = bg;
    if (pen.bold) run.bold = true;
    if (pen.dim) run.dim = true;
    if (pen.italic) run.italic = true;
    if (pen.underline) run.underline = true;
    const last = runs.at(-1);
    if (last && same(last, run)) last.text += part;
    else runs.push(run);
  }
  return runs;
}

function same(a: StyledRun, b: StyledRun): boolean {
  return a.fg === b.fg && a.bg === b.bg && a.bold === b.bold && a.dim === b.dim && a.italic === b.italic && a.underline === b.underline;
}

/** The pen after one SGR sequence's parameters. */
function apply(before: Pen, params: string): Pen {
  const pen = { ...before };
  const codes = params === '' ? [0] : params.split(/[;:]/).map((p) => (p === '' ? 0 : Number(p)));
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i]!;
    if (code === 0) for (const key of Object.keys(pen) as (keyof Pen)[]) delete pen[key];
    else if (code === 1) pen.bold = true;
    else if (code === 2) pen.dim = true;
    else if (code === 3) pen.italic = true;
    else if (code === 4) pen.underline = true;
    else if (code === 7) pen.inverse = true;
    else if (code === 22) pen.bold = pen.dim = false;
    else if (code === 23) pen.italic = false;
    else if (code === 24) pen.underline = false;
    else if (code === 27) pen.inverse = false;
    else if (code >= 30 && code <= 37) pen.fg = code - 30;
    else if (code >= 90 && code <= 97) pen.fg = code - 90 + 8;
    else if (code === 39) delete pen.fg;
    else if (code >= 40 && code <= 47) pen.bg = code - 40;
    else if (code >= 100 && code <= 107) pen.bg = code - 100 + 8;
    else if (code === 49) delete pen.bg;
    else if (code === 38 || code === 48) {
      const side = code === 38 ? 'fg' : 'bg';
      if (codes[i + 1] === 5 && codes[i + 2] !== undefined) {
        pen[side] = codes[i + 2]! & 255;
        i += 2;
      } else if (codes[i + 1] === 2 && codes[i + 4] !== undefined) {
        pen[side] = hex(codes[i + 2]!, codes[i + 3]!, codes[i + 4]!);
        i += 4;
      }
    }
  }
  return pen;
}

/** One of the 256 colours: the theme's sixteen, then xterm's colour cube and greys. */
function indexed(n: number, palette: readonly string[]): string | undefined {
  if (n < 16) return palette[n];
  if (n < 232) {
    const level = (v: number) => (v === 0 ? 0 : 55 + v * 40);
    const at = n - 16;
    return hex(level(Math.floor(at / 36)), level(Math.floor(at / 6) % 6), level(at % 6));
  }
  const grey = 8 + (n - 232) * 10;
  return hex(grey, grey, grey);
}

function hex(r: number, g: number, b: number): string {
  return `#${[r, g, b].map((v) => Math.max(0, Math.min(255, v)).toString(16).padStart(2, '0')).join('')}`;
}
