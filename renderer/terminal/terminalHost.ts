// A live xterm for the shown session and the few shown before it (LIVE_TERMINALS); every other
// session has no terminal and no stream: its state and needs-you come from the session list, and
// its terminal is made and connected when its tab is chosen (the daemon replays its screen). The
// live terminals are stacked in the pane and a hidden one is hidden where it is (inert, not
// painted: styles.css), still connected, holding what comes until it is shown again: a switch
// back to it flips an attribute instead of moving it in the page, which laid it all out again. A
// spare terminal, made in idle time and hidden there unconnected, is what the next tab chosen
// takes (SPARE_TERMINALS). A terminal keeps its WebGL renderer (when it has one) for its whole life.

import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon, type ISearchOptions } from '@xterm/addon-search';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { WebglAddon } from '@xterm/addon-webgl';
import { Terminal, type ITheme } from '@xterm/xterm';
import type { ClientApi, TerminalStream } from '../../daemon/contract/contract';
import { findPaths, openWebLink } from '../lib/paths';
import { BidiControls } from './bidiControls';
import { OutputGather } from './outputGather';
import { safePaste } from './paste';
import { ACTIVE_MATCH, ACTIVE_MATCH_TEXT, MIN_CONTRAST, THEMES } from './themes';
import { scrollbarByFrame, shareWidths, type FrameScrollbar } from './xtermInternals';

export const SCROLLBACK = 10_000;
const ACK_EVERY = 5_000;
/** Output within this long of a keystroke is written at once: its echo is never gathered. */
const TYPED_MS = 500;
/**
 * Live terminals besides the shown one. Each holds its scrollback (about 12 MB at 10,000 lines)
 * and its stream, whose output it writes when shown again; the rest cost nothing in the page.
 */
export const LIVE_TERMINALS = 4;
/**
 * Lines of history a terminal is given first, before the screen: a switch to a tab shows its
 * screen without writing its whole scrollback. The rest comes when the person scrolls to the top
 * of these, or searches.
 */
export const FIRST_HISTORY = 500;
/**
 * Rows a tenth taller than the font's measured height. At 1, a font whose glyphs reach past its
 * measured height loses what is drawn there: in DejaVu Sans Mono at 14 px (the default size, in
 * the default font where it is installed) every underscore is clipped away.
 */
export const LINE_HEIGHT = 1.1;
/**
 * Terminals made in idle time and hidden in the pane, none of them connected: a switch to a tab
 * without a live terminal takes one, so the font is measured and the screen's elements laid out
 * before the click rather than in it.
 */
export const SPARE_TERMINALS = 1;
/**
 * Terminals connected ahead for the tabs a person most likely shows next: the ones beside the
 * shown tab, where the keys for the next and the previous tab go. Made once the shown terminal has
 * drawn its first screen, in idle time; let go when the shown tab changes and they are not beside
 * the new one (nor among the last shown).
 */
export const EXPECTED_TERMINALS = 2;
/**
 * How long after a switch the tabs beside the shown one wait to connect, and then again while
 * the shown terminal has not drawn its first screen or was typed into within as long: a person
 * going through tabs faster than this reads none of them, and one typing has the echo first.
 */
export const EXPECT_AFTER_MS = 250;

export interface HostOptions {
  fontSize: number;
  /** A CSS font-family list (fontStack in state/ui.ts). */
  fontFamily: string;
  dark: boolean;
  /** Our shortcuts: xterm lets these pass to the page instead of the agent. */
  isAppShortcut(event: KeyboardEvent): boolean;
  /** A printed path was clicked. */
  onPath(sessionId: string, path: string): void;
  /**
   * Whether keys typed may go to the agent now: not while the daemon is not answering. A key
   * typed into a screen as it was is dropped then, never sent once the daemon is back.
   */
  canType(): boolean;
}


let gpu: boolean | null = null;

/**
 * Whether WebGL is drawn by a GPU here. Software WebGL (SwiftShader, llvmpipe: no GPU, or
 * Chromium's --disable-gpu) draws slower than xterm.js's DOM renderer (bench figure 12), so
 * there a terminal keeps the DOM renderer.
 */
