// The benchmark's options, figures, statistics and how they are printed: pure, so a test can
// check the arithmetic and the table on made-up numbers without running the benchmark.

export type Mode = 'full' | 'quick' | 'tiny';

/** `--quick` shrinks every size; `--tiny` is a smoke run of the whole benchmark (about 40 s). */
export function modeOf(argv: readonly string[]): Mode {
  return argv.includes('--tiny') ? 'tiny' : argv.includes('--quick') ? 'quick' : 'full';
}

export interface Options {
  mode: Mode;
  /** `--loaded`: every core kept busy by a background load while the figures are measured. */
  loaded: boolean;
  /** `--runs N`: how many times each figure is measured (3 at full size, else 1). */
  runs: number;
  /** `--only 7,10`: the figures measured (by number); null: all of them. */
  only: number[] | null;
}

export function optionsOf(argv: readonly string[]): Options {
  const mode = modeOf(argv);
  let runs = mode === 'full' ? 3 : 1;
  const at = argv.findIndex((a) => a === '--runs' || a.startsWith('--runs='));
  if (at >= 0) {
    const text = argv[at]!.startsWith('--runs=') ? argv[at]!.slice('--runs='.length) : argv[at + 1];
    runs = Number(text);
    if (!text || !Number.isInteger(runs) || runs < 1) throw new Error(`--runs wants a whole number of runs, 1 or more, not ${JSON.stringify(text ?? '')}`);
  }
  let only: number[] | null = null;
  const onlyAt = argv.findIndex((a) => a === '--only' || a.startsWith('--only='));
  if (onlyAt >= 0) {
    const text = argv[onlyAt]!.startsWith('--only=') ? argv[onlyAt]!.slice('--only='.length) : argv[onlyAt + 1];
    only = (text ?? '').split(',').map(Number);
    if (!text || only.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--only wants figure numbers separated by commas (e.g. 7,10), not ${JSON.stringify(text ?? '')}`);
  }
  return { mode, loaded: argv.includes('--loaded'), runs, only };
}

/** Whether `--only` (or its absence) asks for figure n. */
export const wants = (options: Options, n: number) => options.only === null || options.only.includes(n);

export const SIZES = {
  full: { floodMB: 50, keys: 600, tabs: 10, many: 20, idle: [0, 10, 50], idleSeconds: 30, rows: 200, openTabs: 30, scrollback: 10_000, usageSessions: 50, usageMB: 100, cliCalls: 20, busyTabs: 60, typed: 100 },
  quick: { floodMB: 8, keys: 200, tabs: 5, many: 8, idle: [0, 5, 20], idleSeconds: 10, rows: 200, openTabs: 10, scrollback: 3_000, usageSessions: 20, usageMB: 20, cliCalls: 10, busyTabs: 20, typed: 50 },
  tiny: { floodMB: 0.3, keys: 20, tabs: 2, many: 2, idle: [0, 2], idleSeconds: 2, rows: 20, openTabs: 3, scrollback: 300, usageSessions: 5, usageMB: 1, cliCalls: 2, busyTabs: 3, typed: 10 },
} satisfies Record<Mode, unknown>;

/** One figure as one run measured it. */
export interface Figure {
  figure: string;
  value: number;
  unit: string;
  baseline: number | null;
  baselineName: string | null;
  /** value / baseline, when there is one. */
  ratio: number | null;
  target: string;
  notes?: string;
}

/** A measured figure with its ratio to the baseline (three decimals), when there is a baseline. */
export function figure(f: Omit<Figure, 'ratio'>): Figure {
  return { ...f, ratio: f.baseline ? Number((f.value / f.baseline).toFixed(3)) : null };
}

/** A figure over every run that measured it: the median, and the spread from the least to the most. */
export interface Summary {
  figure: string;
  unit: string;
  target: string;
  baselineName: string | null;
  value: number;
  min: number;
  max: number;
  /** The median baseline and the median of the runs' ratios (not the ratio of the medians). */
  baseline: number | null;
  ratio: number | null;
  ratioMin: number | null;
  ratioMax: number | null;
  notes?: string;
  /** Every run's own figure, in order. */
  runs: { value: number; baseline: number | null; ratio: number | null; notes?: string }[];
}

/**
 * The figures of several runs, one summary per figure in the order first measured. A value
 * that is not a number (nothing was timed) is kept in `runs` but left out of the statistics.
 */
export function summarize(runs: readonly (readonly Figure[])[]): Summary[] {
  const byName = new Map<string, Figure[]>();
  for (const run of runs) for (const f of run) byName.set(f.figure, [...(byName.get(f.figure) ?? []), f]);
  return [...byName.values()].map((each) => {
    const values = each.map((f) => f.value).filter(Number.isFinite);
    const baselines = each.flatMap((f) => (f.baseline === null ? [] : [f.baseline]));
    const ratios = each.flatMap((f) => (f.ratio === null || !Number.isFinite(f.ratio) ? [] : [f.ratio]));
    const notes = [...new Set(each.map((f) => f.notes ?? ''))];
    const first = each[0]!;
    return {
      figure: first.figure,
      unit: first.unit,
      target: first.target,
      baselineName: first.baselineName,
      value: median(values),
      min: values.length ? Math.min(...values) : NaN,
      max: values.length ? Math.max(...values) : NaN,
      baseline: baselines.length ? median(baselines) : null,
      ratio: ratios.length ? median(ratios) : null,
      ratioMin: ratios.length ? Math.min(...ratios) : null,
      ratioMax: ratios.length ? Math.max(...ratios) : null,
      ...(notes.length === 1 ? (notes[0] ? { notes: notes[0] } : {}) : { notes: each.map((f, i) => `run ${i + 1}: ${f.notes ?? '—'}`).join('; ') }),
      runs: each.map((f) => ({ value: f.value, baseline: f.baseline, ratio: f.ratio, ...(f.notes ? { notes: f.notes } : {}) })),
    };
  });
}

/** The value at rank p% of the numbers (by rank, no interpolation: for an even count the median is the upper middle one, a value that was measured). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Three significant figures or so: 1234 → "1234", 12.34 → "12.3", 1.234 → "1.23". */
export const fmt = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2));

/** The line printed (to stderr) as each figure is measured; `run` is "2/3" when there are several. */
export function progressLine(f: Figure, run?: string): string {
  return `  ${run ? `[${run}] ` : ''}${f.figure}: ${fmt(f.value)} ${f.unit}${f.baseline !== null ? ` (baseline ${fmt(f.baseline)}, ratio ${f.ratio})` : ''}`;
}

/** What ran: the sizes, quiet or loaded, and how many runs each figure is the median of. */
export function heading(options: Options, load?: { processes: number; percentEach: number }): string {
  const loaded = options.loaded
    ? `loaded (${load ? `${load.processes} spinning processes at nice 0, ${fmt(load.percentEach)}% of a core each` : 'a spinning process per core at nice 0'})`
    : 'quiet (no background load)';
  const runs = options.runs === 1 ? '1 run' : `${options.runs} runs: median, spread min–max`;
  const only = options.only ? `, figures ${options.only.join(', ')} only` : '';
  return `${options.mode} sizes, ${loaded}, ${runs}${only}`;
}

/** The spread of a figure over its runs, "min–max", or a dash when there is nothing to spread. */
const spread = (min: number | null, max: number | null, runs: number, show: (n: number) => string) =>
  runs < 2 || min === null || max === null || !Number.isFinite(min) ? '—' : `${show(min)}–${show(max)}`;

/** The table printed at the end: what ran, a header, then one line per figure. */
export function table(summaries: readonly Summary[], ran: string): string[] {
  const widths = [58, 15, 13, 10, 8, 13];
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[0]!) : c.padStart(widths[i]!))).join(' ');
  return [
    ran,
    line(['figure', 'value', 'spread', 'baseline', 'ratio', 'ratio spread']) + '  target',
    ...summaries.map(
      (s) =>
        line([
          s.figure.slice(0, 58),
          `${fmt(s.value)} ${s.unit}`,
          spread(s.min, s.max, s.runs.length, fmt),
          s.baseline === null ? '—' : fmt(s.baseline),
          s.ratio === null ? '—' : String(s.ratio),
          spread(s.ratioMin, s.ratioMax, s.runs.length, String),
        ]) + `  ${s.target}${s.notes ? `  (${s.notes})` : ''}`,
    ),
  ];
}
