// What each agent costs: tokens, estimated cost, context fill and quota per session, read from
// the CLIs' own transcripts (docs/usage.md).
//
// An engine uses it so:
//   const book = new UsageBook({ prices: loadPrices({ shippedFile, userFile }) });
//   book.track({ id, cli, cwd, resumeKey, startedAt });  // again when the key is learned; idempotent
//   const off = book.onProgress((p) => ...);             // during a scan: files and bytes done of all
//   await book.scan();                                   // reads only what the files gained
//   book.sessionUsage(id);                               // tokens, cost, models, context, last hour
//   book.totals({ since, by: 'session' | 'project' | 'day' });
//   book.quota();                                        // Codex's rate limits, Claude's 5-hour block
//   book.untrack(id);
// Times are milliseconds since the epoch. A cost is null when none of the calls it covers has a price;
// the models without one are listed, so a partial cost is never mistaken for a whole one.
// One scan runs at a time; a scan asked for meanwhile runs once after it.

import fs from 'node:fs/promises';
import os from 'node:os';
import type { Cost, Progress, Quota, SessionUsage, UsageRow } from '../contract/usage';
import { currentBlock } from './blocks';
import { findTranscripts, rootsFrom, type Roots } from './locate';
import { priceOf, type PriceTable } from './prices';
import { look, newTail, readNew, type Tail } from './tail';
import { newTranscript, zero, type Tokens, type Transcript, type Turn, type UsageCli } from './transcripts';

export interface UsageSession {
  /** Corral's session id. */
  id: string;
  /** The catalogue's CLI name: claude, codex and gemini are read; others have no usage. */
  cli: string;
  cwd: string;
  /** The CLI's own session id; null until it is learned. */
  resumeKey: string | null;
  /** About when the conversation began (the session's createdAt suits): where Codex's file is looked for first. */
  startedAt: number | null;
  /** The session's own environment, where it moves a CLI's folder (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME). */
  env?: Record<string, string>;
}

export type { Cost, Progress, Quota, SessionUsage, UsageRow };

export interface UsageBookOptions {
  prices: PriceTable;
  /** Where the CLIs' folders are found (defaults: process.env and the user's home). */
  env?: Record<string, string | undefined>;
  home?: string;
  now?: () => number;
}

interface FileState {
  tail: Tail;
  transcript: Transcript;
  /** A Claude subagent's file: its calls are the session's, its context is not. */
  subagent: boolean;
}

interface Tracked {
  session: UsageSession;
  cli: UsageCli | null;
  roots: Roots;
  /** Every file found for it so far, by path: looked at on each scan even if no longer found. */
  files: Map<string, FileState>;
  /** When every project or day folder was last searched for its files. */
  searchedWide: number;
}

const READ: readonly string[] = ['claude', 'codex', 'gemini'];
const HOUR = 3_600_000;
/** How often a session whose file is not where its folder says has every folder searched. */
const WIDE_SEARCH_MS = 60_000;

export class UsageBook {
  private readonly sessions = new Map<string, Tracked>();
  private readonly listeners = new Set<(p: Progress) => void>();
  private prices: PriceTable;
  private readonly env: Record<string, string | undefined>;
  private readonly home: string;
  private readonly now: () => number;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  /** Totals since this book was made: what scans cost. */
  readonly stats = { bytesRead: 0, filesRead: 0, scans: 0 };
  /** Grows with every change that can change what the book reports (a session tracked anew, prices, a file read). */
  revision = 0;

  constructor(options: UsageBookOptions) {
    this.prices = options.prices;
    this.env = options.env ?? process.env;
    this.home = options.home ?? os.homedir();
    this.now = options.now ?? Date.now;
  }

  track(session: UsageSession): void {
    const known = this.sessions.get(session.id);
    if (known && known.session.resumeKey === session.resumeKey && known.session.cwd === session.cwd && known.session.cli === session.cli) {
      known.session = session;
      return;
    }
    this.revision++;
    const cli = READ.includes(session.cli) ? (session.cli as UsageCli) : null;
    this.sessions.set(session.id, { session, cli, roots: rootsFrom({ ...this.env, ...session.env }, this.home), files: new Map(), searchedWide: -Infinity });
  }

  untrack(id: string): void {
    if (this.sessions.delete(id)) this.revision++;
  }

  setPrices(prices: PriceTable): void {
    this.prices = prices;
    this.revision++;
  }

