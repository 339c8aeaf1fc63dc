// Usage read from the CLIs' own transcripts (fixtures in each one's format under
// fixtures/usage/): every API call counted once, only new bytes read, and two sessions in one
// folder never taking each other's usage. Totals are exact.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resourcePath } from '../home/resources';
import { loadPrices } from '../usage/prices';
import { UsageBook, type Progress, type UsageSession } from '../usage/usageBook';

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'usage');
const CWD = '/work/app';
const KEYS = {
  claudeA: 'aaaaaaaa-1111-4111-8111-111111111111',
  claudeB: 'bbbbbbbb-2222-4222-8222-222222222222',
  codexC: '01a2336b-3dc6-7471-b77b-276b8de482f8',
  codexD: '01a2337c-0000-7000-8000-00000000000d',
  geminiE: '68e7b992-c23e-44f7-bffc-9c38c0c90850',
  geminiF: '68e7b992-aaaa-4bbb-8ccc-00000000000f',
};
const NOON = Date.parse('2026-12-01T12:00:00Z');

let dir: string;
let now: number;
let book: UsageBook;
const claudeFile = (key: string) => path.join(dir, 'claude', 'projects', '-work-app', `${key}.jsonl`);

function session(id: string, cli: string, resumeKey: string | null, cwd = CWD): UsageSession {
  return { id, cli, cwd, resumeKey, startedAt: Date.parse('2026-12-01T09:00:00Z') };
}

