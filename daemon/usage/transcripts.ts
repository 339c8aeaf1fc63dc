// What one CLI's transcript file says about usage, a parsed line at a time: each API call's
// tokens (counted once), the model, the last prompt's size, and (Codex) its rate limits.
// Token kinds are Anthropic's: input without the cache, output, cache write, cache read.

import type { RateWindow, Tokens } from '../contract/usage';

export type { RateWindow, Tokens };

/** One API call. */
export interface Turn {
  at: number;
  model: string | null;
  tokens: Tokens;
}

/** The last call's prompt: what the context holds now. */
export interface Prompt {
  at: number;
  model: string | null;
  tokens: number;
  /** The window the CLI itself reports (Codex), else null: the price table's is used. */
  window: number | null;
}

export interface RateLimits {
  at: number;
  primary: RateWindow | null;
  secondary: RateWindow | null;
}

export type UsageCli = 'claude' | 'codex' | 'gemini';

export interface Transcript {
  /** Lines without one of these strings hold nothing this reader wants. */
  readonly needles: readonly string[];
  readonly turns: Turn[];
  prompt: Prompt | null;
  limits: RateLimits | null;
  /** false once the file turns out to be another conversation's (Gemini names files by 8 characters of the key). */
  mine: boolean;
  line(value: unknown): void;
}

export const zero = (): Tokens => ({ input: 0, output: 0, cacheWrite: 0, cacheRead: 0 });

