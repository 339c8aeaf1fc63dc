// Figure 13: reading usage from many agents' transcripts (daemon/usage/). Transcripts in each
// CLI's format are generated in a temporary folder (mostly Claude Code's, the largest in
// practice), then a UsageBook scans them all once, and again after one new turn.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { resourcePath } from '../daemon/home/resources';
import { claudeProjectDir } from '../daemon/usage/locate';
import { loadPrices } from '../daemon/usage/prices';
import { UsageBook, type UsageSession } from '../daemon/usage/usageBook';

export interface UsageFigures {
  sessions: number;
  bytes: number;
  firstScanMs: number;
  progressCalls: number;
  firstScanStallMs: number;
  /** The same measure over as long a time with nothing to do: what the machine's own scheduling costs. */
  idleStallMs: number;
  updateMs: number;
  updateBytes: number;
  calls: number;
}

const filler = (n: number) => crypto.randomBytes(Math.ceil(n * 0.75)).toString('base64').slice(0, n);

/** One turn of a conversation in its CLI's format: a prompt or tool result, and the reply's lines. */
function turnLines(cli: string, key: string, cwd: string, n: number, at: number): string[] {
  const ts = new Date(at).toISOString();
  if (cli === 'claude') {
    const usage = { input_tokens: 4, cache_creation_input_tokens: 300 + (n % 500), cache_read_input_tokens: 20_000 + n * 10, output_tokens: 150 + (n % 300) };
    const line = (block: unknown) => JSON.stringify({ parentUuid: null, isSidechain: false, cwd, sessionId: key, version: '2.1.197', type: 'assistant', message: { id: `msg_${key}_${n}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [block], usage }, requestId: `req_${key}_${n}`, uuid: crypto.randomUUID(), timestamp: ts });
    return [
      JSON.stringify({ parentUuid: null, cwd, sessionId: key, type: 'user', message: { role: 'user', content: [{ tool_use_id: `toolu_${n}`, type: 'tool_result', content: filler(3000) }] }, uuid: crypto.randomUUID(), timestamp: ts }),
      line({ type: 'text', text: filler(1200) }),
      line({ type: 'tool_use', id: `toolu_${n + 1}`, name: 'Read', input: { file_path: `${cwd}/src/file${n}.ts` } }),
    ];
  }
  if (cli === 'codex') {
    const total = { input_tokens: 20_000 * n, cached_input_tokens: 15_000 * n, output_tokens: 300 * n, reasoning_output_tokens: 100 * n, total_tokens: 20_300 * n };
    const last = { input_tokens: 20_000, cached_input_tokens: 15_000, output_tokens: 300, reasoning_output_tokens: 100, total_tokens: 20_300 };
    return [
      JSON.stringify({ timestamp: ts, type: 'response_item', payload: { type: 'function_call_output', call_id: `call_${n}`, output: filler(3500) } }),
      JSON.stringify({ timestamp: ts, type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: filler(800) }] } }),
      JSON.stringify({ timestamp: ts, type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: total, last_token_usage: last, model_context_window: 272_000 }, rate_limits: { primary: { used_percent: 10, window_minutes: 300, resets_at: Math.floor(at / 1000) + 3600 } } } }),
    ];
  }
  return [
    JSON.stringify({ id: `u${n}`, timestamp: ts, type: 'user', content: [{ text: filler(2500) }] }),
    JSON.stringify({ id: `g${n}`, timestamp: ts, type: 'gemini', content: filler(1500), thoughts: [], tokens: { input: 20_000, output: 300, cached: 15_000, thoughts: 50, tool: 0, total: 20_350 }, model: 'gemini-2.5-pro' }),
  ];
}

function firstLine(cli: string, key: string, cwd: string, at: number): string | null {
  const ts = new Date(at).toISOString();
  if (cli === 'codex') return JSON.stringify({ timestamp: ts, type: 'session_meta', payload: { id: key, cwd, cli_version: '0.171.0' } }) + '\n' + JSON.stringify({ timestamp: ts, type: 'turn_context', payload: { cwd, model: 'gpt-5-codex' } });
  if (cli === 'gemini') return JSON.stringify({ sessionId: key, projectHash: 'x', startTime: ts, lastUpdated: ts, kind: 'main' });
  return null;
}

interface Made {
  session: UsageSession;
  file: string;
  turns: number;
}

/** `count` sessions (7 in 10 Claude Code, 2 Codex, 1 Gemini CLI) with transcripts of `totalBytes` in all. */
export function makeTranscripts(root: string, count: number, totalBytes: number): { made: Made[]; env: Record<string, string> } {
  const env = { CLAUDE_CONFIG_DIR: path.join(root, 'claude'), CODEX_HOME: path.join(root, 'codex'), GEMINI_CLI_HOME: path.join(root, 'gemini-home') };
  const start = Date.now() - 3 * 86_400_000;
  const made: Made[] = [];
  for (let i = 0; i < count; i++) {
    const cli = i % 10 < 7 ? 'claude' : i % 10 < 9 ? 'codex' : 'gemini';
    const key = crypto.randomUUID();
    const cwd = `/work/project-${i % 12}`;
    const day = new Date(start);
    const file =
      cli === 'claude'
        ? path.join(env.CLAUDE_CONFIG_DIR, 'projects', claudeProjectDir(cwd), `${key}.jsonl`)
        : cli === 'codex'
          ? path.join(env.CODEX_HOME, 'sessions', String(day.getFullYear()), String(day.getMonth() + 1).padStart(2, '0'), String(day.getDate()).padStart(2, '0'), `rollout-x-${key}.jsonl`)
          : path.join(env.GEMINI_CLI_HOME, '.gemini', 'tmp', `project-${i % 12}`, 'chats', `session-x-${key.slice(0, 8)}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const parts: string[] = [];
    const head = firstLine(cli, key, cwd, start);
    if (head) parts.push(head);
    let bytes = 0;
    let n = 0;
    while (bytes < totalBytes / count) {
      n++;
      for (const line of turnLines(cli, key, cwd, n, start + n * 20_000)) {
        parts.push(line);
        bytes += line.length + 1;
      }
    }
    fs.writeFileSync(file, parts.join('\n') + '\n');
    made.push({ session: { id: `s${i}`, cli, cwd, resumeKey: key, startedAt: start }, file, turns: n });
  }
  return { made, env };
}

export async function measureUsage(root: string, count: number, totalBytes: number): Promise<UsageFigures> {
  const { made, env } = makeTranscripts(root, count, totalBytes);
  const bytes = made.reduce((n, m) => n + fs.statSync(m.file).size, 0);
  const book = new UsageBook({ prices: loadPrices({ shippedFile: resourcePath('prices.toml') }), env, home: root });
  for (const m of made) book.track(m.session);
  let progressCalls = 0;
  book.onProgress(() => progressCalls++);

  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let t = performance.now();
  await book.scan();
  const firstScanMs = performance.now() - t;
  delay.disable();
  const idle = monitorEventLoopDelay({ resolution: 10 });
  idle.enable();
  await new Promise((resolve) => setTimeout(resolve, firstScanMs));
  idle.disable();
  const calls = made.reduce((n, m) => n + book.sessionUsage(m.session.id)!.calls, 0);

  // One new turn in one conversation of each CLI, as they append it.
  const before = book.stats.bytesRead;
  for (const cli of ['claude', 'codex', 'gemini']) {
    const m = made.find((x) => x.session.cli === cli);
    if (m) fs.appendFileSync(m.file, turnLines(cli, m.session.resumeKey!, m.session.cwd, m.turns + 1, Date.now()).join('\n') + '\n');
  }
  t = performance.now();
  await book.scan();
  const updateMs = performance.now() - t;
  const updated = made.filter((m) => book.sessionUsage(m.session.id)!.calls > 0).length;
  if (updated !== made.length) throw new Error(`usage: ${made.length - updated} sessions counted nothing`);
  return { sessions: count, bytes, firstScanMs, progressCalls, firstScanStallMs: delay.max / 1e6, idleStallMs: idle.max / 1e6, updateMs, updateBytes: book.stats.bytesRead - before, calls };
}