function makeBook(): UsageBook {
  const env = { CLAUDE_CONFIG_DIR: path.join(dir, 'claude'), CODEX_HOME: path.join(dir, 'codex'), GEMINI_CLI_HOME: path.join(dir, 'gemini-home') };
  return new UsageBook({ prices: loadPrices({ shippedFile: resourcePath('prices.toml') }), env, home: path.join(dir, 'nobody'), now: () => now });
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-usage-'));
  fs.cpSync(FIXTURES, dir, { recursive: true });
  now = NOON;
  book = makeBook();
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('Claude Code transcripts', () => {
  it('counts each API message once, whatever lines repeat it, and prices only the models it knows', async () => {
    book.track(session('s-a', 'claude', KEYS.claudeA));
    await book.scan();
    const usage = book.sessionUsage('s-a')!;
    // msg_01A1 (3 lines, the first written mid-stream), msg_01A2 (2 lines and a repeat), msg_01A3; not the synthetic note.
    expect(usage.calls).toBe(3);
    expect(usage.tokens).toEqual({ input: 35, output: 600, cacheWrite: 2500, cacheRead: 19500 });
    expect(usage.models).toEqual(['claude-sonnet-4-5-20250929', 'claude-opus-5-20261103']);
    // Sonnet 4.5: (10·3 + 300·15 + 2000·3.75 + 5000·0.3) + (5·3 + 200·15 + 500·3.75 + 7000·0.3) per million.
    expect(usage.cost).toBeCloseTo(0.02052, 10);
    expect(usage.unpricedModels).toEqual(['claude-opus-5-20261103']);
    // The context is the last call's prompt (20 + 7500 + 0); that model's window is unknown.
    expect(usage.context).toEqual({ tokens: 7520, window: null, fill: null, model: 'claude-opus-5-20261103', at: Date.parse('2026-12-01T10:10:00Z') });
    expect(usage.lastActivity).toBe(Date.parse('2026-12-01T10:10:00Z'));
    expect(usage.files).toEqual([claudeFile(KEYS.claudeA)]);
  });

  it('two sessions in one folder each get their own transcript only', async () => {
    book.track(session('s-a', 'claude', KEYS.claudeA));
    book.track(session('s-b', 'claude', KEYS.claudeB));
    await book.scan();
    expect(book.sessionUsage('s-a')!.tokens).toEqual({ input: 35, output: 600, cacheWrite: 2500, cacheRead: 19500 });
    const b = book.sessionUsage('s-b')!;
    expect(b.tokens).toEqual({ input: 100, output: 400, cacheWrite: 1000, cacheRead: 0 });
    expect(b.cost).toBeCloseTo(0.00335, 10);
    expect(b.unpricedModels).toEqual([]);
    expect(b.context).toMatchObject({ tokens: 1100, window: 200_000, fill: 1100 / 200_000 });
  });

  it('leaves a last line still being written for the next scan, then reads only the new bytes', async () => {
    book.track(session('s-a', 'claude', KEYS.claudeA));
    await book.scan();
    expect(book.sessionUsage('s-a')!.calls).toBe(3);
    const before = book.stats.bytesRead;
    const size = fs.statSync(claudeFile(KEYS.claudeA)).size;
    fs.appendFileSync(claudeFile(KEYS.claudeA), fs.readFileSync(path.join(FIXTURES, 'claude-last-line-rest.txt')));
    await book.scan();
    const usage = book.sessionUsage('s-a')!;
    expect(usage.calls).toBe(4);
    expect(usage.tokens).toEqual({ input: 37, output: 650, cacheWrite: 2600, cacheRead: 27100 });
    expect(usage.context).toMatchObject({ tokens: 7702, window: 200_000, model: 'claude-sonnet-4-5-20250929' });
    // The second scan read the unfinished line again and what was added, not the whole file.
    const second = book.stats.bytesRead - before;
    expect(second).toBeLessThan(size);
    expect(second).toBe(fs.statSync(claudeFile(KEYS.claudeA)).size - fs.readFileSync(claudeFile(KEYS.claudeA), 'utf8').lastIndexOf('\n', size - 1) - 1);
  });

  it('a last line that is not valid JSON yet is not counted, and is skipped once lines follow it', async () => {
    const file = claudeFile(KEYS.claudeB);
    book.track(session('s-b', 'claude', KEYS.claudeB));
    await book.scan();
    const line = (id: string, output: number) =>
      JSON.stringify({ type: 'assistant', requestId: `req_${id}`, timestamp: '2026-12-01T11:30:00.000Z', message: { id: `msg_${id}`, model: 'claude-haiku-4-5', usage: { input_tokens: 1, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } } });
    fs.appendFileSync(file, `${line('B2', 7).slice(0, -1)}\n`);
    await book.scan();
    expect(book.sessionUsage('s-b')!.calls).toBe(1);
    fs.appendFileSync(file, `${line('B3', 9)}\n`);
    await book.scan();
    expect(book.sessionUsage('s-b')!.calls).toBe(2);
    expect(book.sessionUsage('s-b')!.tokens.output).toBe(409);
  });

  it('a file replaced (rotated), cut shorter, or rewritten in place is read again from its start', async () => {
    const file = claudeFile(KEYS.claudeA);
    book.track(session('s-a', 'claude', KEYS.claudeA));
    await book.scan();
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const onlyA2 = lines.filter((l) => l.includes('msg_01A2')).slice(0, 1).join('\n') + '\n';

    // Replaced by a new file (another inode) holding one call.
    fs.writeFileSync(`${file}.new`, onlyA2);
    fs.renameSync(`${file}.new`, file);
    await book.scan();
    expect(book.sessionUsage('s-a')!.tokens).toEqual({ input: 5, output: 200, cacheWrite: 500, cacheRead: 7000 });

    // Rewritten in place, longer, from its first byte: the same inode, a different start.
    const first = lines.slice(0, 4).join('\n') + '\n';
    fs.writeFileSync(file, first + '\n'.repeat(onlyA2.length));
    await book.scan();
    expect(book.sessionUsage('s-a')!.tokens).toEqual({ input: 10, output: 300, cacheWrite: 2000, cacheRead: 5000 });

    // Cut shorter than what was read.
    fs.truncateSync(file, 0);
    fs.writeFileSync(file, onlyA2);
    await book.scan();
    expect(book.sessionUsage('s-a')!.calls).toBe(1);
    expect(book.sessionUsage('s-a')!.tokens.output).toBe(200);
  });

  it("finds a subagent's transcript under the conversation's folder and counts its calls as the session's, not its context", async () => {
    const sub = path.join(dir, 'claude', 'projects', '-work-app', KEYS.claudeB, 'subagents', 'agent-1.jsonl');
    fs.mkdirSync(path.dirname(sub), { recursive: true });
    fs.writeFileSync(sub, JSON.stringify({ type: 'assistant', isSidechain: true, requestId: 'req_S1', timestamp: '2026-12-01T11:10:00.000Z', message: { id: 'msg_S1', model: 'claude-haiku-4-5-20251001', usage: { input_tokens: 50, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 90_000 } } }) + '\n');
    book.track(session('s-b', 'claude', KEYS.claudeB));
    await book.scan();
    const usage = book.sessionUsage('s-b')!;
    expect(usage.tokens).toEqual({ input: 150, output: 405, cacheWrite: 1000, cacheRead: 90_000 });
    expect(usage.context!.tokens).toBe(1100);
  });

  it('a transcript outside the folder the session names is searched for at most once a minute, and once found is followed', async () => {
    const file = claudeFile(KEYS.claudeB);
    fs.renameSync(file, `${file}.away`);
    book.track(session('s-b', 'claude', KEYS.claudeB, '/work/other'));
    await book.scan();
    fs.renameSync(`${file}.away`, file);
    await book.scan();
    expect(book.sessionUsage('s-b')!.calls).toBe(0);
    now += 60_000;
    await book.scan();
    expect(book.sessionUsage('s-b')!.calls).toBe(1);
    fs.appendFileSync(file, JSON.stringify({ type: 'assistant', requestId: 'req_B9', timestamp: '2026-12-01T11:30:00.000Z', message: { id: 'msg_B9', model: 'claude-haiku-4-5', usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } } }) + '\n');
    now += 1000;
    await book.scan();
    expect(book.sessionUsage('s-b')!.calls).toBe(2);
  });

  it("a subagent's call written in the conversation's own file (a sidechain line) is counted, and leaves the context alone", async () => {
    fs.appendFileSync(claudeFile(KEYS.claudeB), JSON.stringify({ type: 'assistant', isSidechain: true, requestId: 'req_S2', timestamp: '2026-12-01T11:20:00.000Z', message: { id: 'msg_S2', model: 'claude-haiku-4-5-20251001', usage: { input_tokens: 7, output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 50_000 } } }) + '\n');
    book.track(session('s-b', 'claude', KEYS.claudeB));
    await book.scan();
    const usage = book.sessionUsage('s-b')!;
    expect(usage.calls).toBe(2);
    expect(usage.tokens).toEqual({ input: 107, output: 403, cacheWrite: 1000, cacheRead: 50_000 });
    expect(usage.context!.tokens).toBe(1100);
  });
});

