// What a Corral pane runs: not the CLI itself but a small /bin/sh waiter around it, which
// outlives it until tmux has read everything it wrote (docs/known-issues.md: tmux 3.3 would
// otherwise drop an agent's last output, the very "No conversation found" of a dead resume).

import type { SpawnSpec } from './backend';

/** What the pane-died hook signals (tmux wait-for), to wake the backend's watcher; the waiter signals it too. */
export const EXIT_CHANNEL = 'corral-exit';

/** Variables tmux itself puts into a pane's environment; removed so the child gets exactly ours. */
export const TMUX_INJECTED = ['TMUX', 'TMUX_PANE', 'TERM_PROGRAM', 'TERM_PROGRAM_VERSION'];

/**
 * The pane's process (argv: the tmux binary, then the agent's command). It lets the agent have
 * Ctrl-C, Ctrl-\ and Ctrl-Z (a trap, not an ignore, so the agent gets them as usual) and waits
 * for it. Then it writes a mark into the terminal, after everything the agent wrote (a pane
 * title, which shows on no screen), and stays until tmux shows that title: tmux has then read
 * all the agent's output, by the terminal's own order, however busy the machine. It wakes the
 * backend's watcher (which then looks often until the pane is gone: tmux 3.3 sometimes misses the
 * end of a pane's process, and fires no pane-died hook), and ends as the agent did: with its exit
 * code, or by its signal. (If tmux cannot be asked, it goes on.)
 */
export const WAITER = [
  'tmux=$1; shift',
  'trap : INT QUIT TSTP',
  '"$@"',
  'status=$?',
  'mark="corral-exited-$status-$$"',
  "printf '\\033]2;%s\\033\\\\' \"$mark\"",
  'while title=$("$tmux" -S "${TMUX%%,*}" display-message -p -t "$TMUX_PANE" "#{pane_title}" 2>/dev/null) && [ "$title" != "$mark" ]; do sleep 0.01; done',
  `"$tmux" -S "\${TMUX%%,*}" wait-for -S ${EXIT_CHANNEL} 2>/dev/null`,
  'if [ "$status" -gt 128 ]; then trap - INT QUIT TSTP; kill -s "$(kill -l "$status")" "$$"; fi',
  'exit "$status"',
].join('\n');

/**
 * The argv of a new pane: the waiter, which runs the CLI (its argv untouched) through env(1).
 * env(1) removes what tmux adds to every pane and sets the terminal type tmux would otherwise
 * override.
 */
export function paneCommand(tmuxBinary: string, spec: SpawnSpec): string[] {
  return [
    '/bin/sh',
    '-c',
    WAITER,
    'corral-agent',
    tmuxBinary,
    '/usr/bin/env',
    ...TMUX_INJECTED.flatMap((v) => ['-u', v]),
    `TERM=${spec.env.TERM ?? 'xterm-256color'}`,
    ...(spec.env.COLORTERM ? [`COLORTERM=${spec.env.COLORTERM}`] : []),
    spec.file,
    ...spec.args,
  ];
}
