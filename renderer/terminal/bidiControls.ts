// Bidi controls in an agent's output, taken out before the terminal draws it. A terminal shows
// its cells in the order they were written; xterm.js's DOM renderer (the renderer where there
// is no GPU) puts a row's text in the page, where the browser obeys these characters and draws
// the row reordered: `run "\u202Ehs.fdp\u202C"` read as `run "pdf.sh"`. They take no cell (xterm.js
// gives them no width), so taking them out moves nothing on the screen.
//
// Taken out, as UTF-8: U+061C ARABIC LETTER MARK (d8 9c), U+200E/U+200F (e2 80 8e/8f), U+202A to
// U+202E (e2 80 aa to ae) and U+2066 to U+2069 (e2 81 a6 to a9).

/** The same characters in text (the stopped view's output, drawn in the page as text too). */
export const BIDI_IN_OUTPUT = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** Bytes of the control at `at`: 2 or 3, 0 for none, -1 when the data ends before it can tell. */
function controlAt(data: Uint8Array, at: number): number {
  const end = data.length;
  if (data[at] === 0xd8) {
    if (at + 1 >= end) return -1;
    return data[at + 1] === 0x9c ? 2 : 0;
  }
  // 0xe2
  if (at + 1 >= end) return -1;
  const second = data[at + 1]!;
  if (second !== 0x80 && second !== 0x81) return 0;
  if (at + 2 >= end) return -1;
  const third = data[at + 2]!;
  if (second === 0x80) return third === 0x8e || third === 0x8f || (third >= 0xaa && third <= 0xae) ? 3 : 0;
  return third >= 0xa6 && third <= 0xa9 ? 3 : 0;
}

/** Where the next byte that may begin a control is, from `from`; the data's length if none. */
function nextLead(data: Uint8Array, from: number, leads: { e2: number; d8: number }): number {
  if (leads.e2 < from) leads.e2 = data.indexOf(0xe2, from);
  if (leads.e2 < 0) leads.e2 = data.length;
  if (leads.d8 < from) leads.d8 = data.indexOf(0xd8, from);
  if (leads.d8 < 0) leads.d8 = data.length;
  return Math.min(leads.e2, leads.d8);
}

/**
 * One stream's output, its bidi controls taken out. A control cut between two frames is kept
 * back (its first bytes, at most two) and looked at with the next frame. Output without any
 * comes back as it came, not copied.
 */
export class BidiControls {
  private carry: Uint8Array | null = null;

  take(frame: Uint8Array): Uint8Array {
    let data = frame;
    if (this.carry !== null) {
      data = new Uint8Array(this.carry.length + frame.length);
      data.set(this.carry);
      data.set(frame, this.carry.length);
      this.carry = null;
    }
    const kept: [number, number][] = [];
    const leads = { e2: -1, d8: -1 };
    let from = 0;
    let end = data.length;
    for (let at = nextLead(data, 0, leads); at < data.length; at = nextLead(data, at + 1, leads)) {
      const length = controlAt(data, at);
      if (length === 0) continue;
      if (length < 0) {
        // Cut at the frame's end: its first bytes wait for the rest.
        this.carry = data.slice(at);
        end = at;
        break;
      }
      kept.push([from, at]);
      from = at + length;
      at = from - 1;
    }
    if (kept.length === 0 && end === data.length) return data;
    kept.push([from, end]);
    const out = new Uint8Array(kept.reduce((sum, [start, stop]) => sum + stop - start, 0));
    let put = 0;
    for (const [start, stop] of kept) {
      out.set(data.subarray(start, stop), put);
      put += stop - start;
    }
    return out;
  }
}