describe('Codex rollout files', () => {
  it('counts the growth of its running totals, never a repeated report twice; cached input is cache read', async () => {
    book.track(session('s-c', 'codex', KEYS.codexC));
    await book.scan();
    const usage = book.sessionUsage('s-c')!;
    expect(usage.calls).toBe(2);
    expect(usage.tokens).toEqual({ input: 10_000, output: 1300, cacheWrite: 0, cacheRead: 20_000 });
    // gpt-5-codex: 10000·1.25 + 20000·0.125 + 1300·10 per million.
    expect(usage.cost).toBeCloseTo(0.028, 10);
    expect(usage.models).toEqual(['gpt-5-codex']);
    // The last call's prompt, against the window Codex itself reports.
    expect(usage.context).toMatchObject({ tokens: 18_000, window: 272_000, fill: 18_000 / 272_000 });
  });

  it('two sessions in one folder each get their own rollout; a model without a price has tokens and no cost', async () => {
    book.track(session('s-c', 'codex', KEYS.codexC));
    book.track(session('s-d', 'codex', KEYS.codexD));
    await book.scan();
    expect(book.sessionUsage('s-c')!.tokens.output).toBe(1300);
    const d = book.sessionUsage('s-d')!;
    expect(d.tokens).toEqual({ input: 5000, output: 100, cacheWrite: 0, cacheRead: 0 });
    expect(d.cost).toBeNull();
    expect(d.unpricedModels).toEqual(['gpt-6.2-sol']);
  });

  it('totals that go down (a process counting again from zero) count that report’s last call', async () => {
    const file = path.join(dir, 'codex', 'sessions', '2026', '12', '01', `rollout-2026-12-01T09-30-00-${KEYS.codexD}.jsonl`);
    book.track(session('s-d', 'codex', KEYS.codexD));
    await book.scan();
    const usage = { input_tokens: 700, cached_input_tokens: 200, output_tokens: 30, reasoning_output_tokens: 0, total_tokens: 730 };
    fs.appendFileSync(file, JSON.stringify({ timestamp: '2026-12-01T09:40:00.000Z', type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: usage, last_token_usage: usage }, rate_limits: null } }) + '\n');
    await book.scan();
    expect(book.sessionUsage('s-d')!.tokens).toEqual({ input: 5500, output: 130, cacheWrite: 0, cacheRead: 200 });
  });

  it('finds a rollout in any day folder when the session does not say when it began, or says another day', async () => {
    book.track({ ...session('s-c', 'codex', KEYS.codexC), startedAt: null });
    book.track({ ...session('s-d', 'codex', KEYS.codexD), startedAt: Date.parse('2026-06-01T09:00:00Z') });
    await book.scan();
    expect(book.sessionUsage('s-c')!.calls).toBe(2);
    expect(book.sessionUsage('s-d')!.calls).toBe(1);
  });

  it("reports Codex's latest rate-limit windows across its sessions", async () => {
    book.track(session('s-c', 'codex', KEYS.codexC));
    book.track(session('s-d', 'codex', KEYS.codexD));
    await book.scan();
    const reset = Date.parse('2026-12-01T15:00:00Z');
    expect(book.quota().codex).toEqual({
      at: Date.parse('2026-12-01T09:30:05Z'),
      primary: { usedPercent: 11, windowMinutes: 300, resetsAt: reset },
      secondary: { usedPercent: 32, windowMinutes: 10080, resetsAt: reset + 400_000_000 },
    });
  });
});

