// The app follows a `corral serve` through restarts and takes the home over when it is gone.

import { describe, expect, it } from 'vitest';
import type { ClientApi } from '../../daemon/contract/contract';
import type { Endpoint } from '../../daemon/home/endpoint';
import { nextStep, ServeFollower, type Source } from '../connection';

const first: Endpoint = { url: 'http://127.0.0.1:4317', pid: 100, token: 'crl_a' };
const fake = (name: string) => ({ name }) as unknown as ClientApi;

function world(endpoints: (Endpoint | null)[], engine: (ClientApi | null)[]) {
  const used: { api: ClientApi; source: Source }[] = [];
  const clock = { now: 0 };
  const follower = new ServeFollower(
    { kind: 'serve', endpoint: first },
    {
      readEndpoint: () => (endpoints.length > 1 ? endpoints.shift()! : endpoints[0]!),
      openEngine: async () => (engine.length > 1 ? engine.shift()! : engine[0]!),
      connect: (endpoint) => fake(`serve ${endpoint.pid}`),
      use: (api, source) => used.push({ api, source }),
      now: () => clock.now,
      takeOverAfterMs: 10_000,
    },
  );
  return { follower, used, clock };
}

describe('the app and a corral serve', () => {
  it('decides from the endpoint file', () => {
    expect(nextStep({ kind: 'serve', endpoint: first }, first)).toBe('stay');
    expect(nextStep({ kind: 'serve', endpoint: first }, { ...first, token: 'crl_b', pid: 101 })).toBe('switch');
    expect(nextStep({ kind: 'serve', endpoint: first }, null)).toBe('take-over');
    expect(nextStep({ kind: 'engine' }, null)).toBe('stay');
    expect(nextStep({ kind: 'engine' }, first)).toBe('stay');
  });

  it('does not take the home while a serve restarts', async () => {
    const { follower, used, clock } = world([null, null, first], [fake('own engine')]);
    await follower.tick();
    clock.now = 1_000;
    await follower.tick();
    clock.now = 20_000;
    await follower.tick(); // back (same endpoint): the gone-clock starts over
    clock.now = 25_000;
    await follower.tick();
    expect(used).toEqual([]);
  });

  it('stays while the serve stays, and follows it through a restart', async () => {
    const restarted = { url: first.url, pid: 200, token: 'crl_b' };
    const { follower, used } = world([first, restarted], [null]);
    await follower.tick();
    expect(used).toEqual([]);
    await follower.tick();
    expect(used).toEqual([{ api: fake('serve 200'), source: { kind: 'serve', endpoint: restarted } }]);
    await follower.tick();
    expect(used).toHaveLength(1);
  });

  it('runs the engine itself once the serve has been gone a while, and waits while the home is held again', async () => {
    const own = fake('own engine');
    const { follower, used, clock } = world([null], [null, own]);
    await follower.tick(); // just gone: maybe a restart
    clock.now = 9_000;
    await follower.tick();
    expect(used).toEqual([]);
    clock.now = 10_000;
    await follower.tick(); // the home is held (a serve on its way up): nothing yet
    expect(used).toEqual([]);
    expect(follower.current.kind).toBe('serve');
    clock.now = 12_000;
    await follower.tick();
    expect(used).toEqual([{ api: own, source: { kind: 'engine' } }]);
    await follower.tick();
    expect(used).toHaveLength(1);
  });
});
