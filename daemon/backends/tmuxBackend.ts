// One tmux server on Corral's own socket; one tmux session per Corral session, whose pane runs
// a small waiter around the CLI (tmuxWaiter.ts: it keeps the CLI's last output). remain-on-exit
// keeps a dead pane (its exit status and last output) until the daemon has read it, even when
// the daemon was not running at the time. What is said to tmux is in tmuxCommands.ts; a
// viewer's stream in tmuxAttach.ts.

import { spawn as spawnProcess, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Attachment, AttachOptions, Backend, ExitListener, LiveProcess, ProcessExit, SpawnSpec, TerminalColors } from './backend';
import { isNameTaken, minimalEnv, PANE_FORMAT, parsePanes, parseSpawned, sessionName, spawnScript, target, windowStyle, type PaneInfo } from './tmuxCommands';
import { onlySgr, withoutEscapes } from './sgr';
import { TmuxError, TmuxRunner } from './tmuxRunner';
import { TmuxSocket } from './tmuxSocket';
import { EXIT_CHANNEL } from './tmuxWaiter';
import { KeyedQueue } from '../util/keyedQueue';
import type { Stages } from '../util/stages';

/** The watcher's own look when no hook woke it: the engine's screen watcher looks every second anyway (list()). */
const WATCH_INTERVAL_MS = 5_000;
/** After a signal (an agent ended): looks this often for a while, in case tmux missed the pane's end. */
const WATCH_FAST_MS = 100;
const WATCH_FAST_FOR_MS = 3_000;
/** Without a server: the watcher looks again this often (in memory, or with tmux after it found none), unless a spawn wakes it first. */
const NO_SERVER_LOOK_MS = 2_000;
/** The queue's one key: every reconcile and kill waits for the one before. */
const ONE_LINE = 'tmux';

export interface TmuxBackendOptions {
  socket: string;
  /** The Corral home: its sessions are told apart from other homes' on a shared socket. */
  home: string;
  /** Where command files (they hold environments) are written, mode 0700. */
  runDir: string;
  timeoutMs?: number;
  now?: () => number;
}

export class TmuxBackend implements Backend {
  readonly kind = 'tmux' as const;
  private readonly runner: TmuxRunner;
  private readonly socket: TmuxSocket;
  private readonly homeTag: string;
  private readonly now: () => number;
  private onExit: ExitListener = () => {};
  private watcher: ChildProcess | null = null;
  private closed = false;
  /** Reconciles and kills run one at a time (all under ONE_LINE), so an exit is reported exactly once. */
  private readonly queue = new KeyedQueue();
  private wake: (() => void) | null = null;
  /** Counts spawns: one that ends while the watcher still looks (before it sets wake) is not missed. */
  private spawns = 0;
  private nudging: NodeJS.Timeout | null = null;
  private watchFastUntil = 0;
  /** Sessions this backend ended itself: their exits are not news. */
  private readonly killing = new Set<string>();
  /** Sessions seen running: one that disappears without a dead pane (its tmux server or session was killed) still gets its exit. */
  private readonly known = new Set<string>();
  /** Whether the last look found a tmux server at all. */
  private serverSeen = false;
  private reconcileQueued = false;
  /** The last list of panes, with what the server had read before it was asked for it, or that there was no server, or none with a pane of this home (see unchanged()). */
  private lastLook: { reads: number | 'no server'; panes: PaneInfo[] } | null = null;
  /**
   * Counts the changes made here (a spawn, a kill): a look asked for before one is out of date
   * when it answers, and is not kept (a look that found no server, answering after the spawn
   * that started one, would otherwise hold "no pane" until something printed).
   */
  private changes = 0;
  /** The server's process, as the last look with a pane said. */
  private serverPid: number | null = null;

  constructor(private readonly options: TmuxBackendOptions) {
    this.runner = new TmuxRunner(options.socket, minimalEnv(process.env.PATH ?? '/usr/bin:/bin'), options.timeoutMs);
    this.socket = new TmuxSocket(options.socket, options.runDir);
    this.homeTag = crypto.createHash('sha256').update(path.resolve(options.home)).digest('hex').slice(0, 16);
    this.now = options.now ?? Date.now;
  }

