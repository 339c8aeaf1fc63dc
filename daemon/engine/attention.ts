// Whether an agent is waiting for its person: its CLI's attention patterns, matched against
// what its terminal shows now (the last screenful, never the whole history).

import { redact } from './redact';

export const SCREEN_LINES = 60;
/** How far above a matched line that is no question (a footer, a menu) its question is looked for. */
const QUESTION_ABOVE = 10;
/** The question is shown in a list and a notification: at most this many characters. */
export const QUESTION_MAX = 200;

/** What a waiting agent asks, and what about when its screen shows it (the command, the file). */
export interface Prompt {
  question: string;
  about: string | null;
}

/**
 * The question on the screen when one of the patterns matches, else null: the line that matched,
 * or, when that line asks nothing (a footer such as "Esc to cancel"), the nearest line above it
 * that does; without the frame a CLI draws around it.
 */
export function waitingFor(screen: string, patterns: readonly RegExp[]): string | null {
  return promptOn(screen, patterns)?.question ?? null;
}

/** The question (as `waitingFor` finds it) with the lines next to it that say what it is about. */
export function promptOn(screen: string, patterns: readonly RegExp[]): Prompt | null {
  const lines = screen.split('\n').slice(-SCREEN_LINES);
  const visible = lines.join('\n');
  for (const pattern of patterns) {
    const match = pattern.exec(visible);
    if (!match) continue;
    const at = visible.slice(0, match.index).split('\n').length - 1;
    let line = at;
    if (!unframed(lines[at]!).includes('?')) {
      for (let i = at - 1; i >= Math.max(0, at - QUESTION_ABOVE); i--) {
        if (unframed(lines[i]!).endsWith('?')) {
          line = i;
          break;
        }
      }
    }
    const question = unframed(lines[line]!) || match[0].trim();
    return { question: cut(question), about: aboutOf(lines, line) };
  }
  return null;
}

/**
 * What a CLI's screen asks, by its catalogue entry: an approval prompt (`attention`), else a
 * first-run, trust or sign-in screen (`setup`, marked so: its menu is not the one the CLI's
 * one-key answers answer); null when it asks nothing.
 */
export function askedOn(screen: string, cli: { attention: readonly RegExp[]; setup: readonly RegExp[] }): (Prompt & { setup: boolean }) | null {
  const asked = promptOn(screen, cli.attention);
  if (asked) return { ...asked, setup: false };
  const setup = promptOn(screen, cli.setup);
  return setup && { ...setup, setup: true };
}

/** A choice of a CLI's menu: "❯ 1. Yes", "  2. No", "● Allow once", "› No (recommended)". */
const OPTION = /^(?:[❯›●>]\s|\d+[.)]\s)/;
/** What a question is about is a block of at most this many lines beside it. */
const ABOUT_LINES = 2;
/** What looks like a credential, or a line about one. */
const SECRETISH = /\b(?:sk[-_]|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|AKIA|ASIA|AIza|crl_)|api[_ -]?key|token|password|passwd|secret|bearer|authorization|:\/\/[^/\s:@]+:[^/\s@]+@|\s-p\S/i;

/**
 * What a question is about, as CLIs lay it out: the lines under it, before its choices (Codex:
 * "…run the following command?", then "$ cargo test"), or else the block of lines above it
 * (Claude Code: the command and its description; Gemini CLI: "Shell npm run build"; aider: the
 * file). One blank line may stand between; a blank line or a frame's edge ends the block. Only
 * for a line that asks (ends with "?" or ":"): a menu's title or a wrapped paragraph has none.
 */
function aboutOf(lines: string[], at: number): string | null {
  const text = (i: number) => unframed(lines[i] ?? '');
  if (!/[?:]$/.test(text(at))) return null;
  // The block beside it: a few lines with a blank line or a frame's edge at its far end (a
  // screen's edge says nothing: that may be the conversation), and none of them a choice.
  const block = (from: number, step: 1 | -1) => {
    let i = from;
    if (!text(i)) i += step;
    const found: string[] = [];
    for (; i >= 0 && i < lines.length && text(i); i += step) {
      if (found.length === ABOUT_LINES || OPTION.test(text(i))) return [];
      found.push(text(i));
    }
    if (i < 0 || i >= lines.length) return [];
    return step === 1 ? found : found.reverse();
  };
  const below = block(at + 1, 1);
  const near = below.length > 0 ? below : block(at - 1, -1);
  const about = near.join(' · ');
  // A key or a password the CLI shows (masked or not) goes nowhere else: lists, notifications.
  return about && !SECRETISH.test(about) && redact(about) === about ? cut(about) : null;
}

const cut = (text: string) => (text.length > QUESTION_MAX ? `${text.slice(0, QUESTION_MAX - 1)}…` : text);

/** A screen line without the box a CLI draws around it (│ … │) and its spaces. */
function unframed(line: string): string {
  return line.replace(/^[\s│┃|╭╮╰╯┌┐└┘─━]+|[\s│┃|╭╮╰╯┌┐└┘─━]+$/g, '');
}
