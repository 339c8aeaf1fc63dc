import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCatalogue, type CliSpec } from '../catalogue/catalogue';
import { SHIPPED_CATALOGUE } from '../engine/engine';
import { conversationExists } from '../catalogue/conversations';
import { DEAD_KEY_TAIL_LINES, exitOutcome, graceMs, judgeExit, planLaunch, probationLeft, probationMs, saysKeyIsDead, type ExitFacts, type ExitReport } from '../engine/resumePolicy';
import type { SessionRow } from '../store/store';

const cli = (over: Partial<CliSpec>): CliSpec => ({
  name: 'x',
  label: 'X',
  command: 'x',
  args: [],
  resume: null,
  color: '#000000',
  env: {},
  boxed: false,
  attention: [],
  setup: [],
  ready: null,
  answers: null,
  keyFromOutput: null,
  keyFromFile: null,
  deadKey: null,
  conversation: null,
  sessionsDb: null,
  idleTimeoutMs: undefined,
  resumeGraceMs: undefined,
  path: '/bin/x',
  ...over,
});
const row = (over: Partial<SessionRow> = {}): SessionRow => ({
  id: 'sess-1',
  name: 'n',
  cli: 'x',
  cwd: '/w',
  backend: 'tmux',
  state: 'stopped',
  resumeKey: null,
  launchMode: null,
  launchCount: 0,
  launchedAt: null,
  createdAt: 0,
  startedAt: null,
  lastActivityAt: null,
  lastExit: null,
  position: 0,
  archivedAt: null,
  worktree: null,
  firstPrompt: null,
  ...over,
});
const claudeLike = cli({ args: ['--session-id', '{id}'], resume: ['--resume', '{cli_session_id}'] });
const newId = () => 'new-id';

describe('planning a launch', () => {
  it('a first start hands the CLI the session id, which becomes the key', () => {
    expect(planLaunch(row(), claudeLike, { newId })).toEqual({
      mode: 'fresh',
      file: '/bin/x',
      args: ['--session-id', 'sess-1'],
      key: 'sess-1',
      handedId: 'sess-1',
    });
  });

  it('a start with a key resumes it', () => {
    const plan = planLaunch(row({ resumeKey: 'k', launchCount: 3 }), claudeLike, { newId });
    expect(plan).toMatchObject({ mode: 'resume', args: ['--resume', 'k'], key: 'k' });
  });

  it('a later clean start (and the fallback) hands a new id', () => {
    expect(planLaunch(row({ launchCount: 1 }), claudeLike, { newId })).toMatchObject({ mode: 'fresh', args: ['--session-id', 'new-id'], key: 'new-id' });
    expect(planLaunch(row({ resumeKey: 'dead', launchCount: 2 }), claudeLike, { fallback: true, newId })).toMatchObject({
      mode: 'fallback',
      args: ['--session-id', 'new-id'],
      key: 'new-id',
    });
  });

  it('a CLI that picks its own id starts without a key (it is learned later)', () => {
    const codexLike = cli({ args: [], resume: ['resume', '{cli_session_id}'] });
    expect(planLaunch(row(), codexLike)).toMatchObject({ mode: 'fresh', args: [], key: null });
  });

  it('a resume form without a key (Aider) makes any earlier run resumable', () => {
    const aiderLike = cli({ args: [], resume: ['--restore-chat-history'] });
    expect(planLaunch(row(), aiderLike)).toMatchObject({ mode: 'fresh', key: 'sess-1' });
    expect(planLaunch(row({ resumeKey: 'sess-1' }), aiderLike)).toMatchObject({ mode: 'resume', args: ['--restore-chat-history'] });
  });

  it('a CLI with no resume form never gets a key', () => {
    expect(planLaunch(row(), cli({ args: ['-l'] }))).toMatchObject({ mode: 'fresh', args: ['-l'], key: null });
  });
});