  static sessionName(id: string): string {
    return sessionName(id);
  }

  async open(onExit: ExitListener): Promise<void> {
    this.onExit = onExit;
    // No tmux process to say what is known without one (tmuxSocket.ts).
    if (!this.socket.mayHoldPanes()) this.lastLook = { reads: 'no server', panes: [] };
    // Panes that died while nobody watched may still wait for tmux to reap them.
    let panes = this.lastLook ? [] : await this.panes();
    for (let tries = 0; tries < 40; tries++) {
      const unsettled = panes.find((p) => p.dead && !p.settled);
      if (!unsettled) break;
      nudge(unsettled.serverPid);
      await new Promise((resolve) => setTimeout(resolve, 25));
      panes = await this.panes();
    }
    await this.reconcile(true, panes);
    void this.watch();
  }

  async spawn(spec: SpawnSpec): Promise<LiveProcess> {
    if (spec.file.includes('=')) throw new TmuxError(`cannot run ${spec.file}: a path with "=" cannot be started through env(1)`, '');
    const script = spawnScript(spec, this.runner.binary, this.homeTag);
    // The command file holds the environment (API keys among it): private, and gone at once.
    // It is tried first: only a name still taken needs a look at the panes.
    const run = () => {
      this.forgetLook();
      return this.runScript(script, spec.env.PATH, spec.stages).finally(() => this.forgetLook());
    };
    let printed: string;
    try {
      printed = await run();
    } catch (err) {
      if (!isNameTaken(err)) throw err;
      await this.settleEarlier(spec);
      printed = await run();
    }
    this.known.add(spec.id);
    this.spawns++;
    this.socket.spawned();
    this.wake?.();
    const { pid, serverPid } = parseSpawned(printed);
    this.serverPid = serverPid ?? this.serverPid;
    return { id: spec.id, pid, lastActivityAt: this.now() };
  }

