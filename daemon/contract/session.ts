// The shapes every layer shares. Pure TypeScript: no Node, no Electron, no DOM.

import type { UsageBadge } from './usage';

export type SessionState = 'stopped' | 'starting' | 'resuming' | 'running' | 'exited';

/**
 * The states in which a session has a process: it can be typed into, watched and stopped.
 * "Running" in the wide sense the UI and error messages use; `running` itself is one of them.
 */
export const RUNNING_STATES: readonly SessionState[] = ['starting', 'resuming', 'running'];

export function isRunning(state: SessionState): boolean {
  return RUNNING_STATES.includes(state);
}
export type BackendKind = 'tmux' | 'pty';

/** A viewer's default foreground and background, "#rrggbb": what an agent that asks (OSC 10/11) is told. */
export interface TerminalColors {
  fg: string;
  bg: string;
}

/** What a viewer shows a session's terminal at: its size, and its colours when it has them. */
export interface TerminalView {
  cols: number;
  rows: number;
  colors?: TerminalColors;
  /** Lines of scrollback sent before the screen: the last ones. All of it when absent. */
  history?: number;
  /** The viewer is the one the person uses as it connects: the agent takes its size and colours at once. */
  inUse?: boolean;
}

/** A number of history lines that came over a boundary, when it is a whole number from 0; else none (all of it). */
export function checkHistory(value: unknown): number | undefined {
  const n = typeof value === 'string' && value !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
}

const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

/** Colours that came over a boundary, when they are two "#rrggbb" values; else none. */
export function checkColors(value: unknown): TerminalColors | undefined {
  const c = value as Partial<TerminalColors> | null | undefined;
  return typeof c?.fg === 'string' && typeof c.bg === 'string' && HEX_COLOR.test(c.fg) && HEX_COLOR.test(c.bg) ? { fg: c.fg, bg: c.bg } : undefined;
}

export interface ExitInfo {
  /** The process's exit code, or null when a signal ended it. */
  code: number | null;
  /** The signal's name (e.g. "SIGHUP") or number when the system gave no name; null for a plain exit. */
  signal: string | null;
  /** Epoch milliseconds. */
  at: number;
}

/** A session as clients see it. The resume key itself never leaves the daemon. */
export interface SessionView {
  id: string;
  name: string;
  cli: string;
  cwd: string;
  backend: BackendKind;
  state: SessionState;
  /** Whether a start will try the CLI's resume form. */
  resumable: boolean;
  createdAt: number;
  startedAt: number | null;
  lastActivityAt: number | null;
  lastExit: ExitInfo | null;
  /** The agent waits for its person: a prompt on its screen, its own hook, or an exit nobody asked for. */
  needsYou: NeedsYou | null;
  /** What a running session is doing now; null when it is not running. */
  activity: Activity | null;
  /** The folder's git branch and whether it has uncommitted changes; null outside a repository. */
  git: GitContext | null;
  /** Epoch ms when archived (out of the tab strip, everything kept), else null. */
  archivedAt: number | null;
  /** A first prompt waits to be typed once the agent is ready. */
  promptWaiting: boolean;
  /** The session's own git worktree, when it was made with one. */
  worktree: WorktreeView | null;
  /** What it has cost so far, from its CLI's transcripts; null before its first call, or for a CLI Corral cannot read. */
  usage: UsageBadge | null;
}

export type { UsageBadge };

/** A start's answer: `resumed` when it tried the CLI's resume form. */
export interface StartResult {
  resumed: boolean;
  session: SessionView;
  /** The conversation found gone before the start, which then started clean (the event log says the same). */
  lost?: LostConversation;
}

export interface LostConversation {
  /** The key's first characters and "…": the whole stays in the daemon's database. */
  keyHint: string;
  /** Why it could not be resumed: "it is not in Claude Code's files". */
  why: string;
}

export interface WorktreeView {
  path: string;
  /** The folder of the repository it was made from: the sidebar's group. */
  repo: string;
  branch: string;
  /** The branch (or commit) it was made from, and is merged into. */
  base: string;
  /** What git said at the last look (every few seconds); null before the first. */
  state: { ahead: number; behind: number; uncommitted: number; changedFiles: number } | null;
  /** Its folder was deleted by hand: the session cannot start until it is removed. */
  missing: boolean;
  /** The repository's setup command has not finished yet in it. */
  settingUp: boolean;
}

/** working: it printed in the last few seconds; needs-you: see needsYou. */
export type Activity = 'working' | 'idle' | 'needs-you';

export interface GitContext {
  /** The branch, or the short commit when detached. */
  branch: string;
  dirty: boolean;
}

export interface NeedsYou {
  source: 'screen' | 'hook' | 'exit';
  since: number;
  /** What was seen (the matched prompt), when there is something to show. */
  detail?: string;
  /** What the question is about, when its screen shows it: the command or the file (the lines beside it). */
  about?: string;
  /** A first-run, trust or sign-in screen (the catalogue's `setup`): answered in the terminal, never with one key from a list. */
  setup?: true;
}