function drawnByGpu(): boolean {
  if (gpu === null) {
    const gl = document.createElement('canvas').getContext('webgl2');
    const info = gl?.getExtension('WEBGL_debug_renderer_info');
    const renderer = gl && info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : '';
    gpu = !!gl && !/swiftshader|llvmpipe|softpipe|software/i.test(renderer);
    gl?.getExtension('WEBGL_lose_context')?.loseContext();
  }
  return gpu;
}

export class TerminalHost {
  readonly term: Terminal;
  /** The session shown; '' for a spare, until it is given one. */
  id: string;
  readonly element: HTMLDivElement;
  readonly search = new SearchAddon();
  private readonly fit = new FitAddon();
  private webgl: WebglAddon | null = null;
  private stream: TerminalStream | null = null;
  private unacked = 0;
  /** Bytes of output written to the screen so far (their write callbacks have run). */
  written = 0;
  /** Nothing has been written to the terminal yet. */
  private blank = true;
  /**
   * From a connection until the frame after its first bytes were parsed has been drawn: work
   * that can wait (a spare terminal's making) waits for it, not the other way round.
   */
  settling = false;
  /** Why its last stream closed (for state()). */
  private lastClose: string | null = null;
  private retry: ReturnType<typeof setTimeout> | null = null;
  /** The wait before the next try after a stream ended with an error: 1 s, doubling to 10 s. */
  private retryMs = 1_000;
  private wanted = false;
  /** Lines of history asked for on connect; undefined once the whole of it is wanted. */
  private history: number | undefined = FIRST_HISTORY;
  /**
   * Output that came while the terminal was hidden, written when it is shown: a hidden terminal
   * neither parses nor draws (xterm.js redraws every row of a hidden DOM terminal at each line
   * that scrolls). Unacknowledged, it is at most the stream's window: the daemon holds the rest.
   */
  private held: Uint8Array[] = [];
  private holding = false;
  private release: (data: Uint8Array) => void = () => {};
  /** The stream's output on its way to the screen, gathered under a flood. */
  private gather: OutputGather | null = null;
  /** When the person last typed into the terminal. */
  private typedAt = -Infinity;
  /**
   * The pane's size (CSS px, as its ResizeObserver said) when this terminal was last fitted to it:
   * shown again at that size it is not measured again (a measure lays out the whole page at once).
   */
  private fittedTo: string | null = null;
  /** Where the viewport goes, from the bottom, once the next connection's history is written. */
  private pinned: number | null = null;
  disposed = false;
  /** Its scrollbar synced once a frame, not at every line that scrolls (null: xterm.js not as expected). */
  private scrollbar: FrameScrollbar | null = null;
  /** The search bar is open over this terminal (see theme). */
  private searchOpen = false;
  /** A search is selecting its match (see find). */
  private finding = false;