describe('Gemini CLI chat files', () => {
  it('counts a message once however often it is written, and only the conversation whose id is in the file', async () => {
    book.track(session('s-e', 'gemini', KEYS.geminiE));
    book.track(session('s-f', 'gemini', KEYS.geminiF));
    await book.scan();
    const e = book.sessionUsage('s-e')!;
    expect(e.calls).toBe(2);
    // Prompts include the cached part (counted as cache read); thoughts are output.
    expect(e.tokens).toEqual({ input: 6500, output: 280, cacheWrite: 0, cacheRead: 12_000 });
    expect(e.cost).toBeCloseTo(0.012425, 10);
    expect(e.context).toMatchObject({ tokens: 9500, window: 1_048_576 });
    expect(e.files).toHaveLength(1);
    const f = book.sessionUsage('s-f')!;
    expect(f.tokens).toEqual({ input: 100, output: 10, cacheWrite: 0, cacheRead: 0 });
    expect(f.files).toHaveLength(1);
    expect(f.files[0]).not.toBe(e.files[0]);
  });
});

describe('Gemini CLI chat files', () => {
  it('an older whole-file .json conversation is read whole each time it changes, never counted twice', async () => {
    const file = path.join(dir, 'gemini-home', '.gemini', 'tmp', 'old', 'chats', 'session-2026-11-30T10-00-0ld0c0de.json');
    const key = '0ld0c0de-1111-4111-8111-111111111111';
    const message = (id: string, input: number) => ({ id, timestamp: '2026-11-30T10:00:05.000Z', type: 'gemini', content: 'ok', tokens: { input, output: 10, cached: 0, thoughts: 0, tool: 0, total: input + 10 }, model: 'gemini-2.5-flash' });
    const write = (messages: unknown[]) => fs.writeFileSync(file, JSON.stringify({ sessionId: key, projectHash: 'x', startTime: '2026-11-30T10:00:00.000Z', lastUpdated: '2026-11-30T10:00:05.000Z', messages }, null, 2));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    write([message('m1', 1000)]);
    book.track(session('s-old', 'gemini', key));
    await book.scan();
    expect(book.sessionUsage('s-old')!.tokens).toEqual({ input: 1000, output: 10, cacheWrite: 0, cacheRead: 0 });
    write([message('m1', 1000), message('m2', 2000)]);
    await book.scan();
    expect(book.sessionUsage('s-old')!.tokens).toEqual({ input: 3000, output: 20, cacheWrite: 0, cacheRead: 0 });
  });
});