export type SessionEventKind =
  | 'created'
  | 'started' // a fresh start, from `args`
  | 'resuming' // a start from `resume` with the stored key
  | 'resumed' // that resume held: the conversation is back
  | 'resume-failed' // the key is dead (gone from the CLI's files, the CLI said so, or a quick exit): dropped, clean start follows
  | 'fallback-failed' // the clean start after a failed resume died too: no more tries
  | 'start-failed' // the process could not be started at all
  | 'key-learned'
  | 'key-dropped' // dropped by the person ("restart clean")
  | 'stopped' // by the person
  | 'exited' // by itself
  | 'reaped' // stopped for idleness
  | 'found-gone' // its process was gone when the daemon came back
  | 'reattached' // its process was alive when the daemon came back
  | 'renamed'
  | 'archived'
  | 'restored'
  | 'prompt-typed' // the first prompt, once the agent was ready
  | 'prompt-skipped' // the first prompt was not typed (the person typed first): its text is in the event
  | 'merged' // its worktree's branch was merged into its base
  | 'pull-request'; // its worktree's branch was pushed and a pull request opened

export interface SessionEvent {
  id: number;
  sessionId: string;
  at: number;
  kind: SessionEventKind;
  /** Words a person can read, e.g. "exited with code 1". */
  message: string;
  /**
   * Structured facts for the UI and tests (e.g. code, droppedKeyHint). A resume key is never
   * here: argv shows "<resume key>" where it was, and a dropped or learned key only its first 8
   * characters and "…" (droppedKeyHint, keyHint). The daemon's database keeps the whole.
   */
  detail: Record<string, unknown>;
}

export interface Receipt {
  id: number;
  sessionId: string;
  exit: ExitInfo;
  /**
   * Why the process ended, from Corral's point of view. `found-gone`: it ended while no Corral
   * was there to see it (a crash, a reboot): its output was not kept.
   */
  reason: 'exited' | 'stopped' | 'reaped' | 'resume-failed' | 'fallback-failed' | 'daemon-stopped' | 'found-gone';
  /** The last output as plain text, at most 64 KiB, secrets redacted. */
  output: string;
  /**
   * The same output with its colours: text whose only escape sequences are SGR (ESC [ … m), at
   * most 64 KiB (so it may start later than `output`); null when none was kept.
   */
  styled: string | null;
  /** What the session had cost by then (its badge at the last read of its transcripts), if anything. */
  usage: UsageBadge | null;
}

export interface CliView {
  name: string;
  label: string;
  color: string;
  /** The command resolves to an executable. */
  installed: boolean;
  /** Absolute path of what will be run, when installed. */
  path: string | null;
  /** Has a resume form. */
  resumable: boolean;
  boxed: boolean;
  /**
   * The keys that answer its approval prompt (from the catalogue's `answers`), typed as they
   * are with `write` when the person approves or denies from the session list; null: none.
   */
  answers: { approve: string; deny: string } | null;
}

export interface CatalogueProblem {
  /** The file the problem is in. */
  file: string;
  /** 1-based line and column, for TOML syntax errors. */
  line?: number;
  column?: number;
  /** The CLI entry and field, for schema errors. */
  cli?: string;
  field?: string;
  message: string;
}

/** A change to one session, pushed to every subscriber. */
export interface SessionChange {
  kind: 'added' | 'updated' | 'removed';
  session: SessionView;
  /** The event that caused the change, when there is one. */
  event?: SessionEvent;
  /** After a reorder (on the last of its changes): every session's id in the new order, the tab order. */
  order?: string[];
}

/**
 * A list of sessions after one change: removed, added at the end, or replaced in its place; and
 * after a reorder, the sessions it names in its order, in the places they held (a list of several
 * hosts' sessions keeps the others where they were).
 */
export function withChange(sessions: SessionView[], change: SessionChange): SessionView[] {
  const { session } = change;
  if (change.kind === 'removed') return sessions.filter((s) => s.id !== session.id);
  const index = sessions.findIndex((s) => s.id === session.id);
  const changed = index < 0 ? [...sessions, session] : sessions.map((s, i) => (i === index ? session : s));
  return change.order ? inOrder(changed, change.order) : changed;
}

function inOrder(sessions: SessionView[], order: string[]): SessionView[] {
  const rank = new Map(order.map((id, i) => [id, i]));
  const held = sessions.filter((s) => rank.has(s.id));
  const named = [...held].sort((a, b) => rank.get(a.id)! - rank.get(b.id)!);
  if (named.every((s, i) => s === held[i])) return sessions;
  let next = 0;
  return sessions.map((s) => (rank.has(s.id) ? named[next++]! : s));
}

/** A client whose events stream says when it (re)connects, with its hello's list when it has it. */
export interface Reconnecting {
  onReconnect?(listener: (sessions?: SessionView[]) => void): () => void;
}

/**
 * What keeps a client's list beside its events stream: given the hello's list (as of the changes
 * after it), takes it; given none, reads one (`read`, null when it could not), which stands only
 * until a hello's list has come, since it may be older than a change applied meanwhile.
 */
export function listKeeper(read: () => Promise<SessionView[] | null>, take: (sessions: SessionView[]) => void): (sessions?: SessionView[]) => void {
  let streamed = false;
  return (sessions) => {
    if (sessions) {
      streamed = true;
      return take(sessions);
    }
    void read().then((list) => list && !streamed && take(list));
  };
}

export const NAME_MAX = 100;
