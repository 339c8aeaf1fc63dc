// Remote hosts' sessions beside this machine's without a browser: keys, the merged list, the
// routed client, and the sidebar's machines.

import { describe, expect, it } from 'vitest';
import type { ClientApi } from '../../daemon/contract/contract';
import type { HostView } from '../../daemon/contract/hosts';
import type { SessionView } from '../../daemon/contract/session';
import { downLink, downWords, keyed, keyedChange, routedClient, sessionKey, splitKey } from '../lib/remote';
import { groupByHost } from '../lib/sidebar';
import { activateWhenListed, applyChange, mergeHost, useSessions } from '../state/sessions';
import { sessionView } from './fixtures';

const s = (id: string, over: Partial<SessionView> = {}) => sessionView({ id, name: id, ...over });
const ids = (list: SessionView[]) => list.map((x) => x.id);

describe('a session is known by its host and id', () => {
  it('as its id on this machine and HOST/ID on a host', () => {
    expect(sessionKey(null, 'a1')).toBe('a1');
    expect(sessionKey('devbox', 'a1')).toBe('devbox/a1');
    expect(splitKey('devbox/a1')).toEqual({ host: 'devbox', id: 'a1' });
    expect(splitKey('a1')).toEqual({ host: null, id: 'a1' });
  });

  it('so the same id on two hosts and here are three sessions, each changed alone', () => {
    let sessions = mergeHost([], [s('same')], null);
    sessions = mergeHost(sessions, [keyed('devbox', s('same'))], 'devbox');
    sessions = mergeHost(sessions, [keyed('gpu', s('same'))], 'gpu');
    expect(ids(sessions)).toEqual(['same', 'devbox/same', 'gpu/same']);
    const after = applyChange({ sessions, activeId: 'gpu/same' }, keyedChange('devbox', { kind: 'updated', session: s('same', { name: 'renamed' }) }));
    expect(after.sessions.map((x) => [x.id, x.name])).toEqual([
      ['same', 'same'],
      ['devbox/same', 'renamed'],
      ['gpu/same', 'same'],
    ]);
    const removed = applyChange(after, keyedChange('gpu', { kind: 'removed', session: s('same') }));
    expect(ids(removed.sessions)).toEqual(['same', 'devbox/same']);
  });

  it("takes a host's new order in the places its sessions held, the others' left where they were", () => {
    const sessions = [s('l1'), keyed('devbox', s('d1')), s('l2'), keyed('devbox', s('d2')), keyed('devbox', s('d3'))];
    const updated = (id: string, order?: string[]) => keyedChange('devbox', { kind: 'updated', session: s(id), ...(order ? { order } : {}) });
    // The changes before the last move nothing; the last one's order does.
    const between = applyChange({ sessions, activeId: 'l1' }, updated('d3'));
    expect(ids(between.sessions)).toEqual(ids(sessions));
    const after = applyChange(between, updated('d1', ['d3', 'd1', 'd2']));
    expect(ids(after.sessions)).toEqual(['l1', 'devbox/d3', 'l2', 'devbox/d1', 'devbox/d2']);
    // This machine's order moves only its own.
    const here = applyChange(after, { kind: 'updated', session: s('l2'), order: ['l2', 'l1'] });
    expect(ids(here.sessions)).toEqual(['l2', 'devbox/d3', 'l1', 'devbox/d1', 'devbox/d2']);
    // An order the list already has leaves the list as it was.
    expect(applyChange(here, { kind: 'updated', session: s('l1'), order: ['l2', 'l1'] }).sessions[0]).toBe(here.sessions[0]);
  });

  it("replaces one host's list and keeps every other's: this machine's first, then the hosts' as they came", () => {
    const sessions = [s('l1'), keyed('devbox', s('d1')), keyed('gpu', s('g1'))];
    expect(ids(mergeHost(sessions, [keyed('devbox', s('d2')), keyed('devbox', s('d3'))], 'devbox'))).toEqual(['l1', 'gpu/g1', 'devbox/d2', 'devbox/d3']);
    expect(ids(mergeHost(sessions, [s('l2')], null))).toEqual(['l2', 'devbox/d1', 'gpu/g1']);
    // A host removed: its list is empty.
    expect(ids(mergeHost(sessions, [], 'gpu'))).toEqual(['l1', 'devbox/d1']);
  });
});

