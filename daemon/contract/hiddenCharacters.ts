// Characters a name, a folder or an agent's question may hold that are not seen for what they
// are: controls that drive a terminal, bidi embeddings, overrides, isolates and marks that
// reorder what is shown ("report\u202efdp.sh" reads "reporths.pdf"), and characters drawn as
// nothing at all (zero-width spaces, word joiners, a byte-order mark, fillers), with which
// "billing\u2060-task-1" looks exactly like "billing-task-1". One list for the daemon's checks,
// the command line and the page, which each show them as what they are or refuse them.

/* eslint-disable no-misleading-character-class -- the combining grapheme joiner on its own is one of what this lists */

// Each list as the inside of a character class, so that the one plain class below is built from
// the same lists and cannot miss a character they name.
const CONTROL_CHARS = '\\u0000-\\u001f\\u007f-\\u009f';
const BIDI_CONTROL_CHARS = '\\u202a-\\u202e\\u2066-\\u2069';
/**
 * Drawn as nothing: the bidi marks (U+061C, U+200E, U+200F), the soft hyphen, the combining
 * grapheme joiner, Hangul and Khmer fillers, Mongolian selectors and vowel separator, the
 * zero-width space and non-joiner, line and paragraph separators, the word joiner and invisible
 * operators, the deprecated format characters, the byte-order mark, the interlinear annotation
 * marks, the Egyptian hieroglyph, shorthand and musical format controls, the tag characters;
 * and drawn as a blank that no trim takes away, the Braille pattern blank. (Every format
 * character but the zero-width joiner, below, and the prepended marks that draw a sign, such as
 * U+0600 ARABIC NUMBER SIGN.)
 */
const INVISIBLE_CHARS =
  '\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b\\u200c\\u200e\\u200f\\u2028\\u2029\\u2060-\\u2064\\u206a-\\u206f\\u2800\\u3164\\ufeff\\uffa0\\ufff9-\\ufffb' +
  '\\u{13430}-\\u{1343f}\\u{1bca0}-\\u{1bca3}\\u{1d173}-\\u{1d17a}\\u{e0000}-\\u{e007f}';
/** A zero-width joiner is drawn as nothing too, except between two pictographs (an emoji sequence such as 👩‍💻, which it draws). */
const LONE_JOINER = '(?<!\\p{Extended_Pictographic}[\\ufe0e\\ufe0f]?)\\u200d|\\u200d(?!\\p{Extended_Pictographic})';
const VARIATION_SELECTORS = '\\ufe00-\\ufe0f\\u{e0100}-\\u{e01ef}';
/**
 * A variation selector is drawn as nothing unless it picks a form of the character before it: a
 * pictograph's (text or emoji), an ideograph's, a symbol's, or a keycap's (before U+20E3). After
 * a letter ("s01-busy\ufe00") or another selector it only makes a name look like another.
 */
const LONE_SELECTOR = `(?<![\\p{Extended_Pictographic}\\p{Ideographic}\\p{Sm}\\p{So}])[${VARIATION_SELECTORS}](?!\\u20e3)`;

/** C0 and C1 controls and DEL. */
export const CONTROLS = new RegExp(`[${CONTROL_CHARS}]`, 'u');
/** Bidi embeddings, overrides and isolates. */
export const BIDI_CONTROLS = new RegExp(`[${BIDI_CONTROL_CHARS}]`, 'u');
const INVISIBLE_SOURCE = `[${INVISIBLE_CHARS}]|${LONE_JOINER}|${LONE_SELECTOR}`;
/** Characters drawn as nothing (INVISIBLE_CHARS, a lone joiner or variation selector). */
export const INVISIBLE = new RegExp(INVISIBLE_SOURCE, 'u');

/** Whether text holds any character that may be one of them: one plain class, for the text (nearly all) that holds none. */
export const MAYBE_HIDDEN = new RegExp(`[${CONTROL_CHARS}${BIDI_CONTROL_CHARS}${INVISIBLE_CHARS}\\u200d${VARIATION_SELECTORS}]`, 'u');

/** Every character above, to replace or write out: with `g`. */
export const HIDDEN = new RegExp(`[${CONTROL_CHARS}]|[${BIDI_CONTROL_CHARS}]|${INVISIBLE_SOURCE}`, 'gu');
/** Runs of them (one placeholder for a run). */
export const HIDDEN_RUNS = new RegExp(`(?:${HIDDEN.source})+`, 'gu');

/** U+XXXX of a character. */
export function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}
