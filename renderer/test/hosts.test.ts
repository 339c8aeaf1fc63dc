// The sidebar's hosts without a browser: a link's changes applied to the list, and its state in words.

import { describe, expect, it } from 'vitest';
import { hostStateWords, type HostView } from '../../daemon/contract/hosts';
import { applyHostChange } from '../state/hosts';

const host = (over: Partial<HostView> = {}): HostView => ({ name: 'devbox', target: 'me@devbox', corral: null, state: 'connected', message: null, ...over });

describe('the hosts list', () => {
  it('takes each change of a link in place, adds a new host at the end and drops a removed one', () => {
    const list = [host(), host({ name: 'gpu' })];
    expect(applyHostChange(list, { kind: 'updated', host: host({ state: 'reconnecting', attempt: 2 }) }).map((h) => [h.name, h.state])).toEqual([
      ['devbox', 'reconnecting'],
      ['gpu', 'connected'],
    ]);
    expect(applyHostChange(list, { kind: 'updated', host: host({ name: 'cloud' }) }).map((h) => h.name)).toEqual(['devbox', 'gpu', 'cloud']);
    expect(applyHostChange(list, { kind: 'removed', host: host() }).map((h) => h.name)).toEqual(['gpu']);
  });

  it('says what a link is doing in a few words', () => {
    const now = 1_000_000;
    expect(hostStateWords(host(), now)).toBe('connected');
    expect(hostStateWords(host({ state: 'reconnecting', attempt: 3, nextTryAt: now + 3_500 }), now)).toBe('reconnecting (attempt 3, next try in 4 s)');
    expect(hostStateWords(host({ state: 'missing', missing: [{ what: 'tmux', install: 'sudo apt-get install tmux' }] }), now)).toBe('missing tmux');
    expect(hostStateWords(host({ state: 'failed', attempt: 1, nextTryAt: now + 1_000, message: 'Permission denied (publickey).' }), now)).toBe('failed (next try in 1 s): Permission denied (publickey).');
  });
});