describe('judging an exit', () => {
  const words = { deadKey: 'No conversation found with session ID: {cli_session_id}', conversation: null, sessionsDb: null };
  const neither = { deadKey: null, conversation: null, sessionsDb: null };
  const facts = (over: Partial<ExitFacts> = {}): ExitFacts => ({
    mode: 'resume',
    key: 'k-1',
    code: 1,
    output: 'No conversation found with session ID: k-1\n',
    typed: false,
    livedMs: 9_000,
    graceMs: 5_000,
    whileAway: false,
    ...over,
  });

  it("a resume whose CLI says the key is not found is a dead key, however late it said so", () => {
    expect(judgeExit(facts({ livedMs: 60_000 }), words)).toEqual({ kind: 'dead-key', evidence: 'words' });
  });

  it('the words count even after the person answered a prompt first', () => {
    const output = 'Is this a project you trust?\n❯ 1. Yes\n\nNo conversation found with session ID: k-1\n';
    expect(judgeExit(facts({ typed: true, output }), words)).toEqual({ kind: 'dead-key', evidence: 'words' });
  });

  it("the words must name this key, end the output and come with a failed exit", () => {
    expect(judgeExit(facts({ output: 'No conversation found with session ID: other\n' }), words).kind).toBe('exited');
    const talkedAbout = `No conversation found with session ID: k-1\n${'line\n'.repeat(DEAD_KEY_TAIL_LINES + 5)}`;
    expect(judgeExit(facts({ output: talkedAbout }), words).kind).toBe('exited');
    expect(judgeExit(facts({ code: 0 }), words).kind).toBe('exited');
  });

  it('a key with pattern characters is matched as text', () => {
    const output = 'No conversation found with session ID: a.b+c\n';
    expect(judgeExit(facts({ key: 'a.b+c', output }), words).kind).toBe('dead-key');
    expect(judgeExit(facts({ key: 'a.b+c', output: 'No conversation found with session ID: aXbbc\n' }), words).kind).toBe('exited');
  });

  it('a CLI that has words is not judged by the clock', () => {
    expect(judgeExit(facts({ livedMs: 100, output: 'something else\n' }), words).kind).toBe('exited');
  });

  it('a CLI with neither words nor a conversation check falls back on the clock, counted from the real start', () => {
    expect(judgeExit(facts({ livedMs: 4_999, output: '' }), neither)).toEqual({ kind: 'dead-key', evidence: 'timing' });
    expect(judgeExit(facts({ livedMs: 5_000, output: '' }), neither).kind).toBe('exited');
    expect(judgeExit(facts({ livedMs: 100, typed: true, output: '' }), neither).kind).toBe('exited');
    expect(judgeExit(facts({ livedMs: 100, whileAway: true, output: '' }), neither).kind).toBe('exited');
  });

  it('a clean start after a dead key that dies at once ends the tries; later, it is an exit like any other', () => {
    expect(judgeExit(facts({ mode: 'fallback', livedMs: 100 }), words)).toEqual({ kind: 'fallback-failed' });
    expect(judgeExit(facts({ mode: 'fallback', livedMs: 60_000 }), words).kind).toBe('exited');
  });

  it('a fresh start never loses a key', () => {
    expect(judgeExit(facts({ mode: 'fresh', livedMs: 100 }), words).kind).toBe('exited');
    expect(judgeExit(facts({ mode: 'fresh', livedMs: 100 }), neither).kind).toBe('exited');
  });
});

describe('what an exit means to the lifecycle', () => {
  const words = { deadKey: 'No conversation found with session ID: {cli_session_id}', conversation: null, sessionsDb: null };
  const report = (over: Partial<ExitReport> = {}): ExitReport => ({
    mode: 'resume',
    key: 'k-1',
    code: 1,
    output: 'No conversation found with session ID: k-1\n',
    typed: false,
    livedMs: 9_000,
    graceMs: 5_000,
    whileAway: false,
    running: true,
    launchPid: 10,
    exitPid: 10,
    orphaned: false,
    endedFromOutside: false,
    ...over,
  });

  it('a dead key starts clean, once', () => {
    expect(exitOutcome(report(), words)).toEqual({ kind: 'dead-key', evidence: 'words', startClean: true });
  });

  it('a dead key found after a restart starts nothing: the next start is clean', () => {
    expect(exitOutcome(report({ whileAway: true }), words)).toEqual({ kind: 'dead-key', evidence: 'words', startClean: false });
  });

  it('an exit after a stop, or of an older launch, changes nothing', () => {
    expect(exitOutcome(report({ running: false }), words).kind).toBe('old-news');
    expect(exitOutcome(report({ exitPid: 11 }), words).kind).toBe('old-news');
    // A launch or an exit whose process was not told is taken as this one's.
    expect(exitOutcome(report({ launchPid: null, exitPid: 11 }), words).kind).toBe('dead-key');
    expect(exitOutcome(report({ exitPid: null }), words).kind).toBe('dead-key');
  });

  it("a crashed engine's agent, ended on the way back, is found gone", () => {
    expect(exitOutcome(report({ orphaned: true }), words).kind).toBe('found-gone');
  });

  it('an exit from outside, or of a CLI the catalogue no longer has, never drops a key', () => {
    expect(exitOutcome(report({ endedFromOutside: true }), words).kind).toBe('exited');
    expect(exitOutcome(report(), undefined).kind).toBe('exited');
  });

  it('the clean start after a dead key that dies at once ends the tries', () => {
    expect(exitOutcome(report({ mode: 'fallback', livedMs: 100 }), words).kind).toBe('fallback-failed');
  });
});

