// How a session's process is run. The resume policy decides what to run and when; a backend
// only runs it. Backends know nothing of resume keys, catalogues or events.

import type { CorralError } from '../contract/errors';
import type { BackendKind, TerminalColors } from '../contract/session';
import type { Stages } from '../util/stages';

export type { TerminalColors };

/** Until a viewer says otherwise: the UI's dark theme. */
export const DEFAULT_COLORS: TerminalColors = { fg: '#d8dce3', bg: '#16181d' };

export interface SpawnSpec {
  /** Corral's session id. */
  id: string;
  /** Absolute path of the executable. */
  file: string;
  args: string[];
  cwd: string;
  /** The complete environment of the child. */
  env: Record<string, string>;
  cols: number;
  rows: number;
  /** The colours the agent is told it has. */
  colors?: TerminalColors;
  /** Told each stage of the spawn as it begins, for the log of a slow start. */
  stages?: Stages;
}

export interface ProcessExit {
  code: number | null;
  signal: string | null;
  at: number;
  /** The final output as plain text (scrollback and screen). */
  output: string;
  /** The same lines with their colours: text whose only escape sequences are SGR (ESC [ … m). */
  styled?: string;
  /** The process ended while no daemon was watching (found on open). */
  whileAway: boolean;
  /** The ended process's id, to tell one launch from the next. */
  pid: number | null;
  /** How it ended, when the backend knows and the exit status cannot tell (e.g. "the tmux server ended"). */
  ended?: string;
  /**
   * It was still running, left behind by a daemon that died without ending it, and was ended
   * on open (pty backend): these are the processes ended.
   */
  orphaned?: number[];
}

export interface LiveProcess {
  id: string;
  pid: number | null;
  /** Epoch ms of the last output or input the backend saw, when it tracks it. */
  lastActivityAt: number | null;
}

/** A viewer's connection to a running process's terminal. */
export interface Attachment {
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Flow control: stop reading the source until resume(). */
  pause(): void;
  resume(): void;
  close(): void;
}

export interface AttachOptions {
  cols: number;
  rows: number;
  /** The viewer's colours, told to the agent once this viewer is the one in use. */
  colors?: TerminalColors;
  /** Lines of scrollback replayed before the screen, the last ones; all of it when absent. */
  history?: number;
  /** The terminal's output: text, or its UTF-8 bytes as read (a character may be split across two). */
  onData(data: string | Uint8Array): void;
  /**
   * The attachment ended by itself: the process went (no argument), or the viewer's own link to
   * it did while the process still runs (an error: the viewer may connect again).
   */
  onClose?(lost?: CorralError): void;
  /** A viewer who may only look: its size never becomes the terminal's, and it cannot type. */
  viewOnly?: boolean;
  /**
   * The viewer the person uses, from its start: the terminal takes its size first, so the screen
   * and history it is sent are at that size.
   */
  inUse?: boolean;
}

export type ExitListener = (id: string, exit: ProcessExit) => void;

export interface Backend {
  readonly kind: BackendKind;
  /**
   * Starts watching. Exits that happened while nobody watched are reported to the
   * listener (with whileAway) before this resolves.
   */
  open(onExit: ExitListener): Promise<void>;
  spawn(spec: SpawnSpec): Promise<LiveProcess>;
  /** The processes of this home that are still running. */
  list(): Promise<LiveProcess[]>;
  isAlive(id: string): Promise<boolean>;
  write(id: string, data: string): Promise<void>;
  /** What the terminal shows (as `visible`), then `data` typed into it: the screen before the typing. */
  lookThenWrite(id: string, data: string): Promise<string>;
  resize(id: string, cols: number, rows: number): Promise<void>;
  /** The colours the agent's terminal reports when asked (those of the viewer in use). */
  setColors(id: string, colors: TerminalColors): Promise<void>;
  /** The last `lines` lines of the terminal (scrollback and screen) as plain text. */
  capture(id: string, lines: number): Promise<string>;
  /** What the terminal shows now, without its scrollback, as plain text. */
  visible(id: string): Promise<string>;
  /** What each of these terminals shows now (as `visible`), in one look where the backend can; a session it could not look at is left out. */
  visibleAll(ids: string[]): Promise<Map<string, string>>;
  /**
   * Ends the process on the daemon's behalf and returns what it left, or null when it was
   * already gone. No exit is reported to the listener for a process ended this way.
   */
  kill(id: string): Promise<ProcessExit | null>;
  attach(id: string, options: AttachOptions): Promise<Attachment>;
  /** Stops watching. tmux processes keep running; pty processes end with their owner. */
  close(): Promise<void>;
}
