// The benchmark's arithmetic and report on made-up numbers, and one real figure (a small flood
// to a viewer) so its harness meets a real corral serve. No speed is asserted: speed is a
// benchmark's business, not a test's. `npm run bench -- --tiny` runs all of it (about 40 s).

import { describe, expect, it } from 'vitest';
import { parseStat, percentOfCore, ticksBetween, type CpuSample } from '../../bench/cpu';
import { scattered } from '../../bench/browser';
import { floodFile, floodToViewer, startDaemon } from '../../bench/harness';
import { figure, fmt, heading, median, modeOf, optionsOf, percentile, progressLine, SIZES, summarize, table, wants, type Figure } from '../../bench/report';
import { fakeCatalogue, floodProgram } from './support/fakeClis';
import { buildCli } from './support/serveRig';
import { killTmux } from './support/tmux';
import { makeWorld } from './support/world';

const made = (over: Partial<Parameters<typeof figure>[0]> = {}) =>
  figure({ figure: '5. time to a live tab, pty backend', value: 160, unit: 'ms', baseline: 40, baselineName: 'node-pty spawn', target: '≤ baseline + 150 ms', ...over });

describe('the benchmark report', () => {
  it('gives each figure its ratio to the baseline, to three decimals, and none without a baseline', () => {
    expect(made().ratio).toBe(4);
    expect(made({ value: 1, baseline: 3 }).ratio).toBe(0.333);
    expect(made({ value: 2, baseline: 3 }).ratio).toBe(0.667);
    expect(made({ baseline: null, baselineName: null }).ratio).toBeNull();
    // A baseline of 0 (nothing measured) gives no ratio rather than Infinity.
    expect(made({ baseline: 0 }).ratio).toBeNull();
  });

  it('prints numbers with about three significant figures', () => {
    expect(fmt(1234.56)).toBe('1235');
    expect(fmt(100)).toBe('100');
    expect(fmt(99.95)).toBe('100.0');
    expect(fmt(12.345)).toBe('12.3');
    expect(fmt(10)).toBe('10.0');
    expect(fmt(9.999)).toBe('10.00');
    expect(fmt(1.234)).toBe('1.23');
    expect(fmt(0.004)).toBe('0.00');
    expect(fmt(-250.4)).toBe('-250');
    expect(fmt(NaN)).toBe('NaN');
  });

  it('says each figure as it is measured, with its baseline and ratio when it has them, and which run it is when there are several', () => {
    expect(progressLine(made())).toBe('  5. time to a live tab, pty backend: 160 ms (baseline 40.0, ratio 4)');
    expect(progressLine(made({ figure: '4. Ctrl-C under flood, pty backend', value: 10.14, baseline: null, baselineName: null }))).toBe('  4. Ctrl-C under flood, pty backend: 10.1 ms');
    expect(progressLine(made(), 'run 2/3')).toBe('  [run 2/3] 5. time to a live tab, pty backend: 160 ms (baseline 40.0, ratio 4)');
  });

  it('sums up several runs of a figure: the median value, baseline and ratio, the spread from least to most, and every run kept', () => {
    const runs: Figure[][] = [
      [made({ value: 160, baseline: 40 }), made({ figure: '8. busy', value: 3, baseline: null, baselineName: null, unit: 'MB/s', notes: 'a' })],
      [made({ value: 100, baseline: 50 }), made({ figure: '8. busy', value: 9, baseline: null, baselineName: null, unit: 'MB/s', notes: 'a' })],
      [made({ value: 300, baseline: 60 }), made({ figure: '8. busy', value: NaN, baseline: null, baselineName: null, unit: 'MB/s', notes: 'b' })],
    ];
    const [tab, busy] = summarize(runs);
    expect(tab).toMatchObject({ figure: '5. time to a live tab, pty backend', unit: 'ms', value: 160, min: 100, max: 300, baseline: 50, baselineName: 'node-pty spawn' });
    // The median of the ratios (4, 2, 5), not the ratio of the medians (160 / 50 = 3.2).
    expect(tab).toMatchObject({ ratio: 4, ratioMin: 2, ratioMax: 5 });
    expect(tab!.runs.map((r) => [r.value, r.baseline, r.ratio])).toEqual([
      [160, 40, 4],
      [100, 50, 2],
      [300, 60, 5],
    ]);
    expect(tab!.notes).toBeUndefined();
    // A run that timed nothing stays in the record but not in the statistics; notes that differ are told run by run.
    expect(busy).toMatchObject({ value: 9, min: 3, max: 9, baseline: null, ratio: null, ratioMin: null, ratioMax: null, notes: 'run 1: a; run 2: a; run 3: b' });
    expect(busy!.runs.map((r) => r.value)).toEqual([3, 9, NaN]);
    // One figure measured only in some runs, in the order first measured.
    expect(summarize([[made()], [made({ figure: 'later' }), made()]]).map((s) => [s.figure, s.runs.length])).toEqual([
      ['5. time to a live tab, pty backend', 2],
      ['later', 1],
    ]);
    expect(summarize([])).toEqual([]);
  });

  it('ends with a table after a line saying what ran: the columns line up, a long name is cut at 58 characters, and what was not measured is a dash', () => {
    const long = '2. throughput to the screen (renderer, pty backend, 10 MB) and then some more words';
    const lines = table(
      summarize([
        [made(), made({ figure: long, value: 3.456, unit: 'MB/s', baseline: 6.9, target: '≥ 0.9× baseline', notes: 'every byte arrived in order' }), made({ figure: '6. corral serve to /healthz, 0 sessions', value: 941.2, baseline: null, baselineName: null, target: '—' })],
        [made({ value: 120 }), made({ figure: long, value: 4.5, unit: 'MB/s', baseline: 6, target: '≥ 0.9× baseline', notes: 'every byte arrived in order' }), made({ figure: '6. corral serve to /healthz, 0 sessions', value: 512, baseline: null, baselineName: null, target: '—' })],
      ]),
      'what ran',
    );
    expect(lines).toEqual([
      'what ran',
      'figure                                                               value        spread   baseline    ratio  ratio spread  target',
      '5. time to a live tab, pty backend                                  160 ms       120–160       40.0        4           3–4  ≤ baseline + 150 ms',
      '2. throughput to the screen (renderer, pty backend, 10 MB)       4.50 MB/s     3.46–4.50       6.90     0.75    0.501–0.75  ≥ 0.9× baseline  (every byte arrived in order)',
      '6. corral serve to /healthz, 0 sessions                             941 ms       512–941          —        —             —  —',
    ]);
    expect(new Set(lines.slice(1).map((line) => line.indexOf('  ', 122)))).toEqual(new Set([122]));
    // One run has no spread.
    expect(table(summarize([[made()]]), 'x')[2]).toBe('5. time to a live tab, pty backend                                  160 ms             —       40.0        4             —  ≤ baseline + 150 ms');
    expect(table([], 'x')).toHaveLength(2);
  });

  it('says in the table which sizes ran, quiet or loaded, and over how many runs', () => {
    expect(heading({ mode: 'full', loaded: false, runs: 3, only: null })).toBe('full sizes, quiet (no background load), 3 runs: median, spread min–max');
    expect(heading({ mode: 'quick', loaded: true, runs: 1, only: null }, { processes: 2, percentEach: 61.23 })).toBe('quick sizes, loaded (2 spinning processes at nice 0, 61.2% of a core each), 1 run');
    expect(heading({ mode: 'tiny', loaded: true, runs: 2, only: null })).toBe('tiny sizes, loaded (a spinning process per core at nice 0), 2 runs: median, spread min–max');
    expect(heading({ mode: 'full', loaded: false, runs: 3, only: [7, 10] })).toBe('full sizes, quiet (no background load), 3 runs: median, spread min–max, figures 7, 10 only');
  });

  it('takes percentiles by rank, without sorting the numbers it is given', () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(median(values)).toBe(6);
    expect(percentile(values, 0)).toBe(1);
    expect(percentile(values, 90)).toBe(10);
    expect(percentile(values, 99)).toBe(10);
    expect(percentile(values, 100)).toBe(10);
    expect(values).toEqual([5, 1, 4, 2, 3, 10, 9, 8, 7, 6]);
    expect(median([])).toBeNaN();
  });

  it('runs at full size unless --quick or --tiny says otherwise, and the smaller modes are smaller', () => {
    expect(modeOf(['node', 'run.mjs'])).toBe('full');
    expect(modeOf(['node', 'run.mjs', '--quick'])).toBe('quick');
    expect(modeOf(['node', 'run.mjs', '--tiny'])).toBe('tiny');
    expect(modeOf(['node', 'run.mjs', '--quick', '--tiny'])).toBe('tiny');
    for (const key of ['floodMB', 'keys', 'tabs', 'many', 'idleSeconds', 'rows', 'openTabs', 'scrollback'] as const) {
      expect(SIZES.tiny[key]).toBeLessThanOrEqual(SIZES.quick[key]);
      expect(SIZES.quick[key]).toBeLessThanOrEqual(SIZES.full[key]);
    }
    expect(SIZES.tiny.idle.at(-1)!).toBeLessThanOrEqual(SIZES.quick.idle.at(-1)!);
    expect(SIZES.quick.idle.at(-1)!).toBeLessThanOrEqual(SIZES.full.idle.at(-1)!);
    expect([SIZES.full.idle.at(-1), SIZES.full.idleSeconds]).toEqual([50, 30]);
    expect([SIZES.full.openTabs, SIZES.full.scrollback]).toEqual([30, 10_000]);
  });

  it('runs each figure 3 times at full size and once when quick or tiny, unless --runs says; quiet unless --loaded', () => {
    expect(optionsOf(['node', 'run.mjs'])).toEqual({ mode: 'full', loaded: false, runs: 3, only: null });
    expect(optionsOf(['node', 'run.mjs', '--quick'])).toEqual({ mode: 'quick', loaded: false, runs: 1, only: null });
    expect(optionsOf(['node', 'run.mjs', '--tiny', '--loaded'])).toEqual({ mode: 'tiny', loaded: true, runs: 1, only: null });
    expect(optionsOf(['node', 'run.mjs', '--quick', '--runs', '5'])).toMatchObject({ mode: 'quick', runs: 5 });
    expect(optionsOf(['node', 'run.mjs', '--runs=2', '--loaded'])).toEqual({ mode: 'full', loaded: true, runs: 2, only: null });
    for (const bad of [['--runs'], ['--runs', '0'], ['--runs', '1.5'], ['--runs=x'], ['--runs', '--quick']]) expect(() => optionsOf(['node', 'run.mjs', ...bad])).toThrow(/--runs wants a whole number/);
  });

  it('measures every figure unless --only names some', () => {
    const only = optionsOf(['node', 'run.mjs', '--only', '7,10']);
    expect(only.only).toEqual([7, 10]);
    expect([1, 7, 10, 13].map((n) => wants(only, n))).toEqual([false, true, true, false]);
    expect(optionsOf(['node', 'run.mjs', '--only=3']).only).toEqual([3]);
    expect(wants(optionsOf(['node', 'run.mjs']), 13)).toBe(true);
    for (const bad of [['--only'], ['--only', 'x'], ['--only', '1,'], ['--only=0'], ['--only', '--quick']]) expect(() => optionsOf(['node', 'run.mjs', ...bad])).toThrow(/--only wants figure numbers/);
  });
});

