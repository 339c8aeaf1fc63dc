// One tmux server on Corral's own socket; one tmux session per Corral session, whose pane runs
// a small waiter around the CLI (WAITER: it keeps the CLI's last output). remain-on-exit keeps
// a dead pane (its exit status and last output) until the daemon has read it, even when the
// daemon was not running at the time.

import { spawn as spawnProcess, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as pty from 'node-pty';
import { DEFAULT_COLORS, type Attachment, type AttachOptions, type Backend, type ExitListener, type LiveProcess, type ProcessExit, type SpawnSpec, type TerminalColors } from './backend';
import { formatEscape, tmuxQuote, TmuxError, TmuxRunner } from './tmuxRunner';
import { signalName } from './signals';
import { KeyedQueue } from '../util/keyedQueue';

export const HISTORY_LIMIT = 10_000;
const EXIT_CHANNEL = 'corral-exit';
const WATCH_INTERVAL_MS = 1_000;
const WATCH_FAST_MS = 100;
const WATCH_FAST_FOR_MS = 10_000;
/** Variables tmux itself puts into a pane's environment; removed so the child gets exactly ours. */
const TMUX_INJECTED = ['TMUX', 'TMUX_PANE', 'TERM_PROGRAM', 'TERM_PROGRAM_VERSION'];
const FIELD = '\u001f';
/** The queue's one key: every reconcile and kill waits for the one before. */
const ONE_LINE = 'tmux';

/**
 * The pane's process (argv: the tmux binary, then the agent's command). It lets the agent have
 * Ctrl-C, Ctrl-\ and Ctrl-Z (a trap, not an ignore, so the agent gets them as usual) and waits
 * for it. Then it writes a mark into the terminal, after everything the agent wrote (a pane
 * title, which shows on no screen), and stays until tmux shows that title: tmux has then read
 * all the agent's output, by the terminal's own order, however busy the machine. Then it ends as
 * the agent did: with its exit code, or by its signal. (If tmux cannot be asked, it goes on.)
 */
export const WAITER = [
  'tmux=$1; shift',
  'trap : INT QUIT TSTP',
  '"$@"',
  'status=$?',
  'mark="corral-exited-$status-$$"',
  "printf '\\033]2;%s\\033\\\\' \"$mark\"",
  'while title=$("$tmux" -S "${TMUX%%,*}" display-message -p -t "$TMUX_PANE" "#{pane_title}" 2>/dev/null) && [ "$title" != "$mark" ]; do sleep 0.01; done',
  'if [ "$status" -gt 128 ]; then trap - INT QUIT TSTP; kill -s "$(kill -l "$status")" "$$"; fi',
  'exit "$status"',
].join('\n');

export interface TmuxBackendOptions {
  socket: string;
  /** The Corral home: its sessions are told apart from other homes' on a shared socket. */
  home: string;
  /** Where command files (they hold environments) are written, mode 0700. */
  runDir: string;
  timeoutMs?: number;
  now?: () => number;
}

interface PaneInfo {
  id: string;
  paneId: string;
  /** The process is gone (its terminal closed). */
  dead: boolean;
  /** tmux has its exit status too: only then is the exit reported (and pane-died fired). */
  settled: boolean;
  status: number | null;
  signal: string | null;
  deadAt: number | null;
  pid: number | null;
  activityAt: number | null;
  serverPid: number | null;
}

export class TmuxBackend implements Backend {
  readonly kind = 'tmux' as const;
  private readonly runner: TmuxRunner;
  private readonly homeTag: string;
  private readonly now: () => number;
  private onExit: ExitListener = () => {};
  private watcher: ChildProcess | null = null;
  private closed = false;
  /** Reconciles and kills run one at a time (all under ONE_LINE), so an exit is reported exactly once. */
  private readonly queue = new KeyedQueue();
  private wake: (() => void) | null = null;
  private nudging: NodeJS.Timeout | null = null;
  private watchFastUntil = 0;
  /** Sessions this backend ended itself: their exits are not news. */
  private readonly killing = new Set<string>();
  /** Sessions seen running: one that disappears without a dead pane (its tmux server or session was killed) still gets its exit. */
  private readonly known = new Set<string>();
  /** Whether the last look found a tmux server at all. */
  private serverSeen = false;

  constructor(private readonly options: TmuxBackendOptions) {
    this.runner = new TmuxRunner(options.socket, minimalEnv(process.env.PATH ?? '/usr/bin:/bin'), options.timeoutMs);
    this.homeTag = crypto.createHash('sha256').update(path.resolve(options.home)).digest('hex').slice(0, 16);
    this.now = options.now ?? Date.now;
  }

  static sessionName(id: string): string {
    return `corral-${id}`;
  }

  async open(onExit: ExitListener): Promise<void> {
    this.onExit = onExit;
    // Panes that died while nobody watched may still wait for tmux to reap them.
    for (let tries = 0; tries < 40; tries++) {
      const unsettled = (await this.panes()).find((p) => p.dead && !p.settled);
      if (!unsettled) break;
      nudge(unsettled.serverPid);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await this.reconcile(true);
    void this.watch();
  }

  async spawn(spec: SpawnSpec): Promise<LiveProcess> {
    if (spec.file.includes('=')) throw new TmuxError(`cannot run ${spec.file}: a path with "=" cannot be started through env(1)`, '');
    const name = TmuxBackend.sessionName(spec.id);
    const envArgs = Object.entries(spec.env)
      .filter(([key]) => !TMUX_INJECTED.includes(key))
      .map(([key, value]) => `-e ${tmuxQuote(`${key}=${value}`)}`)
      .join(' ');
    // A small waiter runs the CLI (its argv untouched) and outlives it by a moment: tmux 3.3
    // closes a pane when its process exits, and would drop what the CLI wrote last (the very
    // "No conversation found" of a dead resume). env(1) removes what tmux adds to every pane
    // and sets the terminal type tmux would otherwise override.
    const command = [
      '/bin/sh',
      '-c',
      WAITER,
      'corral-agent',
      this.runner.binary,
      '/usr/bin/env',
      ...TMUX_INJECTED.flatMap((v) => ['-u', v]),
      `TERM=${spec.env.TERM ?? 'xterm-256color'}`,
      ...(spec.env.COLORTERM ? [`COLORTERM=${spec.env.COLORTERM}`] : []),
      spec.file,
      ...spec.args,
    ];
    const script = [
      ...this.serverSetup(),
      `new-session -d -s ${tmuxQuote(name)} -x ${spec.cols} -y ${spec.rows} -c ${tmuxQuote(formatEscape(spec.cwd))} ${envArgs} -- ${command.map(tmuxQuote).join(' ')}`,
      // An exact-match target ("=name") is refused inside a command file; the name is unique anyway.
      `set-option -t ${tmuxQuote(name)} @corral_home ${tmuxQuote(this.homeTag)}`,
      // The window keeps the size the engine gives it (the viewer the person uses): a viewer
      // that attaches only to watch never resizes the agent. (Set per window: tmux 3.3 dies
      // creating a detached session under a global "manual".)
      `set-option -w -t ${tmuxQuote(name)} window-size manual`,
      // The colours tmux reports when the agent asks (OSC 10/11): the viewer's, not none.
      `set-option -w -t ${tmuxQuote(name)} window-style ${tmuxQuote(windowStyle(spec.colors ?? DEFAULT_COLORS))}`,
    ];
    // A dead pane of an earlier launch still holds the name: report its exit first.
    for (let tries = 0; tries < 50; tries++) {
      const earlier = (await this.panes()).find((p) => p.id === spec.id);
      if (!earlier) break;
      if (!earlier.dead) throw new TmuxError(`session ${spec.id} already has a running process`, '');
      if (earlier.settled) await this.reconcile();
      else {
        nudge(earlier.serverPid);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    // The command file holds the environment (API keys among it): private, and gone at once.
    await this.runScript(script, spec.env.PATH);
    this.known.add(spec.id);
    this.watchFastUntil = Date.now() + WATCH_FAST_FOR_MS;
    this.wake?.();
    const pane = (await this.panes()).find((p) => p.id === spec.id);
    return { id: spec.id, pid: pane?.pid ?? null, lastActivityAt: this.now() };
  }

  async list(): Promise<LiveProcess[]> {
    return (await this.panes()).filter((p) => !p.dead).map((p) => ({ id: p.id, pid: p.pid, lastActivityAt: p.activityAt }));
  }

  async isAlive(id: string): Promise<boolean> {
    const pane = (await this.panes()).find((p) => p.id === id);
    return !!pane && !pane.dead;
  }

  async write(id: string, data: string): Promise<void> {
    const bytes = Buffer.from(data, 'utf8');
    // send-keys -H takes bytes in hex: nothing in the data is ever parsed as a key name.
    for (let offset = 0; offset < bytes.length; offset += 2048) {
      const chunk = [...bytes.subarray(offset, offset + 2048)].map((b) => b.toString(16).padStart(2, '0'));
      await this.runner.run(['send-keys', '-t', target(id), '-H', ...chunk]);
    }
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
    return (await this.runner.run(['capture-pane', '-p', '-J', '-t', target(id)])).replace(/\s+$/, '');
  }

  kill(id: string): Promise<ProcessExit | null> {
    return this.queue.run(ONE_LINE, async () => {
      const pane = (await this.panes()).find((p) => p.id === id);
      if (!pane) return null;
      const output = await this.captureAll(id).catch(() => '');
      this.killing.add(id);
      try {
        await this.runner.run(['kill-session', '-t', `=${TmuxBackend.sessionName(id)}`]).catch((err) => {
          if (!TmuxRunner.isNoServer(err)) throw err;
        });
      } finally {
        this.killing.delete(id);
        this.known.delete(id);
      }
      if (!pane.dead && pane.pid) ensureGone(pane.pid);
      return pane.dead
        ? { code: pane.status, signal: pane.signal, at: pane.deadAt ?? this.now(), output, whileAway: false, pid: pane.pid }
        : { code: null, signal: 'SIGHUP', at: this.now(), output, whileAway: false, pid: pane.pid };
    });
  }

  async attach(id: string, options: AttachOptions): Promise<Attachment> {
    if (!(await this.isAlive(id))) throw new TmuxError(`session ${id} has no running process to attach to`, '');
    // The scrollback first, as lines that scroll into the viewer's own history; the client
    // then draws the screen over them.
    const size = Number((await this.runner.run(['display-message', '-p', '-t', target(id), '#{history_size}']).catch(() => '0')).trim());
    if (size > 0) {
      const history = await this.runner.run(['capture-pane', '-p', '-e', '-J', '-t', target(id), '-S', `-${size}`, '-E', '-1']).catch(() => '');
      // A screenful of new lines after it pushes all of it into the viewer's history, so the
      // client's first drawing of the screen overwrites none of it.
      if (history) options.onData(history.replace(/\n$/, '').replace(/\n/g, '\r\n') + '\r\n'.repeat(options.rows));
    }
    // tmux sizes a window after its newest client: pin it before a view-only client attaches.
    if (options.viewOnly) await this.runner.run(['set-option', '-w', '-t', target(id), 'window-size', 'manual']);
    const flags = options.viewOnly ? ['-f', 'read-only,ignore-size'] : [];
    const client = pty.spawn(this.runner.binary, ['-u', '-L', this.options.socket, '-f', '/dev/null', 'attach-session', ...flags, '-t', `=${TmuxBackend.sessionName(id)}`], {
      name: 'xterm-256color',
      cols: options.cols,
      rows: options.rows,
      cwd: os.homedir(),
      env: { ...minimalEnv(process.env.PATH ?? '/usr/bin:/bin'), TERM: 'xterm-256color' },
    });
    const data = client.onData(options.onData);
    const exit = client.onExit(() => options.onClose?.());
    let open = true;
    return {
      write: (text) => open && client.write(text),
      resize: (cols, rows) => open && client.resize(cols, rows),
      pause: () => open && client.pause(),
      resume: () => open && client.resume(),
      close: () => {
        if (!open) return;
        open = false;
        data.dispose();
        exit.dispose();
        client.kill('SIGHUP');
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.nudging) clearTimeout(this.nudging);
    this.wake?.();
    this.watcher?.kill('SIGKILL');
    await this.queue.idle();
  }

  /** Finds dead panes, reads what they left, removes them and reports each exit once. */
  reconcile(whileAway = false): Promise<void> {
    return this.queue.run(ONE_LINE, async () => {
      // Only sessions known before this look can have vanished from it (not one spawned meanwhile).
      const knownBefore = new Set(this.known);
      const panes = await this.panes();
      if (panes.some((p) => p.dead && !p.settled)) this.nudgeSoon(panes);
      for (const pane of panes) {
        if (!pane.dead) this.known.add(pane.id);
        if (!pane.settled || this.killing.has(pane.id)) continue;
        const output = await this.captureAll(pane.id).catch(() => '');
        await this.runner.run(['kill-session', '-t', `=${TmuxBackend.sessionName(pane.id)}`]).catch(() => {});
        this.known.delete(pane.id);
        this.onExit(pane.id, { code: pane.status, signal: pane.signal, at: pane.deadAt ?? this.now(), output, whileAway, pid: pane.pid });
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

  private serverSetup(): string[] {
    return [
      `set-option -g history-limit ${HISTORY_LIMIT}`,
      'set-option -g remain-on-exit on',
      // tmux's own "Pane is dead" line is not the agent's output: not in receipts, not on screens.
      'set-option -g remain-on-exit-format ""',
      'set-option -g status off',
      'set-option -g prefix None',
      'set-option -g prefix2 None',
      'set-option -g mouse off',
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

  private async runScript(lines: string[], pathForChild: string | undefined): Promise<void> {
    fs.mkdirSync(this.options.runDir, { recursive: true, mode: 0o700 });
    const file = path.join(this.options.runDir, `spawn-${crypto.randomUUID()}.tmux`);
    fs.writeFileSync(file, lines.join('\n') + '\n', { mode: 0o600 });
    try {
      // A pane's PATH comes from the client that creates it; the rest of its environment
      // from the command file. start-server makes the first spawn work on a fresh socket.
      const run = () => this.runner.run(['start-server', ';', 'source-file', file], { env: minimalEnv(pathForChild ?? process.env.PATH ?? '/usr/bin:/bin') });
      try {
        await run();
      } catch (err) {
        // The server was on its way out (its last session just ended): a new one starts now.
        if (!TmuxRunner.isNoServer(err)) throw err;
        await new Promise((resolve) => setTimeout(resolve, 50));
        await run();
      }
    } finally {
      fs.rmSync(file, { force: true });
    }
  }

  private async panes(): Promise<PaneInfo[]> {
    const format = [
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
    let text: string;
    try {
      text = await this.runner.run(['list-panes', '-a', '-F', format]);
      this.serverSeen = true;
    } catch (err) {
      if (TmuxRunner.isNoServer(err)) {
        this.serverSeen = false;
        return [];
      }
      throw err;
    }
    const panes: PaneInfo[] = [];
    for (const line of text.split('\n')) {
      const [name, home, paneId, dead, status, signal, deadTime, pid, activity, serverPid] = line.split(FIELD);
      if (!name?.startsWith('corral-') || home !== this.homeTag) continue;
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

  private async captureAll(id: string): Promise<string> {
    const text = await this.runner.run(['capture-pane', '-p', '-J', '-t', target(id), '-S', '-', '-E', '-']);
    // remain-on-exit writes its own notice under the output: it is tmux's, not the agent's.
    return text.replace(/\n*Pane is dead \([^)]*\)\s*$/, '').replace(/\s+$/, '') + '\n';
  }

  /**
   * Waits for the pane-died hook's signal, and looks anyway every second: a pane whose death
   * tmux missed (see nudgeSoon) fires no hook. Each wake-up reconciles.
   */
  private async watch(): Promise<void> {
    while (!this.closed) {
      const outcome = await new Promise<'signal' | 'timeout' | 'no-server'>((resolve) => {
        const child = spawnProcess(this.runner.binary, ['-L', this.options.socket, '-f', '/dev/null', 'wait-for', EXIT_CHANNEL], {
          stdio: 'ignore',
          env: minimalEnv(process.env.PATH ?? '/usr/bin:/bin'),
        });
        this.watcher = child;
        // Look more often just after a launch: a process that dies at once (a dead resume) is
        // the one whose exit tmux most often misses, and the one the fallback waits for.
        const interval = Date.now() < this.watchFastUntil ? WATCH_FAST_MS : WATCH_INTERVAL_MS;
        const timer = setTimeout(() => {
          resolve('timeout');
          child.kill('SIGKILL');
        }, interval);
        child.on('error', () => resolve('no-server'));
        child.on('exit', (code) => {
          clearTimeout(timer);
          resolve(code === 0 ? 'signal' : 'no-server');
        });
      });
      this.watcher = null;
      if (this.closed) break;
      if (outcome === 'no-server') {
        // A server that just went away took its sessions with it: say so at once.
        await this.reconcile().catch(() => {});
        // No server yet (or it went away): wait for a spawn, or look again in a while.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 2_000);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
      await this.reconcile().catch(() => {});
    }
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

function target(id: string): string {
  return `=${TmuxBackend.sessionName(id)}:`;
}

function minimalEnv(pathValue: string): Record<string, string> {
  const env: Record<string, string> = { PATH: pathValue, HOME: os.homedir() };
  for (const key of ['LANG', 'LC_ALL', 'LC_CTYPE', 'TMPDIR']) {
    const value = process.env[key];
    if (value) env[key] = value;
  }
  return env;
}

function lastLines(text: string, lines: number): string {
  const all = text.replace(/\s+$/, '').split('\n');
  return all.slice(-lines).join('\n');
}

/** A process that ignores the hangup tmux sends is asked again, then made to go. */
function ensureGone(pid: number): void {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  setTimeout(() => {
    if (!alive()) return;
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      return;
    }
    setTimeout(() => {
      if (alive()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
    }, 2_000).unref();
  }, 1_000).unref();
}

/** A pane's default colours: what tmux answers an agent that asks for them. */
function windowStyle(colors: TerminalColors): string {
  return `fg=${colors.fg},bg=${colors.bg}`;
}
