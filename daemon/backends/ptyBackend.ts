// node-pty, for machines without tmux. The daemon owns each process, so agents end with
// the daemon. Output is bytes from the terminal to the viewers, never decoded on the way. The
// recent output is kept as it came (a bounded ring, cut at line ends): a
// reattaching viewer gets it replayed, and the receipt at exit renders all of it in a throwaway
// headless terminal. Each agent also has one headless terminal of its screen size with a short
// history (KEEPER_HISTORY lines): it is the agent's terminal, the one that answers its queries
// (device attributes, cursor position, colours), once, whether or not anyone watches, and it
// shows what the screen and its last lines hold now (visible(), and capture() of up to
// KEEPER_HISTORY lines: the engine's screen watcher asks for both every second while the agent
// prints). It is fed lazily, so a flood costs no terminal emulation on the hot path: output waits
// until a query shows in it (cheap to spot) or the terminal is looked at, and a backlog past
// KEEPER_TAIL is cut to its tail, after the modes the rest set (the screen it leaves behind is
// the same; a capture the short history no longer holds whole renders the ring, as one past
// KEEPER_HISTORY lines does).
// A viewer that falls behind (its flow control pauses) holds the agent back for VIEWER_HOLD_MS at
// most, and for HOLD_SHARE of the time over longer (one slower than the agent's output, that asks
// for more again within a second each time, held the agent and every other viewer to its pace):
// then the agent and the other viewers go on without it, and if the agent prints meanwhile (a
// history replayed to a slow page while its agent is quiet needs nothing more), when it asks for more it gets,
// on a clean terminal, the agent's screen as it is now with its last lines, serialised from the
// agent's terminal: tens of KB, where the recent output is up to REPLAY_LIMIT, which a page that
// fell behind under a flood takes longer than VIEWER_HOLD_MS to parse (and so falls behind again).
// A viewer that reconnects gets the recent output.

import serialize from '@xterm/addon-serialize';
import headless from '@xterm/headless';
import fs from 'node:fs';
import * as pty from 'node-pty';
import { DEFAULT_COLORS, type Attachment, type AttachOptions, type Backend, type ExitListener, type LiveProcess, type ProcessExit, type SpawnSpec, type TerminalColors } from './backend';
import { AgentRegistry, endAgent } from './ptyOrphans';
import { signalName } from './signals';
import { continues, unfinished } from '../util/utf8';

const { Terminal } = headless;
const { SerializeAddon } = serialize;

export const PTY_SCROLLBACK = 10_000;
/** Bytes of recent output kept per session (about the 10,000-line scrollback). */
export const REPLAY_LIMIT = 2 * 1024 * 1024;

/** Recent output as it came (bytes), bounded; replay starts at a line end. Each read is copied
 *  into a slab of up to SLAB bytes, so that it holds a few large buffers rather than thousands of
 *  a read each (each one the garbage collector tracks); trimming drops whole slabs from the front. */
class OutputRing {
  private slabs: Buffer[] = [];
  /** A slab of SLAB bytes dropped from the front, to fill again: fresh memory costs a page fault every 4 KB. */
  private spare: Buffer | null = null;
  /** Bytes used of the last slab. */
  private used = 0;
  private size = 0;
  /** Output was dropped from its front: what it holds may begin inside a line. */
  private trimmed = false;

  add(data: Uint8Array): void {
    let last = this.slabs.at(-1);
    if (!last || this.used + data.length > last.length) {
      if (last && this.used < last.length) this.slabs[this.slabs.length - 1] = last = last.subarray(0, this.used);
      // Small at first (an agent that says little holds little), twice the last one's size after.
      const size = Math.max(data.length, Math.min(SLAB, 2 * (last?.buffer.byteLength ?? SLAB / 32)));
      last = size === SLAB && this.spare ? this.spare : Buffer.allocUnsafeSlow(size);
      if (last === this.spare) this.spare = null;
      this.slabs.push(last);
      this.used = 0;
    }
    last.set(data, this.used);
    this.used += data.length;
    this.size += data.length;
    while (this.slabs.length > 1 && this.size - this.slabs[0]!.length >= REPLAY_LIMIT) {
      const dropped = this.slabs.shift()!;
      this.size -= dropped.length;
      this.trimmed = true;
      // Nothing else holds it: what bytes() gives is a copy.
      if (dropped.buffer.byteLength === SLAB) this.spare = Buffer.from(dropped.buffer, 0, SLAB);
    }
  }

