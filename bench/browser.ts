// The figures measured in Chromium (2: throughput to the screen, 12: many open tabs): the real
// renderer served by `corral serve`, in Debian's Chromium through Playwright (never a download).

import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type CDPSession, type Page } from '@playwright/test';
import { sleep } from '../daemon/test/support/wait';
import { MIN_CONTRAST, THEMES } from '../renderer/terminal/themes';
import type { Daemon } from './harness';

/** Debian's Chromium (or CORRAL_CHROMIUM), headless; null when there is none. */
async function launchChromium(): Promise<Browser | null> {
  const executablePath = process.env.CORRAL_CHROMIUM ?? '/usr/bin/chromium';
  if (!fs.existsSync(executablePath)) return null;
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
}

/** A page's main thread over a span: ms of CPU it had, and ms it spent in tasks (waiting for a core too). */
export interface PageWork {
  cpuMs: number;
  busyMs: number;
}

/** The page's main-thread counters now (Chrome DevTools Protocol `Performance.getMetrics`, in seconds). */
async function mainThread(cdp: CDPSession): Promise<PageWork> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const ms = (name: string) => (metrics.find((m) => m.name === name)?.value ?? NaN) * 1000;
  return { cpuMs: ms('ThreadTime'), busyMs: ms('TaskDuration') };
}

const workSince = (before: PageWork, after: PageWork): PageWork => ({ cpuMs: after.cpuMs - before.cpuMs, busyMs: after.busyMs - before.busyMs });

/**
 * Records the page from now until the function returned is called: with CORRAL_BENCH_PROFILE=DIR
 * a CPU profile (`name-*.cpuprofile`), with CORRAL_BENCH_TRACE=DIR a Chromium trace
 * (`name-*.json`), each written there; nothing without them.
 */
async function recording(browser: Browser, page: Page, cdp: CDPSession, name: string): Promise<() => Promise<void>> {
  const profileDir = process.env.CORRAL_BENCH_PROFILE;
  const traceDir = process.env.CORRAL_BENCH_TRACE;
  if (profileDir) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  if (traceDir) await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel', 'blink.user_timing'] });
  return async () => {
    if (traceDir) fs.writeFileSync(path.join(traceDir, `${name}-${Date.now()}.json`), await browser.stopTracing());
    if (profileDir) fs.writeFileSync(path.join(profileDir, `${name}-${Date.now()}.cpuprofile`), JSON.stringify((await cdp.send('Profiler.stop')).profile));
  };
}

/**
 * The flood written into xterm.js: through the real renderer, and straight on a bare page with a
 * terminal like the renderer's (its columns, rows, font, theme and contrast rule; the DOM
 * renderer in both). `catchUps`: how often the renderer's viewer fell behind for more than 1 s
 * and was sent the screen anew (docs/api.md), skipping bytes the screen never drew; `sent`: the
 * bytes its stream was sent from the flood's start to its end, of the flood's `bytes` (as the
 * terminal gets them, each line ending in CR LF). `work`: each page's main thread over its flood.
 */