export function newTranscript(cli: UsageCli, key: string): Transcript {
  if (cli === 'claude') return new ClaudeTranscript();
  if (cli === 'codex') return new CodexTranscript();
  return new GeminiTranscript(key);
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const time = (v: unknown): number => {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isNaN(t) ? 0 : t;
};

/**
 * Claude Code: an assistant line carries its API message's usage, and one message is written
 * as several lines (one per content block), all with the same message id and request id.
 * Counted once per id pair; a later line of the same message can only raise a count (a block
 * written while the reply streamed may hold a partial output count). Lines without both ids
 * are counted as they come, as ccusage does.
 */
class ClaudeTranscript implements Transcript {
  readonly needles = ['"usage"'];
  readonly turns: Turn[] = [];
  prompt: Prompt | null = null;
  limits = null;
  mine = true;
  private seen = new Map<string, Turn>();

  line(value: unknown): void {
    const line = obj(value);
    const message = obj(line?.message);
    const usage = obj(message?.usage);
    if (!line || !message || !usage) return;
    const model = str(message.model);
    if (model === '<synthetic>') return; // Claude Code's own error notes: no API call
    const tokens: Tokens = {
      input: num(usage.input_tokens),
      output: num(usage.output_tokens),
      cacheWrite: num(usage.cache_creation_input_tokens),
      cacheRead: num(usage.cache_read_input_tokens),
    };
    const at = time(line.timestamp);
    const id = str(message.id);
    const request = str(line.requestId);
    const key = id && request ? `${id}:${request}` : null;
    const earlier = key ? this.seen.get(key) : undefined;
    if (earlier) {
      for (const k of Object.keys(tokens) as (keyof Tokens)[]) earlier.tokens[k] = Math.max(earlier.tokens[k], tokens[k]);
    } else {
      const turn: Turn = { at, model, tokens };
      this.turns.push(turn);
      if (key) this.seen.set(key, turn);
    }
    // The context is the latest call's: a line repeating an older message does not move it
    // back, and a subagent's call (older builds wrote them here, as sidechain lines) has its own.
    const last = this.turns.at(-1)!;
    if ((!earlier || earlier === last) && line.isSidechain !== true) this.prompt = { at: last.at, model: last.model, tokens: last.tokens.input + last.tokens.cacheRead + last.tokens.cacheWrite, window: null };
  }
}

/**
 * Codex: `token_count` events carry running totals for the conversation (and the last call's
 * own counts); each event counts the growth of the totals since the one before, so an event
 * repeated with the same totals adds nothing. Totals that go down (a new process that starts
 * again from zero) count the event's last call instead. OpenAI's input includes the cached
 * part, which is counted here as cache read; output includes reasoning.
 */
class CodexTranscript implements Transcript {
  readonly needles = ['"token_count"', '"turn_context"', '"task_started"'];
  readonly turns: Turn[] = [];
  prompt: Prompt | null = null;
  limits: RateLimits | null = null;
  mine = true;
  private model: string | null = null;
  private window: number | null = null;
  private total: Tokens | null = null;

  line(value: unknown): void {
    const line = obj(value);
    const payload = obj(line?.payload);
    if (!line || !payload) return;
    const at = time(line.timestamp);
    if (line.type === 'turn_context') {
      this.model = str(payload.model) ?? this.model;
      return;
    }
    if (line.type !== 'event_msg') return;
    if (payload.type === 'task_started') {
      this.window = num(payload.model_context_window) || this.window;
      return;
    }
    if (payload.type !== 'token_count') return;
    const limits = obj(payload.rate_limits);
    if (limits) this.limits = { at, primary: rateWindow(limits.primary, at), secondary: rateWindow(limits.secondary, at) };
    const info = obj(payload.info);
    if (!info) return;
    this.window = num(info.model_context_window) || this.window;
    const total = openAiTokens(info.total_token_usage);
    const last = openAiTokens(info.last_token_usage);
    let counted: Tokens | null = null;
    if (total) {
      const before = this.total ?? zero();
      const keys = Object.keys(total) as (keyof Tokens)[];
      counted = keys.some((k) => total[k] < before[k]) ? last : Object.fromEntries(keys.map((k) => [k, total[k] - before[k]])) as unknown as Tokens;
      this.total = total;
    } else {
      counted = last;
    }
    if (counted && counted.input + counted.output + counted.cacheRead + counted.cacheWrite > 0) {
      this.turns.push({ at, model: this.model, tokens: counted });
    }
    const lastRaw = obj(info.last_token_usage);
    if (lastRaw) this.prompt = { at, model: this.model, tokens: num(lastRaw.input_tokens), window: this.window };
  }
}

function openAiTokens(value: unknown): Tokens | null {
  const u = obj(value);
  if (!u) return null;
  const cached = num(u.cached_input_tokens);
  return { input: Math.max(0, num(u.input_tokens) - cached), output: num(u.output_tokens), cacheWrite: 0, cacheRead: cached };
}

function rateWindow(value: unknown, at: number): RateWindow | null {
  const w = obj(value);
  if (!w || typeof w.used_percent !== 'number') return null;
  // Newer builds give the reset as Unix seconds, older ones as seconds from the event.
  const resetsAt = typeof w.resets_at === 'number' ? w.resets_at * 1000 : typeof w.resets_in_seconds === 'number' && at ? at + w.resets_in_seconds * 1000 : null;
  return { usedPercent: w.used_percent, windowMinutes: typeof w.window_minutes === 'number' ? w.window_minutes : null, resetsAt };
}

/**
 * Gemini CLI: a JSONL log of records. The first holds the conversation's sessionId; a message
 * record is appended again each time it changes (its tokens arrive after it, its tool calls
 * later), and `$set` records may carry whole message lists. A message's tokens are counted
 * once, by message id, the first time they appear. A rewind (`$rewindTo`) hides messages from
 * the conversation but they were paid for, so they stay counted. Gemini's prompt count
 * includes the cached part and tool-use prompts; thoughts are billed as output.
 */
class GeminiTranscript implements Transcript {
  readonly needles = ['"sessionId"', '"tokens":{'];
  readonly turns: Turn[] = [];
  prompt: Prompt | null = null;
  limits = null;
  mine = true;
  private seen = new Set<string>();
  private checked = false;

  constructor(private readonly key: string) {}

  line(value: unknown): void {
    const record = obj(value);
    if (!record) return;
    if (!this.checked && typeof record.sessionId === 'string') {
      this.checked = true;
      this.mine = record.sessionId === this.key;
    }
    if (!this.mine) return;
    const set = obj(record.$set);
    const messages = Array.isArray(set?.messages) ? set.messages : Array.isArray(record.messages) ? record.messages : [record];
    for (const message of messages) this.message(obj(message));
  }

  private message(message: Json | null): void {
    const tokens = obj(message?.tokens);
    const id = str(message?.id);
    if (!message || !tokens || !id || message.type !== 'gemini' || this.seen.has(id)) return;
    this.seen.add(id);
    const cached = num(tokens.cached);
    const prompt = num(tokens.input) + num(tokens.tool);
    const at = time(message.timestamp);
    const model = str(message.model);
    this.turns.push({ at, model, tokens: { input: Math.max(0, prompt - cached), output: num(tokens.output) + num(tokens.thoughts), cacheWrite: 0, cacheRead: cached } });
    this.prompt = { at, model, tokens: prompt, window: null };
  }
}