  /**
   * `at`: the terminal of a tab about to be shown, made at the size of the one shown now (fitted
   * to the pane at `fittedTo`); it connects at once, before its screen is made in the page, so the
   * daemon's first frame is on its way meanwhile. `spareIn`: a spare, put hidden in that pane
   * before it is opened, so xterm.js measures its font and lays out its screen there now.
   */
  constructor(
    id: string,
    private readonly api: ClientApi,
    private readonly options: HostOptions,
    at?: TerminalSize,
    spareIn?: HTMLElement,
  ) {
    this.id = id;
    this.element = document.createElement('div');
    this.element.className = 'terminal-host';
    this.element.dataset.session = id;
    this.element.setAttribute('inert', '');
    this.term = new Terminal({
      ...(at && { cols: at.cols, rows: at.rows }),
      scrollback: SCROLLBACK,
      fontSize: options.fontSize,
      fontFamily: options.fontFamily,
      lineHeight: LINE_HEIGHT,
      theme: options.dark ? THEMES.dark : THEMES.light,
      allowProposedApi: true,
      cursorBlink: true,
      minimumContrastRatio: MIN_CONTRAST,
      // OSC 8 hyperlinks open as printed URLs do (xterm.js's own handler opens a blank window).
      linkHandler: { activate: (_event, uri) => openWebLink(uri), allowNonHttpProtocols: false },
    });
    this.term.loadAddon(this.fit);
    this.term.loadAddon(this.search);
    this.term.loadAddon(new WebLinksAddon((_event, uri) => openWebLink(uri)));
    // Paths the agent prints open a preview beside the terminal, wrapped over rows or not.
    this.term.registerLinkProvider({
      provideLinks: (y, callback) => {
        const { text, first, cols } = this.logicalLine(y - 1);
        const at = (offset: number) => ({ x: (offset % cols) + 1, y: first + Math.floor(offset / cols) + 1 });
        const links = findPaths(text)
          .map((found) => ({
            range: { start: at(found.start), end: at(found.start + found.text.length - 1) },
            text: found.text,
            decorations: { underline: true, pointerCursor: true },
            activate: () => options.onPath(this.id, found.text),
          }))
          .filter((link) => link.range.start.y <= y && link.range.end.y >= y);
        callback(links.length > 0 ? links : undefined);
      },
    });
    if (at) {
      this.fittedTo = at.fittedTo;
      this.connect(true);
    }
    spareIn?.appendChild(this.element);
    this.term.open(this.element);
    this.scrollbar = scrollbarByFrame(this.term);
    this.term.attachCustomKeyEventHandler((event) => !options.isAppShortcut(event));
    this.term.onData((data) => this.type(data));
    this.term.onBinary((data) => this.type(data));
    this.term.onResize(({ cols, rows }) => this.stream?.resize(cols, rows));
    // At the top of a part of the history, the rest of it comes.
    this.term.onScroll((top) => {
      if (top === 0 && this.history !== undefined && this.term.buffer.active.length - this.term.rows >= this.history) this.loadHistory();
    });
    // Copy on selection, the way terminal users expect.
    this.term.onSelectionChange(() => {
      // A search's match is selected to show it: the person's clipboard is not the search's.
      if (this.finding) return;
      if (this.term.hasSelection()) void navigator.clipboard?.writeText(this.term.getSelection()).catch(() => {});
    });
  }

  /** A spare given to a session: with `at` (as for the constructor) it connects now, at that size. */
  adopt(id: string, at?: TerminalSize): void {
    this.id = id;
    this.element.dataset.session = id;
    if (!at) return;
    if (this.term.cols !== at.cols || this.term.rows !== at.rows) this.term.resize(at.cols, at.rows);
    this.fittedTo = at.fittedTo;
    this.connect(true);
  }

  /** The whole line a buffer row belongs to, across the rows it wrapped onto (at most 20). */
  private logicalLine(row: number): { text: string; first: number; cols: number } {
    const buffer = this.term.buffer.active;
    const cols = this.term.cols;
    let first = row;
    while (first > 0 && row - first < 20 && buffer.getLine(first)?.isWrapped) first--;
    let last = row;
    while (last - first < 20 && buffer.getLine(last + 1)?.isWrapped) last++;
    let text = '';
    for (let r = first; r <= last; r++) text += buffer.getLine(r)?.translateToString(r === last) ?? '';
    return { text, first, cols };
  }

