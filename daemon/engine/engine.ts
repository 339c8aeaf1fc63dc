// The session engine: sessions and their resume keys in SQLite, processes in a backend,
// and the lifecycle rules of DESIGN.md. Transports (HTTP, WebSocket, IPC) call its methods.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { waitingFor } from './attention';
import { streamFilter } from '../streams/boxedFilter';
import { DEFAULT_COLORS, type Attachment, type AttachOptions, type Backend, type ProcessExit } from '../backends/backend';
import { pickBackend } from '../backends/pick';
import { cliView, loadCatalogue, type Catalogue, type CliSpec } from '../catalogue/catalogue';
import { childEnv } from '../backends/childEnv';
import type { Contract } from '../contract/contract';
import type { ErrorShape } from '../contract/errors';
import type { PathPreview } from '../contract/files';
import { checkColors, isRunning, type CliView, type ExitInfo, type GitContext, type NeedsYou, type Receipt, type SessionChange, type SessionEvent, type SessionEventKind, type SessionView, type TerminalColors } from '../contract/session';
import { checkFolder, checkName, defaultName, notInstalled } from './checks';
import { conversationExists } from '../catalogue/conversations';
import { findKeyInDb, sessionInDb } from '../catalogue/sessionsDb';
import { CorralError } from '../contract/errors';
import { defaultSharedRoots, type Fence } from '../files/fence';
import { previewPath, savePath } from '../files/files';
import { gitContext } from './git';
import { HomeLock } from '../home/homeLock';
import { every, type Periodic } from './periodic';
import { findKeyInFiles } from '../catalogue/keyFiles';
import { KeyedQueue } from '../util/keyedQueue';
import { exitOutcome, graceMs, planLaunch, probationLeft, probationMs } from './resumePolicy';
import { publicEvent, publicEvents } from './publicEvent';
import { redact, tailBytes } from './redact';
import { resourcePath } from '../home/resources';
import { Store, type SessionRow } from '../store/store';
import { Tokens } from '../auth/tokens';
import { withoutReplies } from '../streams/terminalReplies';
import { isTyping } from './typing';

export const RECEIPT_MAX_BYTES = 64 * 1024;
export const DEFAULT_SIZE = { cols: 160, rows: 48 };
const SCREEN_LINES_MAX = 10_000;
/** A session that printed this recently is working. */
export const WORKING_MS = 3_000;
/** How often a session that learns its key from files looks for them. */
const KEY_FILE_LOOK_MS = 2_000;
/** How much recent output is searched for a key the CLI prints. */
const KEY_OUTPUT_LINES = 500;
const PATH_MAX = 4_096;
/** Typing then Enter (see write): how often the screen is looked at, the least and most wait. */
const SUBMIT_LOOK_MS = 40;
const SUBMIT_GAP_MS = 150;
const SUBMIT_WAIT_MS = 2_000;

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
  /** How often the idle reaper looks. */
  reapIntervalMs?: number;
  /** How often running sessions' screens are checked for a waiting prompt (and activity, and keys). */
  attentionIntervalMs?: number;
  /** How often each folder's git branch and changes are looked at. */
  gitIntervalMs?: number;
  /** Folders every session's previews may read besides its own. Default: the temp folder. */
  previewSharedRoots?: string[];
}

interface Live {
  /** When the current process was launched: an exit of an older launch is not this one's. */
  launchedAt: number;
  /** When its process was known to run (after the spawn): the grace window counts from here. */
  startedAt: number;
  /** The process of this launch, when the backend told. */
  pid: number | null;
  graceTimer: NodeJS.Timeout | null;
  /** The person typed since launch: an early exit is then theirs, not a dead key's. */
  typed: boolean;
  /** When they last typed (0: never). */
  lastInputAt: number;
  /** When lastActivityAt was last written for input. */
  savedActivityAt: number;
  size: { cols: number; rows: number };
  /** The colours its terminal reports when asked. */
  colors: TerminalColors;
  /** Key files: when last looked for, and whether this launch's key was found in one. */
  keyFileLookAt: number;
  keyFileFound: boolean;
}

function newLive(launchedAt: number, startedAt: number, pid: number | null, size: Live['size'], colors: TerminalColors, savedActivityAt: number): Live {
  return { launchedAt, startedAt, pid, graceTimer: null, typed: false, lastInputAt: 0, savedActivityAt, size, colors, keyFileLookAt: 0, keyFileFound: false };
}

export class Engine implements Contract {
  private readonly queue = new KeyedQueue();
  private readonly live = new Map<string, Live>();
  private readonly listeners = new Set<(change: SessionChange) => void>();
  /** The reaper, the screen watcher and the git watcher. */
  private readonly jobs: Periodic[] = [];
  private readonly needs = new Map<string, NeedsYou>();
  /** When each session's screen was last looked at. */
  private readonly looked = new Map<string, number>();
  /** Running sessions that printed in the last WORKING_MS. */
  private readonly working = new Set<string>();
  private watching = false;
  private readonly gitByCwd = new Map<string, GitContext | null>();
  /** When each folder's git context was last asked for. */
  private readonly gitAskedAt = new Map<string, number>();
  private gitRefreshing = false;
  private closing = false;
  /** What a new agent is told its colours are: the last viewer in use's. */
  private colors: TerminalColors = DEFAULT_COLORS;
  catalogue: Catalogue;
  readonly tokens: Tokens;
  /** Where an agent's own hook can reach this engine's API (set by the server once it listens). */
  private hookUrl: string | null = null;

  private constructor(
    readonly home: string,
    private readonly store: Store,
    readonly backend: Backend,
    private readonly lock: HomeLock,
    private readonly clock: Clock,
    private readonly options: EngineOptions,
  ) {
    this.catalogue = this.loadCatalogue();
    this.tokens = new Tokens(store, () => clock.now());
  }