  onProgress(listener: (p: Progress) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  scan(): Promise<void> {
    if (this.queued) return this.queued;
    if (this.running) {
      const again = () => {
        this.queued = null;
        return this.scan();
      };
      this.queued = this.running.then(again, again);
      return this.queued;
    }
    this.running = this.scanOnce().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async scanOnce(): Promise<void> {
    this.stats.scans++;
    const work: FileState[] = [];
    for (const tracked of [...this.sessions.values()]) {
      const { session, cli } = tracked;
      if (!cli || !session.resumeKey) continue;
      const wide = this.now() - tracked.searchedWide >= WIDE_SEARCH_MS;
      const found = await findTranscripts(cli, session.resumeKey, session.cwd, tracked.roots, session.startedAt, wide);
      if (wide) tracked.searchedWide = this.now();
      for (const file of new Set([...tracked.files.keys(), ...found])) {
        let state = tracked.files.get(file);
        if (!state) {
          state = { tail: newTail(file), transcript: newTranscript(cli, session.resumeKey), subagent: file.includes('/subagents/') };
          tracked.files.set(file, state);
        }
        if (!state.transcript.mine) continue;
        const whole = file.endsWith('.json');
        if (whole) state.tail.offset = 0;
        const change = await look(state.tail);
        // A whole-file transcript (Gemini CLI's older .json) is rewritten on each change: counted afresh.
        if (change === 'reset' || (change === 'grown' && whole)) state.transcript = newTranscript(cli, session.resumeKey);
        if (change === 'grown' || change === 'reset') work.push(state);
      }
    }
    const progress: Progress = { filesDone: 0, filesTotal: work.length, bytesRead: 0, bytesTotal: work.reduce((n, f) => n + f.tail.size - f.tail.offset, 0) };
    for (const state of work) {
      const onBytes = (bytes: number) => {
        progress.bytesRead += bytes;
        this.stats.bytesRead += bytes;
        this.tell(progress);
      };
      try {
        if (state.tail.path.endsWith('.json')) await readWhole(state, onBytes);
        else await readNew(state.tail, { needles: state.transcript.needles, onLine: (v) => state.transcript.line(v), onBytes });
      } catch {
        // Gone or unreadable between the look and the read: the next scan looks again.
      }
      this.stats.filesRead++;
      this.revision++;
      progress.filesDone++;
      this.tell(progress);
    }
  }

  private tell(progress: Progress): void {
    for (const listener of this.listeners) listener({ ...progress });
  }

  sessionUsage(id: string): SessionUsage | null {
    const tracked = this.sessions.get(id);
    if (!tracked) return null;
    const files = [...tracked.files.values()].filter((f) => f.transcript.mine && f.tail.ino !== -1);
    const turns = files.flatMap((f) => f.transcript.turns);
    const since = this.now() - HOUR;
    const prompt = files
      .filter((f) => !f.subagent)
      .map((f) => f.transcript.prompt)
      .reduce((a, b) => (b && (!a || b.at >= a.at) ? b : a), null);
    const window = prompt ? prompt.window ?? priceOf(this.prices, prompt.model)?.contextWindow ?? null : null;
    const sum = this.sum(turns);
    return {
      id,
      cli: tracked.session.cli,
      readable: tracked.cli !== null,
      files: files.map((f) => f.tail.path),
      ...sum,
      context: prompt ? { tokens: prompt.tokens, window, fill: window ? prompt.tokens / window : null, model: prompt.model, at: prompt.at } : null,
      lastHour: this.sum(turns.filter((t) => t.at >= since)).tokens,
      lastActivity: turns.reduce<number | null>((a, t) => (t.at > (a ?? 0) ? t.at : a), null),
    };
  }

  /** Every tracked session's calls since a time, summed by session, folder or local day. */
  totals(options: { since?: number; by: 'session' | 'project' | 'day' }): UsageRow[] {
    const groups = new Map<string, Turn[]>();
    for (const tracked of this.sessions.values()) {
      for (const file of tracked.files.values()) {
        if (!file.transcript.mine) continue;
        for (const turn of file.transcript.turns) {
          if (options.since !== undefined && turn.at < options.since) continue;
          const key = options.by === 'session' ? tracked.session.id : options.by === 'project' ? tracked.session.cwd : localDay(turn.at);
          let group = groups.get(key);
          if (!group) groups.set(key, (group = []));
          group.push(turn);
        }
      }
    }
    const rows = [...groups].map(([key, turns]) => ({ key, ...this.sum(turns) }));
    return options.by === 'day' ? rows.sort((a, b) => a.key.localeCompare(b.key)) : rows.sort((a, b) => all(b.tokens) - all(a.tokens));
  }

  quota(): Quota {
    let codex: Quota['codex'] = null;
    const claudeTurns: Turn[] = [];
    for (const tracked of this.sessions.values()) {
      for (const file of tracked.files.values()) {
        if (!file.transcript.mine) continue;
        const limits = file.transcript.limits;
        if (limits && (!codex || limits.at > codex.at)) codex = limits;
        if (tracked.cli === 'claude') claudeTurns.push(...file.transcript.turns);
      }
    }
    const block = currentBlock(claudeTurns, this.now());
    const claude = block ? { start: block.start, end: block.end, lastActivity: block.turns.at(-1)!.at, ...this.sum(block.turns) } : null;
    return { codex, claude };
  }

  private sum(turns: readonly Turn[]): { tokens: Tokens; calls: number; models: string[] } & Cost {
    const tokens = zero();
    const models = new Set<string>();
    const unpriced = new Set<string>();
    // Nothing used costs nothing; calls none of which has a price cost an unknown amount.
    let cost: number | null = turns.length === 0 ? 0 : null;
    for (const turn of turns) {
      tokens.input += turn.tokens.input;
      tokens.output += turn.tokens.output;
      tokens.cacheWrite += turn.tokens.cacheWrite;
      tokens.cacheRead += turn.tokens.cacheRead;
      const model = turn.model ?? 'unknown';
      models.add(model);
      const price = priceOf(this.prices, turn.model)?.perMillion;
      if (!price) {
        unpriced.add(model);
        continue;
      }
      const t = turn.tokens;
      cost = (cost ?? 0) + (t.input * price.input + t.output * price.output + t.cacheWrite * price.cacheWrite + t.cacheRead * price.cacheRead) / 1_000_000;
    }
    return { tokens, calls: turns.length, models: [...models], cost, unpricedModels: [...unpriced] };
  }
}

/** A whole-file JSON transcript (Gemini CLI's older format): read whole. */
async function readWhole(state: FileState, onBytes: (n: number) => void): Promise<void> {
  const text = await fs.readFile(state.tail.path, 'utf8');
  onBytes(Buffer.byteLength(text));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    state.tail.mtimeMs = 0; // caught being written: the next scan reads it again
    return;
  }
  state.transcript.line(value);
  state.tail.offset = state.tail.size;
}

const all = (t: Tokens) => t.input + t.output + t.cacheWrite + t.cacheRead;

function localDay(at: number): string {
  const d = new Date(at);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}
