// How a browser tab gets in: a link's one-time code, traded for a credential of that tab only.
// What the browser's history and storage keep opens nothing; a link never replaces a tab's
// credential without asking.

import fs from 'node:fs';
import type { Page, WebSocketRoute } from '@playwright/test';
import { expect, test } from './corral';

const credentialOf = (page: Page) => page.evaluate(() => sessionStorage.getItem('corral.credential'));

test('a link opens one tab, once; what history and storage keep opens nothing', async ({ page, corral: _opened, daemon, context }) => {
  // The fixture opened the page with a fresh link.
  await expect(page.getByText('No sessions yet.')).toBeVisible();
  expect(page.url()).toBe(`${daemon.url}/`);
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  expect(stored).not.toContain('crl_');
  expect(await credentialOf(page)).toMatch(/^crl_/);
  expect(await credentialOf(page)).not.toBe(daemon.token);
  // A reload keeps the tab's credential.
  await page.reload();
  await expect(page.getByText('No sessions yet.')).toBeVisible();

  // The link as history keeps it: used, so it opens nothing.
  const link = await daemon.link();
  const first = await context.newPage();
  await first.goto(link);
  await expect(first.getByText('No sessions yet.')).toBeVisible();
  await first.close();
  const again = await context.newPage();
  await again.goto(link);
  await expect(again.getByRole('alert')).toHaveText('That link was used already or has expired: a link from `corral url` opens once, within 60 s.');
  await expect(again.getByLabel('Token')).toBeVisible();
  expect(again.url()).toBe(`${daemon.url}/`);

  // A closed tab leaves nothing another one could use.
  await page.close();
  await again.goto(daemon.url);
  await expect(again.getByLabel('Token')).toBeVisible();
  expect(await credentialOf(again)).toBeNull();
});

test('a token an older version kept in localStorage is removed, and opens nothing', async ({ page, daemon }) => {
  await page.goto(daemon.url);
  await page.evaluate((token) => localStorage.setItem('corral.token', token), daemon.token);
  await page.reload();
  await expect(page.getByLabel('Token')).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('corral.token'))).toBeNull();
});

test("a link with a token never silently replaces this tab's credential: it asks first", async ({ page, corral, daemon }) => {
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'mine' });
  await corral.expectTerminal('mine', 'FRESH START');
  const mine = await credentialOf(page);
  const agents = daemon.makeToken('printed-by-an-agent', { readOnly: true });

  await page.evaluate((token) => (location.hash = `#token=${token}`), agents);
  const question = page.getByRole('dialog', { name: /This link carries another credential/ });
  await expect(question).toBeVisible();
  expect(page.url()).toBe(`${daemon.url}/`);
  await question.getByRole('button', { name: "Keep this tab's" }).click();
  await expect(corral.tab('mine')).toBeVisible();
  expect(await credentialOf(page)).toBe(mine);

  await page.evaluate((token) => (location.hash = `#token=${token}`), agents);
  await question.getByRole('button', { name: "Use the link's" }).click();
  await expect(corral.tab('mine')).toBeVisible();
  const theirs = await credentialOf(page);
  expect(theirs).not.toBe(mine);
  expect(theirs).not.toBe(agents);
  // It is what the link's token was: read-only.
  const status = await page.evaluate(async (credential) => (await fetch('/api/sessions/order', { method: 'POST', headers: { Authorization: `Bearer ${credential}` }, body: '{"ids":[]}' })).status, theirs);
  expect(status).toBe(403);
  // And the tab says so: a badge, and no control that would only be refused; a reload keeps it.
  for (const reloaded of [false, true]) {
    if (reloaded) await page.reload();
    await expect(page.locator('.read-only-badge')).toHaveText('read-only');
    await expect(page.getByRole('button', { name: /^New session/ })).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Start a new session' })).toBeDisabled();
  }
  await corral.tab('mine').click();
  await page.keyboard.press('Alt+n');
  await expect(page.getByRole('dialog', { name: 'New session' })).toHaveCount(0);
  await expect(page.locator('.error-bar')).toContainText('This tab only reads');
});

test('a tab whose credential is refused offers the token form', async ({ page, corral: _opened, daemon }) => {
  await expect(page.getByText('No sessions yet.')).toBeVisible();
  await page.evaluate(() => sessionStorage.setItem('corral.credential', 'crl_revokedrevokedrevokedrevokedrev'));
  await page.reload();
  await expect(page.getByRole('alert')).toHaveText("This tab's credential is no longer valid (revoked, or unused for a day): open a new link from `corral url`, or enter a token.");
  await page.getByLabel('Token').fill(daemon.token);
  await page.getByRole('button', { name: 'Connect' }).click();
  await expect(page.getByText('No sessions yet.')).toBeVisible();
  expect(await credentialOf(page)).not.toBe(daemon.token);
});

/** What the `agent` fakes read, in order, as one string. */
const reads = (log: string) => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as string).join('') : '');