export async function screenThroughput(daemon: Daemon, cwd: string, file: string): Promise<{ renderer: number; bare: number; catchUps: number; sent: number; bytes: number; terminal: string; work: { renderer: PageWork; bare: PageWork } } | null> {
  const browser = await launchChromium();
  if (!browser) return null;
  try {
    const content = fs.readFileSync(file, 'utf8').replace(/\n/g, '\r\n');
    const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    // A catch-up starts with a terminal reset (ESC c), which the flood never prints: counted as
    // the frames arrive, wherever it is in a frame (under a flood the daemon gathers output into
    // frames, and a catch-up can go in one with the output before it).
    await page.addInitScript(() => {
      const w = window as any;
      w.catchUps = 0;
      w.sent = 0;
      const Socket = window.WebSocket;
      w.WebSocket = class extends Socket {
        constructor(...args: ConstructorParameters<typeof WebSocket>) {
          super(...args);
          this.addEventListener('message', (event: MessageEvent) => {
            if (!(event.data instanceof ArrayBuffer)) return;
            const bytes = new Uint8Array(event.data);
            w.sent += bytes.byteLength;
            for (let at = bytes.indexOf(0x1b); at >= 0; at = bytes.indexOf(0x1b, at + 1)) if (bytes[at + 1] === 0x63) w.catchUps++;
          });
        }
      };
    });
    const { id } = await daemon.api('POST', '/api/sessions', { cli: 'flood', cwd, name: 'screen' });
    await page.goto(`${daemon.url}/#token=${encodeURIComponent(daemon.token)}`);
    // The agent says READY and waits for "go": once READY is on its tab's screen (the tab shown:
    // an earlier figure's sessions may be there too), its stream is connected.
    await page.locator(`[role=tab][data-session="${id}"]`).click();
    await page.waitForFunction((sid) => !!(window as any).corralTerminals?.screen(sid).includes('READY'), id);
    // The bare page's terminal is made like this one.
    const like = await page.evaluate((sid) => {
      const size = (window as any).corralTerminals.size(sid) as { cols: number; rows: number };
      const rows = document.querySelector<HTMLElement>(`.terminal-host[data-session="${sid}"] .xterm-rows`)!;
      const style = getComputedStyle(rows);
      // A fresh page's theme follows the system's.
      const dark = window.matchMedia('(prefers-color-scheme: dark)').matches;
      return { ...size, fontSize: parseFloat(style.fontSize), fontFamily: style.fontFamily, dark };
    }, id);
    // CORRAL_BENCH_PROFILE=DIR also writes the page's CPU profile of the flood there.
    const profileDir = process.env.CORRAL_BENCH_PROFILE;
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    if (profileDir) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.start');
    }
    const sentBefore = (await page.evaluate(() => (window as any).sent)) as number;
    const workBefore = await mainThread(cdp);
    const started = performance.now();
    await daemon.api('POST', `/api/sessions/${id}/input`, { text: 'go\r' });
    // The end marker is the flood's last line: on the screen, every byte before it has been
    // written, or skipped by a catch-up (which sends the screen, not the bytes skipped).
    await page.waitForFunction((sid) => (window as any).corralTerminals.screen(sid).includes('__END__'), id, { polling: 'raf', timeout: 300_000 });
    const rendererMs = performance.now() - started;
    const rendererWork = workSince(workBefore, await mainThread(cdp));
    const sent = ((await page.evaluate(() => (window as any).sent)) as number) - sentBefore;
    if (profileDir) {
      const { profile } = await cdp.send('Profiler.stop');
      fs.writeFileSync(path.join(profileDir, `page-${Date.now()}.cpuprofile`), JSON.stringify(profile));
    }
    const catchUps = (await page.evaluate(() => (window as any).catchUps)) as number;
    await page.close();
    await daemon.api('DELETE', `/api/sessions/${id}?force=1`);

    const bare = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    await bare.setContent('<div id="t" style="width:1190px;height:740px"></div>');
    await bare.addStyleTag({ path: 'node_modules/@xterm/xterm/css/xterm.css' });
    await bare.addScriptTag({ path: 'node_modules/@xterm/xterm/lib/xterm.js' });
    const bareCdp = await bare.context().newCDPSession(bare);
    await bareCdp.send('Performance.enable');
    // The bytes and the terminal are in the page before its counters are read, as the renderer's
    // are before its flood: their way in is not the flood's work.
    await bare.evaluate(
      ({ text, like, theme, contrast }) => {
        const w = window as any;
        w.flood = text;
        w.term = new w.Terminal({ cols: like.cols, rows: like.rows, fontSize: like.fontSize, fontFamily: like.fontFamily, theme, minimumContrastRatio: contrast, scrollback: 10_000 });
        w.term.open(document.getElementById('t'));
      },
      { text: content, like, theme: THEMES[like.dark ? 'dark' : 'light'], contrast: MIN_CONTRAST },
    );
    const bareBefore = await mainThread(bareCdp);
    const bareMs = await bare.evaluate(async () => {
      const { flood: text, term } = window as any;
      const started = performance.now();
      await new Promise<void>((resolve) => {
        for (let i = 0; i < text.length; i += 65_536) term.write(text.slice(i, i + 65_536));
        term.write('', resolve);
      });
      return performance.now() - started;
    });
    const bareWork = workSince(bareBefore, await mainThread(bareCdp));
    await bare.close();
    return { renderer: rendererMs, bare: bareMs, catchUps, sent, bytes: Buffer.byteLength(content), terminal: `${like.cols}×${like.rows}, ${like.fontSize}px`, work: { renderer: rendererWork, bare: bareWork } };
  } finally {
    await browser.close();
  }
}

/** `count` numbered lines of about 80 characters, for scrollback; its size in characters. */
export function linesFile(dir: string, count: number): { file: string; chars: number } {
  const file = path.join(dir, `lines-${count}.txt`);
  const text = Array.from({ length: count }, (_, i) => `${String(i).padStart(6, '0')} \u001b[3${i % 8}mscrollback\u001b[0m the quick brown fox jumps over the lazy dog ${'-'.repeat(i % 10)}\n`).join('');
  fs.writeFileSync(file, text);
  return { file, chars: text.length };
}

