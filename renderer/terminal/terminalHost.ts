// One xterm per session for the tab's whole life. A hidden tab's terminal is parked in an
// inert, off-screen container (never rebuilt), so switching is instant and scrollback stays.
// WebGL is used only for the visible terminal, falling back to the DOM renderer.

import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { WebglAddon } from '@xterm/addon-webgl';
import { Terminal } from '@xterm/xterm';
import type { ClientApi, TerminalStream } from '../../daemon/contract/contract';
import { findPaths, openWebLink } from '../lib/paths';
import { MIN_CONTRAST, THEMES } from './themes';

export const SCROLLBACK = 10_000;
const ACK_EVERY = 5_000;

export interface HostOptions {
  fontSize: number;
  dark: boolean;
  /** Our shortcuts: xterm lets these pass to the page instead of the agent. */
  isAppShortcut(event: KeyboardEvent): boolean;
  /** A printed path was clicked. */
  onPath(sessionId: string, path: string): void;
}


export class TerminalHost {
  readonly term: Terminal;
  readonly element: HTMLDivElement;
  readonly search = new SearchAddon();
  private readonly fit = new FitAddon();
  private webgl: WebglAddon | null = null;
  private stream: TerminalStream | null = null;
  private unacked = 0;
  /** Characters written to the screen so far (their write callbacks have run). */
  written = 0;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private wanted = false;
  disposed = false;

  constructor(
    readonly id: string,
    private readonly api: ClientApi,
    private readonly options: HostOptions,
  ) {
    this.element = document.createElement('div');
    this.element.className = 'terminal-host';
    this.element.dataset.session = id;
    this.term = new Terminal({
      scrollback: SCROLLBACK,
      fontSize: options.fontSize,
      fontFamily: 'ui-monospace, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace',
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
            activate: () => options.onPath(id, found.text),
          }))
          .filter((link) => link.range.start.y <= y && link.range.end.y >= y);
        callback(links.length > 0 ? links : undefined);
      },
    });
    this.term.open(this.element);
    this.term.attachCustomKeyEventHandler((event) => !options.isAppShortcut(event));
    this.term.onData((data) => this.stream?.write(data));
    this.term.onBinary((data) => this.stream?.write(data));
    this.term.onResize(({ cols, rows }) => this.stream?.resize(cols, rows));
    // Copy on selection, the way terminal users expect.
    this.term.onSelectionChange(() => {
      if (this.term.hasSelection()) void navigator.clipboard?.writeText(this.term.getSelection()).catch(() => {});
    });
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

  /** Connects to the session's output, if it is not connected; reconnects after a drop. */
  connect(): void {
    this.wanted = true;
    if (this.stream || this.disposed) return;
    // The server replays the scrollback and screen on connect: start from a clean terminal.
    this.term.reset();
    this.unacked = 0;
    // The theme's colours: what the agent is told when it asks, once this viewer is in use.
    const theme = this.term.options.theme ?? THEMES.dark;
    const colors = { fg: theme.foreground ?? '#d8dce3', bg: theme.background ?? '#16181d' };
    const stream = this.api.openStream(this.id, { cols: this.term.cols, rows: this.term.rows, colors }, {
      onData: (data) => {
        this.term.write(data, () => {
          this.written += data.length;
          this.unacked += data.length;
          if (this.unacked >= ACK_EVERY) {
            stream.ack(this.unacked);
            this.unacked = 0;
          }
        });
      },
      onClosed: ({ reason }) => {
        if (this.stream !== stream) return;
        this.stream = null;
        if (this.wanted && !this.disposed && reason === 'disconnected') this.retry = setTimeout(() => this.connect(), 1_000);
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

  /** The session stopped: stop wanting its stream. The screen stays as it was. */
  disconnect(): void {
    this.wanted = false;
    if (this.retry) clearTimeout(this.retry);
    this.stream?.close();
    this.stream = null;
  }

  get connected(): boolean {
    return this.stream !== null;
  }

  /** The person uses this terminal: the agent takes its size (and colours). */
  private claim(): void {
    this.stream?.resize(this.term.cols, this.term.rows);
  }

  private get shown(): boolean {
    return !this.element.hasAttribute('inert');
  }

  show(container: HTMLElement): void {
    if (this.element.parentElement !== container) container.appendChild(this.element);
    this.element.removeAttribute('inert');
    this.fitNow();
    this.claim();
    if (!this.webgl) {
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

  park(parking: HTMLElement): void {
    this.webgl?.dispose();
    this.webgl = null;
    this.element.setAttribute('inert', '');
    if (this.element.parentElement !== parking) parking.appendChild(this.element);
  }

  fitNow(): void {
    if (!this.element.isConnected || this.element.clientWidth === 0) return;
    try {
      this.fit.fit();
    } catch {
      // not laid out yet
    }
  }

  focus(): void {
    this.term.focus();
  }

  setFontSize(size: number): void {
    this.term.options.fontSize = size;
    this.fitNow();
  }

  setDark(dark: boolean): void {
    this.term.options.theme = dark ? THEMES.dark : THEMES.light;
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
    this.disconnect();
    this.webgl?.dispose();
    this.term.dispose();
    this.element.remove();
  }
}

/** Every session's terminal, made on first sight, kept until the session is removed. */
export class TerminalRegistry {
  private readonly hosts = new Map<string, TerminalHost>();

  constructor(
    private readonly api: ClientApi,
    private readonly options: HostOptions,
    readonly parking: HTMLElement,
  ) {}

  /** The plain text of a session's terminal buffer (for tests and accessibility tools). */
  text(id: string): string {
    const buffer = this.hosts.get(id)?.term.buffer.active;
    if (!buffer) return '';
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? '');
    return lines.join('\n').replace(/\s+$/, '');
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

  size(id: string): { cols: number; rows: number } | null {
    const term = this.hosts.get(id)?.term;
    return term ? { cols: term.cols, rows: term.rows } : null;
  }

  get(id: string): TerminalHost {
    let host = this.hosts.get(id);
    if (!host) {
      host = new TerminalHost(id, this.api, this.options);
      host.park(this.parking);
      this.hosts.set(id, host);
    }
    return host;
  }

  has(id: string): boolean {
    return this.hosts.has(id);
  }

  /** Drops terminals of sessions that no longer exist. */
  prune(ids: Set<string>): void {
    for (const [id, host] of this.hosts) {
      if (!ids.has(id)) {
        host.dispose();
        this.hosts.delete(id);
      }
    }
  }

  all(): TerminalHost[] {
    return [...this.hosts.values()];
  }

  setFontSize(size: number): void {
    this.options.fontSize = size;
    for (const host of this.hosts.values()) host.setFontSize(size);
  }
}
