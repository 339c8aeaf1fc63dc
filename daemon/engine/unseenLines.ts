// What a look at a terminal's last lines shows that the look before did not: the screen watcher
// searches only that for a key the CLI prints, instead of the same lines every second.

/**
 * The lines of `now` that `before` did not hold, with `overlap` lines before them (a key split
 * across a line end is still whole), when both are a terminal's last lines and `before` was taken
 * first; all of `now` when the two do not line up. Lines that scrolled into history never change,
 * so those of `before` open `now`, less what scrolled out of it; its last `screenRows` lines were
 * the screen, which an agent may redraw, so they count as unseen. Only lines equal to lines of
 * `before` are ever left out, so nothing `before` did not show is.
 */
export function unseenLines(before: readonly string[], now: readonly string[], screenRows: number, overlap: number): readonly string[] {
  const history = before.length - Math.max(screenRows, 0);
  for (let scrolled = 0; scrolled < history; scrolled++) {
    const kept = history - scrolled;
    if (kept > now.length) continue;
    let same = true;
    for (let i = 0; i < kept && same; i++) same = before[scrolled + i] === now[i];
    if (same) return now.slice(Math.max(0, kept - overlap));
  }
  return now;
}
