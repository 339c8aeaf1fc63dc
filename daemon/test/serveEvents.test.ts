// The events stream's hello and its changes are one sequence: a change made while the hello's
// list is read comes after the hello, never before it (a client would otherwise apply the change
// and then a list older than it). A fake engine, so the list can be held while a change is made.

import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { EventsFrame } from '../contract/frames';
import type { SessionChange, SessionView } from '../contract/session';
import type { Engine } from '../engine/engine';
import { serveEvents } from '../transports/http/webSockets';
import { sessionView } from './support/sessionView';

function fakes() {
  const listeners = new Set<(change: SessionChange) => void>();
  let answer: (list: { sessions: SessionView[] }) => void = () => {};
  const engine = {
    onSessionChange: (l: (change: SessionChange) => void) => (listeners.add(l), () => listeners.delete(l)),
    onHostChange: () => () => {},
    listSessions: () => new Promise((resolve) => (answer = resolve)),
    hosts: { list: () => [] },
  } as unknown as Engine;
  const sent: EventsFrame[] = [];
  const ws = Object.assign(new EventEmitter(), { OPEN: 1, readyState: 1, send: (text: string) => sent.push(JSON.parse(text)), close: () => {} });
  return { engine, ws, sent, listeners, change: (c: SessionChange) => listeners.forEach((l) => l(c)), answer: (s: SessionView[]) => answer({ sessions: s }) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the events stream', () => {
  it('sends a change made while its list is read after the hello, then each change as it comes', async () => {
    const f = fakes();
    serveEvents(f.engine, f.ws as never);
    const first = sessionView({ id: 'first' });
    const long = sessionView({ id: 'long' });
    f.change({ kind: 'added', session: long });
    expect(f.sent).toEqual([]);
    f.answer([first]);
    await settle();
    f.change({ kind: 'updated', session: { ...long, name: 'renamed' } });
    expect(f.sent.map((frame) => [frame.type, 'session' in frame ? frame.session.name : frame.type === 'hello' ? frame.sessions.map((s) => s.id) : null])).toEqual([
      ['hello', ['first']],
      ['change', long.name],
      ['change', 'renamed'],
    ]);
    f.ws.emit('close');
    expect(f.listeners.size).toBe(0);
  });
});