describe('the routed client', () => {
  const recorder = (name: string, calls: string[]) =>
    new Proxy({} as ClientApi, {
      get: (_target, method: string) => (req: unknown, view?: unknown) => {
        calls.push(`${name} ${method} ${JSON.stringify(req)}`);
        if (method === 'openStream') return { close() {} };
        if (method === 'getSession') return Promise.resolve(s((req as { id: string }).id));
        if (method === 'listSessions') return Promise.resolve({ sessions: [s('x')] });
        return Promise.resolve(view);
      },
    });

  it("sends a call naming a host's session to that host with the bare id, and keys the sessions it answers", async () => {
    const calls: string[] = [];
    const api = routedClient(recorder('local', calls), (host) => recorder(host, calls));
    expect((await api.getSession({ id: 'devbox/a1' })).id).toBe('devbox/a1');
    expect((await api.getSession({ id: 'a1' })).id).toBe('a1');
    await api.write({ id: 'gpu/a1', text: 'y' });
    await api.reorderSessions({ ids: ['devbox/b', 'devbox/a', 'c'] });
    expect(ids((await api.listSessions({})).sessions)).toEqual(['x']);
    api.openStream('devbox/a1', { cols: 80, rows: 24 }, { onData() {}, onClosed() {} });
    expect(calls).toEqual([
      'devbox getSession {"id":"a1"}',
      'local getSession {"id":"a1"}',
      'gpu write {"id":"a1","text":"y"}',
      'devbox reorderSessions {"ids":["b","a"]}',
      'local listSessions {}',
      'devbox openStream "a1"',
    ]);
  });
});

describe("the sidebar's machines", () => {
  const asking = { source: 'screen' as const, since: 1, detail: 'Proceed?' };
  const host = (name: string, state: HostView['state']): HostView => ({ name, target: name, corral: null, state, message: null });

  it('are this machine first, then the hosts by name (a known host with no session too), each with its folders and counts', () => {
    const sessions = [keyed('zeta', s('z1', { cwd: '/src/app', needsYou: asking })), s('l1', { cwd: '/w/api' }), keyed('devbox', s('d1', { cwd: '/src/app' })), keyed('zeta', s('z2', { cwd: '/src/app' }))];
    const machines = groupByHost(sessions, false, null, ['zeta', 'devbox', 'empty']);
    expect(machines.map((m) => [m.host, m.total, m.needing, m.groups.map((g) => [g.key, ids(g.sessions)])])).toEqual([
      [null, 1, 0, [['/w/api', ['l1']]]],
      ['devbox', 1, 0, [['devbox:/src/app', ['devbox/d1']]]],
      ['empty', 0, 0, []],
      ['zeta', 2, 1, [['zeta:/src/app', ['zeta/z1', 'zeta/z2']]]],
    ]);
    // The same folder on two machines is two groups, never one.
    expect(machines.flatMap((m) => m.groups).filter((g) => g.folder === '/src/app')).toHaveLength(2);
  });

  it('with the needs-you filter, only the machines with a session shown', () => {
    const sessions = [s('l1'), keyed('devbox', s('d1', { needsYou: asking })), keyed('gpu', s('g1'))];
    expect(groupByHost(sessions, true, null, ['devbox', 'gpu']).map((m) => m.host)).toEqual(['devbox']);
  });

  it("say what a host's link is doing on its sessions while it is not connected", () => {
    const hosts = [host('devbox', 'reconnecting'), host('gpu', 'connected'), { ...host('bare', 'missing'), missing: [{ what: 'tmux' as const, install: 'sudo apt-get install tmux' }] }];
    expect(downLink('l1', hosts)).toBeNull();
    expect(downLink('gpu/a', hosts)).toBeNull();
    expect(downWords(downLink('devbox/a', hosts)!)).toBe('reconnecting devbox');
    expect(downWords(downLink('bare/a', hosts)!)).toBe('bare is missing tmux');
  });
});

describe('a tab asked for by the desktop shell (a link, the tray, a notification)', () => {
  it("opens a host's session once that host's list is in, and this machine's at once", () => {
    const store = useSessions.getState();
    store.replace([s('a1')]);
    store.replace([], 'devbox');
    store.activate('a1');
    activateWhenListed('devbox/b2');
    expect(useSessions.getState().activeId).toBe('a1');
    // Another host's list, and this machine's, come first: still waiting.
    store.replace([keyed('gpu', s('c3'))], 'gpu');
    store.replace([s('a1'), s('a4')]);
    expect(useSessions.getState().activeId).toBe('a1');
    store.replace([keyed('devbox', s('b2'))], 'devbox');
    expect(useSessions.getState().activeId).toBe('devbox/b2');
    // Once opened it waits no more: the person's own choice stands.
    store.activate('a4');
    store.replace([keyed('devbox', s('b2', { name: 'renamed' }))], 'devbox');
    expect(useSessions.getState().activeId).toBe('a4');
    activateWhenListed('a1');
    expect(useSessions.getState().activeId).toBe('a1');
  });

  it('stops waiting when told to (another tab was asked for meanwhile)', () => {
    const store = useSessions.getState();
    store.replace([s('a1')]);
    store.replace([], 'devbox');
    store.activate('a1');
    const stop = activateWhenListed('devbox/b9');
    stop();
    store.replace([keyed('devbox', s('b9'))], 'devbox');
    expect(useSessions.getState().activeId).toBe('a1');
  });
});
