// What the engine's parts share while it runs: the store, the backend and the catalogue, and
// what the engine knows beyond the database (each session's current launch, who needs their
// person, who is working, each folder's git context, the colours new agents are told). One
// object, made by the engine and handed to every part: no part keeps a copy of its own.

import os from 'node:os';
import { DEFAULT_COLORS, type Backend } from '../backends/backend';
import type { Catalogue, CliSpec } from '../catalogue/catalogue';
import type { UsageBadge } from '../contract/usage';
import { CorralError } from '../contract/errors';
import type { GitContext, NeedsYou, TerminalColors, WorktreeView } from '../contract/session';
import type { SessionRow, Store } from '../store/store';
import { KeyedQueue } from '../util/keyedQueue';
import { notInstalled } from './checks';
import { graceMs } from './resumePolicy';

export interface Clock {
  now(): number;
}

export interface EngineOptions {
  /** CORRAL_HOME: corral.db, the user's clis.toml, the lock. */
  home: string;
  /** tmux socket name (tmux -L). Default: CORRAL_TMUX_SOCKET or "corral". */
  tmuxSocket?: string;
  /** Default: tmux when it is installed, else pty. */
  backend?: 'tmux' | 'pty' | Backend;
  clock?: Clock;
  /** Overrides the catalogue's resume grace window. */
  resumeGraceMs?: number;
  /** The shipped catalogue. Default: resources/clis.toml. */
  shippedCatalogue?: string;
  /** The environment children start from. Default: this process's. */
  env?: NodeJS.ProcessEnv;
  /** Names this process in the lock, for a second engine's error. */
  holder?: string;
  /**
   * open() returns before the sessions it finds are reattached (or marked stopped): the engine's
   * `recovered` says when, and whoever serves its methods waits for that (`corral serve` listens
   * meanwhile). Without it, open() returns once they are.
   */
  recoverAfterOpen?: boolean;
  /** How often the idle reaper looks. */
  reapIntervalMs?: number;
  /** How often running sessions' screens are checked for a waiting prompt (and activity, and keys). */
  attentionIntervalMs?: number;
  /** How often clis.toml is looked at for a change. */
  catalogueIntervalMs?: number;
  /** How often a first prompt that waits looks at its agent's screen (500 ms). */
  promptIntervalMs?: number;
  /** How long an agent's screen holds still before it is taken to be ready for its first prompt (firstPrompts.ts). */
  promptQuietMs?: number;
  /** The shipped price table. Default: resources/prices.toml. */
  shippedPrices?: string;
  /** How often the CLIs' transcripts are read for what they gained (1.5 s). */
  usageIntervalMs?: number;
  /** How often each folder's git branch and changes are looked at. */
  gitIntervalMs?: number;
  /** Folders every session's previews may read besides its own. Default: the temp folder. */
  previewSharedRoots?: string[];
}

export const DEFAULT_SIZE = { cols: 160, rows: 48 };

/** What the engine knows of a session's current launch that the database does not keep. */
export interface Launch {
  /** When the current process was launched: an exit of an older launch is not this one's. */
  launchedAt: number;
  /** When its process was known to run (after the spawn): the grace window counts from here. */
  startedAt: number;
  /** The process of this launch, when the backend told. */
  pid: number | null;
  graceTimer: NodeJS.Timeout | null;
  /** The person typed since launch: an early exit is then theirs, not a dead key's. */
  typed: boolean;
  /** Reattached by a daemon that did not see it start: whether it was typed into is not known. */
  reattached: boolean;
  /** When they last typed (0: never). */
  lastInputAt: number;
  /** Its screen was seen to take text (its CLI's `ready` pattern, nothing asked), or typed into: text to submit need not wait. */
  seenReady: boolean;
  /** When lastActivityAt was last written for input. */
  savedActivityAt: number;
  size: { cols: number; rows: number };
  /** The colours its terminal reports when asked. */
  colors: TerminalColors;
  /**
   * When Enter was last typed, by the wall clock (the newest last, at most ENTERS_KEPT): a CLI that picks its own
   * id writes its conversation's file after a message is submitted, so a file is this session's
   * only if it submitted one before the file was made (learnedKeys.ts).
   */
  enters: number[];
  /** Key files: when last looked for, and whether this launch's key was found in one (or need not be). */
  keyFileLookAt: number;
  keyFileFound: boolean;
  /** Key in output: the lines last searched (the next look searches only what is new), and whether this launch's key was found in them. */
  keyOutputSeen: string[];
  keyOutputFound: boolean;
}