  /**
   * Connects to the session's output, if it is not connected; reconnects after a drop. A terminal
   * shown, or about to be (`inUse`), is the person's from the start: the agent takes its size as
   * it connects, so the daemon's first frames already hold the screen at that size.
   */
  connect(inUse = this.shown): void {
    this.wanted = true;
    if (this.stream || this.disposed) return;
    this.settling = true;
    // What the last stream gathered goes first, before the next one's replay.
    this.gather?.flush();
    this.unacked = 0;
    // The theme's colours: what the agent is told when it asks, once this viewer is in use.
    const theme = this.term.options.theme ?? THEMES.dark;
    const colors = { fg: theme.foreground ?? '#d8dce3', bg: theme.background ?? '#16181d' };
    const history = this.history === undefined ? {} : { history: this.history };
    let pinned = this.pinned;
    this.pinned = null;
    let acking = false;
    // The server replays the scrollback and screen on connect: the terminal starts clean with its
    // first bytes, and keeps its last screen until then (a try refused while a host is down).
    // (Nothing xterm.js says on a reset could reach the agent: the daemon drops terminal replies.)
    let replay = true;
    // Drawn in the order written, whatever bidi controls the output holds (bidiControls.ts).
    const bidi = new BidiControls();
    // The bytes as they came: xterm.js decodes UTF-8 itself, as it parses.
    const write = (data: Uint8Array) => {
      // A terminal never written to is clean: a reset would only draw its rows once more.
      if (replay && !this.blank) this.term.reset();
      const first = replay;
      replay = false;
      this.blank = false;
      const parsed = () => {
        // The history comes first, in one frame (the screen is drawn after it, in its rows).
        if (pinned !== null) this.term.scrollToLine(Math.max(0, this.term.buffer.active.length - pinned));
        pinned = null;
        this.written += data.byteLength;
        this.unacked += data.byteLength;
        // xterm.js parses many frames in one task and calls back for each: one ack after the
        // task says the same in one message.
        if (this.unacked >= ACK_EVERY && !acking) {
          acking = true;
          queueMicrotask(() => {
            acking = false;
            if (this.stream !== stream || this.unacked === 0) return;
            stream.ack(this.unacked);
            this.unacked = 0;
          });
        }
      };
      // The replay's lines scroll by the hundred: the scrollbar, synced once a frame, is synced
      // after them at once, before the viewport goes where it was pinned.
      const drawn = bidi.take(data);
      if (first) this.term.write(drawn, () => (this.scrollbar?.firstFrame(), parsed(), this.settled()));
      else this.term.write(drawn, parsed);
    };
    const gather = new OutputGather((data) => (this.holding ? this.held.push(data) : write(data)));
    this.gather = gather;
    this.held = [];
    this.release = write;
    const stream = this.api.openStream(this.id, { cols: this.term.cols, rows: this.term.rows, colors, ...history, inUse }, {
      onData: (data) => {
        this.retryMs = 1_000;
        if (this.holding) this.held.push(data);
        else gather.take(data, performance.now(), performance.now() - this.typedAt < TYPED_MS);
      },
      onClosed: ({ reason, error }) => {
        this.lastClose = `${reason}${error ? ` (${error.code})` : ''}`;
        gather.flush();
        if (this.stream !== stream) return;
        this.stream = null;
        this.settling = false;
        if (!this.wanted || this.disposed) return;
        if (reason === 'disconnected') this.retry = setTimeout(() => this.connect(), 1_000);
        // Refused while its session still runs (tmux busy, the session between two processes):
        // tried again, more slowly each time, so a shown tab is never left blank. A session that
        // ended closes without an error, and its next start connects it again.
        else if (error) {
          this.retry = setTimeout(() => this.connect(), this.retryMs);
          this.retryMs = Math.min(this.retryMs * 2, 10_000);
        }
      },
    });
    this.stream = stream;
    if (this.shown) this.claim();
    // Small outputs never reach the batch size: acknowledge them when things go quiet.
    const flushAcks = setInterval(() => {
      if (this.stream !== stream) return clearInterval(flushAcks);
      if (this.unacked > 0) {
        stream.ack(this.unacked);
        this.unacked = 0;
      }
    }, 250);
  }

  /**
   * The whole history, when the terminal has only its last lines: connects again asking for all
   * of it, and puts the viewport back on the lines it showed.
   */
  loadHistory(): void {
    if (this.history === undefined) return;
    this.history = undefined;
    if (!this.stream) return;
    // At the pane's size as it is now (a search bar may have just taken some of it): the next
    // connection's tmux client draws at the size it is started with.
    if (this.shown) this.fitNow();
    const buffer = this.term.buffer.active;
    this.pinned = buffer.length - buffer.viewportY;
    this.stream.close();
    this.stream = null;
    this.connect();
  }

  /**
   * Connects again a terminal that was connected (its session started again, or the daemon came
   * back). One never connected waits to be shown, or is connected by `prepare` at the pane's size:
   * either way in use, so the agent takes its size as it attaches.
   */
  reconnect(): void {
    if (this.wanted) this.connect();
  }

  /** When the person last typed into this terminal (performance.now()). */
  get lastTyped(): number {
    return this.typedAt;
  }

