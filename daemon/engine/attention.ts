// Whether an agent is waiting for its person: its CLI's attention patterns, matched against
// what its terminal shows now (the last screenful, never the whole history).

export const SCREEN_LINES = 60;
/** How far above a matched line that is no question (a footer, a menu) its question is looked for. */
const QUESTION_ABOVE = 10;
/** The question is shown in a list and a notification: at most this many characters. */
export const QUESTION_MAX = 200;

/**
 * The question on the screen when one of the patterns matches, else null: the line that matched,
 * or, when that line asks nothing (a footer such as "Esc to cancel"), the nearest line above it
 * that does; without the frame a CLI draws around it.
 */
export function waitingFor(screen: string, patterns: readonly RegExp[]): string | null {
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
    return question.length > QUESTION_MAX ? `${question.slice(0, QUESTION_MAX - 1)}…` : question;
  }
  return null;
}

/** A screen line without the box a CLI draws around it (│ … │) and its spaces. */
function unframed(line: string): string {
  return line.replace(/^[\s│┃|╭╮╰╯─━]+|[\s│┃|╭╮╰╯─━]+$/g, '');
}
