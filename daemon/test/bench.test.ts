// The benchmark's arithmetic and report on made-up numbers, and one real figure (a small flood
// to a viewer) so its harness meets a real corral serve. No speed is asserted: speed is a
// benchmark's business, not a test's. `npm run bench -- --tiny` runs all of it (about 40 s).

import { describe, expect, it } from 'vitest';
import { floodFile, floodToViewer, median, percentile, startDaemon } from '../../bench/harness';
import { figure, fmt, modeOf, progressLine, SIZES, table } from '../../bench/report';
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

  it('says each figure as it is measured, with its baseline and ratio when it has them', () => {
    expect(progressLine(made())).toBe('  5. time to a live tab, pty backend: 160 ms (baseline 40.0, ratio 4)');
    expect(progressLine(made({ figure: '4. Ctrl-C under flood, pty backend', value: 10.14, baseline: null, baselineName: null }))).toBe('  4. Ctrl-C under flood, pty backend: 10.1 ms');
  });

  it('ends with a table: the columns line up, a long name is cut at 58 characters, and a missing baseline is a dash', () => {
    const long = '2. throughput to the screen (renderer, pty backend, 10 MB) and then some more words';
    const lines = table([
      made(),
      made({ figure: long, value: 3.456, unit: 'MB/s', baseline: 6.9, target: '≥ 0.9× baseline', notes: 'every byte arrived in order' }),
      made({ figure: '6. corral serve to /healthz, 0 sessions', value: 941.2, baseline: null, baselineName: null, target: '—' }),
    ]);
    expect(lines).toEqual([
      'figure                                                            value       baseline    ratio  target',
      '5. time to a live tab, pty backend                               160 ms           40.0        4  ≤ baseline + 150 ms',
      '2. throughput to the screen (renderer, pty backend, 10 MB)    3.46 MB/s           6.90    0.501  ≥ 0.9× baseline  (every byte arrived in order)',
      '6. corral serve to /healthz, 0 sessions                          941 ms              —        —  —',
    ]);
    expect(new Set(lines.map((line) => line.indexOf('  ', 95)))).toEqual(new Set([95]));
    expect(table([])).toHaveLength(1);
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
    for (const key of ['floodMB', 'keys', 'tabs', 'many', 'rows'] as const) {
      expect(SIZES.tiny[key]).toBeLessThanOrEqual(SIZES.quick[key]);
      expect(SIZES.quick[key]).toBeLessThanOrEqual(SIZES.full[key]);
    }
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
    const measured = figure({ figure: '1. output throughput, pty backend', value: MB / (ms / 1000), unit: 'MB/s', baseline: null, baselineName: null, target: '≥ 0.8× baseline', notes });
    expect(measured.value).toBeGreaterThan(0);
    expect(Number.isFinite(measured.value)).toBe(true);
    expect(table([measured])[1]).toMatch(/^1\. output throughput, pty backend +\d+(\.\d+)? MB\/s +— +— {2}≥ 0\.8× baseline {2}\(every byte arrived in order\)$/);
  } finally {
    await daemon.stop();
    killTmux(daemon.socket);
    world.cleanup();
  }
});