  static async open(options: EngineOptions): Promise<Engine> {
    const clock = options.clock ?? { now: Date.now };
    const home = path.resolve(options.home);
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    const lock = HomeLock.acquire(home, options.holder ?? `a Corral engine (${process.argv.slice(1, 3).join(' ')})`, clock.now());
    let store: Store | null = null;
    let backend: Backend | null = null;
    try {
      store = Store.open(path.join(home, 'corral.db'));
      backend = pickBackend(options.backend, { home, socket: options.tmuxSocket, now: () => clock.now() });
      const engine = new Engine(home, store, backend, lock, clock, options);
      await engine.recover();
      return engine;
    } catch (err) {
      await backend?.close().catch(() => {});
      store?.close();
      lock.release();
      throw err;
    }
  }

  // ---- reading ---------------------------------------------------------------------------

  async listClis(): Promise<CliView[]> {
    return [...this.catalogue.clis.values()].map(cliView);
  }

  async listSessions(): Promise<SessionView[]> {
    return this.store.listSessions().map((row) => this.view(row));
  }

  async getSession({ id }: { id: string }): Promise<SessionView> {
    return this.view(this.row(id));
  }

  async events({ id }: { id: string }): Promise<SessionEvent[]> {
    return publicEvents(this.store.listEvents(id), this.row(id).resumeKey);
  }

  async receipt({ id }: { id: string }): Promise<Receipt | null> {
    return (await this.receipts({ id }))[0] ?? null;
  }

  async receipts({ id }: { id: string }): Promise<Receipt[]> {
    this.row(id);
    return this.store.listReceipts(id, this.clock.now());
  }

  async screen({ id, lines = 50 }: { id: string; lines?: number }): Promise<{ text: string }> {
    if (!Number.isInteger(lines) || lines < 1 || lines > SCREEN_LINES_MAX) {
      throw new CorralError('bad_request', `lines must be a whole number from 1 to ${SCREEN_LINES_MAX}`, 'lines');
    }
    const row = this.row(id);
    if (isRunning(row.state) && (await this.backend.isAlive(id))) {
      return { text: await this.backend.capture(id, lines) };
    }
    // A stopped session shows what it left.
    const last = this.store.listReceipts(id, this.clock.now())[0];
    return { text: last ? last.output.replace(/\s+$/, '').split('\n').slice(-lines).join('\n') : '' };
  }

