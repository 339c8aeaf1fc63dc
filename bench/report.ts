// The benchmark's figures and how they are printed: pure, so a test can check the arithmetic and
// the table on made-up numbers without running the benchmark.

export type Mode = 'full' | 'quick' | 'tiny';

/** `--quick` shrinks every size; `--tiny` is a smoke run of the whole benchmark (about 40 s). */
export function modeOf(argv: readonly string[]): Mode {
  return argv.includes('--tiny') ? 'tiny' : argv.includes('--quick') ? 'quick' : 'full';
}

export const SIZES = {
  full: { floodMB: 50, keys: 600, tabs: 10, many: 20, idle: [0, 10, 50], rows: 200 },
  quick: { floodMB: 8, keys: 200, tabs: 5, many: 8, idle: [0, 5, 20], rows: 200 },
  tiny: { floodMB: 0.3, keys: 20, tabs: 2, many: 2, idle: [0, 2], rows: 20 },
} satisfies Record<Mode, unknown>;

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

/** Three significant figures or so: 1234 → "1234", 12.34 → "12.3", 1.234 → "1.23". */
export const fmt = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2));

/** The line printed (to stderr) as each figure is measured. */
export function progressLine(f: Figure): string {
  return `  ${f.figure}: ${fmt(f.value)} ${f.unit}${f.baseline !== null ? ` (baseline ${fmt(f.baseline)}, ratio ${f.ratio})` : ''}`;
}

/** The table printed at the end: a header, then one line per figure. */
export function table(figures: readonly Figure[]): string[] {
  const widths = [58, 12, 14, 8];
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[0]!) : c.padStart(widths[i]!))).join(' ');
  return [
    line(['figure', 'value', 'baseline', 'ratio']) + '  target',
    ...figures.map((f) => line([f.figure.slice(0, 58), `${fmt(f.value)} ${f.unit}`, f.baseline === null ? '—' : fmt(f.baseline), f.ratio === null ? '—' : String(f.ratio)]) + `  ${f.target}${f.notes ? `  (${f.notes})` : ''}`),
  ];
}
