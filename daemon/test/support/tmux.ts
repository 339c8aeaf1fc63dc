// Ends a throwaway tmux server of a test or benchmark and removes the files tmux leaves: the
// socket, and its lock file when a server's start was cut short. Never the default socket.

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