  /** What it holds, from a line end; only its last `lines` lines when given. */
  bytes(lines?: number): Buffer {
    const filled = this.slabs.map((slab, i) => (i === this.slabs.length - 1 ? slab.subarray(0, this.used) : slab));
    const all = filled.length === 1 ? filled[0]! : Buffer.concat(filled, this.size);
    let start = 0;
    if (this.trimmed || all.length > REPLAY_LIMIT) {
      const from = Math.max(0, all.length - REPLAY_LIMIT);
      const cut = all.indexOf(LF, from);
      start = cut >= 0 ? cut + 1 : characterStart(all, from);
    }
    if (lines !== undefined) {
      // The start of the last `lines` lines (an unfinished one at the end counts as one).
      let at = all.length;
      for (let n = 0; n < lines && at > start; n++) at = at >= 2 ? all.lastIndexOf(LF, at - 2) + 1 : all[0] === LF ? at : 0;
      start = Math.max(start, at);
    }
    // Its own memory: the last slab goes on filling, and a dropped one is filled again.
    return filled.length === 1 ? Buffer.from(all.subarray(start)) : all.subarray(start);
  }

  /** Its last `n` bytes at most (a copy). */
  last(n: number): Buffer {
    const parts: Buffer[] = [];
    for (let i = this.slabs.length - 1, want = n; i >= 0 && want > 0; i--) {
      const slab = i === this.slabs.length - 1 ? this.slabs[i]!.subarray(0, this.used) : this.slabs[i]!;
      parts.unshift(slab.subarray(Math.max(0, slab.length - want)));
      want -= slab.length;
    }
    return Buffer.concat(parts);
  }
}

/** Bytes of a ring's slab. */
const SLAB = 256 * 1024;
const LF = 0x0a;

/** The first character's start at or after `at`. */
function characterStart(bytes: Uint8Array, at: number): number {
  while (at < bytes.length && continues(bytes[at]!)) at++;
  return at;
}

/** One running agent: its process, its own terminal, and what it printed. */
interface PtyAgent {
  proc: pty.IPty;
  /** The agent's own terminal: answers its queries, knows its screen. */
  screen: InstanceType<typeof Terminal>;
  /** Writes the screen out for a viewer that catches up; made for the first. */
  serializer: InstanceType<typeof SerializeAddon> | null;
  /** The screen's history holds all the output since the spawn (it was never cut to a tail). */
  whole: boolean;
  /** Output the screen has not been given yet (see keep()), at most KEEPER_TAIL and a chunk: its
   *  bytes as Latin-1 (a character a byte), as they were scanned. */
  backlog: string[];
  backlogSize: number;
  /** The backlog's oldest chunks were dropped: the screen starts again from its tail. */
  backlogCut: boolean;
  /** The modes set by output the screen was never given (see noteModes()), and an escape sequence cut at its end. */
  skipped: { modes: Map<string, string>; edge: string };
  /** The end of the last chunk (its bytes as Latin-1), for a query split across two. */
  tail: string;
  colors: TerminalColors;
  ring: OutputRing;
  cols: number;
  rows: number;
  viewers: Set<PtyViewer>;
  /** Viewers holding the agent back (flow control): its output is not read while there are any. */
  holds: number;
  lastActivityAt: number;
  /** Set when the daemon ends it: its exit is not reported as news. */
  killed: ((exit: ProcessExit) => void) | null;
  exited: Promise<ProcessExit>;
}

