// A session as the daemon shows it, for the renderer's tests: a running, idle one unless told.

import type { SessionView } from '../../daemon/contract/session';

export const sessionView = (over: Partial<SessionView> = {}): SessionView => ({
  id: 'a',
  name: 'a',
  cli: 'faker',
  cwd: '/w/a',
  backend: 'tmux',
  state: 'running',
  resumable: true,
  createdAt: 0,
  startedAt: 0,
  lastActivityAt: null,
  lastExit: null,
  needsYou: null,
  activity: 'idle',
  git: null,
  archivedAt: null,
  worktree: null,
  usage: null,
  promptWaiting: false,
  ...over,
});