  /** Subscribes to every session's changes. Returns the unsubscribe function. */
  onSessionChange(listener: (change: SessionChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A viewer's live connection to a running session's terminal. */
  async attach(id: string, options: AttachOptions): Promise<Attachment> {
    const row = this.row(id);
    if (!isRunning(row.state)) throw new CorralError('conflict', `session "${row.name}" is not running`);
    // Boxed CLIs do not get to take the viewer's mouse, screen or history away (shells do).
    const filter = streamFilter(!!this.catalogue.clis.get(row.cli)?.boxed);
    const attachment = await this.backend.attach(id, {
      ...options,
      onData: (data) => {
        const shown = filter.feed(data);
        if (shown) options.onData(shown);
      },
    });
    // A viewer's size is its own until the person uses it (types, or its view is resized):
    // a viewer that only watches never resizes the agent.
    let size = { cols: options.cols, rows: options.rows };
    const colors = checkColors(options.colors);
    /** Makes the agent's size and colours this viewer's; null when they already are. */
    const follow = (): Promise<unknown> | null => {
      const live = this.live.get(id);
      if (!live) return null;
      const changes: Promise<unknown>[] = [];
      if (colors && (live.colors.fg !== colors.fg || live.colors.bg !== colors.bg)) {
        // New agents are told the colours of the viewer the person uses last.
        live.colors = this.colors = colors;
        changes.push(this.backend.setColors(id, colors));
      }
      if (live.size.cols !== size.cols || live.size.rows !== size.rows) changes.push(this.resize({ id, ...size }));
      return changes.length ? Promise.all(changes).catch(() => {}) : null;
    };
    // Keys wait for a resize this viewer caused, in order: the agent reads them at its new size.
    let pending: Promise<unknown> | null = null;
    const after = (changing: Promise<unknown> | null, then?: () => void) => {
      if (!changing && !pending) return then?.();
      const next: Promise<unknown> = Promise.all([pending, changing]).then(() => {
        if (pending === next) pending = null;
        then?.();
      });
      pending = next;
    };
    return {
      ...attachment,
      write: (data) => {
        // What its terminal answers on its own is not for the agent (terminalReplies.ts).
        const typed = withoutReplies(data);
        if (!typed) return;
        this.noteInput(id, typed);
        after(follow(), () => attachment.write(typed));
      },
      resize: (cols, rows) => {
        size = { cols, rows };
        attachment.resize(cols, rows);
        after(follow());
      },
    };
  }

  // ---- changing --------------------------------------------------------------------------

  async createSession(req: { cli: string; cwd: string; name?: string }): Promise<SessionView> {
    const cli = this.cli(req.cli, 'cli');
    const cwd = checkFolder(req.cwd);
    const name = req.name === undefined ? defaultName(cwd) : checkName(req.name);
    const now = this.clock.now();
    const row: SessionRow = {
      id: crypto.randomUUID(),
      name,
      cli: cli.name,
      cwd,
      backend: this.backend.kind,
      state: 'stopped',
      resumeKey: null,
      launchMode: null,
      launchCount: 0,
      launchedAt: null,
      createdAt: now,
      startedAt: null,
      lastActivityAt: null,
      lastExit: null,
      position: this.store.nextPosition(),
      archivedAt: null,
    };
    this.store.insertSession(row);
    this.emit('added', row.id, this.store.appendEvent(row.id, now, 'created', `created in ${cwd}`, { cli: cli.name, cwd }));
    try {
      await this.startSession({ id: row.id });
    } catch (err) {
      // A create that could not start leaves nothing behind (a crash here is cleaned on recovery).
      this.store.deleteSession(row.id);
      this.emitView('removed', row);
      throw err;
    }
    return this.view(this.row(row.id));
  }

  async startSession({ id }: { id: string }): Promise<{ resumed: boolean; session: SessionView }> {
    this.row(id);
    return this.queue.run(id, async () => {
      const row = this.row(id);
      if (isRunning(row.state) && (await this.backend.isAlive(id))) {
        return { resumed: row.launchMode === 'resume', session: this.view(row) };
      }
      const cli = this.cli(row.cli, 'cli');
      checkFolder(row.cwd);
      // Starting an archived session (e.g. from a corral:// link) brings it back first.
      if (row.archivedAt !== null) this.unarchive(row);
      await this.launch(this.row(id), cli, false);
      const after = this.row(id);
      return { resumed: after.launchMode === 'resume', session: this.view(after) };
    });
  }

  async stopSession({ id }: { id: string }): Promise<SessionView> {
    this.row(id);
    return this.queue.run(id, async () => {
      const row = this.row(id);
      if (isRunning(row.state)) await this.end(row, 'stopped', 'stopped by you');
      return this.view(this.row(id));
    });
  }

  async forgetKey({ id }: { id: string }): Promise<SessionView> {
    this.row(id);
    return this.queue.run(id, async () => {
      const row = this.row(id);
      if (row.resumeKey) {
        this.store.updateSession(id, { resumeKey: null });
        this.record(id, 'key-dropped', 'the conversation was let go: the next start is clean', { droppedKey: row.resumeKey });
      }
      return this.view(this.row(id));
    });
  }

  async removeSession({ id, force = false }: { id: string; force?: boolean }): Promise<void> {
    this.row(id);
    return this.queue.run(id, async () => {
      const row = this.row(id);
      if (isRunning(row.state) && (await this.backend.isAlive(id))) {
        if (!force) throw new CorralError('conflict', `session "${row.name}" is running: stop it first, or remove it with force`);
        await this.backend.kill(id);
      }
      this.clearLive(id);
      this.needs.delete(id);
      this.store.deleteSession(id);
      this.emitView('removed', { ...row, state: 'stopped' });
    });
  }

  async renameSession({ id, name }: { id: string; name: string }): Promise<SessionView> {
    const checked = checkName(name);
    this.row(id);
    return this.queue.run(id, async () => {
      const row = this.row(id);
      if (row.name === checked) return this.view(row);
      this.store.updateSession(id, { name: checked });
      this.record(id, 'renamed', `renamed from "${row.name}" to "${checked}"`, { from: row.name, to: checked });
      return this.view(this.row(id));
    });
  }

  /**
   * Types into a session. With `submit`, Enter follows as a keystroke of its own once the agent
   * has taken the text in: CLIs take text and Enter arriving in one read as a paste, and leave
   * it in their input box (Codex does).
   */
  async write({ id, data, submit = false }: { id: string; data: string; submit?: boolean }): Promise<void> {
    if (typeof data !== 'string') throw new CorralError('bad_request', 'data must be text', 'data');
    const row = this.row(id);
    if (!isRunning(row.state)) throw new CorralError('conflict', `session "${row.name}" is not running: start it first`);
    this.noteInput(id, data);
    if (!submit || data === '') return this.backend.write(id, submit ? '\r' : data);
    const before = await this.backend.visible(id).catch(() => '');
    await this.backend.write(id, data);
    await this.settled(id, before);
    await this.backend.write(id, '\r');
  }

  async resize({ id, cols, rows }: { id: string; cols: number; rows: number }): Promise<void> {
    for (const [field, value, max] of [['cols', cols, 1000], ['rows', rows, 500]] as const) {
      if (!Number.isInteger(value) || value < 2 || value > max) {
        throw new CorralError('bad_request', `${field} must be a whole number from 2 to ${max}`, field);
      }
    }
    const row = this.row(id);
    const live = this.live.get(id);
    if (live) live.size = { cols, rows };
    if (isRunning(row.state)) await this.backend.resize(id, cols, rows);
  }

  async reorderSessions({ ids }: { ids: string[] }): Promise<SessionView[]> {
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) throw new CorralError('bad_request', 'ids must be a list of session ids', 'ids');
    const rows = this.store.listSessions();
    const known = new Set(rows.map((r) => r.id));
    const unknown = ids.find((id) => !known.has(id));
    if (unknown !== undefined) throw new CorralError('unknown_session', `no session with id ${JSON.stringify(unknown)}`, 'ids');
    const order = [...new Set(ids), ...rows.map((r) => r.id).filter((id) => !ids.includes(id))];
    this.store.reorder(order);
    for (const row of this.store.listSessions()) this.emitView('updated', row);
    return this.listSessions();
  }

  async archiveSession({ id }: { id: string }): Promise<SessionView> {
    this.row(id);
    return this.queue.run(id, async () => {
      const row = this.row(id);
      if (row.archivedAt !== null) return this.view(row);
      if (isRunning(row.state)) await this.end(row, 'stopped', 'stopped to be archived');
      this.store.updateSession(id, { archivedAt: this.clock.now() });
      this.record(id, 'archived', 'archived: out of the tab strip, with its conversation, events and receipts kept');
      return this.view(this.row(id));
    });
  }

  async restoreSession({ id }: { id: string }): Promise<SessionView> {
    this.row(id);
    return this.queue.run(id, async () => {
      const row = this.row(id);
      if (row.archivedAt !== null) this.unarchive(row);
      return this.view(this.row(id));
    });
  }

  async previewPath({ id, path: printed }: { id: string; path: string }): Promise<PathPreview> {
    return previewPath(this.fence(this.row(id)), checkPrinted(printed));
  }

  async savePath({ id, path: printed, text, version }: { id: string; path: string; text: string; version: string }) {
    const row = this.row(id);
    if (typeof text !== 'string') throw new CorralError('bad_request', 'text must be text', 'text');
    if (typeof version !== 'string' || !version) throw new CorralError('bad_request', 'version must be the version the preview gave', 'version');
    return savePath(this.fence(row), checkPrinted(printed), text, version);
  }

  async checkFolder({ path: folder }: { path: string }): Promise<{ ok: true; path: string } | { ok: false; error: ErrorShape }> {
    try {
      return { ok: true, path: checkFolder(folder) };
    } catch (err) {
      if (err instanceof CorralError) return { ok: false, error: err.toShape() };
      throw err;
    }
  }

  /** Stops watching. tmux agents keep running; pty agents end, and keep their keys. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    for (const job of this.jobs.splice(0)) job.stop();
    for (const id of [...this.live.keys()]) this.clearLive(id);
    if (this.backend.kind === 'pty') {
      for (const row of this.store.listSessions()) {
        if (isRunning(row.state)) await this.queue.run(row.id, () => this.end(row, 'daemon-stopped', 'stopped because Corral quit'));
      }
    }
    await this.queue.idle();
    await this.backend.close();
    this.store.close();
    this.lock.release();
  }

  /** Records where this engine can be reached: for a second engine's error, and for agents' hooks. */
  announce(url: string, holder: string): void {
    this.lock.update({ url, holder });
    this.hookUrl = url;
  }

  /** The agent itself says it waits for its person (e.g. Claude Code's Notification hook). */
  async flagAttention({ id, message }: { id: string; message?: string }): Promise<SessionView> {
    const row = this.row(id);
    if (message !== undefined && (typeof message !== 'string' || message.length > 500)) {
      throw new CorralError('bad_request', 'message must be text of at most 500 characters', 'message');
    }
    if (!isRunning(row.state)) throw new CorralError('conflict', `session "${row.name}" is not running`);
    this.setNeeds(id, { source: 'hook', since: this.clock.now(), ...(message ? { detail: message } : {}) });
    return this.view(this.row(id));
  }

  /** Reloads clis.toml (the shipped one and the user's). */
  reloadCatalogue(): Catalogue {
    this.catalogue = this.loadCatalogue();
    return this.catalogue;
  }

  // ---- the lifecycle -----------------------------------------------------------------------

  /** Starts a process for the session. Runs inside the session's queue. */
  private async launch(row: SessionRow, cli: CliSpec, fallback: boolean): Promise<void> {
    if (!cli.path) throw notInstalled(cli);
    let plan = planLaunch(row, cli, { fallback });
    const env = childEnv(this.options.env ?? process.env, cli.env);
    const kept = plan.mode === 'resume' ? await this.conversationKept(cli, plan.key!, env) : null;
    if (kept === false) {
      // Rule 2, first evidence: the conversation is not where the CLI keeps it. No doomed launch.
      this.loseKey(row, cli, 'missing', 'starting clean');
      row = this.row(row.id);
      plan = planLaunch(row, cli, { fallback: true });
    }
    const now = this.clock.now();
    const size = this.live.get(row.id)?.size ?? DEFAULT_SIZE;
    this.clearLive(row.id);
    const state = plan.mode === 'resume' ? 'resuming' : 'starting';
    this.needs.delete(row.id);
    this.store.updateSession(row.id, { state, launchMode: plan.mode, launchedAt: now, resumeKey: plan.key, startedAt: now });
    this.emitView('updated', this.row(row.id));
    let pid: number | null;
    try {
      ({ pid } = await this.backend.spawn({ id: row.id, file: plan.file, args: plan.args, cwd: row.cwd, env: { ...env, ...this.hookEnv(row.id) }, ...size, colors: this.colors }));
    } catch (err) {
      // The key stays as it was: nothing ran, so nothing was learned about it.
      this.store.updateSession(row.id, { state: 'stopped', resumeKey: row.resumeKey });
      const message = `could not start ${cli.label}: ${(err as Error).message}`;
      this.record(row.id, 'start-failed', message, { argv: [plan.file, ...plan.args] });
      throw new CorralError('spawn_failed', message);
    }
    // The process runs from here: the grace window counts from now, not from before the spawn.
    const live = newLive(now, this.clock.now(), pid, size, this.colors, now);
    this.live.set(row.id, live);
    // A process just started is busy starting: working, until the watcher sees it quiet.
    this.working.add(row.id);
    this.store.updateSession(row.id, { launchCount: row.launchCount + 1, lastActivityAt: now });
    const argv = [plan.file, ...plan.args];
    if (plan.mode === 'resume') this.record(row.id, 'resuming', 'resuming its conversation', { argv });
    else if (plan.mode === 'fresh') this.record(row.id, 'started', 'started clean', { argv });
    else this.record(row.id, 'started', 'started clean after the old conversation could not be resumed', { argv, fallback: true });

    if (plan.mode === 'fresh') {
      this.store.updateSession(row.id, { state: 'running' });
      this.emitView('updated', this.row(row.id));
      return;
    }
    // A resume (or the clean start after one) is on probation for the grace window, and longer
    // while a prompt waits for the person or they just answered one (resumePolicy.ts).
    const probation = probationMs(plan.mode, this.graceMs(cli), cli, kept);
    const endProbation = () => {
      void this.queue.run(row.id, async () => {
        const current = this.store.getSession(row.id);
        if (!current || this.live.get(row.id) !== live || (current.state !== 'resuming' && current.state !== 'starting')) return;
        const left = probationLeft({ needsYou: this.needs.has(row.id), quietForMs: this.clock.now() - live.lastInputAt, probationMs: probation });
        if (left !== null) {
          live.graceTimer = setTimeout(endProbation, left);
          live.graceTimer.unref?.();
          return;
        }
        this.store.updateSession(row.id, { state: 'running' });
        if (current.state === 'resuming') this.record(row.id, 'resumed', 'resumed its conversation');
        else this.emitView('updated', this.row(row.id));
      });
    };
    live.graceTimer = setTimeout(endProbation, probation);
    live.graceTimer.unref?.();
  }

  /** Whether the CLI still keeps the conversation of `key`, where the catalogue says it looks (null: cannot tell). */
  private async conversationKept(cli: CliSpec, key: string, env: Record<string, string>): Promise<boolean | null> {
    if (cli.conversation) return conversationExists(cli.conversation, key, env);
    if (!cli.sessionsDb) return null;
    try {
      return sessionInDb(cli.sessionsDb, key, env);
    } catch (err) {
      console.error(`corral: could not read ${cli.label}'s sessions (${(err as Error).message}); resuming anyway`);
      return null;
    }
  }

  /** Drops a dead key, keeping it in the log (the event says which conversation was lost). */
  private loseKey(row: SessionRow, cli: CliSpec, evidence: 'missing' | 'words' | 'timing', next: string, exit?: { info: ExitInfo; output: string }): void {
    const why =
      evidence === 'missing'
        ? `it is not in ${cli.label}'s files`
        : evidence === 'words'
          ? `${cli.label} could not find it, and ${describeExit(exit!.info)}`
          : `${describeExit(exit!.info)} at once, with nothing typed`;
    this.store.updateSession(row.id, exit ? { resumeKey: null, lastExit: exit.info } : { resumeKey: null });
    this.record(row.id, 'resume-failed', `could not resume the conversation (${why}): ${next}`, {
      droppedKey: row.resumeKey,
      evidence,
      ...(exit ? { ...exit.info, output: tailBytes(exit.output, 2048) } : {}),
    });
  }

  /** A process ended by itself (the backend saw it go): gathers the facts, asks the policy, acts. */
  private onExit(id: string, exit: ProcessExit): Promise<void> {
    return this.queue.run(id, async () => {
      const row = this.store.getSession(id);
      // A removal got here first: this exit is no longer news.
      if (!row) return;
      const exitInfo: ExitInfo = { code: exit.code, signal: exit.signal, at: exit.at };
      const output = receiptText(exit.output);
      const live = this.live.get(id);
      const cli = this.catalogue.clis.get(row.cli);
      const outcome = exitOutcome(
        {
          running: isRunning(row.state),
          launchPid: live?.pid ?? null,
          exitPid: exit.pid,
          orphaned: exit.orphaned !== undefined,
          endedFromOutside: !!exit.ended,
          mode: row.launchMode,
          key: row.resumeKey,
          code: exit.code,
          output: exit.output,
          typed: !!live?.typed,
          livedMs: Math.max(0, exit.at - (live?.startedAt ?? row.launchedAt ?? 0)),
          graceMs: cli ? this.graceMs(cli) : 0,
          whileAway: exit.whileAway,
        },
        cli,
      );
      if (outcome.kind === 'old-news') {
        // A stop or a newer launch got here first: keep what the old process left, change nothing.
        this.store.addReceipt({ sessionId: id, exit: exitInfo, reason: 'exited', output });
        return;
      }
      this.clearLive(id);
      if (outcome.kind === 'found-gone') {
        // A crashed daemon's pty agent, ended on the way back: stopped with its key, like one found gone.
        this.store.updateSession(id, { state: 'stopped' });
        this.record(id, 'found-gone', 'it was still running after Corral crashed, with no terminal to show it: it was ended, and start resumes it', {
          resumable: !!row.resumeKey,
          endedPids: exit.orphaned,
        });
        return;
      }
      this.learnKey(row, cli, exit.output);

      if (outcome.kind === 'dead-key') {
        // Rule 2: the key is dead. Drop it (keeping it in the log) and start clean, once; after a
        // restart nothing is launched on its own (rule 7): the next start is clean.
        this.store.addReceipt({ sessionId: id, exit: exitInfo, reason: 'resume-failed', output });
        if (!outcome.startClean) {
          this.store.updateSession(id, { state: 'exited' });
          this.loseKey(this.row(id), cli!, outcome.evidence, 'the next start is clean', { info: exitInfo, output });
          return;
        }
        this.loseKey(this.row(id), cli!, outcome.evidence, 'starting clean', { info: exitInfo, output });
        try {
          await this.launch(this.row(id), cli!, true);
        } catch {
          // launch() recorded why; the session is stopped.
        }
        return;
      }
      if (outcome.kind === 'fallback-failed') {
        // Rule 3: the clean start died too: stop here, no loop. Its id never held a conversation.
        this.store.addReceipt({ sessionId: id, exit: exitInfo, reason: 'fallback-failed', output });
        const current = this.row(id);
        this.store.updateSession(id, { state: 'exited', lastExit: exitInfo, resumeKey: null });
        this.record(id, 'fallback-failed', `the clean start failed too (${describeExit(exitInfo)}): not trying again`, {
          ...exitInfo,
          droppedKey: current.resumeKey,
          output: tailBytes(output, 2048),
        });
        return;
      }
      this.store.addReceipt({ sessionId: id, exit: exitInfo, reason: 'exited', output });
      this.store.updateSession(id, { state: 'exited', lastExit: exitInfo });
      // An exit nobody asked for is worth a look.
      const how = exit.ended ?? describeExit(exitInfo);
      const words = exit.whileAway ? `${how} while Corral was not running` : how;
      this.needs.set(id, { source: 'exit', since: this.clock.now(), detail: how });
      this.record(id, 'exited', words, { ...exitInfo, whileAway: exit.whileAway, ...(exit.ended ? { ended: exit.ended } : {}) });
    });
  }

  /** Ends a running process on the daemon's or the person's behalf. The key always stays. */
  private async end(row: SessionRow, reason: 'stopped' | 'reaped' | 'daemon-stopped', words: string): Promise<void> {
    this.clearLive(row.id);
    this.needs.delete(row.id);
    const exit = await this.backend.kill(row.id);
    const at = exit?.at ?? this.clock.now();
    const exitInfo: ExitInfo = { code: exit?.code ?? null, signal: exit?.signal ?? null, at };
    if (exit) {
      this.learnKey(row, this.catalogue.clis.get(row.cli), exit.output);
      this.store.addReceipt({ sessionId: row.id, exit: exitInfo, reason, output: receiptText(exit.output) });
    }
    this.store.updateSession(row.id, { state: 'stopped', lastExit: exitInfo });
    this.record(row.id, reason === 'reaped' ? 'reaped' : 'stopped', words, { reason });
  }

  /** Rule 5: after a restart, reattach what is alive and mark the rest stopped. Nothing is launched. */
  private async recover(): Promise<void> {
    const away: [string, ProcessExit][] = [];
    await this.backend.open((id, exit) => {
      if (exit.whileAway) away.push([id, exit]);
      else void this.onExit(id, exit);
    });
    for (const [id, exit] of away) await this.onExit(id, exit);
    const alive = new Map((await this.backend.list()).map((p) => [p.id, p]));
    const now = this.clock.now();
    this.store.expireReceipts(now);
    for (const row of this.store.listSessions()) {
      const proc = alive.get(row.id);
      if (!proc && row.launchCount === 0) {
        // Created, never started: a create cut short by a crash. It leaves nothing behind.
        this.store.deleteSession(row.id);
        continue;
      }
      if (proc) {
        this.live.set(row.id, newLive(row.launchedAt ?? now, row.launchedAt ?? now, proc.pid, DEFAULT_SIZE, this.colors, 0));
        this.store.updateSession(row.id, { state: 'running', lastActivityAt: proc.lastActivityAt ?? row.lastActivityAt });
        this.record(row.id, 'reattached', 'reattached after Corral restarted', { pid: proc.pid });
      } else if (isRunning(row.state)) {
        this.store.updateSession(row.id, { state: 'stopped' });
        this.record(row.id, 'found-gone', 'its process was gone when Corral came back', { resumable: !!row.resumeKey });
      }
    }
    this.jobs.push(
      every('the idle reaper', this.options.reapIntervalMs ?? 60_000, () => this.reap()),
      every('the screen watcher', this.options.attentionIntervalMs ?? 1_000, () => this.watchAttention()),
      every('the git watcher', this.options.gitIntervalMs ?? 5_000, () => this.refreshGit()),
    );
    void this.refreshGit(true).catch((err: Error) => console.error(`corral: the git watcher failed (it goes on): ${err.message}`));
  }

  /**
   * Once a second: which running sessions are working, which screens show a prompt that waits
   * for the person, and the resume keys CLIs choose themselves (stored the moment they show).
   */
  async watchAttention(): Promise<void> {
    if (this.closing || this.watching) return;
    this.watching = true;
    try {
      const alive = new Map((await this.backend.list()).map((p) => [p.id, p]));
      for (const row of this.store.listSessions()) {
        const proc = alive.get(row.id);
        if (!proc || !isRunning(row.state)) {
          this.working.delete(row.id);
          continue;
        }
        const cli = this.catalogue.clis.get(row.cli);
        const now = this.clock.now();
        // Nothing printed since the last look: nothing new to see (tmux tells activity to the second).
        const printedAt = proc.lastActivityAt;
        const changed = printedAt === null || printedAt + 1_000 >= (this.looked.get(row.id) ?? 0);
        this.looked.set(row.id, now);
        this.setWorking(row.id, printedAt !== null && now - printedAt < WORKING_MS);
        if (!cli) continue;
        const current = this.needs.get(row.id);
        if (cli.attention.length > 0 && (changed || current?.source === 'screen')) {
          const screen = await this.backend.visible(row.id).catch(() => null);
          if (screen !== null) {
            const seen = waitingFor(screen, cli.attention);
            if (seen && !current) this.setNeeds(row.id, { source: 'screen', since: now, detail: seen });
            else if (!seen && current?.source === 'screen') this.setNeeds(row.id, null);
          }
        }
        if (cli.resume && cli.keyFromOutput && changed) {
          const output = await this.backend.capture(row.id, KEY_OUTPUT_LINES).catch(() => '');
          const key = lastMatch(cli.keyFromOutput, output);
          if (key) await this.storeLearnedKey(row.id, key, 'output');
        }
        if (cli.resume && (cli.keyFromFile || cli.sessionsDb)) await this.lookForKeyFile(row, cli);
      }
    } finally {
      this.watching = false;
    }
  }

  /** Looks (every few seconds, until found) for the file a CLI wrote its session id in. */
  private async lookForKeyFile(row: SessionRow, cli: CliSpec): Promise<void> {
    const live = this.live.get(row.id);
    const now = this.clock.now();
    if (!live || live.keyFileFound || now - live.keyFileLookAt < KEY_FILE_LOOK_MS) return;
    live.keyFileLookAt = now;
    const taken = new Set(this.store.listSessions().flatMap((r) => (r.id !== row.id && r.resumeKey ? [r.resumeKey] : [])));
    const env = childEnv(this.options.env ?? process.env, cli.env);
    const search = { cwd: row.cwd, env, since: live.launchedAt, taken };
    const key = await (cli.keyFromFile ? findKeyInFiles(cli.keyFromFile, search) : Promise.resolve().then(() => findKeyInDb(cli.sessionsDb!, search))).catch(() => null);
    if (!key || this.live.get(row.id) !== live) return;
    live.keyFileFound = true;
    await this.storeLearnedKey(row.id, key, 'file');
  }

  /** Stores a key a running CLI showed, unless a newer launch or a stop got there first. */
  private storeLearnedKey(id: string, key: string, from: 'output' | 'file'): Promise<void> {
    const live = this.live.get(id);
    return this.queue.run(id, async () => {
      if (live && this.live.get(id) === live) this.keepKey(id, key, from);
    });
  }

  /**
   * Each folder's git branch and changes, asked of git in the background: a folder with a
   * running session at every tick, the others six times less often. `all` asks for every one.
   */
  async refreshGit(all = false): Promise<void> {
    if (this.closing || this.gitRefreshing) return;
    this.gitRefreshing = true;
    try {
      const rows = this.store.listSessions().filter((row) => row.archivedAt === null);
      const busy = new Set(rows.filter((row) => isRunning(row.state)).map((row) => row.cwd));
      const slow = (this.options.gitIntervalMs ?? 5_000) * 6;
      for (const cwd of new Set(rows.map((row) => row.cwd))) {
        const now = this.clock.now();
        if (!all && !busy.has(cwd) && now - (this.gitAskedAt.get(cwd) ?? 0) < slow) continue;
        this.gitAskedAt.set(cwd, now);
        const git = await gitContext(cwd, this.options.env ?? process.env);
        if (this.closing) return;
        const before = this.gitByCwd.get(cwd);
        this.gitByCwd.set(cwd, git);
        if (before !== undefined && JSON.stringify(before) === JSON.stringify(git)) continue;
        for (const row of rows) if (row.cwd === cwd) this.emit('updated', row.id);
      }
    } finally {
      this.gitRefreshing = false;
    }
  }

  /** Rule 6: stop sessions idle past their CLI's limit. Their keys stay. */
  async reap(): Promise<void> {
    if (this.closing) return;
    const now = this.clock.now();
    const alive = new Map((await this.backend.list()).map((p) => [p.id, p]));
    for (const row of this.store.listSessions()) {
      const proc = alive.get(row.id);
      if (!proc || !isRunning(row.state)) continue;
      const last = Math.max(row.lastActivityAt ?? 0, proc.lastActivityAt ?? 0, row.launchedAt ?? 0);
      if (last > (row.lastActivityAt ?? 0)) this.store.updateSession(row.id, { lastActivityAt: last });
      const cli = this.catalogue.clis.get(row.cli);
      const limit = cli?.idleTimeoutMs === undefined ? this.catalogue.defaults.idleTimeoutMs : cli.idleTimeoutMs;
      if (limit === null || now - last < limit) continue;
      await this.queue.run(row.id, async () => {
        const current = this.store.getSession(row.id);
        if (current && isRunning(current.state)) await this.end(current, 'reaped', `stopped after ${formatSpan(now - last)} idle`);
      });
    }
  }

  // ---- helpers -----------------------------------------------------------------------------

  /** What a process left, looked at once more for the key its CLI prints. */
  private learnKey(row: SessionRow, cli: CliSpec | undefined, output: string): void {
    if (!cli?.keyFromOutput || !cli.resume) return;
    const found = lastMatch(cli.keyFromOutput, output);
    if (found) this.keepKey(row.id, found, 'output');
  }

  /** Stores a learned key, and says so, unless it is the one already stored. */
  private keepKey(id: string, key: string, from: 'output' | 'file'): void {
    const current = this.store.getSession(id);
    if (!current || current.resumeKey === key) return;
    this.store.updateSession(id, { resumeKey: key });
    this.record(id, 'key-learned', 'learned the conversation to resume', { key, from });
  }

  /**
   * What an agent needs to call its hook: the API's address, its session id, and a token that
   * may act on this session alone. A new token each launch; the old one goes, and all of them go
   * with the session.
   */
  private hookEnv(id: string): Record<string, string> {
    if (!this.hookUrl) return {};
    this.tokens.revokeForSession(id);
    const { secret } = this.tokens.create(`hook of session ${id}`, { readOnly: true, sessionId: id, ephemeral: true });
    return { CORRAL_URL: this.hookUrl, CORRAL_SESSION_ID: id, CORRAL_SESSION_TOKEN: secret };
  }

  private setWorking(id: string, working: boolean): void {
    if (working === this.working.has(id)) return;
    if (working) this.working.add(id);
    else this.working.delete(id);
    this.emit('updated', id);
  }

  private unarchive(row: SessionRow): void {
    this.store.updateSession(row.id, { archivedAt: null });
    this.record(row.id, 'restored', 'restored to the tab strip');
    this.gitAskedAt.delete(row.cwd);
    void this.refreshGit();
  }

  private fence(row: SessionRow): Fence {
    const userHome = (this.options.env ?? process.env).HOME || os.homedir();
    return { cwd: row.cwd, shared: this.options.previewSharedRoots ?? defaultSharedRoots(), corralHome: this.home, userHome };
  }

  private setNeeds(id: string, needs: NeedsYou | null): void {
    const had = this.needs.get(id);
    if (!needs && !had) return;
    if (needs) this.needs.set(id, needs);
    else this.needs.delete(id);
    this.emit('updated', id);
  }

  private noteInput(id: string, data: string): void {
    // A terminal's own replies (to queries, on focus) are neither typing nor activity.
    if (!isTyping(data)) return;
    // The person answered: whatever waited for them is theirs now.
    this.setNeeds(id, null);
    const live = this.live.get(id);
    const now = this.clock.now();
    if (live) {
      live.typed = true;
      live.lastInputAt = now;
    }
    // Every keystroke counts as activity; the database hears of it at most once a second.
    if (live && now - live.savedActivityAt < 1_000) return;
    if (live) live.savedActivityAt = now;
    this.store.updateSession(id, { lastActivityAt: now });
  }

  /**
   * Waits until the agent has shown what was typed (its screen changed, then held still for two
   * looks), at least SUBMIT_GAP_MS after the typing, at most SUBMIT_WAIT_MS: Enter sooner would
   * join the text in the agent's read, or in its paste window.
   */
  private async settled(id: string, before: string): Promise<void> {
    const typedAt = Date.now();
    let last = before;
    let still = 0;
    while (Date.now() - typedAt < SUBMIT_WAIT_MS) {
      await new Promise((resolve) => setTimeout(resolve, SUBMIT_LOOK_MS));
      const now = await this.backend.visible(id).catch(() => null);
      if (now === null) return;
      still = now !== before && now === last ? still + 1 : 0;
      last = now;
      if (still >= 2 && Date.now() - typedAt >= SUBMIT_GAP_MS) return;
    }
  }

  private graceMs(cli: CliSpec): number {
    return graceMs(cli, this.catalogue.defaults.resumeGraceMs, this.options.resumeGraceMs);
  }

  private clearLive(id: string): void {
    const live = this.live.get(id);
    if (live?.graceTimer) clearTimeout(live.graceTimer);
    this.live.delete(id);
  }

  private record(id: string, kind: SessionEventKind, message: string, detail: Record<string, unknown> = {}): SessionEvent {
    const event = this.store.appendEvent(id, this.clock.now(), kind, message, detail);
    this.emit('updated', id, event);
    return event;
  }

  private emit(kind: SessionChange['kind'], id: string, event?: SessionEvent): void {
    const row = this.store.getSession(id);
    if (row) this.emitView(kind, row, event);
  }

  private emitView(kind: SessionChange['kind'], row: SessionRow, event?: SessionEvent): void {
    const change: SessionChange = event ? { kind, session: this.view(row), event: publicEvent(event, [row.resumeKey]) } : { kind, session: this.view(row) };
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (err) {
        console.error('corral: a session-change listener failed:', err);
      }
    }
  }