describe('the order of the switches to tabs not shown lately', () => {
  it('visits every tab of the range once, never right after the tab beside it, nor first the one beside the range', () => {
    for (const [from, to] of [[1, 29], [1, 60], [4, 29], [1, 9], [1, 19], [1, 17], [4, 9], [2, 5], [1, 4]] as const) {
      const order = scattered(from, to);
      expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: to - from + 1 }, (_, i) => from + i));
      expect(Math.abs(order[0]! - (from - 1))).toBeGreaterThan(1);
      for (let i = 1; i < order.length; i++) expect(Math.abs(order[i]! - order[i - 1]!), `${from}..${to}: ${order.join(',')}`).toBeGreaterThan(1);
    }
    // An empty range (fewer tabs than the walk skips) is no walk.
    expect(scattered(4, 2)).toEqual([]);
    expect(scattered(1, 0)).toEqual([]);
  });
});

describe('the CPU the benchmark reads from /proc', () => {
  it('reads utime+stime and cutime+cstime from a stat line, counting fields after the name, which may hold spaces and parentheses', () => {
    const line = '4242 (tmux: server (x) y) S 1 4242 4242 0 -1 4194368 500 0 0 0 120 30 7 3 20 0 1 0 99 1000 200 18446744073709551615';
    expect(parseStat(line)).toEqual({ pid: 4242, ppid: 1, own: 150, reaped: 10 });
    expect(() => parseStat('4242 tmux S 1')).toThrow(/not a \/proc/);
  });

  it('counts between two samples the process, its reaped children, and each live descendant\'s growth, once', () => {
    const sample = (own: number, reaped: number, descendants: [number, number][]): CpuSample => ({ own, reaped, descendants: new Map(descendants) });
    // 10 of its own, a short-lived child's 5 reaped, a client that grew by 4, one born since with
    // 3, and one that has exited since with 8 in all, 6 of them before the first sample.
    const before = sample(100, 20, [
      [7, 10],
      [8, 6],
    ]);
    const after = sample(110, 20 + 5 + 6 + 2, [
      [7, 14],
      [9, 3],
    ]);
    expect(ticksBetween(before, after)).toBe(10 + 5 + 4 + 3 + 2);
    expect(ticksBetween(before, before)).toBe(0);
    // 50 ticks at 100 a second over 10 s: 5% of one core.
    expect(percentOfCore(50, 100, 10)).toBe(5);
  });
});