/**
 * Clicks tab `index` in the page and times it: ms until the pane holds that tab's terminal and
 * its screen shows `marker` (a new terminal's replay has arrived), and until two frames later
 * (the frame xterm.js draws it in has been painted). NaN when it never does within 20 s. With
 * `pressMs`, the button is pressed that long before the click (a pointerdown on the tab, as a
 * person's click holds it down), and the time counts from the click, its release.
 */
async function timeSwitch(page: Page, index: number, marker: string, pressMs = 0): Promise<{ shown: number; painted: number }> {
  const [shown, painted] = await page.evaluate(
    async ({ index, marker, pressMs }) => {
      const tab = document.querySelectorAll<HTMLElement>('[role=tab]')[index]!;
      const id = tab.dataset.session!;
      const pane = document.querySelector('.terminal-pane')!;
      const terminals = (window as any).corralTerminals;
      const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
      if (pressMs > 0) {
        tab.dispatchEvent(new PointerEvent('pointerdown', { button: 0, buttons: 1, bubbles: true, composed: true, isPrimary: true, pointerType: 'mouse' }));
        await new Promise((resolve) => setTimeout(resolve, pressMs));
      }
      const started = performance.now();
      tab.click();
      while (tab.getAttribute('aria-selected') !== 'true' || pane.querySelector<HTMLElement>('.terminal-host:not([inert])')?.dataset.session !== id || !terminals.screen(id).includes(marker)) {
        if (performance.now() - started > 20_000) return [NaN, NaN];
        await frame();
      }
      const shown = performance.now() - started;
      await frame();
      await frame();
      return [shown, performance.now() - started];
    },
    { index, marker, pressMs },
  );
  return { shown: shown!, painted: painted! };
}

/** The page's JS heap after a garbage collection, in MiB (Chrome DevTools Protocol). */
async function heapMiB(cdp: CDPSession): Promise<number> {
  await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? NaN) / (1024 * 1024);
}

/** How long figure 12's pressed switches hold the button down before the click: a person's click, about. */
export const PRESS_MS = 100;

/**
 * How long a tab is on screen before a switch to the one beside it (figures 12 and 15): a person
 * going through the tabs with the next tab's key reads each a while; the renderer connects the
 * tabs beside the shown one meanwhile (TerminalRegistry.expect).
 */
export const READ_MS = 500;

/**
 * The tab indexes `from`..`to` in an order where no tab follows one beside it in the strip (every
 * other one, then those between): a switch to a tab not shown lately is then never to one the
 * renderer connected ahead as beside the tab shown before (with fewer than 4 tabs, in order).
 */
export function scattered(from: number, to: number): number[] {
  const count = to - from + 1;
  if (count < 4) return Array.from({ length: Math.max(0, count) }, (_, i) => from + i);
  const offsets = Array.from({ length: count }, (_, i) => i);
  return [...offsets.filter((i) => i % 2 === 1), ...offsets.filter((i) => i % 2 === 0)].map((i) => from + i);
}

/**
 * Switches to the tab beside the one shown, `count` times from tab `start`, each after READ_MS on
 * the one before; timed as timeSwitch (until `marker` is on its screen, painted).
 */
async function besideSwitches(page: Page, start: number, count: number, marker: string): Promise<number[]> {
  await timeSwitch(page, start, marker);
  const times: number[] = [];
  for (let i = 1; i <= count; i++) {
    await sleep(READ_MS);
    times.push((await timeSwitch(page, start + i, marker)).painted);
  }
  return times;
}

/**
 * Figure 12: `count` sessions that each print `lines` numbered lines, open in the real renderer;
 * each tab clicked once (tabs not shown before, none beside the one shown before it, so their
 * terminals are made and connected), then switches among the few shown last (their terminals
 * live), then to tabs not shown lately pressed first, then to the tab beside the shown one after
 * reading it; ms per switch (see timeSwitch, until the last line is on screen); and the page's JS
 * heap.
 */