describe('Codex rate limits from older builds', () => {
  it('a reset given in seconds from the event is a time', async () => {
    const file = path.join(dir, 'codex', 'sessions', '2026', '12', '01', `rollout-2026-12-01T09-30-00-${KEYS.codexD}.jsonl`);
    fs.appendFileSync(file, JSON.stringify({ timestamp: '2026-12-01T10:00:00.000Z', type: 'event_msg', payload: { type: 'token_count', info: null, rate_limits: { primary: { used_percent: 40.5, window_minutes: 299, resets_in_seconds: 600 }, secondary: null } } }) + '\n');
    book.track(session('s-d', 'codex', KEYS.codexD));
    await book.scan();
    expect(book.quota().codex).toEqual({ at: Date.parse('2026-12-01T10:00:00Z'), primary: { usedPercent: 40.5, windowMinutes: 299, resetsAt: Date.parse('2026-12-01T10:10:00Z') }, secondary: null });
  });
});

describe('the usage book', () => {
  it('gives the event loop back between chunks of a large transcript', async () => {
    const file = claudeFile(KEYS.claudeB);
    const line = fs.readFileSync(file, 'utf8').split('\n').find((l) => l.includes('"usage"'))!;
    const lines: string[] = [];
    for (let i = 0; lines.length * line.length < 5 * 1024 * 1024; i++) lines.push(line.replaceAll('msg_01B1', `msg_${i}`));
    fs.writeFileSync(file, lines.join('\n') + '\n');
    book.track(session('s-b', 'claude', KEYS.claudeB));
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    // The loop's turns so far at each chunk read.
    const atChunk: number[] = [];
    book.onProgress((p) => {
      if (p.filesDone === 0) atChunk.push(turns);
    });
    await book.scan();
    ticking = false;
    expect(book.sessionUsage('s-b')!.calls).toBe(lines.length);
    // Five chunks or more, and the loop ran between every two of them.
    expect(atChunk.length).toBeGreaterThanOrEqual(5);
    for (let i = 1; i < atChunk.length; i++) expect(atChunk[i]!).toBeGreaterThan(atChunk[i - 1]!);
  });

  function trackAll() {
    book.track(session('s-a', 'claude', KEYS.claudeA));
    book.track(session('s-b', 'claude', KEYS.claudeB, '/work/other'));
    book.track(session('s-c', 'codex', KEYS.codexC));
    book.track(session('s-e', 'gemini', KEYS.geminiE));
  }

  it('sums by session, by folder and by local day, from a time on', async () => {
    // Claude B's conversation lives in /work/app's folder; the session says /work/other, so it is found by key.
    trackAll();
    await book.scan();
    expect(book.sessionUsage('s-b')!.calls).toBe(1);
    const bySession = book.totals({ by: 'session' });
    expect(bySession.map((r) => [r.key, r.calls])).toEqual([['s-c', 2], ['s-a', 3], ['s-e', 2], ['s-b', 1]]);
    const byProject = book.totals({ by: 'project' });
    expect(byProject.map((r) => [r.key, r.calls])).toEqual([['/work/app', 7], ['/work/other', 1]]);
    expect(byProject[0]!.unpricedModels).toEqual(['claude-opus-5-20261103']);
    const since = book.totals({ by: 'session', since: Date.parse('2026-12-01T10:04:00Z') });
    expect(since.map((r) => [r.key, r.calls])).toEqual([['s-e', 2], ['s-a', 2], ['s-b', 1]]);
    const byDay = book.totals({ by: 'day' });
    const days = new Set([...['2026-12-01T09:00:10Z', '2026-12-01T21:00:03Z'].map((t) => new Date(t).toLocaleDateString('sv'))]);
    expect(byDay.map((r) => r.key)).toEqual([...days].sort());
    expect(byDay.reduce((n, r) => n + r.calls, 0)).toBe(8);
  });

  it("Claude's 5-hour block: from the first call's hour, and when it resets", async () => {
    trackAll();
    await book.scan();
    now = Date.parse('2026-12-01T12:00:00Z');
    const block = book.quota().claude!;
    expect(block.start).toBe(Date.parse('2026-12-01T10:00:00Z'));
    expect(block.end).toBe(Date.parse('2026-12-01T15:00:00Z'));
    expect(block.lastActivity).toBe(Date.parse('2026-12-01T11:00:03Z'));
    expect(block.calls).toBe(4);
    expect(block.tokens).toEqual({ input: 135, output: 1000, cacheWrite: 3500, cacheRead: 19_500 });
    now = Date.parse('2026-12-01T15:00:00Z');
    expect(book.quota().claude).toBeNull();
  });

  it('tokens in the last hour', async () => {
    trackAll();
    await book.scan();
    now = Date.parse('2026-12-01T11:06:00Z');
    expect(book.sessionUsage('s-a')!.lastHour).toEqual({ input: 20, output: 100, cacheWrite: 0, cacheRead: 7500 });
    expect(book.sessionUsage('s-b')!.lastHour).toEqual({ input: 100, output: 400, cacheWrite: 1000, cacheRead: 0 });
  });

  it('tells its progress, and a scan with nothing new reads nothing', async () => {
    trackAll();
    const seen: Progress[] = [];
    const off = book.onProgress((p) => seen.push(p));
    await book.scan();
    off();
    const last = seen.at(-1)!;
    // Four transcripts, and the other Gemini conversation whose file name matches (opened to read its id).
    expect(last.filesDone).toBe(5);
    expect(last.filesTotal).toBe(5);
    expect(last.bytesRead).toBe(last.bytesTotal);
    expect(last.bytesTotal).toBeGreaterThan(10_000);
    const read = book.stats.bytesRead;
    await book.scan();
    expect(book.stats.bytesRead).toBe(read);
    expect(seen.at(-1)).toBe(last);
  });

  it('a session whose key is learned later, an untracked one, and a CLI it cannot read', async () => {
    book.track(session('s-a', 'claude', null));
    book.track(session('s-x', 'aider', null));
    await book.scan();
    expect(book.sessionUsage('s-a')!.calls).toBe(0);
    // No call yet costs nothing, which is known: not "no price".
    expect(book.sessionUsage('s-a')!.cost).toBe(0);
    expect(book.sessionUsage('s-x')!.readable).toBe(false);
    book.track(session('s-a', 'claude', KEYS.claudeA));
    await book.scan();
    expect(book.sessionUsage('s-a')!.calls).toBe(3);
    book.untrack('s-a');
    expect(book.sessionUsage('s-a')).toBeNull();
    expect(book.totals({ by: 'session' })).toEqual([]);
  });

  it('scans asked for during a scan run once after it', async () => {
    trackAll();
    const first = book.scan();
    const second = book.scan();
    const third = book.scan();
    expect(third).toBe(second);
    await Promise.all([first, second]);
    expect(book.stats.scans).toBe(2);
    expect(book.sessionUsage('s-a')!.calls).toBe(3);
  });
});