  /** Keys typed: sent to the agent, and its output written at once for a while (the echo). */
  private type(data: string): void {
    if (!this.options.canType()) return;
    this.typedAt = performance.now();
    this.gather?.flush();
    this.stream?.write(safePaste(data));
  }

  private disconnect(): void {
    this.wanted = false;
    if (this.retry) clearTimeout(this.retry);
    this.stream?.close();
    this.stream = null;
    this.settling = false;
  }

  /** The person uses this terminal: the agent takes its size (and colours). */
  private claim(): void {
    this.stream?.resize(this.term.cols, this.term.rows);
  }

  /**
   * Settled once the frame now coming (which draws what was just parsed) has been drawn. One made
   * ahead of its tab (prepared or expected) and still hidden then holds what comes next, as a
   * hidden terminal shown before does: its screen is ready, and a busy agent beside the shown tab
   * costs the page nothing until it is shown.
   */
  private settled(): void {
    requestAnimationFrame(() =>
      setTimeout(() => {
        this.settling = false;
        if (!this.shown && this.element.isConnected) this.holding = true;
      }),
    );
  }

  /** See TerminalRegistry.state. */
  state(): Record<string, unknown> {
    return { shown: this.shown, wanted: this.wanted, connected: this.stream !== null, retried: this.retry !== null, lastClose: this.lastClose, holding: this.holding, held: this.held.length, blank: this.blank, settling: this.settling, written: this.written, disposed: this.disposed, cols: this.term.cols, rows: this.term.rows };
  }

  get shown(): boolean {
    return !this.element.hasAttribute('inert');
  }

  /** Shows the terminal in the pane, whose size is `paneSize` (null when not known yet). */
  show(pane: HTMLElement, paneSize: string | null): void {
    if (this.element.parentElement !== pane) pane.appendChild(this.element);
    this.element.removeAttribute('inert');
    // At the size it came for, before the terminal takes the pane's.
    this.holding = false;
    for (const data of this.held.splice(0)) this.release(data);
    if (paneSize === null || paneSize !== this.fittedTo) this.fitTo(paneSize);
    // A new terminal connects once it has the pane's size, so the replay is drawn for that size.
    if (this.stream) this.claim();
    else this.connect();
    if (!this.webgl && drawnByGpu()) {
      try {
        const webgl = new WebglAddon();
        webgl.onContextLoss(() => {
          webgl.dispose();
          this.webgl = null;
        });
        this.term.loadAddon(webgl);
        this.webgl = webgl;
      } catch {
        this.webgl = null; // the DOM renderer it is
      }
    }
  }

  /** Hides the terminal in the pane, where it stays (a hidden terminal is not moved). */
  hide(pane: HTMLElement): void {
    // A terminal made for a tab about to be shown writes its first frame meanwhile.
    if (this.element.parentElement && this.shown) this.holding = true;
    this.element.setAttribute('inert', '');
    if (this.element.parentElement !== pane) pane.appendChild(this.element);
  }

  /** Fits the terminal to the pane, now `paneSize`. */
  fitTo(paneSize: string | null): void {
    if (this.fitNow()) this.fittedTo = paneSize;
  }

  /** Fits the terminal to where it is; false when it is not laid out. */
  fitNow(): boolean {
    this.fittedTo = null;
    if (!this.element.isConnected || this.element.clientWidth === 0) return false;
    try {
      this.fit.fit();
      return true;
    } catch {
      return false; // not laid out yet
    }
  }

  focus(): void {
    this.term.focus();
  }

  setFontSize(size: number): void {
    this.term.options.fontSize = size;
    this.fitNow();
  }

  setFontFamily(family: string): void {
    this.term.options.fontFamily = family;
    this.fitNow();
  }

  /** The theme's colours; while the search bar is open, the selection (its match) in the active match's. */
  private theme(dark: boolean): ITheme {
    const base = dark ? THEMES.dark : THEMES.light;
    return this.searchOpen ? { ...base, selectionBackground: ACTIVE_MATCH, selectionInactiveBackground: ACTIVE_MATCH, selectionForeground: ACTIVE_MATCH_TEXT } : base;
  }

