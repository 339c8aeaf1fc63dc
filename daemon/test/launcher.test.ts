import { describe, expect, it } from 'vitest';
import type { CliSpec } from '../catalogue';
import { planLaunch } from '../launcher';
import type { SessionRow } from '../store';

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
  keyFromOutput: null,
  keyFromFile: null,
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
