// What the tmux backend says to tmux: the server's options, the command file that makes a
// session's pane, the names and targets of Corral's sessions, and how a list of panes reads.

import os from 'node:os';
import { DEFAULT_COLORS, type SpawnSpec, type TerminalColors } from './backend';
import { signalName } from './signals';
import { formatEscape, TmuxError, tmuxQuote } from './tmuxRunner';
import { EXIT_CHANNEL, paneCommand, TMUX_INJECTED } from './tmuxWaiter';

export const HISTORY_LIMIT = 10_000;
const FIELD = '\u001f';

/** The tmux session of a Corral session. */
export function sessionName(id: string): string {
  return `corral-${id}`;
}

/** The window of a Corral session's tmux session, matched exactly. */
export function target(id: string): string {
  return `=${sessionName(id)}:`;
}

/** Options of the whole server, sent with every spawn before its pane is made (a pane takes history-limit when it is made). */
export function serverSetup(): string[] {
  return [
    `set-option -g history-limit ${HISTORY_LIMIT}`,
    'set-option -g remain-on-exit on',
    // tmux's own "Pane is dead" line is not the agent's output: not in receipts, not on screens.
    'set-option -g remain-on-exit-format ""',
    'set-option -g status off',
    'set-option -g prefix None',
    'set-option -g prefix2 None',
    'set-option -g mouse off',
    // Window names are not Corral's: renaming reads the pane's /proc/PID/cmdline after its output,
    // which the server's read count (the backend's sign that a pane printed) would take for output.
    'set-option -g automatic-rename off',
    'set-option -s escape-time 10',
    'set-option -g focus-events on',
    'set-option -g set-clipboard off',
    `set-option -g default-terminal xterm-256color`,
    // Viewers stay on their terminal's main screen, so what scrolls off the pane scrolls into
    // the viewer's own history (the wheel scrolls it). A program's alternate screen inside
    // the pane is tmux's business and is unaffected.
    `set-option -s terminal-overrides ${tmuxQuote('xterm-256color:smcup@:rmcup@')}`,
    `set-hook -g pane-died ${tmuxQuote(`wait-for -S ${EXIT_CHANNEL}`)}`,
  ];
}

/** What the command file prints once the pane is made: its process, and the server's. */
const SPAWN_FORMAT = '#{pane_pid} #{pid}';

/**
 * The command file that makes a session: the server's options, then a detached tmux session
 * whose pane runs the waiter around the CLI, with the CLI's environment (it holds API keys:
 * it goes in this file, never on a command line), tagged with its home. It prints the pane's
 * process and the server's (SPAWN_FORMAT). The session's commands are one line: when its name
 * is taken ("duplicate session"), the rest of that line is not run on the session holding it.
 */
export function spawnScript(spec: SpawnSpec, tmuxBinary: string, homeTag: string): string[] {
  const name = sessionName(spec.id);
  const envArgs = Object.entries(spec.env)
    .filter(([key]) => !TMUX_INJECTED.includes(key))
    .map(([key, value]) => `-e ${tmuxQuote(`${key}=${value}`)}`)
    .join(' ');
  const session = [
    `new-session -d -P -F ${tmuxQuote(SPAWN_FORMAT)} -s ${tmuxQuote(name)} -x ${spec.cols} -y ${spec.rows} -c ${tmuxQuote(formatEscape(spec.cwd))} ${envArgs} -- ${paneCommand(tmuxBinary, spec).map(tmuxQuote).join(' ')}`,
    // An exact-match target ("=name") is refused inside a command file; the name is unique anyway.
    `set-option -t ${tmuxQuote(name)} @corral_home ${tmuxQuote(homeTag)}`,
    // The window keeps the size the engine gives it (the viewer the person uses): a viewer
    // that attaches only to watch never resizes the agent. (Set per window: tmux 3.3 dies
    // creating a detached session under a global "manual".)
    `set-option -w -t ${tmuxQuote(name)} window-size manual`,
    // The colours tmux reports when the agent asks (OSC 10/11): the viewer's, not none.
    `set-option -w -t ${tmuxQuote(name)} window-style ${tmuxQuote(windowStyle(spec.colors ?? DEFAULT_COLORS))}`,
  ];
  return [...serverSetup(), session.join(' ; ')];
}

/** The pane's process and the server's, from what the command file printed (null where it said none). */
export function parseSpawned(text: string): { pid: number | null; serverPid: number | null } {
  const [pid, serverPid] = text.trim().split(' ').map(Number);
  return { pid: pid || null, serverPid: serverPid || null };
}

/** True when a spawn failed because its session's name is taken (a pane of an earlier launch). */
export function isNameTaken(err: unknown): boolean {
  return err instanceof TmuxError && /duplicate session/.test(err.stderr);
}

/** A pane's default colours: what tmux answers an agent that asks for them. */
export function windowStyle(colors: TerminalColors): string {
  return `fg=${colors.fg},bg=${colors.bg}`;
}

/** The environment of a tmux client Corral runs: a path, a home and the locale, nothing else. */
export function minimalEnv(pathValue: string): Record<string, string> {
  const env: Record<string, string> = { PATH: pathValue, HOME: os.homedir() };
  for (const key of ['LANG', 'LC_ALL', 'LC_CTYPE', 'TMPDIR']) {
    const value = process.env[key];
    if (value) env[key] = value;
  }
  return env;
}

export interface PaneInfo {
  id: string;
  paneId: string;
  /** The process is gone (its terminal closed). */
  dead: boolean;
  /** tmux has its exit status too: only then is the exit reported (and pane-died fired). */
  settled: boolean;
  status: number | null;
  signal: string | null;
  deadAt: number | null;
  /** The pane's process: the waiter, whose child is the CLI. */
  pid: number | null;
  activityAt: number | null;
  serverPid: number | null;
}

/** What `list-panes -a -F` is asked for, one field per PaneInfo. */
export const PANE_FORMAT = [
  '#{session_name}',
  '#{@corral_home}',
  '#{pane_id}',
  '#{pane_dead}',
  '#{pane_dead_status}',
  '#{pane_dead_signal}',
  '#{pane_dead_time}',
  '#{pane_pid}',
  '#{window_activity}',
  '#{pid}',
].join(FIELD);

/** The panes of this home's Corral sessions, from the lines PANE_FORMAT gives. */
export function parsePanes(text: string, homeTag: string): PaneInfo[] {
  const panes: PaneInfo[] = [];
  for (const line of text.split('\n')) {
    const [name, home, paneId, dead, status, signal, deadTime, pid, activity, serverPid] = line.split(FIELD);
    if (!name?.startsWith('corral-') || home !== homeTag) continue;
    panes.push({
      id: name.slice('corral-'.length),
      paneId: paneId ?? '',
      dead: dead === '1',
      settled: dead === '1' && !!deadTime,
      status: status ? Number(status) : null,
      signal: signal ? signalName(Number(signal)) : null,
      deadAt: deadTime ? Number(deadTime) * 1000 : null,
      pid: pid ? Number(pid) : null,
      activityAt: activity ? Number(activity) * 1000 : null,
      serverPid: serverPid ? Number(serverPid) : null,
    });
  }
  return panes;
}
