// The price table: the shipped file, the user's override merged per model, names with date
// suffixes, and problems that say where they are.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resourcePath } from '../home/resources';
import { blocksOf, currentBlock } from '../usage/blocks';
import { loadPrices, normalModel, priceOf } from '../usage/prices';
import type { Turn } from '../usage/transcripts';

const SHIPPED = resourcePath('prices.toml');
let dir: string;
const user = () => path.join(dir, 'prices.toml');
const load = (toml?: string) => {
  if (toml !== undefined) fs.writeFileSync(user(), toml);
  return loadPrices({ shippedFile: SHIPPED, userFile: user() });
};

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-prices-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the shipped price table', () => {
  it('loads without problems, with every priced model complete and a window for each', () => {
    const table = load();
    expect(table.problems).toEqual([]);
    expect(table.models.size).toBeGreaterThan(15);
    for (const [name, model] of table.models) expect(model.contextWindow, name).toBeGreaterThan(0);
    expect(priceOf(table, 'claude-sonnet-4-5')!.perMillion).toEqual({ input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 });
    // A model it knows of without knowing its price: no cost, but its window.
    expect(priceOf(table, 'gemini-3-pro-preview')).toEqual({ perMillion: null, contextWindow: 1_048_576 });
  });

  it('matches model names with a date suffix, a provider prefix, "latest" or a context mark, and nothing looser', () => {
    const table = load();
    const sonnet = priceOf(table, 'claude-sonnet-4-5');
    expect(sonnet).not.toBeNull();
    for (const name of ['claude-sonnet-4-5-20250929', 'anthropic/claude-sonnet-4-5', 'claude-sonnet-4-5@20250929', 'Claude-Sonnet-4-5[1m]', 'claude-sonnet-4-5-latest']) {
      expect(priceOf(table, name), name).toBe(sonnet);
    }
    expect(priceOf(table, 'gpt-5-2025-08-07')).toBe(priceOf(table, 'gpt-5'));
    expect(priceOf(table, 'codex-mini-latest')!.perMillion!.input).toBe(1.5);
    // A family's other members are other models: not priced as their neighbour.
    expect(priceOf(table, 'claude-sonnet-4-6')).toBeNull();
    expect(priceOf(table, 'gpt-5-codex-max')).toBeNull();
    expect(priceOf(table, 'gpt-5.2')).toBeNull();
    expect(priceOf(table, null)).toBeNull();
    expect(normalModel('models/gemini-2.5-pro')).toBe('gemini-2.5-pro');
  });
});

describe("the user's prices.toml", () => {
  it('is merged over the shipped table field by field, and adds models', () => {
    const table = load(['[model."claude-sonnet-4-5-20250929"]', 'output = 14.0', '', '[model."my-local-model"]', 'input = 0', 'output = 0', 'cache_write = 0', 'cache_read = 0', 'context_window = 32768', ''].join('\n'));
    expect(table.problems).toEqual([]);
    expect(priceOf(table, 'claude-sonnet-4-5')!.perMillion).toEqual({ input: 3, output: 14, cacheWrite: 3.75, cacheRead: 0.3 });
    expect(priceOf(table, 'my-local-model')).toEqual({ perMillion: { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 }, contextWindow: 32768 });
    // A price for a model the shipped table only knows by its window.
    const priced = load(['[model."gemini-3-pro-preview"]', 'input = 2', 'output = 12', 'cache_write = 2', 'cache_read = 0.2', ''].join('\n'));
    expect(priceOf(priced, 'gemini-3-pro-preview')).toEqual({ perMillion: { input: 2, output: 12, cacheWrite: 2, cacheRead: 0.2 }, contextWindow: 1_048_576 });
  });

  it('a wrong value names the file, line, model and field, and the shipped entry stays', () => {
    const table = load(['# mine', '[model."claude-haiku-4-5"]', 'input = 1', 'output = "five"', ''].join('\n'));
    expect(table.problems).toEqual([
      { file: user(), line: 4, model: 'claude-haiku-4-5', message: `${user()}:4: model "claude-haiku-4-5", field output: must be a number of dollars per million tokens` },
    ]);
    expect(priceOf(table, 'claude-haiku-4-5')!.perMillion!.output).toBe(5);
  });

  it('some prices without the others, a negative price, an unknown field, a wrong top-level key', () => {
    const table = load(
      ['[model."half"]', 'input = 1', 'output = 2', '', '[model."below"]', 'input = -1', 'output = 1', 'cache_write = 1', 'cache_read = 1', '', '[model."typo"]', 'contxt_window = 5', '', '[models."x"]', 'input = 1', ''].join('\n'),
    );
    expect(table.problems.map((p) => p.message)).toEqual([
      `${user()}:14: unknown top-level key "models" (expected [model."<name>"])`,
      `${user()}:1: model "half", give all four prices (input, output, cache_write, cache_read) or none`,
      `${user()}:6: model "below", field input: must not be negative`,
      `${user()}:12: model "typo", unknown field contxt_window`,
    ]);
    expect(priceOf(table, 'half')).toBeNull();
  });

  it('a TOML syntax error names the file, line and column; the shipped prices still count', () => {
    const table = load('[model."x"]\ninput = = 1\n');
    expect(table.problems).toHaveLength(1);
    expect(table.problems[0]!.message).toMatch(new RegExp(`^${user().replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:2:\\d+: `));
    expect(table.problems[0]!.line).toBe(2);
    expect(priceOf(table, 'gpt-5')).not.toBeNull();
  });

  it('a missing file is no problem', () => {
    expect(loadPrices({ shippedFile: SHIPPED, userFile: path.join(dir, 'none.toml') }).problems).toEqual([]);
  });
});

describe("Claude's 5-hour blocks", () => {
  const turn = (iso: string): Turn => ({ at: Date.parse(iso), model: 'claude-sonnet-4-5', tokens: { input: 1, output: 1, cacheWrite: 0, cacheRead: 0 } });

  it('start at the first call’s hour; a call after 5 hours from the start, or after 5 quiet hours, starts the next', () => {
    const blocks = blocksOf([turn('2026-12-01T10:30:00Z'), turn('2026-12-01T14:59:00Z'), turn('2026-12-01T15:00:01Z'), turn('2026-12-02T08:10:00Z'), turn('2026-12-01T12:00:00Z')]);
    expect(blocks.map((b) => [new Date(b.start).toISOString(), new Date(b.end).toISOString(), b.turns.length])).toEqual([
      ['2026-12-01T10:00:00.000Z', '2026-12-01T15:00:00.000Z', 3],
      ['2026-12-01T15:00:00.000Z', '2026-12-01T20:00:00.000Z', 1],
      ['2026-12-02T08:00:00.000Z', '2026-12-02T13:00:00.000Z', 1],
    ]);
  });

  it('the current block is the last one, while its end is ahead and its last call less than 5 hours ago', () => {
    const turns = [turn('2026-12-01T10:30:00Z')];
    expect(currentBlock(turns, Date.parse('2026-12-01T14:59:59Z'))!.end).toBe(Date.parse('2026-12-01T15:00:00Z'));
    expect(currentBlock(turns, Date.parse('2026-12-01T15:00:00Z'))).toBeNull();
    expect(currentBlock([], Date.parse('2026-12-01T12:00:00Z'))).toBeNull();
  });
});