  /** The search bar opened or closed over this terminal. */
  searching(open: boolean): void {
    this.searchOpen = open;
    this.term.options.theme = this.theme(this.options.dark);
  }

  /** A search, from the match selected (the newest first going back): the match is selected, not copied. */
  find(query: string, backwards: boolean, options: ISearchOptions): boolean {
    this.finding = true;
    try {
      return backwards ? this.search.findPrevious(query, options) : this.search.findNext(query, options);
    } finally {
      this.finding = false;
    }
  }

  setDark(dark: boolean): void {
    this.term.options.theme = this.theme(dark);
    // A viewer's colours are the pane's (tmux paints its background) and what the agent is told:
    // they travel with a connection, so a connected terminal connects again with the new ones.
    if (this.stream) {
      this.stream.close();
      this.stream = null;
      this.connect();
    }
  }

  async paste(): Promise<void> {
    const text = await navigator.clipboard?.readText().catch(() => '');
    if (text) this.term.paste(text);
  }

  copy(): void {
    if (this.term.hasSelection()) void navigator.clipboard?.writeText(this.term.getSelection()).catch(() => {});
  }

  dispose(): void {
    this.disposed = true;
    this.gather?.dispose();
    this.disconnect();
    this.webgl?.dispose();
    this.scrollbar?.dispose();
    this.term.dispose();
    this.element.remove();
  }
}

/** A terminal's size, and the pane's (ResizeObserver) it was fitted to. */
interface TerminalSize {
  cols: number;
  rows: number;
  fittedTo: string | null;
}

/** The live terminals (the shown one, the last few shown, and those connected ahead) and the spares. */
export class TerminalRegistry {
  private readonly hosts = new Map<string, TerminalHost>();
  private spares: TerminalHost[] = [];
  private spareMaking: number | null = null;
  private disposed = false;
  /**
   * The terminal `prepare` made for a session not shown since, if any: one at a time (a pointer
   * resting on row after row keeps one terminal more, not one a row), kept until shown or until
   * another is prepared.
   */
  private prepared: string | null = null;
  /** The sessions shown, the least recently first: the shown one and LIVE_TERMINALS before it. */
  private recent: string[] = [];
  /** The sessions `expect` was last told of, and what cancels the wait (a timer or an idle callback) to connect them. */
  private expected: string[] = [];
  private stopExpecting = (): void => {};
  /** The pane's size, as its ResizeObserver last said (null before it did). */
  paneSize: string | null = null;

  constructor(
    private readonly api: ClientApi,
    private readonly options: HostOptions,
    /** Where every live terminal is, the hidden ones hidden in place. */
    readonly pane: HTMLElement,
  ) {
    this.makeSpares();
  }

  /** Makes the spares that are missing, one an idle period. */
  private makeSpares(): void {
    if (this.disposed || this.spareMaking !== null || this.spares.length >= SPARE_TERMINALS) return;
    this.spareMaking = requestIdleCallback(
      (deadline) => {
        this.spareMaking = null;
        // A terminal just shown draws its first screen first: a spare's making (a few ms) in the
        // idle time before that frame, or while its bytes are on their way, would hold it up.
        if (!deadline.didTimeout && [...this.hosts.values()].some((host) => host.shown && host.settling)) return this.makeSpares();
        const spare = new TerminalHost('', this.api, this.options, undefined, this.pane);
        // Its fit draws its rows: with the widths the terminal shown last measured.
        const last = [...this.hosts.values()].at(-1);
        if (last) shareWidths(last.term, spare.term);
        spare.fitTo(this.paneSize);
        this.spares.push(spare);
        this.makeSpares();
      },
      { timeout: 2_000 },
    );
  }

  /** The spares go (made again with the terminals' new font or theme, or not at all). */
  private dropSpares(): void {
    if (this.spareMaking !== null) cancelIdleCallback(this.spareMaking);
    this.spareMaking = null;
    for (const spare of this.spares.splice(0)) spare.dispose();
  }

  /** Spares made with the terminals' options as they are now. */
  private remakeSpares(): void {
    this.dropSpares();
    this.makeSpares();
  }

