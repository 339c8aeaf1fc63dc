// The price table: resources/prices.toml merged with the user's $CORRAL_HOME/prices.toml, field
// by field within a model. A broken file or entry never stops the counting: each problem names
// the file and line, and a model without a price shows its tokens with no cost, never a guess.

import fs from 'node:fs';
import { parse, TomlError } from 'smol-toml';
import { z } from 'zod';
import { once } from '../util/once';
import { tomlLine } from '../util/tomlLines';

/** Dollars per million tokens, and the model's context window in tokens. */
export interface ModelPrice {
  /** null: the table does not know this model's prices (its tokens are counted, not costed). */
  perMillion: { input: number; output: number; cacheWrite: number; cacheRead: number } | null;
  contextWindow: number | null;
}

export interface PriceProblem {
  file: string;
  /** 1-based, where the file says where. */
  line?: number;
  model?: string;
  message: string;
}

export interface PriceTable {
  models: Map<string, ModelPrice>;
  problems: PriceProblem[];
}

// Made at the first price table read, not when the daemon loads (zod with it: bench/README.md, a start).
const modelSchema = once(() => {
  const dollars = z.number({ error: 'must be a number of dollars per million tokens' }).nonnegative('must not be negative');
  return z
    .strictObject({
      input: dollars.optional(),
      output: dollars.optional(),
      cache_write: dollars.optional(),
      cache_read: dollars.optional(),
      context_window: z.number({ error: 'must be a whole number of tokens' }).int('must be a whole number of tokens').positive('must be more than 0').optional(),
    })
    .superRefine((entry, ctx) => {
      const given = (['input', 'output', 'cache_write', 'cache_read'] as const).filter((k) => entry[k] !== undefined);
      if (given.length > 0 && given.length < 4) {
        ctx.addIssue({ code: 'custom', message: 'give all four prices (input, output, cache_write, cache_read) or none' });
      }
    });
});

type RawTable = Record<string, unknown>;

interface ParsedFile {
  file: string;
  text: string;
  /** By normal name (normalModel): "claude-x-20250101" in one file and "claude-x" in another are one model. */
  models: Map<string, { name: string; entry: RawTable }>;
}

export function loadPrices(options: { shippedFile: string; userFile?: string }): PriceTable {
  const problems: PriceProblem[] = [];
  const files = [readPriceFile(options.shippedFile, problems, true)];
  if (options.userFile) files.push(readPriceFile(options.userFile, problems, false));
  const models = new Map<string, ModelPrice>();
  const names = new Set(files.flatMap((f) => (f ? [...f.models.keys()] : [])));
  for (const normal of names) {
    const layers = files.filter((f): f is ParsedFile => !!f && f.models.has(normal));
    const merged: RawTable = {};
    const origin = new Map<string, ParsedFile>();
    for (const layer of layers) {
      for (const [key, value] of Object.entries(layer.models.get(normal)!.entry)) {
        merged[key] = value;
        origin.set(key, layer);
      }
    }
    const last = layers.at(-1)!;
    let entry = check(last.models.get(normal)!.name, merged, origin, last, problems);
    if (!entry && layers.length > 1) {
      // The user's layer broke a shipped entry: keep the shipped one and say so (above).
      const shipped = layers[0]!.models.get(normal)!;
      entry = check(shipped.name, shipped.entry, new Map(), layers[0]!, problems);
    }
    if (entry) models.set(normal, entry);
  }
  return { models, problems };
}

function check(name: string, raw: RawTable, origin: Map<string, ParsedFile>, last: ParsedFile, problems: PriceProblem[]): ModelPrice | null {
  const result = modelSchema().safeParse(raw);
  if (result.success) {
    const d = result.data;
    const priced = d.input !== undefined && d.output !== undefined && d.cache_write !== undefined && d.cache_read !== undefined;
    return {
      perMillion: priced ? { input: d.input!, output: d.output!, cacheWrite: d.cache_write!, cacheRead: d.cache_read! } : null,
      contextWindow: d.context_window ?? null,
    };
  }
  for (const issue of result.error.issues) {
    const field = issue.code === 'unrecognized_keys' ? issue.keys[0]! : String(issue.path[0] ?? '');
    const where = origin.get(field) ?? last;
    const line = tomlLine(where.text, ['model', nameIn(where, name)], field || undefined);
    const what = issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.join(', ')}` : field ? `field ${field}: ${issue.message}` : issue.message;
    problems.push({ file: where.file, line, model: name, message: `${where.file}${line ? `:${line}` : ''}: model "${name}", ${what}` });
  }
  return null;
}

/** The name a file spells a model by (the user may write it with a date, the shipped table without). */
function nameIn(file: ParsedFile, name: string): string {
  return file.models.get(normalModel(name))?.name ?? name;
}

function readPriceFile(file: string, problems: PriceProblem[], required: boolean): ParsedFile | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !required) return null;
    problems.push({ file, message: `${file}: cannot read the file: ${(err as Error).message}` });
    return null;
  }
  let doc: RawTable;
  try {
    doc = parse(text) as RawTable;
  } catch (err) {
    if (err instanceof TomlError) {
      const reason = err.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
      problems.push({ file, line: err.line, message: `${file}:${err.line}:${err.column}: ${reason}` });
    } else {
      problems.push({ file, message: `${file}: ${(err as Error).message}` });
    }
    return null;
  }
  const parsed: ParsedFile = { file, text, models: new Map() };
  for (const [key, value] of Object.entries(doc)) {
    if (key !== 'model' || !isTable(value)) {
      const line = tomlLine(text, null, key);
      problems.push({ file, line, message: `${file}${line ? `:${line}` : ''}: unknown top-level key "${key}" (expected [model."<name>"])` });
      continue;
    }
    for (const [name, entry] of Object.entries(value)) {
      if (isTable(entry)) parsed.models.set(normalModel(name), { name, entry });
      else {
        const line = tomlLine(text, ['model', name]);
        problems.push({ file, line, model: name, message: `${file}${line ? `:${line}` : ''}: model "${name}" must be a table ([model."${name}"])` });
      }
    }
  }
  return parsed;
}

/**
 * A model's name as the table keys it: lower case, without a provider prefix ("anthropic/",
 * "models/"), a date or "latest" suffix ("-20250929", "@20250929", "-2025-08-07"), or a
 * context mark ("[1m]"). Names that differ otherwise are different models with their own prices.
 */
export function normalModel(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/\[[^\]]*\]$/, '')
    .replace(/^(?:[a-z-]+\/)+/, '')
    .replace(/(?:[-@](?:\d{8}|\d{4}-\d{2}-\d{2}|latest))+$/, '');
}

export function priceOf(table: PriceTable, model: string | null): ModelPrice | null {
  return model === null ? null : table.models.get(normalModel(model)) ?? null;
}

function isTable(value: unknown): value is RawTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