/** A reattached agent's colours: set by an earlier daemon's viewer, so no viewer's match them. */
export const UNKNOWN_COLORS: TerminalColors = Object.freeze({ fg: '', bg: '' });

export function newLaunch(launchedAt: number, startedAt: number, pid: number | null, size: Launch['size'], colors: TerminalColors, savedActivityAt: number): Launch {
  return { launchedAt, startedAt, pid, graceTimer: null, typed: false, reattached: false, lastInputAt: 0, seenReady: false, savedActivityAt, size, colors, enters: [], keyFileLookAt: 0, keyFileFound: false, keyOutputSeen: [], keyOutputFound: false };
}

/** How many of a launch's Enter times are kept. */
export const ENTERS_KEPT = 16;

/** Notes that Enter is typed into a launch now: by the wall clock, as files' times are. */
export function noteEnter(launch: Launch): void {
  launch.enters.push(Date.now());
  if (launch.enters.length > ENTERS_KEPT) launch.enters.shift();
}

export interface WorktreeLook {
  state: WorktreeView['state'];
  missing: boolean;
}

export class Runtime {
  /** Starts, stops, exits and the reaper run one at a time per session: a stop always wins. */
  readonly queue = new KeyedQueue();
  /** Each running session's current launch. */
  readonly launches = new Map<string, Launch>();
  /** Each session whose process is being started: settles when the backend's spawn returns (or fails). */
  readonly spawning = new Map<string, Promise<unknown>>();
  /** Sessions whose agent waits for its person, and why. */
  readonly needs = new Map<string, NeedsYou>();
  /** Running sessions that printed in the last WORKING_MS. */
  readonly working = new Set<string>();
  /**
   * When each session was last seen working (the engine's clock): the git watchers look again
   * after work that began and ended between two of their ticks.
   */
  readonly workingSeenAt = new Map<string, number>();
  /** Each folder's git context, as last asked (null: not a repository). */
  readonly gitByCwd = new Map<string, GitContext | null>();
  /** Each session's usage badge, from its CLI's transcripts (usageWatch.ts). */
  readonly usage = new Map<string, UsageBadge>();
  /** What git said of each session's own worktree at the last look (worktreeSessions.ts). */
  readonly worktreeLooks = new Map<string, WorktreeLook>();
  /** What a new agent is told its colours are: the last viewer in use's. */
  colors: TerminalColors = DEFAULT_COLORS;
  /** The engine is closing: the watchers and the reaper stop looking. */
  closing = false;

  constructor(
    readonly home: string,
    readonly store: Store,
    readonly backend: Backend,
    readonly clock: Clock,
    readonly options: EngineOptions,
    /** The catalogue in force: reloading it replaces it. */
    public catalogue: Catalogue,
  ) {}

  /** The environment children start from. */
  get env(): NodeJS.ProcessEnv {
    return this.options.env ?? process.env;
  }

  /** The person's home folder, as their agents see it (`~` in a folder they name). */
  get userHome(): string {
    return this.env.HOME || os.homedir();
  }

  /** The session's row; an unknown id is the caller's error. */
  row(id: string): SessionRow {
    const row = typeof id === 'string' ? this.store.getSession(id) : undefined;
    if (!row) throw new CorralError('unknown_session', `no session with id ${JSON.stringify(id)}`, 'id');
    return row;
  }

  /** The catalogue's CLI of that name, installed; else the caller's error, naming `field`. */
  cli(name: string, field: string): CliSpec {
    const cli = typeof name === 'string' ? this.catalogue.clis.get(name) : undefined;
    if (!cli) {
      const known = [...this.catalogue.clis.keys()].join(', ');
      throw new CorralError('unknown_cli', `no CLI named ${JSON.stringify(name)} in the catalogue (known: ${known})`, field);
    }
    if (!cli.path) throw notInstalled(cli);
    return cli;
  }

  graceMs(cli: CliSpec): number {
    return graceMs(cli, this.catalogue.defaults.resumeGraceMs, this.options.resumeGraceMs);
  }

  /** Forgets the session's launch, and its probation with it. */
  clearLaunch(id: string): void {
    const launch = this.launches.get(id);
    if (launch?.graceTimer) clearTimeout(launch.graceTimer);
    this.launches.delete(id);
  }
}