export async function tabSwitching(
  daemon: Daemon,
  cwd: string,
  count: number,
  lines: number,
): Promise<{ cold: number[]; warm: number[]; pressed: number[]; beside: number[]; inPane: number[]; coldWork: PageWork; heapMiB: number; emptyHeapMiB: number } | null> {
  const browser = await launchChromium();
  if (!browser) return null;
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.goto(`${daemon.url}/#token=${encodeURIComponent(daemon.token)}`);
    await page.waitForFunction(() => !!(window as any).corralTerminals);
    const emptyHeapMiB = await heapMiB(cdp);
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push((await daemon.api('POST', '/api/sessions', { cli: 'lines', cwd, name: `tab${i}` })).id);
    await page.getByRole('tab').nth(count - 1).waitFor();
    // Every session has printed all its lines (its last one is on the agent's screen).
    const last = String(lines - 1).padStart(6, '0');
    for (const id of ids) {
      while (!((await daemon.api('GET', `/api/sessions/${id}/screen?lines=3`)).text as string).includes(last)) await sleep(200);
    }
    await page.getByRole('tab').nth(0).click();
    await page.waitForFunction(({ id, last }) => (window as any).corralTerminals.screen(id).includes(last), { id: ids[0]!, last });
    await sleep(1_000);
    const cold: number[] = [];
    const inPane: number[] = [];
    const recorded = await recording(browser, page, cdp, 'switches');
    const workBefore = await mainThread(cdp);
    for (const i of scattered(1, count - 1)) {
      const { shown, painted } = await timeSwitch(page, i, last);
      inPane.push(shown);
      cold.push(painted);
    }
    const work = workSince(workBefore, await mainThread(cdp));
    await recorded();
    const coldWork = { cpuMs: work.cpuMs / cold.length, busyMs: work.busyMs / cold.length };
    // Back and forth among the last shown (0 is shown again first: it may have left the budget).
    await timeSwitch(page, 0, last);
    const recent = Math.min(count, 3);
    const warm: number[] = [];
    for (let round = 0; round < 4 && count > 1; round++) for (let i = recent - 1; i >= 0; i--) warm.push((await timeSwitch(page, (i + round) % recent, last)).painted);
    // Tabs not shown lately again (past the few kept live), each pressed as a person clicks:
    // held down a tenth of a second (PRESS_MS), timed from the release.
    const pressed: number[] = [];
    for (const i of scattered(recent + 1, count - 1)) pressed.push((await timeSwitch(page, i, last, PRESS_MS)).painted);
    // To the tab beside, after reading the one shown (a person with the next tab's key).
    const beside = count > 2 ? await besideSwitches(page, 1, Math.min(10, count - 2), last) : [];
    const heap = await heapMiB(cdp);
    await page.close();
    return { cold, warm, pressed, beside, inPane, coldWork, heapMiB: heap, emptyHeapMiB };
  } finally {
    await browser.close();
    for (const { id } of (await daemon.api('GET', '/api/sessions')).sessions as { id: string }[]) await daemon.api('DELETE', `/api/sessions/${id}?force=1`).catch(() => {});
  }
}

/** What figure 15 measures, each in ms or MiB. */
export interface BusyTabs {
  /** From the navigation's start until the tabs are listed and the shown tab's screen is drawn; and until the tabs are listed. */
  loadMs: number;
  listedMs: number;
  cold: number[];
  warm: number[];
  /** Switches to tabs not shown lately, each pressed PRESS_MS first, timed from the release. */
  pressed: number[];
  /** Switches to the tab beside the shown one, after READ_MS on it. */
  beside: number[];
  /** Keydown until the echo is on the shown terminal's screen (the frame that draws it). */
  echo: number[];
  /** The page's renderer processes' own memory (USS) with no sessions, after the load, and after the switches. */
  emptyMiB: number;
  loadedMiB: number;
  switchedMiB: number;
  heapMiB: number;
}

/**
 * Figure 13: `count` busy sessions (each printed `lines` lines, then a line every 250 ms) and
 * one that echoes what is typed, open in the real renderer. Sessions are made before the page
 * opens, as after a restart of the app.
 */