  /** A dead pane of an earlier launch still holds the name: its exit is reported first, and its session goes with it. */
  private async settleEarlier(spec: SpawnSpec): Promise<void> {
    spec.stages?.enter('tmux list-panes (an earlier pane)');
    for (let tries = 0; tries < 50; tries++) {
      const earlier = (await this.panes()).find((p) => p.id === spec.id);
      if (!earlier) return;
      if (!earlier.dead) throw new TmuxError(`session ${spec.id} already has a running process`, '');
      if (earlier.settled) await this.reconcile();
      else {
        nudge(earlier.serverPid);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }

  /**
   * The last look, while it still holds (see unchanged()): an idle server costs no tmux process.
   */
  async list(): Promise<LiveProcess[]> {
    const panes = this.unchanged('exists') ? this.lastLook!.panes : await this.panes();
    // A look that shows a death (one whose hook did not fire, or a session gone) reconciles at once.
    const listed = new Set(panes.map((p) => p.id));
    if (panes.some((p) => p.dead && !this.killing.has(p.id)) || [...this.known].some((id) => !listed.has(id) && !this.killing.has(id))) this.reconcileSoon();
    return panes.filter((p) => !p.dead).map((p) => ({ id: p.id, pid: p.pid, lastActivityAt: p.activityAt }));
  }

  async isAlive(id: string): Promise<boolean> {
    const pane = (await this.panes()).find((p) => p.id === id);
    return !!pane && !pane.dead;
  }

  async write(id: string, data: string): Promise<void> {
    const keys = typing(id, data);
    if (keys.args.length > 0) await this.type(keys, keys.args);
  }

  /** The screen is captured and the keys typed by one tmux process (a submit's text). */
  async lookThenWrite(id: string, data: string): Promise<string> {
    const keys = typing(id, data);
    return trimmed(await this.type(keys, [...captureScreen(id), ...(keys.args.length > 0 ? [';', ...keys.args] : [])]));
  }

  /** Runs `args`, which type `keys` (and may do more first); a paste buffer a failure left behind goes. */
  private type(keys: Typing, args: string[]): Promise<string> {
    return this.runner.run(args, { input: keys.input }).catch(async (err: unknown) => {
      if (keys.buffer) await this.runner.run(['delete-buffer', '-b', keys.buffer]).catch(() => {});
      throw err;
    });
  }

  async resize(id: string, cols: number, rows: number): Promise<void> {
    await this.runner.run(['resize-window', '-t', target(id), '-x', String(cols), '-y', String(rows)]);
  }

  async setColors(id: string, colors: TerminalColors): Promise<void> {
    await this.runner.run(['set-option', '-w', '-t', target(id), 'window-style', windowStyle(colors)]);
  }

  async capture(id: string, lines: number): Promise<string> {
    const text = await this.runner.run(['capture-pane', '-p', '-J', '-t', target(id), '-S', `-${Math.max(lines, 1)}`]);
    return lastLines(text, lines);
  }

  async visible(id: string): Promise<string> {
    return trimmed(await this.runner.run(captureScreen(id)));
  }

  /**
   * One tmux process for all the screens (the watcher looks at every printing session each
   * second): each capture follows a line with a marker of this look's own, which no screen can
   * guess. tmux stops at a command that fails (a session gone meanwhile): that screen and those
   * after it are looked at one by one.
   */
  async visibleAll(ids: string[]): Promise<Map<string, string>> {
    const screens = new Map<string, string>();
    if (ids.length === 0) return screens;
    const marker = `corral-screen-${crypto.randomBytes(8).toString('hex')} `;
    const args = ids.flatMap((id) => [';', 'display-message', '-p', `${marker}${id}`, ';', ...captureScreen(id)]).slice(1);
    let failed = false;
    const text = await this.runner.run(args).catch((err: TmuxError) => {
      failed = true;
      return err.stdout;
    });
    const sections = text.split(new RegExp(`^${marker}`, 'm')).slice(1);
    // After a failure the last section is the capture that failed.
    if (failed) sections.pop();
    for (const section of sections) {
      const end = section.indexOf('\n');
      screens.set(section.slice(0, end), trimmed(section.slice(end + 1)));
    }
    for (const rest of ids.filter((id) => !screens.has(id))) {
      const screen = await this.visible(rest).catch(() => null);
      if (screen !== null) screens.set(rest, screen);
    }
    return screens;
  }

  kill(id: string): Promise<ProcessExit | null> {
    return this.queue.run(ONE_LINE, async () => {
      const pane = (await this.panes()).find((p) => p.id === id);
      if (!pane) return null;
      const { output, styled } = await this.captureAll(id).catch(() => ({ output: '', styled: '' }));
      this.killing.add(id);
      this.forgetLook();
      try {
        await this.runner.run(['kill-session', '-t', `=${sessionName(id)}`]).catch((err) => {
          if (!TmuxRunner.isNoServer(err)) throw err;
        });
      } finally {
        this.forgetLook();
        this.killing.delete(id);
        this.known.delete(id);
      }
      if (!pane.dead && pane.pid) ensureGone(pane.pid);
      return pane.dead
        ? { code: pane.status, signal: pane.signal, at: pane.deadAt ?? this.now(), output, styled, whileAway: false, pid: pane.pid }
        : { code: null, signal: 'SIGHUP', at: this.now(), output, styled, whileAway: false, pid: pane.pid };
    });
  }

  /** Refuses (TmuxError) a session whose process is not running: attachClient looks. */
  async attach(id: string, options: AttachOptions): Promise<Attachment> {
    // Loaded with the first viewer: node-pty (a native addon) is no part of a start.
    const { attachClient } = await import('./tmuxAttach');
    return attachClient(this.runner, id, options);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.nudging) clearTimeout(this.nudging);
    this.wake?.();
    this.watcher?.kill('SIGKILL');
    this.runner.close();
    await this.queue.idle();
  }

  /** Finds dead panes, reads what they left, removes them and reports each exit once. `looked`: a look just made (at open). */
  reconcile(whileAway = false, looked?: PaneInfo[]): Promise<void> {
    return this.queue.run(ONE_LINE, async () => {
      // Only sessions known before this look can have vanished from it (not one spawned meanwhile).
      const knownBefore = new Set(this.known);
      const panes = looked ?? (await this.panes());
      if (panes.some((p) => p.dead && !p.settled)) this.nudgeSoon(panes);
      for (const pane of panes) {
        if (!pane.dead) this.known.add(pane.id);
        if (!pane.settled || this.killing.has(pane.id)) continue;
        const { output, styled } = await this.captureAll(pane.id).catch(() => ({ output: '', styled: '' }));
        this.forgetLook();
        await this.runner.run(['kill-session', '-t', `=${sessionName(pane.id)}`]).catch(() => {});
        this.forgetLook();
        this.known.delete(pane.id);
        this.onExit(pane.id, { code: pane.status, signal: pane.signal, at: pane.deadAt ?? this.now(), output, styled, whileAway, pid: pane.pid });
      }
      // Gone without a trace: the tmux server (or the session) was killed under us.
      const listed = new Set(panes.map((p) => p.id));
      for (const id of knownBefore) {
        if (listed.has(id) || this.killing.has(id) || !this.known.has(id)) continue;
        this.known.delete(id);
        const ended = this.serverSeen ? 'its tmux session was closed outside Corral' : 'the tmux server ended';
        this.onExit(id, { code: null, signal: null, at: this.now(), output: '', whileAway, pid: null, ended });
      }
    });
  }

  /** One reconcile after whatever is under way, however many looks asked for it. */
  private reconcileSoon(): void {
    if (this.reconcileQueued) return;
    this.reconcileQueued = true;
    void this.reconcile()
      .catch(() => {})
      .finally(() => (this.reconcileQueued = false));
  }

  /**
   * tmux 3.3 sometimes misses the SIGCHLD of a pane's process: the process stays a zombie,
   * its pane half dead, and pane-died never fires. Another SIGCHLD makes tmux reap it.
   */
  private nudgeSoon(panes: PaneInfo[]): void {
    if (this.nudging || this.closed) return;
    this.nudging = setTimeout(() => {
      this.nudging = null;
      nudge(panes[0]?.serverPid ?? null);
      setTimeout(() => void this.reconcile().catch(() => {}), 30).unref();
    }, 20);
    this.nudging.unref();
  }

  /** Runs a command file; what it printed. */
  private async runScript(lines: string[], pathForChild: string | undefined, stages?: Stages): Promise<string> {
    fs.mkdirSync(this.options.runDir, { recursive: true, mode: 0o700 });
    const file = path.join(this.options.runDir, `spawn-${crypto.randomUUID()}.tmux`);
    fs.writeFileSync(file, lines.join('\n') + '\n', { mode: 0o600 });
    try {
      // A pane's PATH comes from the client that creates it; the rest of its environment
      // from the command file. start-server makes the first spawn work on a fresh socket.
      const run = () => this.runner.run(['start-server', ';', 'source-file', file], { env: minimalEnv(pathForChild ?? process.env.PATH ?? '/usr/bin:/bin') });
      try {
        stages?.enter('tmux start-server, source-file');
        return await run();
      } catch (err) {
        // The server was on its way out (its last session just ended): a new one starts now.
        if (!TmuxRunner.isNoServer(err)) throw err;
        stages?.enter('tmux start-server, source-file again');
        await new Promise((resolve) => setTimeout(resolve, 50));
        return await run();
      }
    } finally {
      fs.rmSync(file, { force: true });
    }
  }

  /** Before and after each change: a look in flight meanwhile answers for the world before it. */
  private forgetLook(): void {
    this.lastLook = null;
    this.changes++;
  }

  private async panes(): Promise<PaneInfo[]> {
    // Asked before the list: whatever is read after it makes the next list() look again.
    const reads = this.serverReads();
    const changes = this.changes;
    let text: string;
    try {
      text = await this.runner.run(['list-panes', '-a', '-F', PANE_FORMAT]);
      this.serverSeen = true;
    } catch (err) {
      if (TmuxRunner.isNoServer(err)) {
        this.serverSeen = false;
        if (changes === this.changes) this.lastLook = { reads: 'no server', panes: [] };
        return [];
      }
      throw err;
    }
    const panes = parsePanes(text, this.homeTag);
    this.serverPid = panes[0]?.serverPid ?? this.serverPid;
    if (changes === this.changes) this.lastLook = reads === null ? null : { reads, panes };
    return panes;
  }

  /**
   * Whether the last look still holds. A pane's activity is its output, which the server reads
   * from the pane's terminal; tmux's own clients talk to it over a socket (recvmsg, not counted
   * as read). So while the server has read nothing since that look was asked for, no pane
   * printed; and while every pane's process is still there, none ended nor was closed from
   * outside (tmux ends a closed pane's process). 'exists' asks the kernel for each process (no
   * file read: for the looks every second); 'runs' also tells a zombie (a death tmux missed).
   * Without a server, this home has no pane until it spawns one.
   */
  private unchanged(how: 'exists' | 'runs'): boolean {
    const last = this.lastLook;
    if (last?.reads === 'no server') return true;
    if (last === null || last.reads !== this.serverReads()) return false;
    return last.panes.every((p) => !p.dead && p.pid !== null && (how === 'exists' ? exists(p.pid) : runs(p.pid)));
  }

  /** What the tmux server has read so far (Linux: /proc/<pid>/io), or null when that cannot be told. */
  private serverReads(): number | null {
    if (this.serverPid === null) return null;
    try {
      const match = /^rchar: (\d+)$/m.exec(fs.readFileSync(`/proc/${this.serverPid}/io`, 'utf8'));
      return match ? Number(match[1]) : null;
    } catch {
      return null;
    }
  }

  /** What a pane left, as plain text and with its colours (one capture: `-e` adds SGR sequences, and only those). */
  private async captureAll(id: string): Promise<{ output: string; styled: string }> {
    const text = await this.runner.run(['capture-pane', '-p', '-e', '-J', '-t', target(id), '-S', '-', '-E', '-']);
    // remain-on-exit writes its own notice under the output (with its own colours): it is tmux's, not the agent's.
    // eslint-disable-next-line no-control-regex -- SGR sequences are what it reads
    const styled = onlySgr(text).replace(/\n*(?:\x1b\[[0-9;:]*m)*Pane is dead \([^)]*\)[\s\S]*$/, '');
    const trim = (all: string) => all.replace(/\s+$/, '') + '\n';
    return { output: trim(withoutEscapes(styled)), styled: trim(styled) };
  }

  /**
   * Waits for the pane-died hook's signal, and looks anyway every WATCH_INTERVAL_MS unless
   * nothing changed (unchanged()): a pane whose death tmux missed (see nudgeSoon) fires no hook. Each wake-up reconciles. The wait is one tmux
   * client that sleeps until the hook signals.
   */
  private async watch(): Promise<void> {
    let signal: Promise<'signal' | 'no-server'> | null = null;
    while (!this.closed) {
      if (signal === null && this.lastLook?.reads === 'no server') {
        // No server, and this home has no pane until it spawns one (a spawn wakes the watcher): a
        // tmux client now would only say there is no server.
        await this.woken(this.spawns);
        continue;
      }
      signal ??= this.waitForSignal();
      const interval = Date.now() < this.watchFastUntil ? WATCH_FAST_MS : WATCH_INTERVAL_MS;
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([signal, new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), interval)))]);
      clearTimeout(timer);
      if (this.closed) break;
      if (outcome !== 'timeout') signal = null;
      // An agent ended (the waiter's signal comes just before its pane's end): look often until
      // the pane is gone, whether or not tmux fires pane-died for it.
      if (outcome === 'signal') this.watchFastUntil = Date.now() + WATCH_FAST_FOR_MS;
      // Its own look finds what no signal told (a death tmux missed leaves a zombie): not while nothing changed.
      if (outcome === 'timeout' && this.unchanged('runs')) continue;
      if (outcome === 'no-server') {
        const spawnsBefore = this.spawns;
        // A server that just went away took its sessions with it: say so at once.
        await this.reconcile().catch(() => {});
        // No server yet (or it went away): wait for a spawn, or look again in a while. A spawn
        // made during the look above started a server already: no wait.
        await this.woken(spawnsBefore);
      }
      await this.reconcile().catch(() => {});
    }
  }

  /** Until a spawn (or close) wakes the watcher, or NO_SERVER_LOOK_MS have passed: at once if one was made since `spawnsBefore`. */
  private async woken(spawnsBefore: number): Promise<void> {
    await new Promise<void>((resolve) => {
      if (this.spawns !== spawnsBefore || this.closed) return resolve();
      const timer = setTimeout(resolve, NO_SERVER_LOOK_MS);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = null;
  }

  /** A tmux client that waits for the pane-died hook's signal: 'no-server' when there is no server to wait on. */
  private waitForSignal(): Promise<'signal' | 'no-server'> {
    return new Promise((resolve) => {
      // The runner's environment: the same tmux as every other command, whatever PATH is now.
      const child = spawnProcess(this.runner.binary, ['-u', '-L', this.options.socket, '-f', '/dev/null', 'wait-for', EXIT_CHANNEL], {
        stdio: 'ignore',
        env: this.runner.baseEnv,
      });
      this.watcher = child;
      child.on('error', () => resolve('no-server'));
      child.on('exit', (code) => {
        if (this.watcher === child) this.watcher = null;
        resolve(code === 0 ? 'signal' : 'no-server');
      });
    });
  }
}

function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Alive and not a zombie. */
function runs(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

function nudge(serverPid: number | null): void {
  if (!serverPid) return;
  try {
    process.kill(serverPid, 'SIGCHLD');
  } catch {
    // the server is gone: nothing to nudge
  }
}

function lastLines(text: string, lines: number): string {
  const all = text.replace(/\s+$/, '').split('\n');
  return all.slice(-lines).join('\n');
}

/**
 * What the pane ran, if any of it outlives the hangup tmux sends, is asked again, then made to
 * go. The pane's process (the waiter) leads the pane's process group, and the CLI under it is in
 * that group: a CLI that ignores the hangup goes with it.
 */
function ensureGone(pid: number): void {
  const signal = (sig: NodeJS.Signals | 0) => {
    try {
      process.kill(-pid, sig);
      return true;
    } catch {
      // No group by that id (the waiter was not its leader): the waiter alone.
      try {
        process.kill(pid, sig);
        return true;
      } catch {
        return false;
      }
    }
  };
  setTimeout(() => {
    if (!signal(0) || !signal('SIGTERM')) return;
    setTimeout(() => {
      if (signal(0)) signal('SIGKILL');
    }, 2_000).unref();
  }, 1_000).unref();
}

/** The command that prints what a pane shows now (`visible`), its wrapped lines joined. */
function captureScreen(id: string): string[] {
  return ['capture-pane', '-p', '-J', '-t', target(id)];
}

/** A screen as `visible` gives it: without the blank rows and spaces at its end. */
function trimmed(screen: string): string {
  return screen.replace(/\s+$/, '');
}

/** The most bytes typed as keys; more are pasted (see typing). */
const KEYS_MAX = 2048;
let pastes = 0;

/**
 * The tmux command that types `data` into the pane, byte for byte (none if it is empty), and what
 * it reads on its stdin. Up to KEYS_MAX bytes: `send-keys -H`, the bytes in hex, so nothing in the
 * data is ever parsed as a key name. More: tmux handles each key on its own (about 35 µs a key
 * here, so 900 KB took 32 s in 2 KB commands), so the bytes go through a paste buffer of their
 * own, read from stdin and written to the pane as they are (`-r`: newlines stay newlines; no
 * bracketed-paste marks), and then deleted (`-d`).
 */
function typing(id: string, data: string): Typing {
  const bytes = Buffer.from(data, 'utf8');
  if (bytes.length === 0) return { args: [] };
  if (bytes.length <= KEYS_MAX) return { args: ['send-keys', '-t', target(id), '-H', ...[...bytes].map((b) => b.toString(16).padStart(2, '0'))] };
  const buffer = `corral-typing-${process.pid}-${++pastes}`;
  return { args: ['load-buffer', '-b', buffer, '-', ';', 'paste-buffer', '-d', '-r', '-b', buffer, '-t', target(id)], input: data, buffer };
}

interface Typing {
  args: string[];
  input?: string;
  /** The paste buffer it fills, if it pastes. */
  buffer?: string;
}