test('a lost link to the daemon is said at once, nothing typed meanwhile reaches an agent, and it goes when the link is back', async ({ page, corral, daemon }) => {
  // The events socket can be cut as a network would, with the daemon and the terminal's own stream left alone.
  let cut = false;
  const open = new Set<WebSocketRoute>();
  await page.routeWebSocket(/\/api\/events$/, (ws) => {
    if (cut) return ws.close();
    open.add(ws);
    ws.connectToServer();
  });
  await page.route(/\/api\/clis$/, (route) => (cut ? route.abort('internetdisconnected') : route.continue()));
  await daemon.api('POST', '/api/sessions', { cli: 'agent', cwd: daemon.work, name: 'kept' });
  await page.reload();
  await corral.expectTerminal('kept', 'FRESH START');
  await corral.type('before\r');
  await expect.poll(() => reads(daemon.inputLog)).toContain('before');

  cut = true;
  for (const ws of open) await ws.close();
  open.clear();
  const down = page.getByRole('alert');
  await expect(down).toContainText('Corral stopped answering at');
  await expect(down).toContainText('nothing typed reaches an agent until it is back');
  // The terminal's own stream still runs: only the page's refusal keeps these keys from the agent.
  await corral.type('meanwhile\r');
  await corral.screenshot('link-down');

  cut = false;
  await expect(down).toHaveCount(0);
  await corral.type('after\r');
  await expect.poll(() => reads(daemon.inputLog)).toContain('after');
  expect(reads(daemon.inputLog)).not.toContain('meanwhile');
});

test('a daemon restarted is said while it is gone, and the tab carries on with its own credential once it is back; revoked, it offers the token form', async ({ page, corral, daemon }) => {
  await daemon.api('POST', '/api/sessions', { cli: 'faker', cwd: daemon.work, name: 'runs-on' });
  await expect(corral.tab('runs-on')).toBeVisible();
  const credential = await credentialOf(page);
  await daemon.halt();
  await expect(page.getByRole('alert')).toContainText('Corral stopped answering at');
  await expect(corral.tab('runs-on')).toBeVisible();
  await daemon.resume();
  // A tab's credential outlives a restart (an upgrade, say): no link, no token asked for.
  await expect(page.getByRole('alert')).toHaveCount(0);
  await corral.expectTerminal('runs-on', 'FRESH START');
  expect(await credentialOf(page)).toBe(credential);
  await page.reload();
  await expect(corral.tab('runs-on')).toBeVisible();
  // It is listed as a token, and revoked as one: then the tab offers the token form.
  const listed = daemon.cli(['token', 'list']).split('\n').filter((line) => line.includes('  a browser tab  '));
  expect(listed).toHaveLength(1);
  daemon.cli(['token', 'revoke', listed[0]!.split(' ')[0]!]);
  await page.reload();
  await expect(page.getByRole('alert')).toHaveText("This tab's credential is no longer valid (revoked, or unused for a day): open a new link from `corral url`, or enter a token.");
});

test('the page loads without a refused request, its icon included', async ({ page, corral: _opened }) => {
  // The tab has its credential (the link's code traded) before it is loaded again.
  await expect(page.getByText('No sessions yet.')).toBeVisible();
  const refused: string[] = [];
  page.on('response', (response) => response.status() >= 400 && refused.push(`${response.status()} ${response.url()}`));
  await page.reload();
  await expect(page.getByText('No sessions yet.')).toBeVisible();
  const icon = await page.evaluate(() => document.querySelector<HTMLLinkElement>('link[rel="icon"]')?.href ?? '');
  expect((await page.request.get(icon)).headers()['content-type']).toBe('image/png');
  expect(refused).toEqual([]);
});

test("a session's link in a browser is this page's address naming it: it shows that session, in this tab or in a new one once that has its credential; a bad or gone one says so", async ({ page, corral, daemon, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  for (const name of ['first', 'second']) await daemon.api('POST', '/api/sessions', { cli: 'faker', cwd: daemon.work, name });
  await page.reload();
  await corral.expectTerminal('first', 'FRESH START');
  const second = await corral.sessionId('second');
  await corral.tab('second').click();
  await corral.menu('second', 'Copy link');
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(link).toBe(`${daemon.url}/#session=${second}`);
  await corral.tab('first').click();
  await expect(corral.tab('first')).toHaveAttribute('aria-selected', 'true');

  // In this tab: shown, and the fragment leaves the address.
  await page.evaluate((to) => (location.href = to), link);
  await expect(corral.tab('second')).toHaveAttribute('aria-selected', 'true');
  await corral.expectTerminal('second', 'FRESH START');
  expect(page.url()).toBe(`${daemon.url}/`);

  // A new tab: with a link of `corral url`, its credential first, then the session.
  const fresh = await context.newPage();
  await fresh.goto(`${await daemon.link()}&session=${second}`);
  await expect(fresh.locator(`#tab-${second}`)).toHaveAttribute('aria-selected', 'true');
  expect(fresh.url()).toBe(`${daemon.url}/`);
  await fresh.close();

  // Not a session's id: said, and nothing else changes.
  await page.evaluate(() => (location.hash = '#session=../../etc/passwd'));
  await expect(page.getByRole('alert')).toContainText('That link cannot open a session: the link does not name a session');
  await expect(corral.tab('second')).toHaveAttribute('aria-selected', 'true');
  // A session that is not here (removed): said.
  const gone = '00000000-0000-4000-8000-000000000000';
  await page.evaluate((id) => (location.hash = `#session=${id}`), gone);
  await expect(page.getByRole('alert')).toContainText(`That link's session (${gone}) is not here`);
  await expect(corral.tab('second')).toHaveAttribute('aria-selected', 'true');
});