export class PtyBackend implements Backend {
  readonly kind = 'pty' as const;
  private readonly agents = new Map<string, PtyAgent>();
  private onExit: ExitListener = () => {};
  private readonly registry: AgentRegistry;

  /** `registryFile`: where running agents are written down, for the next daemon after a crash. */
  constructor(
    private readonly now: () => number = Date.now,
    registryFile: string | null = null,
  ) {
    this.registry = new AgentRegistry(registryFile);
  }

  async open(onExit: ExitListener): Promise<void> {
    this.onExit = onExit;
    // Agents a crashed daemon left running have no terminal any more: they are ended, and
    // reported as such, before anything else happens.
    for (const agent of this.registry.leftBehind()) {
      const pids = await endAgent(agent);
      onExit(agent.id, { code: null, signal: 'SIGTERM', at: this.now(), output: '', whileAway: true, pid: agent.pid, orphaned: pids });
    }
    this.registry.reset();
  }

  async spawn(spec: SpawnSpec): Promise<LiveProcess> {
    // node-pty marks its terminal's input as UTF-8 (IUTF8: an erase in a line being typed takes the
    // whole character) only when it decodes the output itself, which it does not here: the
    // terminal is marked before the agent starts, by a shell that then becomes the agent (the
    // same process), as tmux marks its panes.
    const [file, args] = process.platform === 'win32' ? [spec.file, spec.args] : ['/bin/sh', ['-c', 'stty iutf8 2>/dev/null; exec "$0" "$@"', spec.file, ...spec.args]];
    const proc = pty.spawn(file, args, {
      name: spec.env.TERM ?? 'xterm-256color',
      cols: spec.cols,
      rows: spec.rows,
      cwd: spec.cwd,
      env: spec.env,
      // Its output as bytes, as they came: no decoding here and encoding again for the viewers
      // (bench/README.md, "The pty backend's output as bytes").
      encoding: null,
    });
    // Hold the terminal's other end open: when the last process on it exits, Linux would
    // otherwise hang it up and drop output still in flight (the tail of what the agent said).
    const slave = holdSlave(proc);
    let resolveExit!: (exit: ProcessExit) => void;
    const screen = new Terminal({ cols: spec.cols, rows: spec.rows, scrollback: KEEPER_HISTORY, allowProposedApi: true });
    const entry: PtyAgent = {
      proc,
      screen,
      serializer: null,
      whole: true,
      backlog: [],
      backlogSize: 0,
      backlogCut: false,
      skipped: { modes: new Map(), edge: '' },
      tail: '',
      colors: spec.colors ?? DEFAULT_COLORS,
      ring: new OutputRing(),
      cols: spec.cols,
      rows: spec.rows,
      viewers: new Set(),
      holds: 0,
      lastActivityAt: this.now(),
      killed: null,
      exited: new Promise((resolve) => (resolveExit = resolve)),
    };
    this.agents.set(spec.id, entry);
    this.registry.add(spec.id, proc.pid);
    answerQueries(entry);
    // With no encoding, node-pty gives each read's bytes (its types say text; on Windows it decodes).
    (proc.onData as unknown as pty.IEvent<Buffer | string>)((read) => {
      const data = typeof read === 'string' ? Buffer.from(read) : read;
      entry.lastActivityAt = this.now();
      entry.ring.add(data);
      keep(entry, data);
      for (const viewer of entry.viewers) {
        if (viewer.catching) viewer.catching.push(data);
        else if (viewer.behind) continue;
        // Paused and no longer holding the agent: it misses this, and catches up when it resumes.
        else if (viewer.paused && !viewer.holding) viewer.behind = true;
        else viewer.options.onData(data);
      }
    });
    proc.onExit(({ exitCode, signal }) => {
      if (slave !== null) fs.closeSync(slave);
      const at = this.now();
      this.agents.delete(spec.id);
      this.registry.remove(spec.id);
      for (const viewer of entry.viewers) {
        if (viewer.holding) clearTimeout(viewer.holding);
        viewer.options.onClose?.();
      }
      screen.dispose();
      void renderWithColours(entry.ring.bytes(), entry.cols, entry.rows, PTY_SCROLLBACK + entry.rows).then(({ output, styled }) => {
        const exit: ProcessExit = { code: signal ? null : exitCode, signal: signalName(signal), at, output, styled, whileAway: false, pid: proc.pid };
        resolveExit(exit);
        if (entry.killed) entry.killed(exit);
        else this.onExit(spec.id, exit);
      });
    });
    return { id: spec.id, pid: proc.pid, lastActivityAt: entry.lastActivityAt };
  }

