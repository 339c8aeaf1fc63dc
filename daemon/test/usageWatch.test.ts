// What each session costs, through the engine: its CLI's transcript found by its resume key and
// read as it grows; each API call counted once; its badge told to listeners; the report per
// session, project and day.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionChange } from '../contract/session';
import type { Engine } from '../engine/engine';
import { makeRig, storedKey, type Rig } from './support/rig';
import { waitFor } from './support/wait';

/** One assistant line as Claude Code writes it; the same call is written once per content block. */
const call = (id: string, at: string, usage: { input: number; output: number; write: number; read: number }) =>
  JSON.stringify({
    type: 'assistant',
    requestId: `req_${id}`,
    timestamp: at,
    message: { id: `msg_${id}`, model: 'claude-sonnet-4-5-20250929', usage: { input_tokens: usage.input, output_tokens: usage.output, cache_creation_input_tokens: usage.write, cache_read_input_tokens: usage.read } },
  }) + '\n';

describe('usage through the engine', () => {
  let rig: Rig;
  let engine: Engine;
  let claudeDir: string;

  beforeEach(async () => {
    rig = await makeRig();
    claudeDir = path.join(rig.root, 'claude-config');
    rig.env.CLAUDE_CONFIG_DIR = claudeDir;
    // A fake under Claude Code's name: its transcripts are where Claude Code keeps them.
    rig.writeCatalogue('[cli.claude]\ncommand = "faker"\nargs = ["fresh", "{id}"]\nresume = ["resume", "{cli_session_id}"]\n');
    engine = await rig.open({ backend: 'tmux', usageIntervalMs: 3_600_000 });
  });
  afterEach(async () => {
    await rig.cleanup();
  });

  it("reads a session's transcript by its key, counts a call written twice once, and tells its badge", async () => {
    const session = await engine.createSession({ cli: 'claude', cwd: rig.home, name: 'costly' });
    const key = storedKey(rig, session.id)!;
    const file = path.join(claudeDir, 'projects', '-some-folder', `${key}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const first = call('1', '2026-12-01T10:00:00.000Z', { input: 1000, output: 500, write: 2000, read: 10_000 });
    fs.writeFileSync(file, first + first);
    const told: SessionChange[] = [];
    engine.onSessionChange((change) => told.push(change));

    await engine.scanUsage();
    // (1,000 × 3 + 500 × 15 + 2,000 × 3.75 + 10,000 × 0.30) / 1,000,000 dollars
    const badge = { tokens: 13_500, cost: 0.021, partial: false, contextFill: 13_000 / 200_000 };
    expect((await engine.getSession({ id: session.id })).usage).toEqual(badge);
    expect(told.find((c) => c.session.id === session.id)?.session.usage).toEqual(badge);

    // A new turn, and a last line still being written: only the whole line counts.
    const second = call('2', '2026-12-01T10:05:00.000Z', { input: 10, output: 100, write: 0, read: 13_000 });
    fs.appendFileSync(file, second + second.slice(0, 40));
    await engine.scanUsage();
    expect((await engine.getSession({ id: session.id })).usage).toMatchObject({ tokens: 13_500 + 13_110 });

    const report = await engine.usage();
    expect(report.scanning).toBeNull();
    expect(report.sessions.find((s) => s.id === session.id)).toMatchObject({ calls: 2, tokens: { input: 1010, output: 600, cacheWrite: 2000, cacheRead: 23_000 } });
    expect(report.byProject).toEqual([expect.objectContaining({ key: rig.home, calls: 2 })]);
    expect(report.byDay.map((d) => d.calls)).toEqual([2]);
    expect(report.total).toMatchObject({ calls: 2, tokens: { input: 1010, output: 600, cacheWrite: 2000, cacheRead: 23_000 } });
    expect(report.total.cost).toBeCloseTo(0.021 + (10 * 3 + 100 * 15 + 13_000 * 0.3) / 1e6, 10);

    // Its receipt says what it had cost when it ended.
    await engine.stopSession({ id: session.id });
    expect((await engine.receipt({ id: session.id })).receipt?.usage).toMatchObject({ tokens: 13_500 + 13_110 });
  });

  it('a session with no transcript has no badge, and one removed leaves the report', async () => {
    const session = await engine.createSession({ cli: 'claude', cwd: rig.home, name: 'quiet' });
    await engine.scanUsage();
    expect((await engine.getSession({ id: session.id })).usage).toBeNull();
    await engine.removeSession({ id: session.id, force: true });
    await engine.scanUsage();
    expect((await engine.usage()).sessions).toEqual([]);
  });

  it('a price table of your own is read when it changes', async () => {
    const session = await engine.createSession({ cli: 'claude', cwd: rig.home, name: 'priced' });
    const file = path.join(claudeDir, 'projects', '-x', `${storedKey(rig, session.id)}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, call('1', '2026-12-01T10:00:00.000Z', { input: 1_000_000, output: 0, write: 0, read: 0 }));
    await engine.scanUsage();
    expect((await engine.getSession({ id: session.id })).usage?.cost).toBe(3);
    fs.writeFileSync(path.join(rig.home, 'prices.toml'), '[model."claude-sonnet-4-5"]\ninput = 1.5\n');
    await waitFor(async () => {
      await engine.scanUsage();
      return (await engine.getSession({ id: session.id })).usage?.cost === 1.5;
    }, 'the new price');
  });
});

describe('the price tables', () => {
  it('are read at the first scan or report, not while the engine opens', async () => {
    const rig = await makeRig();
    try {
      rig.env.CLAUDE_CONFIG_DIR = path.join(rig.root, 'claude-config');
      rig.writeCatalogue('[cli.claude]\ncommand = "faker"\nargs = ["fresh", "{id}"]\nresume = ["resume", "{cli_session_id}"]\n');
      // The shipped table is not there yet when the engine opens.
      const shipped = path.join(rig.root, 'shipped-prices.toml');
      const engine = await rig.open({ backend: 'tmux', usageIntervalMs: 3_600_000, shippedPrices: shipped });
      fs.writeFileSync(shipped, '[model."claude-sonnet-4-5"]\ninput = 2\noutput = 0\ncache_write = 0\ncache_read = 0\n');
      const session = await engine.createSession({ cli: 'claude', cwd: rig.home, name: 'priced' });
      const file = path.join(rig.env.CLAUDE_CONFIG_DIR, 'projects', '-x', `${storedKey(rig, session.id)}.jsonl`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, call('1', '2026-12-01T10:00:00.000Z', { input: 1_000_000, output: 0, write: 0, read: 0 }));
      await engine.scanUsage();
      expect((await engine.getSession({ id: session.id })).usage?.cost).toBe(2);
    } finally {
      await rig.cleanup();
    }
  });
});
