// The stream filter for "boxed" CLIs (full-screen agents such as Claude Code and Codex): it
// hides the sequences that take the terminal away from its person, so the mouse wheel scrolls
// the terminal's own history and nothing is wiped from it.
//   hidden: mouse-tracking modes, the alternate-screen switch, erasing the scrollback (CSI 3 J)
//   kept:   everything else, colours and bracketed paste included, and a visible clear (CSI 2 J)
// A sequence split across two chunks is held until it completes. Shells are never filtered.

/** DEC private modes that turn mouse reporting on or off. */
const MOUSE_MODES = new Set(['9', '1000', '1001', '1002', '1003', '1005', '1006', '1015', '1016']);
/** DEC private modes that switch to the alternate screen (which has no history). */
const ALT_SCREEN_MODES = new Set(['47', '1047', '1049']);
/** A held tail longer than this is no sequence we filter: let it through. */
const HOLD_MAX = 32;

/* eslint-disable no-control-regex -- matching escape sequences is the point */
const FILTERED = /\x1b\[(\?)?([0-9;]*)([hlJ])/g;
const INCOMPLETE = /\x1b(?:\[\??[0-9;]*)?$/;
/* eslint-enable no-control-regex */

export interface StreamFilter {
  /** The part of this chunk (and any held before it) that may be shown now. */
  feed(chunk: string): string;
}

export class BoxedFilter implements StreamFilter {
  private held = '';

  feed(chunk: string): string {
    let text = this.held + chunk;
    this.held = '';
    const tail = INCOMPLETE.exec(text);
    if (tail && text.length - tail.index <= HOLD_MAX) {
      this.held = text.slice(tail.index);
      text = text.slice(0, tail.index);
    }
    return text.replace(FILTERED, (whole, priv: string | undefined, params: string, final: string) => {
      if (final === 'J') return params === '3' ? '' : whole;
      if (!priv) return whole;
      const kept = params.split(';').filter((mode) => !MOUSE_MODES.has(mode) && !ALT_SCREEN_MODES.has(mode));
      if (kept.length === params.split(';').length) return whole;
      return kept.length === 0 ? '' : `\x1b[?${kept.join(';')}${final}`;
    });
  }
}

/** What a shell (or any CLI not marked boxed) gets: everything, as it came. */
export class PlainStream implements StreamFilter {
  feed(chunk: string): string {
    return chunk;
  }
}

export function streamFilter(boxed: boolean): StreamFilter {
  return boxed ? new BoxedFilter() : new PlainStream();
}