  async list(): Promise<LiveProcess[]> {
    return [...this.agents].map(([id, entry]) => ({ id, pid: entry.proc.pid, lastActivityAt: entry.lastActivityAt }));
  }

  async isAlive(id: string): Promise<boolean> {
    return this.agents.has(id);
  }

  async write(id: string, data: string): Promise<void> {
    const entry = this.get(id);
    entry.lastActivityAt = this.now();
    entry.proc.write(data);
  }

  async lookThenWrite(id: string, data: string): Promise<string> {
    const screen = await this.visible(id);
    await this.write(id, data);
    return screen;
  }

  async resize(id: string, cols: number, rows: number): Promise<void> {
    const entry = this.get(id);
    entry.proc.resize(cols, rows);
    catchUp(entry);
    entry.screen.resize(cols, rows);
    Object.assign(entry, { cols, rows });
  }

  async setColors(id: string, colors: TerminalColors): Promise<void> {
    this.get(id).colors = colors;
  }

  async capture(id: string, lines: number): Promise<string> {
    const entry = this.get(id);
    if (lines <= KEEPER_HISTORY) {
      await caughtUp(entry);
      const kept = logicalLines(entry.screen);
      // Its first line may be the end of one that scrolled out: it holds `lines` whole ones if it holds more.
      const holdsAll = entry.whole && entry.screen.buffer.active.length < KEEPER_HISTORY + entry.rows;
      if (kept.length > lines || holdsAll) return kept.slice(-lines).join('\n');
    }
    return renderText(entry.ring.bytes(), entry.cols, entry.rows, lines);
  }

  async visible(id: string): Promise<string> {
    const entry = this.get(id);
    await caughtUp(entry);
    return viewport(entry.screen);
  }

  async visibleAll(ids: string[]): Promise<Map<string, string>> {
    const screens = new Map<string, string>();
    for (const id of ids) {
      const screen = await this.visible(id).catch(() => null);
      if (screen !== null) screens.set(id, screen);
    }
    return screens;
  }

  async kill(id: string): Promise<ProcessExit | null> {
    const entry = this.agents.get(id);
    if (!entry) return null;
    const ended = new Promise<ProcessExit>((resolve) => (entry.killed = resolve));
    entry.proc.kill('SIGHUP');
    const timer = setTimeout(() => {
      try {
        entry.proc.kill('SIGKILL');
      } catch {
        // already gone
      }
    }, 3_000);
    const exit = await ended;
    clearTimeout(timer);
    return exit;
  }