  private row(id: string): SessionRow {
    const row = typeof id === 'string' ? this.store.getSession(id) : undefined;
    if (!row) throw new CorralError('unknown_session', `no session with id ${JSON.stringify(id)}`, 'id');
    return row;
  }

  private cli(name: string, field: string): CliSpec {
    const cli = typeof name === 'string' ? this.catalogue.clis.get(name) : undefined;
    if (!cli) {
      const known = [...this.catalogue.clis.keys()].join(', ');
      throw new CorralError('unknown_cli', `no CLI named ${JSON.stringify(name)} in the catalogue (known: ${known})`, field);
    }
    if (!cli.path) throw notInstalled(cli);
    return cli;
  }

  private view(row: SessionRow): SessionView {
    const cli = this.catalogue.clis.get(row.cli);
    return {
      id: row.id,
      name: row.name,
      cli: row.cli,
      cwd: row.cwd,
      backend: row.backend,
      state: row.state,
      resumable: !!row.resumeKey && !!cli?.resume,
      createdAt: row.createdAt,
      startedAt: row.startedAt,
      lastActivityAt: row.lastActivityAt,
      lastExit: row.lastExit,
      needsYou: this.needs.get(row.id) ?? null,
      activity: !isRunning(row.state) ? null : this.needs.has(row.id) ? 'needs-you' : this.working.has(row.id) ? 'working' : 'idle',
      git: this.gitByCwd.get(row.cwd) ?? null,
      archivedAt: row.archivedAt,
    };
  }

