import { execFileSync } from 'node:child_process';
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

function tmuxInstalled(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore', timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}