  async attach(id: string, options: AttachOptions): Promise<Attachment> {
    const entry = this.get(id);
    if (options.inUse && (entry.cols !== options.cols || entry.rows !== options.rows)) await this.resize(id, options.cols, options.rows);
    // The recent output first, as it came, then everything live.
    const replay = entry.ring.bytes(options.history === undefined ? undefined : options.history + entry.rows);
    if (replay.length) options.onData(replay);
    const viewer: PtyViewer = { options, paused: false, holding: null, heldSince: 0, allowance: VIEWER_HOLD_MS, allowanceAt: this.now(), behind: false, catching: null };
    entry.viewers.add(viewer);
    let open = true;
    return {
      write: (data) => open && entry.proc.write(data),
      // A viewer's size is its own; the engine resizes the agent for the viewer in use.
      resize: () => {},
      pause: () => {
        if (!open || viewer.paused || viewer.behind) return;
        viewer.paused = true;
        // It holds the agent (and every other viewer) back while its allowance lasts: then the
        // agent goes on, and once it prints the viewer is behind, gets nothing more, and catches
        // up from the screen when it asks again. An agent that printed nothing meanwhile (a
        // history replayed to a slow page) needs no catch-up.
        const now = this.now();
        viewer.allowance = Math.min(VIEWER_HOLD_MS, viewer.allowance + (now - viewer.allowanceAt) * HOLD_SHARE);
        viewer.allowanceAt = now;
        if (viewer.allowance <= 0) return;
        viewer.heldSince = now;
        viewer.holding = setTimeout(() => {
          viewer.holding = null;
          viewer.allowance = 0;
          viewer.allowanceAt = this.now();
          letGo(entry);
        }, viewer.allowance);
        hold(entry);
      },
      resume: () => {
        if (!open) return;
        viewer.paused = false;
        if (viewer.holding) {
          clearTimeout(viewer.holding);
          viewer.holding = null;
          const now = this.now();
          viewer.allowance -= now - viewer.heldSince;
          viewer.allowanceAt = now;
          letGo(entry);
        } else if (viewer.behind && !viewer.catching) {
          // A clean terminal, then the screen once it has parsed all output until now; what
          // comes meanwhile waits for it, and goes after it.
          const caught: Buffer[] = (viewer.catching = []);
          // The start of a character the last read ended inside of: the screen holds it unshown,
          // and the rest comes in the next read, which the viewer is sent after the screen.
          const last = entry.ring.last(3);
          const split = last.subarray(last.length - unfinished(last));
          catchUp(entry);
          entry.screen.write('', () => {
            viewer.catching = null;
            viewer.behind = false;
            if (open) options.onData(Buffer.concat([Buffer.from(`${RESET}${serialized(entry, Math.min(options.history ?? KEEPER_HISTORY, KEEPER_HISTORY))}`), split, ...caught]));
          });
        }
      },
      close: () => {
        if (!open) return;
        open = false;
        entry.viewers.delete(viewer);
        if (viewer.holding) {
          clearTimeout(viewer.holding);
          viewer.holding = null;
          letGo(entry);
        }
      },
    };
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.keys()].map((id) => this.kill(id)));
  }

  private get(id: string): PtyAgent {
    const entry = this.agents.get(id);
    if (!entry) throw new Error(`session ${id} has no running process`);
    return entry;
  }
}

/** A viewer's part in its agent's flow control. */
interface PtyViewer {
  options: AttachOptions;
  /** It asked to pause and has not resumed. */
  paused: boolean;
  /** It asked to pause and has not resumed: the agent waits for it until this fires. */
  holding: NodeJS.Timeout | null;
  heldSince: number;
  /** How long it may still hold the agent (ms): spent while it holds, earned back at HOLD_SHARE since allowanceAt. */
  allowance: number;
  allowanceAt: number;
  /** Output came after it held the agent too long: it is sent nothing until it resumes, and then the screen anew. */
  behind: boolean;
  /** Output since it resumed, while the screen it is sent first is being brought up to date. */
  catching: Buffer[] | null;
}

/** How long one viewer that does not keep up may hold its agent, and the other viewers, back. */
export const VIEWER_HOLD_MS = 1_000;
/** …and the share of the time it may over longer: its allowance grows back this fast. */
export const HOLD_SHARE = 0.1;
/** A terminal's full reset (RIS): a viewer that catches up starts from a clean terminal. */
const RESET = '\x1bc';

function hold(entry: PtyAgent): void {
  if (entry.holds++ === 0) entry.proc.pause();
}

function letGo(entry: PtyAgent): void {
  if (--entry.holds === 0) entry.proc.resume();
}

