// When a change is worth a notification (the desktop app's and the browser's rule).

import { describe, expect, it } from 'vitest';
import { NoticeBoard } from '../contract/notifications';
import type { SessionChange, SessionEvent, SessionView } from '../contract/session';
import { sessionView } from './support/sessionView';

const view = (over: Partial<SessionView> = {}) => sessionView({ id: 's1', ...over });
const waiting = { source: 'screen' as const, since: 1, detail: 'Do you want to proceed?' };
const event = (kind: SessionEvent['kind'], message: string): SessionEvent => ({ id: 1, sessionId: 's1', at: 1, kind, message, detail: {} });
const change = (kind: SessionChange['kind'], session: SessionView, ev?: SessionEvent): SessionChange => (ev ? { kind, session, event: ev } : { kind, session });

describe('notices', () => {
  it('tell each wait once, with what was seen', () => {
    const board = new NoticeBoard();
    expect(board.notice(change('updated', view()))).toBeNull();
    expect(board.notice(change('updated', view({ needsYou: waiting })))).toEqual({ sessionId: 's1', title: 'api needs you', body: 'Do you want to proceed?' });
    expect(board.notice(change('updated', view({ needsYou: waiting, activity: 'needs-you' })))).toBeNull();
    expect(board.notice(change('updated', view()))).toBeNull();
    expect(board.notice(change('updated', view({ needsYou: { source: 'hook', since: 2 } })))?.body).toBe('It is waiting for your answer.');
    expect(board.notice(change('updated', view()))).toBeNull();
    // What it asks about, under the question.
    expect(board.notice(change('updated', view({ needsYou: { ...waiting, about: 'rm -rf build' } })))?.body).toBe('Do you want to proceed?\nrm -rf build');
  });

  it('tell an exit nobody asked for, and a clean start that failed too; not a stop', () => {
    const board = new NoticeBoard();
    const exited = view({ state: 'exited', needsYou: { source: 'exit', since: 1, detail: 'exited with code 4' } });
    expect(board.notice(change('updated', exited, event('exited', 'exited with code 4')))).toEqual({ sessionId: 's1', title: 'api ended', body: 'It exited with code 4.' });
    expect(board.notice(change('updated', view({ state: 'exited' }), event('fallback-failed', 'the clean start failed too'))))?.toMatchObject({ title: 'api ended' });
    expect(board.notice(change('updated', view({ state: 'stopped' }), event('stopped', 'stopped by you')))).toBeNull();
  });

  it('say nothing of sessions a client is told of as it subscribes', () => {
    const board = new NoticeBoard();
    expect(board.notice(change('added', view({ needsYou: waiting })))).toBeNull();
    expect(board.notice(change('updated', view({ needsYou: waiting })))).toBeNull();
    board.notice(change('removed', view()));
    expect(board.notice(change('updated', view({ needsYou: waiting })))).not.toBeNull();
  });

  it("name a remote host's session by its host, keyed HOST/ID, apart from this machine's with the same id", () => {
    const board = new NoticeBoard();
    expect(board.notice(change('updated', view({ needsYou: waiting })), 'devbox')).toEqual({ sessionId: 'devbox/s1', title: 'api on devbox needs you', body: 'Do you want to proceed?' });
    expect(board.notice(change('updated', view({ needsYou: waiting })), 'devbox')).toBeNull();
    // This machine's s1 is another session: its wait is its own.
    expect(board.notice(change('updated', view({ needsYou: waiting })))).toMatchObject({ sessionId: 's1', title: 'api needs you' });
    const exited = view({ state: 'exited', needsYou: { source: 'exit', since: 1, detail: 'exited with code 4' } });
    expect(board.notice(change('updated', exited, event('exited', 'exited with code 4')), 'gpu')).toEqual({ sessionId: 'gpu/s1', title: 'api on gpu ended', body: 'It exited with code 4.' });
  });
});