export async function busyTabs(daemon: Daemon, cwd: string, count: number, lines: number, keys: number): Promise<BusyTabs | null> {
  const browser = await launchChromium();
  if (!browser) return null;
  try {
    const memory = await rendererMemory(browser);
    let page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    await page.goto(`${daemon.url}/#token=${encodeURIComponent(daemon.token)}`);
    await page.waitForFunction(() => !!(window as any).corralTerminals);
    const emptyMiB = await memory(page);
    await page.close();

    const echoId = (await daemon.api('POST', '/api/sessions', { cli: 'echoer', cwd, name: 'typed' })).id as string;
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push((await daemon.api('POST', '/api/sessions', { cli: 'steady', cwd, name: `busy${i}` })).id);
    for (const id of ids) {
      while (!((await daemon.api('GET', `/api/sessions/${id}/screen?lines=3`)).text as string).includes('tick')) await sleep(200);
    }

    // Load: a fresh page; the shown tab (the first, the echoing one) has drawn its screen once
    // its terminal has written the replay (the echoer prints nothing: its screen is empty).
    page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.addInitScript(
      ({ id, tabs }) => {
        const look = () => {
          const terminals = (window as any).corralTerminals;
          const listed = document.querySelectorAll('[role=tab]').length === tabs;
          if (listed) (window as any).listedAt ??= performance.now();
          if (listed && document.querySelector(`.terminal-pane .terminal-host[data-session="${id}"]:not([inert])`) && terminals?.written(id) > 0) {
            (window as any).interactiveAt = performance.now();
          } else {
            requestAnimationFrame(look);
          }
        };
        requestAnimationFrame(look);
      },
      { id: echoId, tabs: count + 1 },
    );
    await page.goto(`${daemon.url}/#token=${encodeURIComponent(daemon.token)}`);
    await page.waitForFunction(() => (window as any).interactiveAt !== undefined, undefined, { timeout: 120_000 });
    const [loadMs, listedMs] = (await page.evaluate(() => [(window as any).interactiveAt, (window as any).listedAt])) as [number, number];
    await sleep(2_000);
    const loadedMiB = await memory(page);

    // Switches: every busy tab once (none shown before), then among the last 3 shown.
    const cold: number[] = [];
    for (const i of scattered(1, count)) cold.push((await timeSwitch(page, i, 'tick')).painted);
    const warm: number[] = [];
    for (let round = 0; round < 4 && count >= 3; round++) for (const i of [count - 2, count - 1, count]) warm.push((await timeSwitch(page, i, 'tick')).painted);
    const switchedMiB = await memory(page);
    const heap = await heapMiB(cdp);
    // Tabs not shown lately again, each pressed as a person clicks (see tabSwitching).
    const pressed: number[] = [];
    for (const i of scattered(1, count - 3).slice(0, 20)) pressed.push((await timeSwitch(page, i, 'tick', PRESS_MS)).painted);
    // To the tab beside, after reading the one shown (see tabSwitching).
    const beside = count > 2 ? await besideSwitches(page, 1, Math.min(10, count - 1), 'tick') : [];

    // Typing in the echoing tab, shown again.
    await timeSwitch(page, 0, '');
    await page.locator('.terminal-pane .terminal-host:not([inert]) .xterm-helper-textarea').focus();
    await page.evaluate(() => {
      const w = window as any;
      w.keyAt = 0;
      window.addEventListener('keydown', () => (w.keyAt = performance.now()), true);
    });
    const recorded = await recording(browser, page, cdp, 'typing');
    const echo: number[] = [];
    for (let i = 0; i < keys; i++) {
      const before = (await page.evaluate((id) => (window as any).corralTerminals.written(id), echoId)) as number;
      await page.keyboard.press(String.fromCharCode(97 + (i % 26)));
      echo.push(
        await page.evaluate(
          ({ id, before }) =>
            new Promise<number>((resolve) => {
              const look = (at: number) => ((window as any).corralTerminals.written(id) > before ? resolve(at - (window as any).keyAt) : requestAnimationFrame(look));
              requestAnimationFrame(look);
            }),
          { id: echoId, before },
        ),
      );
      await sleep(30 + (i % 5) * 10);
    }
    await recorded();
    await page.close();
    return { loadMs, listedMs, cold, warm, pressed, beside, echo, emptyMiB, loadedMiB, switchedMiB, heapMiB: heap };
  } finally {
    await browser.close();
    for (const { id } of (await daemon.api('GET', '/api/sessions')).sessions as { id: string }[]) await daemon.api('DELETE', `/api/sessions/${id}?force=1`).catch(() => {});
  }
}

/**
 * The memory of a browser's renderer processes, their own pages only (USS: Private_Clean +
 * Private_Dirty of /proc/<pid>/smaps_rollup), after a garbage collection in the given page. The
 * renderer processes are the ones Chrome DevTools Protocol's SystemInfo.getProcessInfo names.
 */
async function rendererMemory(browser: Browser): Promise<(page: Page) => Promise<number>> {
  const cdp = await browser.newBrowserCDPSession();
  return async (page) => {
    const session = await page.context().newCDPSession(page);
    await session.send('HeapProfiler.collectGarbage');
    await session.detach();
    const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number }[] };
    let kib = 0;
    for (const { id } of processInfo.filter((p) => p.type === 'renderer')) {
      const rollup = fs.readFileSync(`/proc/${id}/smaps_rollup`, 'utf8');
      for (const match of rollup.matchAll(/^Private_(?:Clean|Dirty):\s+(\d+) kB/gm)) kib += Number(match[1]);
    }
    return kib / 1024;
  };
}