function holdSlave(proc: pty.IPty): number | null {
  const name = (proc as unknown as { ptsName?: string }).ptsName;
  if (!name) return null;
  try {
    return fs.openSync(name, fs.constants.O_RDWR | fs.constants.O_NOCTTY);
  } catch {
    return null;
  }
}

/** The plain text of output as a terminal of this size shows it, in a throwaway headless terminal. */
async function renderText(output: Uint8Array, cols: number, rows: number, lines: number, viewportOnly = false): Promise<string> {
  const screen = new Terminal({ cols, rows, scrollback: PTY_SCROLLBACK, allowProposedApi: true });
  try {
    await new Promise<void>((resolve) => screen.write(output, resolve));
    return viewportOnly ? viewport(screen) : plainText(screen, lines);
  } finally {
    screen.dispose();
  }
}

/** What a terminal of this size shows of output, as plain text and with its colours, in a throwaway headless terminal. */
async function renderWithColours(output: Uint8Array, cols: number, rows: number, lines: number): Promise<{ output: string; styled: string }> {
  const screen = new Terminal({ cols, rows, scrollback: PTY_SCROLLBACK, allowProposedApi: true });
  try {
    await new Promise<void>((resolve) => screen.write(output, resolve));
    return { output: plainText(screen, lines), styled: colouredLines(screen).slice(-lines).join('\n') };
  } finally {
    screen.dispose();
  }
}

/**
 * The terminal's lines as logicalLines gives them, each with the SGR sequences of its cells'
 * colours and attributes, and each complete in itself (it sets what it needs, and ends reset).
 */
