// `npm run bench`: Corral's figures beside raw baselines measured in the same run.
// Prints a table and writes bench/results.json. `--quick` shrinks every size; `--tiny` runs it
// all at tiny sizes, to see that it still works (about 40 s). `--runs N` measures every figure
// N times (median and spread); `--loaded` keeps every core busy meanwhile (load.ts); `--only 7,10`
// measures only those figures.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Store } from '../daemon/store/store';
import { floodProgram, fakeCatalogue } from '../daemon/test/support/fakeClis';
import { killTmux } from '../daemon/test/support/tmux';
import { sleep, waitFor } from '../daemon/test/support/wait';
import { makeWorld, type World } from '../daemon/test/support/world';
import { CORRAL, daemonEnv } from '../daemon/test/support/serve';
import { commandOutput, floodFile, floodToViewer, rssMiB, startDaemon, tmuxServerPid, Viewer, type Daemon } from './harness';
import { busyTabs, linesFile, PRESS_MS, READ_MS, screenThroughput, tabSwitching, type PageWork } from './browser';
import { startLoad, type Load } from './load';
import { measureUsage } from './usage';
import { HOST_SIZES, measureHosts } from './hosts';
import { bareTmuxEchoLatency, bareTmuxFlood, bareTmuxLags, corralEchoLatency, cpuMeter, rawEchoLatency, rawPty, rawTmuxAttach, relayEchoLatency, waitQuiet } from './baselines';
import { figure, fmt, heading, median, optionsOf, percentile, progressLine, SIZES, summarize, table, wants, type Figure, type Options } from './report';

let options: Options;
try {
  options = optionsOf(process.argv);
} catch (err) {
  console.error((err as Error).message);
  process.exit(2);
}
const mode = options.mode;
const SIZE = SIZES[mode];
/** Floods each way in figure 1, alternated with its baseline. */
const FLOOD_PAIRS = 3;

let results: Figure[] = [];
let runLabel = '';
const record = (f: Omit<Figure, 'ratio'>) => {
  const measured = figure(f);
  results.push(measured);
  console.error(progressLine(measured, runLabel));
};

/** What must not outlive the benchmark, whichever way it ends (done, failed, Ctrl-C). */
const live = { load: null as Load | null, work: null as World | null, daemons: new Set<Daemon>(), sockets: new Set<string>(), cleanups: new Set<() => Promise<void>>() };
let cleaning: Promise<void> | null = null;
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    live.load?.stop();
    for (const daemon of live.daemons) {
      await daemon.stop().catch(() => {});
      killTmux(daemon.socket);
    }
    for (const socket of live.sockets) killTmux(socket);
    for (const cleanup of live.cleanups) await cleanup().catch(() => {});
    live.work?.cleanup();
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    console.error(`\nbench: ${signal}, cleaning up`);
    void cleanUp().finally(() => process.exit(130));
  });
}

async function main(): Promise<void> {
  // The fake agents (daemon/test/support/fakeClis.ts); each daemon gets a home of its own.
  const work = makeWorld('bench', { programs: ['echoer', 'yesagent', 'ready', 'busy', 'stamper'], clis: [] });
  live.work = work;
  const flood = floodFile(work.root, SIZE.floodMB * 1024 * 1024);
  // A smaller flood for the screen: xterm.js in a browser is far slower than the daemon.
  const screenFlood = floodFile(work.root, Math.min(SIZE.floodMB, 10) * 1024 * 1024);
  // At most an hour of load: a limit it cannot outlive however the benchmark ends.
  if (options.loaded) live.load = startLoad(60 * 60 * 1000);
  const runs: Figure[][] = [];
  let load: { processes: number; percentEach: number } | undefined;
  try {
    for (let run = 1; run <= options.runs; run++) {
      runLabel = options.runs > 1 ? `run ${run}/${options.runs}` : '';
      if (runLabel) console.error(runLabel);
      results = [];
      await measureAll(run, work, flood, screenFlood);
      runs.push(results);
    }
    if (live.load) load = { processes: live.load.processes, ...live.load.stop() };
  } finally {
    await cleanUp();
  }

  const ran = heading(options, load);
  const summaries = summarize(runs);
  // A smoke run, or some figures only, leaves the last full results as they were.
  const out = mode === 'tiny' || options.only ? null : path.resolve('bench/results.json');
  if (out) {
    const machine = `${process.platform} ${process.arch}, ${(await import('node:os')).cpus().length} cores`;
    const json = { mode, loaded: options.loaded, load: load ?? null, runs: options.runs, ran, at: new Date().toISOString(), machine, figures: summaries };
    fs.writeFileSync(out, JSON.stringify(json, null, 2) + '\n');
  }
  console.log('');
  for (const line of table(summaries, ran)) console.log(line);
  if (out) console.log(`\nwritten to ${path.relative(process.cwd(), out)}`);
}