  /** The plain text of a session's terminal buffer (for tests and accessibility tools). */
  text(id: string): string {
    const buffer = this.hosts.get(id)?.term.buffer.active;
    if (!buffer) return '';
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? '');
    return lines.join('\n').replace(/\s+$/, '');
  }

  /** The text on a session's screen, its rows as shown now (for tests and the benchmark). */
  screen(id: string): string {
    const host = this.hosts.get(id);
    if (!host) return '';
    const buffer = host.term.buffer.active;
    const rows: string[] = [];
    for (let row = 0; row < host.term.rows; row++) rows.push(buffer.getLine(buffer.viewportY + row)?.translateToString(true) ?? '');
    return rows.join('\n');
  }

  /** How many lines a session's screen is above the bottom of its buffer (0: at the bottom). */
  scrolledBack(id: string): number {
    const buffer = this.hosts.get(id)?.term.buffer.active;
    return buffer ? buffer.baseY - buffer.viewportY : 0;
  }

  /** Where on the page the first visible occurrence of `text` is (for tests that click it). */
  cellOf(id: string, text: string): { x: number; y: number } | null {
    const host = this.hosts.get(id);
    const screen = host?.element.querySelector('.xterm-screen');
    if (!host || !screen) return null;
    const buffer = host.term.buffer.active;
    const box = screen.getBoundingClientRect();
    for (let row = 0; row < host.term.rows; row++) {
      const col = buffer.getLine(buffer.viewportY + row)?.translateToString(true).indexOf(text) ?? -1;
      if (col < 0) continue;
      const width = box.width / host.term.cols;
      const height = box.height / host.term.rows;
      return { x: box.left + (col + 0.5) * width, y: box.top + (row + 0.5) * height };
    }
    return null;
  }

  written(id: string): number {
    return this.hosts.get(id)?.written ?? 0;
  }

  /** What a session's terminal is doing, for a test that finds it blank to say why. */
  state(id: string): Record<string, unknown> | null {
    const host = this.hosts.get(id);
    return host ? { ...host.state(), kept: [...this.hosts.keys()].indexOf(id), of: this.hosts.size, spares: this.spares.length, expected: this.expected.includes(id), prepared: this.prepared === id } : null;
  }

  size(id: string): { cols: number; rows: number } | null {
    const term = this.hosts.get(id)?.term;
    return term ? { cols: term.cols, rows: term.rows } : null;
  }

  /** A session's terminal, made if it has none: from a spare unless `spare` is false (see connectAhead). */
  get(id: string, at?: TerminalSize, spare = true): TerminalHost {
    let host = this.hosts.get(id);
    if (!host) {
      const taken = spare ? this.spares.shift() : undefined;
      // One made in idle time (not from a spare) is opened in the pane, as a spare is: its font
      // measured and its screen laid out now, not when it is shown.
      host = taken ?? new TerminalHost(id, this.api, this.options, at, spare ? undefined : this.pane);
      // The characters' widths the terminal shown last measured, before this one draws any (a
      // spare's resize as it is adopted draws its rows).
      const last = [...this.hosts.values()].at(-1);
      if (last) shareWidths(last.term, host.term);
      taken?.adopt(id, at);
      host.hide(this.pane);
      this.hosts.set(id, host);
      this.makeSpares();
    }
    return host;
  }

  has(id: string): boolean {
    return this.hosts.has(id);
  }

  /**
   * Makes the terminal of a session about to be shown and connects it at once, at the size of the
   * one shown now (the pane's): the daemon's first frame, most of a switch to a tab not kept, is
   * then on its way while the page draws the switch. Without a terminal shown, it connects when
   * shown.
   */
  prepare(id: string): void {
    if (this.hosts.has(id)) return;
    const before = this.prepared;
    this.prepared = id;
    if (before !== null) this.letGo(before);
    this.connectAhead(id);
  }

  /**
   * A terminal made and connected at the shown one's size, before its tab is shown. One expected
   * (`spare` false) is made anew in idle time: the spare stays for a tab chosen meanwhile.
   */
  private connectAhead(id: string, spare = true): void {
    const pane = [...this.hosts.values()].find((host) => host.shown);
    this.get(id, pane && { cols: pane.term.cols, rows: pane.term.rows, fittedTo: this.paneSize }, spare);
  }

  /**
   * The sessions a person most likely shows next (the tabs beside the shown one, at most
   * EXPECTED_TERMINALS): their terminals connect ahead (see EXPECT_AFTER_MS), in idle time;
   * those of the sessions expected before go, unless kept otherwise. Each connection costs the
   * daemon a viewer and the page a first frame to parse, so this waits for the page rather than
   * compete with the switch it follows or the typing after it.
   */
  expect(ids: string[]): void {
    const before = this.expected;
    this.expected = ids.slice(0, EXPECTED_TERMINALS);
    for (const id of before) this.letGo(id);
    this.stopExpecting();
    // After EXPECT_AFTER_MS of the shown terminal settled and not typed into, in idle time, one
    // an idle period: each makes a terminal and parses its first frame.
    const later = () => {
      const timer = setTimeout(idle, EXPECT_AFTER_MS);
      this.stopExpecting = () => clearTimeout(timer);
    };
    const idle = () => {
      const callback = requestIdleCallback(connectOne, { timeout: 2_000 });
      this.stopExpecting = () => cancelIdleCallback(callback);
    };
    const connectOne = () => {
      if (this.disposed) return;
      const shown = [...this.hosts.values()].find((host) => host.shown);
      if (shown && (shown.settling || performance.now() - shown.lastTyped < EXPECT_AFTER_MS)) return later();
      const next = this.expected.find((id) => !this.hosts.has(id));
      if (next === undefined) return;
      this.connectAhead(next, false);
      idle();
    };
    if (this.expected.some((id) => !this.hosts.has(id))) later();
  }

  /**
   * The terminal of the session about to be shown (it connects when shown); it becomes the most
   * recently shown, and the least recently shown beyond the budget go (their streams closed).
   */
  use(id: string): TerminalHost {
    if (this.prepared === id) this.prepared = null;
    const host = this.get(id);
    this.hosts.delete(id);
    this.hosts.set(id, host);
    this.recent = [...this.recent.filter((other) => other !== id), id];
    for (const other of this.recent.splice(0, Math.max(0, this.recent.length - (LIVE_TERMINALS + 1)))) this.letGo(other);
    return host;
  }

  /** A session's terminal goes unless it is still wanted: shown lately, prepared or expected. */
  private letGo(id: string): void {
    if (!this.recent.includes(id) && this.prepared !== id && !this.expected.includes(id)) this.drop(id);
  }

  /** Every terminal goes, the spares too, and no more are made. */
  dispose(): void {
    this.prune(new Set());
    this.disposed = true;
    this.dropSpares();
    this.stopExpecting();
  }

  /** Keeps the terminals of these sessions only (the running ones): the others go. */
  prune(ids: Set<string>): void {
    for (const id of this.hosts.keys()) if (!ids.has(id)) this.drop(id);
  }

  /** A session's terminal goes, its stream closed. */
  private drop(id: string): void {
    this.hosts.get(id)?.dispose();
    this.hosts.delete(id);
    if (this.prepared === id) this.prepared = null;
    this.recent = this.recent.filter((other) => other !== id);
    this.expected = this.expected.filter((other) => other !== id);
  }

  /** The pane was laid out at a new size: the shown terminal takes it. */
  resized(width: number, height: number): void {
    this.paneSize = `${width}x${height}`;
    for (const host of this.hosts.values()) if (host.shown) host.fitTo(this.paneSize);
  }

  all(): TerminalHost[] {
    return [...this.hosts.values()];
  }

  setFontSize(size: number): void {
    this.options.fontSize = size;
    this.remakeSpares();
    for (const host of this.hosts.values()) host.setFontSize(size);
  }

  setFontFamily(family: string): void {
    if (family === this.options.fontFamily) return;
    this.options.fontFamily = family;
    this.remakeSpares();
    for (const host of this.hosts.values()) host.setFontFamily(family);
  }

  /** The theme of every terminal, and of those made from now on. */
  setDark(dark: boolean): void {
    if (dark === this.options.dark) return;
    this.options.dark = dark;
    this.remakeSpares();
    for (const host of this.hosts.values()) host.setDark(dark);
  }
}