function colouredLines(screen: InstanceType<typeof Terminal>): string[] {
  const buffer = screen.buffer.active;
  const cell = buffer.getNullCell();
  const out: string[] = [];
  for (let i = 0; i < buffer.length; i++) {
    const line = buffer.getLine(i);
    if (!line) continue;
    let text = '';
    let style = '';
    for (let x = 0; x < line.length; x++) {
      line.getCell(x, cell);
      if (cell.getWidth() === 0) continue;
      const now = sgrOf(cell);
      if (now !== style) text += `\x1b[0${now ? `;${now}` : ''}m`;
      style = now;
      text += cell.getChars() || ' ';
    }
    // Trailing blanks go, as translateToString(true) drops them, and so does the style set for them.
    // eslint-disable-next-line no-control-regex -- SGR sequences are what it reads
    text = text.replace(/(?: |\x1b\[[0-9;]*m)+$/, '');
    if (text.includes('\x1b[0;') && !text.endsWith('\x1b[0m')) text += '\x1b[0m';
    // eslint-disable-next-line no-control-regex -- SGR sequences are what it reads
    if (line.isWrapped && out.length > 0) out[out.length - 1] = out[out.length - 1]!.replace(/\x1b\[0m$/, '') + text;
    else out.push(text);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

/** A cell's colours and attributes as SGR parameters ('' for none). */
function sgrOf(cell: ReturnType<InstanceType<typeof Terminal>['buffer']['active']['getNullCell']>): string {
  const parts: (string | number)[] = [];
  if (cell.isBold()) parts.push(1);
  if (cell.isDim()) parts.push(2);
  if (cell.isItalic()) parts.push(3);
  if (cell.isUnderline()) parts.push(4);
  if (cell.isInverse()) parts.push(7);
  const colour = (palette: boolean, rgb: boolean, value: number, base: number, bright: number, extended: number) => {
    if (rgb) parts.push(`${extended};2;${(value >> 16) & 255};${(value >> 8) & 255};${value & 255}`);
    else if (palette) parts.push(value < 8 ? base + value : value < 16 ? bright + value - 8 : `${extended};5;${value}`);
  };
  colour(cell.isFgPalette(), cell.isFgRGB(), cell.getFgColor(), 30, 90, 38);
  colour(cell.isBgPalette(), cell.isBgRGB(), cell.getBgColor(), 40, 100, 48);
  return parts.join(';');
}

/** The screen, its modes and cursor, and its last `lines` lines of history, as output that redraws them. */
function serialized(entry: PtyAgent, lines: number): string {
  if (!entry.serializer) {
    entry.serializer = new SerializeAddon();
    // The addon is typed for @xterm/xterm's Terminal; the headless one has what it uses.
    entry.screen.loadAddon(entry.serializer as unknown as Parameters<typeof entry.screen.loadAddon>[0]);
  }
  return entry.serializer.serialize({ scrollback: lines });
}

function plainText(screen: InstanceType<typeof Terminal>, lines: number): string {
  return logicalLines(screen).slice(-lines).join('\n');
}

/** The terminal's lines, history and screen, wrapped ones joined, without the blank ones at the end. */
function logicalLines(screen: InstanceType<typeof Terminal>): string[] {
  const buffer = screen.buffer.active;
  const out: string[] = [];
  for (let i = 0; i < buffer.length; i++) {
    const line = buffer.getLine(i);
    if (!line) continue;
    const text = line.translateToString(true);
    if (line.isWrapped && out.length > 0) out[out.length - 1] += text;
    else out.push(text);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

function viewport(screen: InstanceType<typeof Terminal>): string {
  const buffer = screen.buffer.active;
  const shown: string[] = [];
  for (let i = buffer.baseY; i < buffer.baseY + screen.rows; i++) shown.push(buffer.getLine(i)?.translateToString(true) ?? '');
  return shown.join('\n').replace(/\s+$/, '');
}

/**
 * The agent's terminal answers what the agent asks: the headless terminal answers device
 * attributes, cursor position and status itself; foreground and background colours (OSC 10
 * and 11) are answered here, with the colours of the viewer in use.
 */
function answerQueries(entry: PtyAgent): void {
  entry.screen.onData((reply) => entry.proc.write(reply));
  for (const [code, pick] of [[10, 'fg'], [11, 'bg']] as const) {
    entry.screen.parser.registerOscHandler(code, (data) => {
      if (data !== '?') return false;
      entry.proc.write(`\x1b]${code};${xtermColor(entry.colors[pick])}\x1b\\`);
      return true;
    });
  }
}

/** "#16181d" as a terminal reports it: "rgb:1616/1818/1d1d". */
export function xtermColor(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((at) => hex.slice(at, at + 2).toLowerCase());
  return `rgb:${r}${r}/${g}${g}/${b}${b}`;
}

/** How much of a backlog the screen is given when it catches up: enough to redraw any screen. */
export const KEEPER_TAIL = 256 * 1024;
/** Lines of history the agent's terminal keeps beyond its screen: what capture() reads without a replay. */
export const KEEPER_HISTORY = 1_000;

/** Terminal queries an agent may wait on the answer to: device attributes and status, cursor
 * position, modes, window size, keyboard flags, version, capabilities, colours. Each escape
 * sequence's parameters are read once, whichever query it turns out to be (the common ones, a
 * colour's, are none): it is scanned in every chunk of output (bench/README.md, "Figure 1,
 * alternated"). A mode's query is taken with any of the prefixes `?`, `>` and `=`. */
// eslint-disable-next-line no-control-regex -- matching escape sequences is the point
const QUERY = /\x1b(?:\[(?:[?>=]?[0-9;]*(?:[cnu]|\$p)|1[48]t|>[0-9]*q)|\][0-9]+;(?:[0-9]+;)?\?|P[+$]q)/;

/** Whether output (its bytes as Latin-1: escape sequences are ASCII) asks the terminal something (QUERY). */
export function asksTerminal(bytes: string): boolean {
  return bytes.includes('\x1b') && QUERY.test(bytes);
}

/** Output for the screen: given at once when it asks something, else kept for later. */
function keep(entry: PtyAgent, bytes: Buffer): void {
  // Its bytes a character each, copied once, never decoded: scanned here, and later, if the
  // screen is not given it, for the modes it sets.
  const data = bytes.toString('latin1');
  entry.backlog.push(data);
  entry.backlogSize += data.length;
  // Only the tail is ever given to the screen: a flood nobody looks at holds no more.
  while (entry.backlog.length > 1 && entry.backlogSize - entry.backlog[0]!.length >= KEEPER_TAIL) {
    const dropped = entry.backlog.shift()!;
    entry.backlogSize -= dropped.length;
    entry.backlogCut = true;
    noteModes(entry, dropped);
  }
  // A query in this chunk, or one split across the last one's end and this one's start (queries
  // are shorter than the tail kept): the chunk is scanned as it is, never copied to be scanned.
  const asks = asksTerminal(data) || (entry.tail.includes('\x1b') && QUERY.test(entry.tail + data.slice(0, 24)));
  entry.tail = data.slice(-24);
  if (asks) catchUp(entry);
}

/** The screen once it has parsed whatever arrived. */
async function caughtUp(entry: PtyAgent): Promise<void> {
  catchUp(entry);
  await new Promise<void>((resolve) => entry.screen.write('', resolve));
}

/**
 * Gives the screen what it has not seen: all of it, or, past KEEPER_TAIL, its tail on a cleared
 * screen, after the modes the rest set (the alternate screen, bracketed paste, mouse reports...):
 * an agent that set them once, before a flood nobody looked at, still has them, and its terminal
 * answers its queries about them as before.
 */
function catchUp(entry: PtyAgent): void {
  if (entry.backlogSize === 0) return;
  let text = entry.backlog.join('');
  if (entry.backlogCut || text.length > KEEPER_TAIL) {
    const from = Math.max(0, text.length - KEEPER_TAIL);
    const cut = text.indexOf('\n', from);
    // Its bytes are characters here: the start of one is a byte that is no UTF-8 continuation.
    let start = cut >= 0 ? cut + 1 : from;
    while (cut < 0 && start < text.length && continues(text.charCodeAt(start))) start++;
    noteModes(entry, text.slice(0, start));
    text = [...entry.skipped.modes.values()].join('') + CLEARED + text.slice(start);
    entry.skipped = { modes: new Map(), edge: '' };
    entry.whole = false;
  }
  entry.backlog = [];
  entry.backlogSize = 0;
  entry.backlogCut = false;
  // Back to its bytes: the screen decodes them as UTF-8.
  entry.screen.write(Buffer.from(text, 'latin1'));
}

/** Plain attributes, the cursor home, the screen and its history cleared: the modes stay. */
const CLEARED = '\x1b[0m\x1b[H\x1b[2J\x1b[3J';

/** Mode sets and resets (DEC private and ANSI), the scroll region, the keypad's mode. */
// eslint-disable-next-line no-control-regex -- matching escape sequences is the point
const MODE_SET = /\x1b\[(\??)([0-9;]*)([hlr])|\x1b([=>])/g;
// eslint-disable-next-line no-control-regex -- an escape sequence its chunk's end cut short
const CUT_SHORT = /\x1b(\[[0-9;?]*)?$/;

/** Notes the modes that output the screen is not given sets, the last of each (its bytes as Latin-1). */
function noteModes(entry: PtyAgent, text: string): void {
  const { skipped } = entry;
  const scanned = skipped.edge + text;
  skipped.edge = CUT_SHORT.exec(scanned.slice(-16))?.[0] ?? '';
  if (!scanned.includes('\x1b')) return;
  const note = (key: string, sequence: string) => {
    skipped.modes.delete(key);
    skipped.modes.set(key, sequence);
  };
  for (const [sequence, dec, params, final, keypad] of scanned.matchAll(MODE_SET)) {
    if (keypad) note('keypad', sequence);
    else if (final === 'r') {
      if (!dec) note('region', sequence);
    } else for (const param of params!.split(';')) if (param) note(dec + param, `\x1b[${dec}${param}${final}`);
  }
}