/** Every figure once, on daemons of this run's own, each with a fresh home (home-<name>-<run>). */
async function measureAll(run: number, work: World, flood: ReturnType<typeof floodFile>, screenFlood: ReturnType<typeof floodFile>): Promise<void> {
  const CATALOGUE = fakeCatalogue(work, ['flood', 'echoer', 'yes', 'ready', 'busy', 'stamper']);
  const MB = flood.bytes / (1024 * 1024);
  work.fake('flood', floodProgram(flood.file));
  const daemons: Daemon[] = [];
  const start = async (options: Parameters<typeof startDaemon>[0]) => {
    const daemon = await startDaemon({ ...options, name: `${options.name ?? options.backend}-${run}` });
    daemons.push(daemon);
    live.daemons.add(daemon);
    return daemon;
  };
  try {
    // ---- 1. output throughput to a viewer ----------------------------------------------------
    // The figures after it use its two daemons too.
    const want = (n: number) => wants(options, n);
    const shared = [1, 2, 3, 4, 5, 6, 8, 9].some(want) ? [await start({ world: work, backend: 'pty', catalogue: CATALOGUE }), await start({ world: work, backend: 'tmux', catalogue: CATALOGUE })] : [];
    const [ptyDaemon, tmuxDaemon] = shared as [Daemon, Daemon];
    if (want(1)) console.error(`figure 1: ${MB.toFixed(1)} MB of coloured lines to one viewer`);
    // Each way measured FLOOD_PAIRS times, alternated with its baseline, and the medians compared:
    // one flood each way swung by 4x from run to run on the quiet machine (raw node-pty 9.9 to 42.6
    // MB/s), more than any difference between them.
    // The agent stays after the flood, as the flood agent does: a process that exits at once can lose its tail in node-pty.
    const pairs = mode === 'tiny' ? 1 : FLOOD_PAIRS;
    const took = { raw: [] as number[], attach: [] as number[], pty: [] as number[], tmux: [] as number[], sameServer: [] as number[] };
    const notes = { pty: new Set<string>(), tmux: new Set<string>() };
    /** The daemon's CPU over each of its floods, ms. */
    const cpu = { pty: [] as number[], tmux: [] as number[] };
    for (let pair = 0; want(1) && pair < pairs; pair++) {
      took.raw.push(await rawPty(`cat '${flood.file}'; exec cat`, (seen) => seen.includes('__END__')));
      const viaPty = await floodToViewer(ptyDaemon, 'pty', work.root, flood.file);
      took.pty.push(viaPty.ms);
      cpu.pty.push(viaPty.cpuMs);
      notes.pty.add(viaPty.notes);
      took.attach.push(await rawTmuxAttach(work.bin, flood.file, live.sockets));
      const viaTmux = await floodToViewer(tmuxDaemon, 'tmux', work.root, flood.file);
      took.tmux.push(viaTmux.ms);
      cpu.tmux.push(viaTmux.cpuMs);
      notes.tmux.add(viaTmux.notes);
      took.sameServer.push(await bareTmuxFlood(tmuxDaemon, work.root));
    }
    for (const backend of want(1) ? (['pty', 'tmux'] as const) : []) {
      const base = backend === 'pty' ? took.raw : took.attach;
      const each = (ms: number[]) => ms.map((one) => fmt(MB / (one / 1000))).join(', ');
      // The baseline's tmux server is a fresh one with its defaults; a plain client of a session
      // of the daemon's own server says how much of the difference is that server's.
      const sameServer = `; a plain tmux attach client of a session on the daemon's own server: ${each(took.sameServer)} MB/s (Corral ${fmt(median(took.sameServer) / median(took.tmux))}× of it)`;
      record({
        figure: `1. output throughput, ${backend} backend`,
        value: MB / (median(took[backend]) / 1000),
        unit: 'MB/s',
        baseline: MB / (median(base) / 1000),
        baselineName: backend === 'pty' ? 'raw node-pty' : 'tmux attach in node-pty',
        target: '≥ 0.9× baseline',
        notes: `${[...notes[backend]].join('; ')}; medians of ${pairs} floods each, alternated: ${each(took[backend])} against ${each(base)} MB/s${backend === 'tmux' ? sameServer : ''}; the daemon's CPU a MB (${backend === 'tmux' ? 'with its tmux clients' : 'its own'}): ${cpu[backend].map((ms) => fmt(ms / MB)).join(', ')} ms`,
      });
    }

    // ---- 2. throughput to the screen, in Chromium --------------------------------------------
    if (want(2)) {
      // It says READY first: then the page's terminal is connected (a tab's terminal connects when it is shown).
      work.fake('flood', `#!/bin/bash\necho READY\nread -r go\ncat '${screenFlood.file}'\nexec cat\n`);
      const screen = await screenThroughput(ptyDaemon, work.root, screenFlood.file);
      work.fake('flood', floodProgram(flood.file));
      if (screen) {
        const screenMB = screenFlood.bytes / (1024 * 1024);
        const sentMB = (screen.sent / 1024 / 1024).toFixed(1);
        const skipped = screen.catchUps > 0 ? `; ${screen.catchUps} catch-ups: the viewer fell behind for 1 s and was sent the screen anew, so it was sent ${sentMB} of the flood's ${(screen.bytes / 1024 / 1024).toFixed(1)} MB and this figure flatters` : '';
        // Each page's main thread: its CPU a MB it was sent, and the share of the flood's time it was in tasks.
        const work = (w: PageWork, bytes: number, ms: number) => `${(w.cpuMs / (bytes / 1024 / 1024)).toFixed(0)} ms of CPU a MB, in tasks ${((100 * w.busyMs) / ms).toFixed(0)}% of the time`;
        const pages = `; main thread: renderer ${work(screen.work.renderer, screen.sent, screen.renderer)}, bare page ${work(screen.work.bare, screen.bytes, screen.bare)}`;
        record({ figure: `2. throughput to the screen (renderer, pty backend, ${screenMB.toFixed(0)} MB)`, value: screenMB / (screen.renderer / 1000), unit: 'MB/s', baseline: screenMB / (screen.bare / 1000), baselineName: 'bare xterm.js page', target: '≥ 0.9× baseline', notes: `terminal ${screen.terminal} on both pages${skipped}${pages}` });
      } else {
        console.error('  2. skipped: no Chromium at /usr/bin/chromium (set CORRAL_CHROMIUM)');
      }
    }

    // ---- 12. many open tabs in the renderer, in Chromium ----------------------------------------
    if (want(12)) {
      const lines = linesFile(work.root, SIZE.scrollback);
      work.fake('lines', `#!/bin/bash\ncat '${lines.file}'\nexec cat\n`);
      const tabsDaemon = await start({ world: work, backend: 'pty', catalogue: CATALOGUE + '\n[cli.lines]\ncommand = "lines"\n', name: 'tabs' });
      const tabs = await tabSwitching(tabsDaemon, work.root, SIZE.openTabs, SIZE.scrollback);
      const what = `${SIZE.openTabs}×${SIZE.scrollback} lines`;
      if (tabs) {
        record({ figure: `12. switch to a tab not shown lately (${what})`, value: median(tabs.cold), unit: 'ms', baseline: null, baselineName: null, target: '≤ 50 ms', notes: `median; p90 ${fmt(percentile(tabs.cold, 90))} ms, most ${fmt(Math.max(...tabs.cold))} ms over ${tabs.cold.length} switches; its last line on screen after ${fmt(median(tabs.inPane))} ms (median); the page's main thread ${fmt(tabs.coldWork.cpuMs)} ms of CPU a switch, in tasks ${fmt(tabs.coldWork.busyMs)} ms` });
        record({ figure: `12. switch among the last 3 shown (${what})`, value: median(tabs.warm), unit: 'ms', baseline: null, baselineName: null, target: '≤ 50 ms', notes: `median; p90 ${fmt(percentile(tabs.warm, 90))} ms over ${tabs.warm.length} switches` });
        record({ figure: `12. switch to a tab not shown lately, pressed ${PRESS_MS} ms first, from the release (${what})`, value: median(tabs.pressed), unit: 'ms', baseline: null, baselineName: null, target: '—', notes: `median; p90 ${fmt(percentile(tabs.pressed, 90))} ms over ${tabs.pressed.length} switches to tabs not shown lately, each held down as a person's click is before its release (the press connects the terminal)` });
        record({ figure: `12. switch to the tab beside, after ${READ_MS} ms on the one shown (${what})`, value: median(tabs.beside), unit: 'ms', baseline: null, baselineName: null, target: '≤ 50 ms', notes: `median; p90 ${fmt(percentile(tabs.beside, 90))} ms over ${tabs.beside.length} switches, each to the next tab (as its key does), the terminal connected ahead while the one before was read` });
        record({ figure: `12. renderer JS heap (${what})`, value: tabs.heapMiB, unit: 'MiB', baseline: null, baselineName: null, target: '—', notes: `${fmt(tabs.emptyHeapMiB)} MiB with no tabs` });
      } else {
        console.error('  12. skipped: no Chromium at /usr/bin/chromium (set CORRAL_CHROMIUM)');
      }
      await tabsDaemon.stop();
    }

    // ---- 15. many busy sessions in the renderer, in Chromium ------------------------------------
    if (want(15)) {
      const lines = linesFile(work.root, SIZE.scrollback);
      work.fake('steady', `#!/bin/bash\ncat '${lines.file}'\nexec perl -e '$|=1; my $i = 0; while (1) { printf("tick %06d %s\\n", $i++, "x" x 60); select(undef, undef, undef, 0.25) }'\n`);
      const busyDaemon = await start({ world: work, backend: 'tmux', catalogue: CATALOGUE + '\n[cli.steady]\ncommand = "steady"\n', name: 'busy-tabs' });
      const busy = await busyTabs(busyDaemon, work.root, SIZE.busyTabs, SIZE.scrollback, SIZE.typed);
      const what = `${SIZE.busyTabs} busy tabs`;
      if (busy) {
        record({ figure: `15. page load to interactive (${what})`, value: busy.loadMs, unit: 'ms', baseline: null, baselineName: null, target: '≤ 2000 ms', notes: `navigation start until ${SIZE.busyTabs + 1} tabs are listed (${fmt(busy.listedMs)} ms) and the shown tab's terminal has written its screen` });
        record({ figure: `15. switch to a tab not shown lately (${what})`, value: median(busy.cold), unit: 'ms', baseline: null, baselineName: null, target: '≤ 50 ms', notes: `median; p90 ${fmt(percentile(busy.cold, 90))} ms, most ${fmt(Math.max(...busy.cold))} ms over ${busy.cold.length} switches; each of ${SIZE.scrollback} lines of history` });
        record({ figure: `15. switch among the last 3 shown (${what})`, value: median(busy.warm), unit: 'ms', baseline: null, baselineName: null, target: '≤ 50 ms', notes: `median; p90 ${fmt(percentile(busy.warm, 90))} ms over ${busy.warm.length} switches` });
        record({ figure: `15. switch to a tab not shown lately, pressed ${PRESS_MS} ms first, from the release (${what})`, value: median(busy.pressed), unit: 'ms', baseline: null, baselineName: null, target: '—', notes: `median; p90 ${fmt(percentile(busy.pressed, 90))} ms over ${busy.pressed.length} switches, each held down as a person's click is before its release (the press connects the terminal)` });
        record({ figure: `15. switch to the tab beside, after ${READ_MS} ms on the one shown (${what})`, value: median(busy.beside), unit: 'ms', baseline: null, baselineName: null, target: '≤ 50 ms', notes: `median; p90 ${fmt(percentile(busy.beside, 90))} ms over ${busy.beside.length} switches, each to the next tab (as its key does), the terminal connected ahead while the one before was read` });
        record({ figure: `15. typing echo p99 on the shown tab (${what})`, value: percentile(busy.echo, 99), unit: 'ms', baseline: null, baselineName: null, target: '≤ 30 ms', notes: `median ${fmt(median(busy.echo))} ms over ${busy.echo.length} keys, keydown until the frame that shows the echo` });
        record({
          figure: `15. page memory per background tab (${what})`,
          value: (busy.switchedMiB - busy.emptyMiB) / SIZE.busyTabs,
          unit: 'MiB',
          baseline: null,
          baselineName: null,
          target: '≤ 4 MiB',
          notes: `renderer processes' own memory (USS, /proc smaps_rollup of the processes CDP SystemInfo names) after a GC, with every tab shown once: ${fmt(busy.switchedMiB)} MiB, less ${fmt(busy.emptyMiB)} MiB with no sessions; ${fmt(busy.loadedMiB)} MiB 2 s after the load; JS heap ${fmt(busy.heapMiB)} MiB`,
        });
      } else {
        console.error('  15. skipped: no Chromium at /usr/bin/chromium (set CORRAL_CHROMIUM)');
      }
      await busyDaemon.stop();
      killTmux(busyDaemon.socket);
    }

    // ---- 3. keystroke echo latency -------------------------------------------------------------
    if (want(3)) {
      console.error(`figure 3: ${SIZE.keys} keystrokes`);
      const rawEcho = await rawEchoLatency(SIZE.keys);
      const echo = await corralEchoLatency(tmuxDaemon, work.root, SIZE.keys, false);
      const bareEcho = await bareTmuxEchoLatency(tmuxDaemon, work.root, SIZE.keys, false);
      const bare = `a plain tmux attach client on the same server: p50 ${fmt(percentile(bareEcho, 50))} ms, p99 ${fmt(percentile(bareEcho, 99))} ms`;
      record({ figure: '3. echo latency p50 (tmux)', value: percentile(echo, 50), unit: 'ms', baseline: percentile(rawEcho, 50), baselineName: 'raw node-pty', target: 'within 1 ms of baseline', notes: bare });
      record({ figure: '3. echo latency p99 (tmux)', value: percentile(echo, 99), unit: 'ms', baseline: percentile(rawEcho, 99), baselineName: 'raw node-pty', target: '≤ 10 ms', notes: bare });
      // Beside a flood most of an echo is tmux's round trip (bench/README.md): the baseline is a
      // plain tmux client's echo beside a flood of the same server, right after Corral's.
      const besideFlood = await corralEchoLatency(tmuxDaemon, work.root, SIZE.keys, true);
      const bareBesideFlood = await bareTmuxEchoLatency(tmuxDaemon, work.root, SIZE.keys, true);
      // And through a process that only relays (WebSocket to tmux client and back): the floor of
      // any design with a process between the viewer and tmux, as Corral's daemon is.
      const relayBesideFlood = await relayEchoLatency(tmuxDaemon, work.root, SIZE.keys, true);
      const relayed = `through a process that only relays p50 ${fmt(percentile(relayBesideFlood, 50))} ms, p99 ${fmt(percentile(relayBesideFlood, 99))} ms`;
      record({ figure: '3. echo latency p99 beside a flooding session (tmux)', value: percentile(besideFlood, 99), unit: 'ms', baseline: percentile(bareBesideFlood, 99), baselineName: 'tmux attach beside a flood', target: '≤ 5 ms', notes: `p50 ${fmt(percentile(besideFlood, 50))} ms, tmux attach's ${fmt(percentile(bareBesideFlood, 50))} ms; ${relayed}; raw node-pty alone p99 ${fmt(percentile(rawEcho, 99))} ms` });
    }

    // ---- 4. Ctrl-C under flood ------------------------------------------------------------------
    for (const daemon of want(4) ? shared : []) {
      const backend = daemon === ptyDaemon ? 'pty' : 'tmux';
      const { id } = await daemon.api('POST', '/api/sessions', { cli: 'yes', cwd: work.root, name: 'yes' });
      const viewer = new Viewer(daemon, id, { keep: false });
      await viewer.opened();
      await sleep(500);
      // The agent's output: the time its highest line number last grew (a redraw repeats old ones).
      let last = performance.now();
      let highest = 0;
      viewer.onChunk = (chunk) => {
        for (const [, n] of chunk.matchAll(/(\d+) the quick brown fox/g)) {
          if (Number(n) > highest) {
            highest = Number(n);
            last = performance.now();
          }
        }
      };
      const sent = performance.now();
      viewer.send('\u0003');
      // Output that goes on past 30 s is cut there: one figure must not hold the whole run.
      const quiet = await waitQuiet(() => last, 500);
      viewer.close();
      record({ figure: `4. Ctrl-C under flood, ${backend} backend`, value: last - sent, unit: 'ms', baseline: null, baselineName: null, target: '≤ 100 ms', ...(quiet ? {} : { notes: 'still printing after 30 s: cut there' }) });
    }

    // ---- 5. time to a live tab ----------------------------------------------------------------
    const rawTab: number[] = [];
    for (let i = 0; i < (want(5) ? SIZE.tabs : 0); i++) rawTab.push(await rawPty(`${work.bin}/ready`, (seen) => seen.includes('READY'), true));
    for (const daemon of want(5) ? shared : []) {
      const backend = daemon === ptyDaemon ? 'pty' : 'tmux';
      const times: number[] = [];
      for (let i = 0; i < SIZE.tabs; i++) {
        const started = performance.now();
        const { id } = await daemon.api('POST', '/api/sessions', { cli: 'ready', cwd: work.root, name: `tab${i}` });
        const viewer = new Viewer(daemon, id);
        await viewer.until((v) => v.text.includes('READY'));
        times.push(performance.now() - started);
        viewer.close();
        await daemon.api('DELETE', `/api/sessions/${id}?force=1`);
      }
      record({ figure: `5. time to a live tab, ${backend} backend`, value: median(times), unit: 'ms', baseline: median(rawTab), baselineName: 'node-pty spawn to first byte', target: '≤ baseline + 150 ms' });
    }

    // ---- 9. resume fallback -------------------------------------------------------------------
    if (want(9)) {
      const falls: number[] = [];
      for (let i = 0; i < Math.max(2, Math.round(SIZE.tabs / 2)); i++) {
        const { id } = await tmuxDaemon.api('POST', '/api/sessions', { cli: 'stamper', cwd: work.root, name: `fall${i}` });
        await tmuxDaemon.api('POST', `/api/sessions/${id}/stop`);
        await tmuxDaemon.api('POST', `/api/sessions/${id}/start`);
        let dead = NaN;
        let fresh = NaN;
        for (let t = 0; t < 400 && (Number.isNaN(dead) || Number.isNaN(fresh)); t++) {
          await sleep(25);
          const events = (await tmuxDaemon.api('GET', `/api/sessions/${id}/events`)).events as { kind: string; detail: { output?: string } }[];
          dead = Number(/DEAD (\d+)/.exec(events.find((e) => e.kind === 'resume-failed')?.detail.output ?? '')?.[1] ?? NaN);
          const screen = (await tmuxDaemon.api('GET', `/api/sessions/${id}/screen?lines=5`)).text as string;
          fresh = Number(/FRESH (\d+)/.exec(screen)?.[1] ?? NaN);
        }
        falls.push(fresh - dead);
        await tmuxDaemon.api('DELETE', `/api/sessions/${id}?force=1`);
      }
      const timed = falls.filter((ms) => Number.isFinite(ms));
      const missing = falls.length - timed.length;
      record({ figure: '9. resume fallback: dead resume exit → clean start', value: median(timed), unit: 'ms', baseline: null, baselineName: null, target: '≤ 200 ms', notes: `each: ${timed.join(', ')} ms${missing ? `; ${missing} without both time stamps` : ''}` });
    }

    // ---- 8. many busy agents ------------------------------------------------------------------
    if (want(8) || want(11)) {
      const ids: string[] = [];
      for (let i = 0; i < SIZE.many; i++) ids.push((await tmuxDaemon.api('POST', '/api/sessions', { cli: 'busy', cwd: work.root, name: `busy${i}` })).id);
      const lags: number[] = [];
      const lineLags: number[] = [];
      const askedAt = Date.now();
      /** The viewers that have had a line printed after they asked: attached, past their history and screen. */
      const streaming = new Set<Viewer>();
      const viewers = ids.map((id) => {
        // The last 500 lines of history, as the page asks when it shows a tab: with all of it
        // (up to 10,000 lines each, 16 MB in all) the first seconds' lines were the history's, still
        // arriving after the second's start on a loaded machine (bench/README.md, figure 8).
        const viewer = new Viewer(tmuxDaemon, id, { keep: false, history: 500 });
        viewer.onChunk = (chunk) => {
          const now = Date.now();
          const printed = [...chunk.matchAll(/(\d{13}\.\d{3}) x/g)].map((m) => Number(m[1]));
          const stamps = printed.map((at) => now - at);
          if (stamps.length) lags.push(stamps.at(-1)!);
          // The history and the screen captured as the viewer attaches hold lines from before.
          if (printed.some((at) => at > askedAt)) streaming.add(viewer);
          lineLags.push(...stamps);
        };
        return viewer;
      });
      // The window starts a second after every viewer streams (the daemon attaches each viewer's
      // tmux client once its socket is open, 20 at once here), and it holds no synchronous work of
      // this process: the CPU meter's readings (all of /proc, and a tmux command for the server's
      // pid) held this process's event loop, so the frames that came meanwhile were read late and
      // their lines counted as lag, most of a run's slowest lines in the window's first 100 ms.
      await Promise.all(viewers.map((v) => v.opened()));
      await waitFor(() => streaming.size === viewers.length, 'every viewer streaming', 60_000);
      const attachedMs = Date.now() - askedAt;
      await sleep(1_000);
      const cpu = cpuMeter(tmuxDaemon);
      const before = viewers.reduce((sum, v) => sum + v.bytes, 0);
      const framesBefore = viewers.reduce((sum, v) => sum + v.frames, 0);
      // The frames that waited for the meter go before the window.
      await sleep(100);
      lags.length = 0;
      lineLags.length = 0;
      await sleep(mode === 'tiny' ? 1_000 : 5_000);
      const windowLags = [...lags];
      const windowLineLags = [...lineLags];
      const used = cpu.read();
      const bytes = viewers.reduce((sum, v) => sum + v.bytes, 0) - before;
      const frames = viewers.reduce((sum, v) => sum + v.frames, 0) - framesBefore;
      viewers.forEach((v) => v.close());
      // The same agents read by plain tmux clients for as long, right after: what tmux alone allows now.
      const bare = await bareTmuxLags(tmuxDaemon, ids, mode === 'tiny' ? 1_000 : 5_000);
      for (const id of ids) await tmuxDaemon.api('DELETE', `/api/sessions/${id}?force=1`);
      const mbs = bytes / (1024 * 1024) / used.seconds;
      const framing = `${fmt(frames / used.seconds / SIZE.many)} frames a second a viewer, ${fmt(bytes / Math.max(1, frames))} bytes a frame`;
      record({ figure: `8. ${SIZE.many} busy agents: aggregate throughput`, value: mbs, unit: 'MB/s', baseline: null, baselineName: null, target: 'every viewer keeps up', notes: `${framing}; every viewer streaming ${fmt(attachedMs)} ms after they asked` });
      // Each frame's newest line, as before; with fewer frames a run's stalls weigh more in it, so
      // the notes give every line's lag too (its time stamp until the frame that holds it).
      record({ figure: `8. ${SIZE.many} busy agents: worst viewer lag (p99)`, value: percentile(windowLags, 99), unit: 'ms', baseline: percentile(bare.lags, 99), baselineName: 'tmux attach clients', target: '≤ 30 ms', notes: `the newest line of each frame (of each read, tmux attach); every line: p50 ${fmt(percentile(windowLineLags, 50))} ms, p99 ${fmt(percentile(windowLineLags, 99))} ms, tmux attach's ${fmt(percentile(bare.lineLags, 50))} ms, ${fmt(percentile(bare.lineLags, 99))} ms` });
      record({
        figure: `11. CPU per MB/s delivered, ${SIZE.many} busy agents (daemon + tmux)`,
        value: (used.daemon + used.tmux) / mbs,
        unit: '% per MB/s',
        baseline: null,
        baselineName: null,
        target: '—',
        notes: `daemon ${fmt(used.daemon)}% (${fmt(used.daemonAlone)}% itself, the rest its tmux clients, its starter of processes and the commands it runs) + tmux server ${fmt(used.tmux)}% of one core for ${fmt(mbs)} MB/s`,
      });
    }

    // ---- 7. memory per idle session (on a fresh daemon: the floods above grew the first one's heap) ----
    if (want(7) || want(10)) {
      const fresh = await start({ world: work, backend: 'tmux', catalogue: CATALOGUE, name: 'memory' });
      const points: [number, number, number][] = [];
      let made = 0;
      for (const count of SIZE.idle) {
        while (made < count) {
          await fresh.api('POST', '/api/sessions', { cli: 'echoer', cwd: work.root, name: `idle${made}` });
          made++;
        }
        await sleep(1_500);
        const tmuxPid = made > 0 ? tmuxServerPid(fresh.socket) : 0;
        const tmuxRss = tmuxPid ? rssMiB(tmuxPid) : 0;
        points.push([count, rssMiB(fresh.child.pid!) + tmuxRss, tmuxRss]);
      }
      const [first, last] = [points[0]!, points.at(-1)!];
      record({
        figure: '7. memory per idle session (daemon + tmux server RSS)',
        value: (last[1] - first[1]) / (last[0] - first[0]),
        unit: 'MiB',
        baseline: null,
        baselineName: null,
        target: '≤ 5 MiB',
        notes: points.map(([n, m, t]) => `${n}: ${m.toFixed(1)} MiB (tmux ${t.toFixed(1)})`).join(', '),
      });

      // ---- 10. CPU with the same sessions idle (no viewers): what Corral costs while nothing happens ----
      await sleep(2_000);
      const cpu = cpuMeter(fresh);
      await sleep(SIZE.idleSeconds * 1000);
      const idle = cpu.read();
      const name = `10. idle CPU, ${made} sessions over ${SIZE.idleSeconds} s`;
      record({ figure: `${name}: daemon + tmux server`, value: idle.daemon + idle.tmux, unit: '% core', baseline: null, baselineName: null, target: '< 1% of one core', notes: `daemon ${fmt(idle.daemon)}% (${fmt(idle.daemonAlone)}% itself, the rest its starter of processes and the tmux commands it runs), tmux server ${fmt(idle.tmux)}%` });
      record({ figure: `${name}: the tmux server alone`, value: idle.tmux, unit: '% core', baseline: null, baselineName: null, target: '—' });
      await fresh.stop();
      killTmux(fresh.socket);

      // ---- 10. the same idle sessions, each in a git worktree of its own: what watching their branches costs ----
      const repo = path.join(work.root, `repo-${run}`);
      fs.mkdirSync(repo);
      const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...args], { cwd: repo, env: work.env, stdio: 'pipe' });
      git('init', '-q', '-b', 'main');
      fs.writeFileSync(path.join(repo, 'README'), 'a repository for the benchmark\n');
      git('add', '.');
      git('commit', '-q', '-m', 'first');
      const trees = await start({ world: work, backend: 'tmux', catalogue: CATALOGUE, name: 'worktrees' });
      for (let i = 0; i < made; i++) await trees.api('POST', '/api/sessions', { cli: 'echoer', cwd: repo, name: `tree${i}`, worktree: {} });
      // Just made, each is looked at (and again once its agent went quiet): the window right after
      // is in the notes; the figure is the next, once those looks are done.
      await sleep(2_000);
      const afterMade = cpuMeter(trees);
      await sleep(SIZE.idleSeconds * 1000);
      const justMade = afterMade.read();
      const treeCpu = cpuMeter(trees);
      await sleep(SIZE.idleSeconds * 1000);
      const treesIdle = treeCpu.read();
      record({
        figure: `10. idle CPU, ${made} sessions in worktrees of their own over ${SIZE.idleSeconds} s: daemon + tmux server`,
        value: treesIdle.daemon + treesIdle.tmux,
        unit: '% core',
        baseline: null,
        baselineName: null,
        target: '< 1% of one core',
        notes: `from ${SIZE.idleSeconds + 2} s after the last was made: daemon ${fmt(treesIdle.daemon)}% (${fmt(treesIdle.daemonAlone)}% itself, the rest its starter of processes and the git and tmux commands it runs), tmux server ${fmt(treesIdle.tmux)}%; the ${SIZE.idleSeconds} s before, from 2 s after the last was made (each looked at once made, and once its agent went quiet): ${fmt(justMade.daemon + justMade.tmux)}%`,
      });
      await trees.stop();
      killTmux(trees.socket);
    }

    // ---- 6. daemon start and restart -----------------------------------------------------------
    if (want(6)) {
      const empty = await start({ world: work, backend: 'tmux', catalogue: CATALOGUE, name: 'start' });
      const cold: number[] = [];
      for (let i = 0; i < 3; i++) cold.push(await empty.restart());
      await empty.stop();
      const store = Store.open(path.join(empty.home, 'corral.db'));
      // Stopped sessions that ran once, with their keys: a session never launched would be taken
      // for a create that crashed, and deleted by the first restart.
      for (let i = 0; i < SIZE.rows; i++) {
        const id = crypto.randomUUID();
        const at = Date.now();
        store.insertSession({ id, name: `row${i}`, cli: 'echoer', cwd: work.root, backend: 'tmux', state: 'stopped', resumeKey: id, launchMode: 'fresh', launchCount: 1, launchedAt: at, createdAt: at, startedAt: at, lastActivityAt: at, lastExit: null, position: i, archivedAt: null, firstPrompt: null, worktree: null });
      }
      store.close();
      const full: number[] = [];
      for (let i = 0; i < 3; i++) full.push(await empty.restart());
      record({ figure: `6. corral serve to /healthz, 0 sessions`, value: median(cold), unit: 'ms', baseline: null, baselineName: null, target: '—' });
      record({ figure: `6. corral serve to /healthz, ${SIZE.rows} sessions`, value: median(full), unit: 'ms', baseline: median(cold), baselineName: '0 sessions', target: '≤ 300 ms' });
      // Reattach: live tmux sessions outlive the daemon and are picked up before it listens.
      for (let i = 0; i < SIZE.many; i++) await tmuxDaemon.api('POST', '/api/sessions', { cli: 'echoer', cwd: work.root, name: `live${i}` });
      const live = (await tmuxDaemon.api('GET', '/api/sessions')).sessions.filter((s: { state: string }) => s.state === 'running').length;
      const reattach = await tmuxDaemon.restart();
      const after = (await tmuxDaemon.api('GET', '/api/sessions')).sessions.filter((s: { state: string }) => s.state === 'running').length;
      record({ figure: `6. restart with ${live} live tmux sessions, to /healthz`, value: reattach, unit: 'ms', baseline: median(cold), baselineName: '0 sessions', target: '—', notes: `${after} of ${live} reattached` });
    }

    // ---- 13. the command line: corral new, send and ls, each a process of its own ----------------
    if (want(13)) {
      const cli = await start({ world: work, backend: 'tmux', catalogue: CATALOGUE, name: 'cli' });
      const env = daemonEnv({ env: work.env, home: cli.home, socket: cli.socket });
      const wall = async (args: string[]) => {
        const started = performance.now();
        const out = await commandOutput(process.execPath, args, env);
        return { ms: performance.now() - started, out };
      };
      const bare: number[] = [];
      for (let i = 0; i < SIZE.cliCalls; i++) bare.push((await wall(['-e', '0'])).ms);
      const times = { new: [] as number[], send: [] as number[], ls: [] as number[] };
      const ids: string[] = [];
      for (let i = 0; i < SIZE.cliCalls; i++) {
        const made = await wall([CORRAL, 'new', '--cli', 'echoer', '--cwd', work.root, '--name', `cli${i}`]);
        times.new.push(made.ms);
        ids.push(made.out.split(' ')[0]!);
      }
      for (const id of ids) times.send.push((await wall([CORRAL, 'send', id, 'hello there'])).ms);
      for (let i = 0; i < SIZE.cliCalls; i++) times.ls.push((await wall([CORRAL, 'ls'])).ms);
      for (const [command, ms] of Object.entries(times)) {
        record({
          figure: `13. corral ${command}, wall time (median of ${ms.length})`,
          value: median(ms),
          unit: 'ms',
          baseline: median(bare),
          baselineName: 'node -e 0',
          target: '≤ 200 ms',
          notes: `p10 ${fmt(percentile(ms, 10))}, p90 ${fmt(percentile(ms, 90))}, most ${fmt(Math.max(...ms))} ms${command === 'send' ? '; it returns once the text is typed, and the daemon types Enter once the agent has shown it (terminals.ts)' : ''}`,
        });
      }
      await cli.stop();
    }

    // ---- 14. usage read from the agents' transcripts --------------------------------------------
    if (want(14)) {
      console.error(`figure 14: usage of ${SIZE.usageSessions} sessions, ${SIZE.usageMB} MB of transcripts`);
      const root = path.join(work.root, `usage-${run}`);
      try {
        const u = await measureUsage(root, SIZE.usageSessions, SIZE.usageMB * 1024 * 1024);
        const MBs = u.bytes / (1024 * 1024);
        record({ figure: `14. usage: first scan, ${u.sessions} sessions, ${MBs.toFixed(0)} MB`, value: u.firstScanMs, unit: 'ms', baseline: null, baselineName: null, target: 'seconds, with progress', notes: `${fmt(MBs / (u.firstScanMs / 1000))} MB/s, ${u.calls} API calls counted, ${u.progressCalls} progress reports` });
        record({ figure: '14. usage: longest event-loop stall in the first scan', value: u.firstScanStallMs, unit: 'ms', baseline: u.idleStallMs, baselineName: 'as long with nothing to do', target: '—' });
        record({ figure: '14. usage: update after a new turn in 3 sessions', value: u.updateMs, unit: 'ms', baseline: null, baselineName: null, target: '≤ 2000 ms', notes: `${u.updateBytes} bytes read of ${u.bytes}` });
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    }

    // ---- 16. remote hosts over ssh -------------------------------------------------------------
    if (want(16)) {
      const { hosts, sessions } = HOST_SIZES[mode];
      console.error(`figure 16: ${hosts} hosts × ${sessions} sessions over ssh to loopback`);
      const h = await measureHosts(work, mode, live.cleanups);
      const what = `${hosts} hosts × ${sessions} sessions`;
      record({ figure: `16. remote hosts: every session shown, from adding the hosts (${what})`, value: h.showAllMs, unit: 'ms', baseline: null, baselineName: null, target: '—', notes: `each link: one ssh connection, the probe and corral endpoint through it, then its tunnel; the links connected at ${h.connectedMs.map((ms) => fmt(ms)).join(', ')} ms; every host's list again with the links up: ${fmt(h.listAgainMs)} ms` });
      record({ figure: `16. remote hosts: local daemon and its ssh processes (${what})`, value: h.localMiB, unit: 'MiB', baseline: h.localIdleMiB, baselineName: 'the daemon before any host', target: '—', notes: `${h.sshProcesses} ssh processes (one connection a host)` });
      record({ figure: '16. remote hosts: echo p50 through the proxy and tunnel', value: percentile(h.echo, 50), unit: 'ms', baseline: percentile(h.bareEcho, 50), baselineName: 'bare ssh -tt session', target: '—' });
      record({ figure: '16. remote hosts: echo p99 through the proxy and tunnel', value: percentile(h.echo, 99), unit: 'ms', baseline: percentile(h.bareEcho, 99), baselineName: 'bare ssh -tt session', target: '—' });
    }
  } finally {
    for (const daemon of daemons) {
      await daemon.stop().catch(() => {});
      killTmux(daemon.socket);
      live.daemons.delete(daemon);
    }
  }
}

main().then(
  () => process.exit(0),
  async (err) => {
    console.error('bench failed:', err);
    await cleanUp();
    process.exit(1);
  },
);
