// A tmux backend for a test that wraps tmux: a fake `tmux` in the world's bin (logging, delaying
// or holding some commands) that runs the real one, on the world's socket.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { TmuxBackend } from '../../backends/tmuxBackend';
import type { World } from './world';

/** The tmux a fake `tmux` runs. */
export function realTmux(): string {
  return execFileSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).trim();
}

/**
 * A `tmux` in the world's bin that logs each command it is given, then runs the real one (after
 * `before`, shell text such as an environment assignment). Returns the commands logged so far.
 */
export function loggingTmux(world: World, before = ''): () => string[] {
  const log = path.join(world.root, 'tmux.log');
  world.fake('tmux', `#!/bin/sh\necho "$*" >> '${log}'\n${before}exec '${realTmux()}' "$@"\n`);
  return () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter((line) => line) : []);
}

/**
 * A backend on the world's socket, made while the daemon's environment has these values
 * (undefined: unset): it reads its tmux (PATH) and its locale then.
 */
export function tmuxBackendWith(world: World, env: Record<string, string | undefined>): TmuxBackend {
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
  set(env);
  try {
    return new TmuxBackend({ socket: world.socket, home: world.home, runDir: path.join(world.home, 'run') });
  } finally {
    set(saved);
  }
}
