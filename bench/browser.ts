// The figures measured in Chromium (2: throughput to the screen, 12: many open tabs): the real
// renderer served by `corral serve`, in Debian's Chromium through Playwright (never a download).

import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from '@playwright/test';
import { sleep } from '../daemon/test/support/wait';
import type { Daemon } from './harness';

/** Debian's Chromium (or CORRAL_CHROMIUM), headless; null when there is none. */
async function launchChromium(): Promise<Browser | null> {
  const executablePath = process.env.CORRAL_CHROMIUM ?? '/usr/bin/chromium';
  if (!fs.existsSync(executablePath)) return null;
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
}

/** The flood written into xterm.js: through the real renderer, and straight on a bare page. */
export async function screenThroughput(daemon: Daemon, cwd: string, file: string): Promise<{ renderer: number; bare: number } | null> {
  const browser = await launchChromium();
  if (!browser) return null;
  try {
    const content = fs.readFileSync(file, 'utf8').replace(/\n/g, '\r\n');
    const bare = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    await bare.setContent('<div id="t" style="width:1190px;height:740px"></div>');
    await bare.addStyleTag({ path: 'node_modules/@xterm/xterm/css/xterm.css' });
    await bare.addScriptTag({ path: 'node_modules/@xterm/xterm/lib/xterm.js' });
    const bareMs = await bare.evaluate(async (text) => {
      const term = new (window as any).Terminal({ cols: 160, rows: 48, scrollback: 10_000 });
      term.open(document.getElementById('t'));
      const started = performance.now();
      await new Promise<void>((resolve) => {
        for (let i = 0; i < text.length; i += 65_536) term.write(text.slice(i, i + 65_536));
        term.write('', resolve);
      });
      return performance.now() - started;
    }, content);
    await bare.close();

    const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    const { id } = await daemon.api('POST', '/api/sessions', { cli: 'flood', cwd, name: 'screen' });
    await page.goto(`${daemon.url}/#token=${encodeURIComponent(daemon.token)}`);
    // The agent waits for "go": the tab is there and its stream connected, its screen empty.
    await page.getByRole('tab').first().waitFor();
    await page.waitForFunction(() => !!(window as any).corralTerminals);
    await sleep(500);
    const before = await page.evaluate((sid) => (window as any).corralTerminals.written(sid) as number, id);
    const started = performance.now();
    await daemon.api('POST', `/api/sessions/${id}/input`, { text: 'go\r' });
    await page.waitForFunction(({ sid, want }) => (window as any).corralTerminals.written(sid) >= want, { sid: id, want: before + content.length }, { polling: 'raf', timeout: 300_000 });
    const rendererMs = performance.now() - started;
    await page.close();
    await daemon.api('DELETE', `/api/sessions/${id}?force=1`);
    return { renderer: rendererMs, bare: bareMs };
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
 * Figure 12: `count` sessions that each print `chars` characters of lines, open in the real
 * renderer; ms per tab switch, from the tab's click until two frames after the pane holds that
 * tab's terminal (the frame xterm.js draws it in has been painted); and the page's JS heap.
 */
export async function tabSwitching(daemon: Daemon, cwd: string, count: number, chars: number): Promise<{ switches: number[]; inPane: number[]; heapMiB: number; emptyHeapMiB: number } | null> {
  const browser = await launchChromium();
  if (!browser) return null;
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const heapMiB = async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      const { metrics } = await cdp.send('Performance.getMetrics');
      return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? NaN) / (1024 * 1024);
    };
    await page.goto(`${daemon.url}/#token=${encodeURIComponent(daemon.token)}`);
    await page.waitForFunction(() => !!(window as any).corralTerminals);
    const emptyHeapMiB = await heapMiB();
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push((await daemon.api('POST', '/api/sessions', { cli: 'lines', cwd, name: `tab${i}` })).id);
    await page.getByRole('tab').nth(count - 1).waitFor();
    // Every tab has its scrollback on its terminal (the hidden ones too: they are parked, not idle).
    await page.waitForFunction(({ all, want }) => all.every((id) => (window as any).corralTerminals.written(id) >= want), { all: ids, want: chars }, { polling: 500, timeout: 600_000 });
    await page.getByRole('tab').nth(0).click();
    await sleep(1_000);
    const switches: number[] = [];
    const inPane: number[] = [];
    // Each tab once, from the last to the first (the first is shown now): each to a tab parked a while.
    for (let i = count - 1; i >= 0 && count > 1; i--) {
      const [shown, painted] = await page.evaluate(async (index) => {
        const tab = document.querySelectorAll<HTMLElement>('[role=tab]')[index]!;
        const pane = document.querySelector('.terminal-pane')!;
        const before = pane.querySelector('.terminal-host');
        const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
        const started = performance.now();
        tab.click();
        while (tab.getAttribute('aria-selected') !== 'true' || pane.querySelector('.terminal-host') === before) {
          if (performance.now() - started > 10_000) return [NaN, NaN];
          await frame();
        }
        const shown = performance.now() - started;
        await frame();
        await frame();
        return [shown, performance.now() - started];
      }, i);
      inPane.push(shown!);
      switches.push(painted!);
    }
    const heap = await heapMiB();
    await page.close();
    return { switches, inPane, heapMiB: heap, emptyHeapMiB };
  } finally {
    await browser.close();
    for (const { id } of (await daemon.api('GET', '/api/sessions')).sessions as { id: string }[]) await daemon.api('DELETE', `/api/sessions/${id}?force=1`).catch(() => {});
  }
}
