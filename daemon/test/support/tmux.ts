// A test's or benchmark's throwaway tmux server: what its panes are, and ending it with the files
// tmux leaves (the socket, and its lock file when a server's start was cut short). Never the
// default socket.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export function killTmux(socket: string): void {
  if (!socket || socket === 'default') throw new Error(`killTmux: refusing to touch the tmux socket ${JSON.stringify(socket)}`);
  try {
    execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
  } catch {
    // no server left: good
  }
  for (const name of [socket, `${socket}.lock`]) fs.rmSync(path.join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid!()}`, name), { force: true });
}

/**
 * One line per pane of a Corral session on a test's tmux server, in tmux's `format` (e.g.
 * '#{pane_height} #{pane_width}'); none without a server. A session without a home tag is not one.
 */
export function tmuxPanes(socket: string, format: string): string[] {
  if (!socket || socket === 'default') throw new Error(`tmuxPanes: refusing to read the tmux socket ${JSON.stringify(socket)}`);
  try {
    const lines = execFileSync('tmux', ['-L', socket, 'list-panes', '-a', '-F', `#{?@corral_home,corral,}\u001f${format}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n');
    return lines.filter((line) => line.startsWith('corral\u001f')).map((line) => line.slice('corral\u001f'.length));
  } catch {
    return [];
  }
}
