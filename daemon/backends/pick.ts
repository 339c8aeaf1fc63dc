import fs from 'node:fs';
import path from 'node:path';
import type { Backend } from './backend';
import { TmuxBackend } from './tmuxBackend';

export interface PickOptions {
  home: string;
  /** tmux -L name. Default: CORRAL_TMUX_SOCKET or "corral". */
  socket?: string;
  now: () => number;
}

/** tmux where it is installed (agents outlive the daemon), else node-pty (loaded only then: it brings a native addon and a headless terminal). */
export async function pickBackend(choice: 'tmux' | 'pty' | Backend | undefined, options: PickOptions): Promise<Backend> {
  const kind = choice ?? (tmuxInstalled() ? 'tmux' : 'pty');
  if (typeof kind === 'object') return kind;
  if (kind === 'pty') {
    const { PtyBackend } = await import('./ptyBackend');
    return new PtyBackend(options.now, path.join(options.home, 'run', 'pty-agents.json'));
  }
  return new TmuxBackend({
    socket: options.socket ?? process.env.CORRAL_TMUX_SOCKET ?? 'corral',
    home: options.home,
    runDir: path.join(options.home, 'run'),
    now: options.now,
  });
}

/** An executable tmux on PATH, as the runner will find it: looked for, not run (a process less at every start). */
function tmuxInstalled(): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
    if (!dir) return false;
    try {
      const file = path.join(dir, 'tmux');
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  });
}
