// The stream filter for "boxed" CLIs (full-screen agents such as Claude Code and Codex): it
// hides the sequences that take the terminal away from its person, so the mouse wheel scrolls
// the terminal's own history and nothing is wiped from it.
//   hidden: mouse-tracking modes, the alternate-screen switch, erasing the scrollback (CSI 3 J)
//   kept:   everything else, colours and bracketed paste included, and a visible clear (CSI 2 J)
// A sequence split across two chunks is held until it completes. Shells are never filtered.
// It works on the output's bytes as they came (UTF-8): ESC and a sequence's other bytes are
// ASCII, which never occurs inside a multi-byte character, so the bytes read as Latin-1 (one
// character a byte) show the same sequences at the same places, and what is not filtered is
// passed on without a copy.

/** DEC private modes that turn mouse reporting on or off. */
const MOUSE_MODES = new Set(['9', '1000', '1001', '1002', '1003', '1005', '1006', '1015', '1016']);
/** DEC private modes that switch to the alternate screen (which has no history). */
const ALT_SCREEN_MODES = new Set(['47', '1047', '1049']);
/** A held tail longer than this is no sequence we filter: let it through. */
const HOLD_MAX = 32;
const ESC = 0x1b;

/* eslint-disable no-control-regex -- matching escape sequences is the point */
const FILTERED = /\x1b\[(\?)?([0-9;]*)([hlJ])/g;
const INCOMPLETE = /^\x1b(?:\[\??[0-9;]*)?$/;
/* eslint-enable no-control-regex */

export interface StreamFilter {
  /** The part of this chunk (and any held before it) that may be shown now. */
  feed(chunk: Uint8Array): Uint8Array;
}

export class BoxedFilter implements StreamFilter {
  private held: Uint8Array | null = null;

  feed(chunk: Uint8Array): Uint8Array {
    let bytes = this.held ? Buffer.concat([this.held, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.held = null;
    // An unfinished sequence can only begin at the last ESC (it holds no other).
    const last = bytes.lastIndexOf(ESC);
    if (last < 0) return bytes;
    if (bytes.length - last <= HOLD_MAX && INCOMPLETE.test(bytes.toString('latin1', last))) {
      this.held = Uint8Array.from(bytes.subarray(last));
      bytes = bytes.subarray(0, last);
    }
    const text = bytes.toString('latin1');
    const parts: Uint8Array[] = [];
    let done = 0;
    for (const match of text.matchAll(FILTERED)) {
      const kept = keptOf(match[0], match[1], match[2]!, match[3]!);
      if (kept === match[0]) continue;
      parts.push(bytes.subarray(done, match.index), Buffer.from(kept, 'latin1'));
      done = match.index + match[0].length;
    }
    if (done === 0) return bytes;
    parts.push(bytes.subarray(done));
    return Buffer.concat(parts);
  }
}

/** What is left of one sequence once the modes that take the terminal away are taken out. */
function keptOf(whole: string, priv: string | undefined, params: string, final: string): string {
  if (final === 'J') return params === '3' ? '' : whole;
  if (!priv) return whole;
  const kept = params.split(';').filter((mode) => !MOUSE_MODES.has(mode) && !ALT_SCREEN_MODES.has(mode));
  if (kept.length === params.split(';').length) return whole;
  return kept.length === 0 ? '' : `\x1b[?${kept.join(';')}${final}`;
}

/** What a shell (or any CLI not marked boxed) gets: everything, as it came. */
export class PlainStream implements StreamFilter {
  feed(chunk: Uint8Array): Uint8Array {
    return chunk;
  }
}

export function streamFilter(boxed: boolean): StreamFilter {
  return boxed ? new BoxedFilter() : new PlainStream();
}