it('figure 1, tiny: a flood reaches a viewer of a real corral serve (pty backend) byte for byte, and is reported', async () => {
  buildCli();
  const world = makeWorld('bench', { programs: [], clis: [] });
  const flood = floodFile(world.root, 64 * 1024);
  world.fake('flood', floodProgram(flood.file));
  const daemon = await startDaemon({ world, backend: 'pty', catalogue: fakeCatalogue(world, ['flood']) });
  try {
    const { ms, notes } = await floodToViewer(daemon, 'pty', world.root, flood.file);
    expect(notes).toBe('every byte arrived in order');
    const MB = flood.bytes / (1024 * 1024);
    const measured = figure({ figure: '1. output throughput, pty backend', value: MB / (ms / 1000), unit: 'MB/s', baseline: null, baselineName: null, target: '≥ 0.9× baseline', notes });
    expect(measured.value).toBeGreaterThan(0);
    expect(Number.isFinite(measured.value)).toBe(true);
    expect(table(summarize([[measured]]), 'ran')[2]).toMatch(/^1\. output throughput, pty backend +\d+(\.\d+)? MB\/s +— +— +— +— {2}≥ 0\.9× baseline {2}\(every byte arrived in order\)$/);
  } finally {
    await daemon.stop();
    killTmux(daemon.socket);
    world.cleanup();
  }
});