  private loadCatalogue(): Catalogue {
    const env = childEnv(this.options.env ?? process.env, {});
    const catalogue = loadCatalogue({
      shippedFile: this.options.shippedCatalogue ?? SHIPPED_CATALOGUE,
      userFile: path.join(this.home, 'clis.toml'),
      pathEnv: env.PATH,
    });
    for (const problem of catalogue.problems) console.error(`corral: ${problem.message}`);
    return catalogue;
  }
}

export const SHIPPED_CATALOGUE = resourcePath('clis.toml');


function checkPrinted(printed: unknown): string {
  if (typeof printed !== 'string' || printed.trim() === '' || printed.length > PATH_MAX) {
    throw new CorralError('bad_request', `path must be a path of 1 to ${PATH_MAX} characters`, 'path');
  }
  return printed;
}

function receiptText(output: string): string {
  return tailBytes(redact(output), RECEIPT_MAX_BYTES);
}

export function describeExit(exit: ExitInfo): string {
  if (exit.signal) return `ended by ${exit.signal}`;
  return `exited with code ${exit.code ?? 'unknown'}`;
}

function lastMatch(pattern: RegExp, text: string): string | null {
  const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  let found: string | null = null;
  for (const match of text.matchAll(global)) if (match[1]) found = match[1];
  return found;
}

function formatSpan(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return `${Math.round(ms / 1000)} s`;
  if (minutes < 120) return `${minutes} min`;
  return `${Math.round(minutes / 60)} h`;
}
