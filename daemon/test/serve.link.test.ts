// `corral url`'s link carries a one-time code, never a token: it opens one browser tab, once,
// within 60 s, and gives that tab a temporary credential no stronger than the token that asked.

import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LinkCodes } from '../auth/linkCodes';
import { serveRig, type Served } from './support/serveRig';

describe('one-time link codes', () => {
  it('open once, and not after 60 s', () => {
    let now = 1_000;
    const codes = new LinkCodes(() => now);
    const { code, expiresAt } = codes.issue(false);
    expect(expiresAt).toBe(61_000);
    expect(codes.redeem(code)).toEqual({ readOnly: false });
    expect(codes.redeem(code)).toBeNull();
    const late = codes.issue(true).code;
    now += 60_000;
    expect(codes.redeem(late)).toBeNull();
    expect(codes.redeem('never-issued')).toBeNull();
  });
});

describe('corral url, over a real corral serve', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveRig();
  });
  afterAll(async () => {
    await s.rig.cleanup();
  });

  it('prints a link with a one-time code and no token; the page trades it once for its own credential', async () => {
    const printed = s.cli(['url']);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(new RegExp(`^${s.url.replace(/[./]/g, '\\$&')}/#code=[\\w-]{24}\\n$`));
    expect(printed.stdout).not.toContain('crl_');
    expect(printed.stdout).not.toContain(s.token);
    const code = printed.stdout.trim().split('#code=')[1]!;

    const traded = await s.api('POST', '/api/auth/exchange', { token: null, body: { code } });
    expect(traded.status).toBe(200);
    expect(traded.body).toMatchObject({ token: expect.stringMatching(/^crl_/), readOnly: false });
    expect(traded.body.token).not.toBe(s.token);
    expect((await s.api('GET', '/api/sessions', { token: traded.body.token })).status).toBe(200);

    // What the browser's history keeps opens nothing.
    const again = await s.api('POST', '/api/auth/exchange', { token: null, body: { code } });
    expect(again.status).toBe(401);
    expect(again.body.error).toEqual({ code: 'unauthorized', message: 'that link was used already or has expired (a link opens once, within 60 s): run `corral url` for a new one', field: 'code' });

    // The tab's credential ends once unused for a day, a restart or not (see serve.tokens.test.ts).
    const db = new Database(path.join(s.rig.home, 'corral.db'), { readonly: true });
    try {
      expect(db.prepare("SELECT ephemeral, idle_ms FROM tokens WHERE name = 'a browser tab'").all()).toEqual([{ ephemeral: 0, idle_ms: 24 * 60 * 60 * 1000 }]);
    } finally {
      db.close();
    }
  });

  it('with a session (its id or name), the link also names it for the page to show; a name that names none makes no link', async () => {
    const id = (await s.api('POST', '/api/sessions', { body: { cli: 'faker', cwd: s.rig.home, name: 'linked' } })).body.id as string;
    for (const given of [id, 'linked']) {
      const printed = s.cli(['url', given]);
      expect(printed.code).toBe(0);
      expect(printed.stdout).toMatch(new RegExp(`/#code=[\\w-]{24}&session=${id}\\n$`));
    }
    const none = s.cli(['url', 'no-such-session']);
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('no-such-session');
  });

  it("a read-only token's link opens a read-only tab", async () => {
    const readOnly = s.cli(['token', 'create', 'viewer', '--read-only']).stdout.trim();
    const made = await s.api('POST', '/api/auth/code', { token: readOnly });
    expect(made.status).toBe(201);
    const traded = await s.api('POST', '/api/auth/exchange', { token: null, body: { code: made.body.code } });
    expect(traded.body.readOnly).toBe(true);
    expect((await s.api('POST', '/api/sessions/order', { token: traded.body.token, body: { ids: [] } })).status).toBe(403);
  });

  it('refuses a code it never made, and says which field', async () => {
    const res = await s.api('POST', '/api/auth/exchange', { token: null, body: { code: 'x'.repeat(24) } });
    expect(res.status).toBe(401);
    expect(res.body.error.field).toBe('code');
    const missing = await s.api('POST', '/api/auth/exchange', { token: null, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error.field).toBe('code');
  });
});