describe('the probation of a resume', () => {
  it("the grace window is the engine's override, else the CLI's, else the catalogue's", () => {
    expect(graceMs({ resumeGraceMs: 7_000 }, 15_000, 1_000)).toBe(1_000);
    expect(graceMs({ resumeGraceMs: 7_000 }, 15_000)).toBe(7_000);
    expect(graceMs({ resumeGraceMs: undefined }, 15_000)).toBe(15_000);
  });

  it('is twice as long for a resume whose conversation was not seen, when its CLI has words', () => {
    const words = { deadKey: 'gone' };
    expect(probationMs('resume', 5_000, words, true)).toBe(5_000);
    expect(probationMs('resume', 5_000, words, null)).toBe(10_000);
    expect(probationMs('resume', 5_000, { deadKey: null }, null)).toBe(5_000);
    expect(probationMs('fallback', 5_000, words, null)).toBe(5_000);
  });

  it('runs on while a prompt waits, and until the person has been quiet for a window', () => {
    expect(probationLeft({ needsYou: false, quietForMs: 60_000, probationMs: 5_000 })).toBeNull();
    expect(probationLeft({ needsYou: true, quietForMs: 60_000, probationMs: 5_000 })).toBe(5_000);
    expect(probationLeft({ needsYou: false, quietForMs: 1_000, probationMs: 5_000 })).toBe(4_000);
  });
});

describe('looking for a conversation before a resume', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-conv-'));
    fs.mkdirSync(path.join(root, 'projects', '-w-app'), { recursive: true });
    fs.writeFileSync(path.join(root, 'projects', '-w-app', 'k-1.jsonl'), '{}\n');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
  const template = '$CLI_HOME/projects/*/{cli_session_id}.jsonl';
  const env = () => ({ CLI_HOME: root });

  it('finds a kept conversation, and knows a missing one', async () => {
    expect(await conversationExists(template, 'k-1', env())).toBe(true);
    expect(await conversationExists(template, 'k-2', env())).toBe(false);
    expect(await conversationExists(`${root}/projects/-w-app/{cli_session_id}.jsonl`, 'k-2', {})).toBe(false);
  });

  it('a CLI folder that is not there at all tells nothing (the CLI may have moved its files, a home may not be mounted yet)', async () => {
    expect(await conversationExists(`${root}/elsewhere/*/{cli_session_id}.jsonl`, 'k-2', {})).toBeNull();
    expect(await conversationExists(`${root}/elsewhere/{cli_session_id}.jsonl`, 'k-2', {})).toBeNull();
  });

  it('says nothing when it cannot tell: a key that reads as a pattern, a relative path', async () => {
    expect(await conversationExists('projects/*/{cli_session_id}.jsonl', 'k-2', {})).toBeNull();
    expect(await conversationExists(template, 'k-*', env())).toBeNull();
    expect(await conversationExists(template, '../k-1', env())).toBeNull();
  });
});

describe("the shipped catalogue's dead-key words", () => {
  const shipped = loadCatalogue({ shippedFile: SHIPPED_CATALOGUE, pathEnv: '' }).clis;
  const screen = (name: string) => fs.readFileSync(path.join(import.meta.dirname, 'screens', `${name}.txt`), 'utf8');

  // What the real CLIs printed when asked to resume a key with no conversation.
  it.each([
    ['claude', 'claude-dead-key', 'c83982e5-2240-45c5-85a7-bbe7f38903e1'],
    ['codex', 'codex-dead-key', '3f1c2b9e-1d2a-4c3b-9e8f-0a1b2c3d4e5f'],
    ['gemini', 'gemini-dead-key', '3f1c2b9e-1d2a-4c3b-9e8f-0a1b2c3d4e5f'],
    ['gemini', 'gemini-dead-key-invalid', '3f1c2b9e-1d2a-4c3b-9e8f-0a1b2c3d4e5f'],
    ['qwen', 'qwen-dead-key', '3f1c2b9e-1d2a-4c3b-9e8f-0a1b2c3d4e5f'],
    ['opencode', 'opencode-dead-key', 'ses_3f1c2b9e1d2a4c3b9e8f0a1b2c'],
  ])('%s: %s says the key is dead', (cli, name, key) => {
    expect(saysKeyIsDead(shipped.get(cli)!.deadKey!, key, screen(name))).toBe(true);
  });

  it.each([
    ['claude', 'claude-dead-key'],
    ['codex', 'codex-dead-key'],
    ['qwen', 'qwen-dead-key'],
    ['opencode', 'opencode-dead-key'],
  ])('%s: the words name the key, so another key is not said dead by them (%s)', (cli, name) => {
    expect(saysKeyIsDead(shipped.get(cli)!.deadKey!, 'another-key', screen(name))).toBe(false);
  });

  it.each([['claude', 'claude-main'], ['codex', 'codex-main'], ['gemini', 'gemini-main'], ['qwen', 'qwen-main'], ['opencode', 'opencode-main']])(
    '%s: its main screen says nothing of the kind',
    (cli, name) => {
      expect(saysKeyIsDead(shipped.get(cli)!.deadKey!, 'k', screen(name))).toBe(false);
    },
  );
});
