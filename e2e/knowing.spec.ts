/// <reference lib="dom" />
// Knowing what each agent does, in a real browser against a real `corral serve`: the needs-you
// badge and Ctrl+J, a printed path opening its preview (and a credential refused), archive and
// restore, and the command palette.

import fs from 'node:fs';
import path from 'node:path';
import { CorralPage, expect, test } from './corral';

test('a session that waits for you is badged, Ctrl+J jumps to it, and the filter shows only it', async ({ page, corral, daemon }) => {
  await corral.newSession({ cli: 'Asker', cwd: daemon.work, name: 'asks' });
  await corral.expectTerminal('asks', 'FRESH START');
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'quiet' });
  await corral.expectTerminal('quiet', 'FRESH START');
  const filter = page.getByRole('button', { name: /^Needs you · / });
  await expect(filter).toHaveText('Needs you · 0');

  // The agent in the other tab asks; nobody is looking at it.
  await daemon.api('POST', `/api/sessions/${await corral.sessionId('asks')}/input`, { text: 'ask\r' });
  await expect(corral.tab('asks')).toContainText('needs you');
  await expect(filter).toHaveText('Needs you · 1');
  await expect(page).toHaveTitle('(1) Corral');
  await expect(corral.tab('quiet')).toHaveAttribute('aria-selected', 'true');
  await corral.screenshot('needs-you');

  await page.keyboard.press('Control+j');
  await expect(corral.tab('asks')).toHaveAttribute('aria-selected', 'true');

  await filter.click();
  await expect(filter).toHaveAttribute('aria-pressed', 'true');
  await expect(corral.tab('quiet')).toHaveCount(0);
  await expect(corral.tab('asks')).toBeVisible();
  await filter.click();
  await expect(corral.tab('quiet')).toBeVisible();

  // Answering clears it.
  await corral.type('answer\n');
  await corral.expectTerminal('asks', 'answered');
  await expect(filter).toHaveText('Needs you · 0');
  await expect(page).toHaveTitle('Corral');
  await expect(corral.tab('asks')).not.toContainText('needs you');
});

test('a background session that needs you raises a browser notification, once allowed', async ({ page, daemon }) => {
  // The real Notification API, watched: headless Chromium shows nothing one could look at.
  await page.addInitScript(() => {
    const Real = window.Notification;
    const seen: { title: string; body?: string }[] = [];
    (window as any).seenNotifications = seen;
    class Watched extends Real {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        seen.push({ title, body: options?.body });
      }
    }
    Object.defineProperty(Watched, 'permission', { get: () => Real.permission });
    window.Notification = Watched as typeof Notification;
  });
  const corral = new CorralPage(page, daemon);
  await corral.open();
  await corral.newSession({ cli: 'Asker', cwd: daemon.work, name: 'asks' });
  await corral.expectTerminal('asks', 'FRESH START');
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'quiet' });
  await corral.expectTerminal('quiet', 'FRESH START');

  // Not allowed yet: the palette offers it (a click there is what a browser wants for asking).
  await corral.palette('notifications');
  await expect(page.getByRole('option', { name: /^Turn on notifications/ })).toBeVisible();
  await page.keyboard.press('Escape');
  await page.context().grantPermissions(['notifications'], { origin: daemon.url });

  await daemon.api('POST', `/api/sessions/${await corral.sessionId('asks')}/input`, { text: 'ask\r' });
  await expect(corral.tab('asks')).toContainText('needs you');
  await expect.poll(() => page.evaluate(() => (window as any).seenNotifications)).toEqual([{ title: 'asks needs you', body: 'Do you want to proceed?' }]);
});

test('a printed path opens its preview at its line, saves an edit, and a credential file is refused', async ({ page, corral, daemon }) => {
  fs.mkdirSync(path.join(daemon.work, 'docs'));
  fs.writeFileSync(path.join(daemon.work, 'docs', 'plan.md'), 'first line\nsecond line\nthird line\n');
  fs.writeFileSync(path.join(daemon.work, '.env'), 'API_KEY=do-not-show-me\n');
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'files' });
  await corral.expectTerminal('files', 'FRESH START');

  await corral.type('docs/plan.md:2\n');
  await corral.expectTerminal('files', 'echo: docs/plan.md:2');
  await corral.clickTerminalText('files', 'docs/plan.md:2');
  const preview = page.getByRole('complementary', { name: 'Preview of docs/plan.md' });
  await expect(preview).toBeVisible();
  await expect(preview.locator('[aria-current="location"]')).toContainText('second line');
  await corral.screenshot('preview');

  await preview.getByRole('button', { name: 'Edit' }).click();
  await preview.getByRole('textbox', { name: 'Text of docs/plan.md' }).fill('first line\nsecond line, edited\n');
  await preview.getByRole('button', { name: 'Save' }).click();
  await expect(preview.getByRole('status')).toHaveText('Saved 31 bytes.');
  expect(fs.readFileSync(path.join(daemon.work, 'docs', 'plan.md'), 'utf8')).toBe('first line\nsecond line, edited\n');

  await corral.type('.env\n');
  await corral.expectTerminal('files', 'echo: .env');
  await corral.clickTerminalText('files', 'echo: .env', { link: false });
  await page.mouse.move(0, 0);
  const refused = page.getByRole('complementary', { name: 'Preview of .env' });
  // The click lands on "echo:", not the path: nothing opens.
  await expect(refused).toHaveCount(0);
  await corral.clickTerminalText('files', '.env');
  await expect(refused.getByRole('alert')).toHaveText(/Not shown: this looks like a credential file/);
  await expect(refused).not.toContainText('do-not-show-me');
  await corral.screenshot('preview-refused');

  // A path too long for one row wraps onto the next, and is still one link.
  const long = `${'a-rather-long-folder-name-'.repeat(7)}end`;
  fs.mkdirSync(path.join(daemon.work, long));
  fs.writeFileSync(path.join(daemon.work, long, 'wrapped.md'), 'found across rows\n');
  await corral.type(`${long}/wrapped.md\n`);
  await corral.expectTerminal('files', 'echo: a-rather-long');
  const size = await page.evaluate((sid) => (window as any).corralTerminals.size(sid), await corral.sessionId('files'));
  expect(`echo: ${long}/wrapped.md`.length).toBeGreaterThan(size.cols);
  await corral.clickTerminalText('files', 'wrapped.md');
  await expect(page.getByRole('complementary', { name: `Preview of ${long}/wrapped.md` })).toContainText('found across rows');
});

test('a printed folder lists its files, which open in turn, and an image shows as an image', async ({ page, corral, daemon }) => {
  fs.mkdirSync(path.join(daemon.work, 'assets'));
  fs.writeFileSync(path.join(daemon.work, 'assets', 'readme.txt'), 'the assets\n');
  // A 1×1 PNG.
  fs.writeFileSync(
    path.join(daemon.work, 'assets', 'dot.png'),
    Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108020000009077' + '53de0000000c49444154789c636060000000040001f61738550000000049454e44ae426082', 'hex'),
  );
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'browse' });
  await corral.expectTerminal('browse', 'FRESH START');
  await corral.type('./assets/\n');
  await corral.expectTerminal('browse', 'echo: ./assets/');
  await corral.clickTerminalText('browse', './assets/');
  const folder = page.getByRole('complementary', { name: 'Preview of assets' });
  const listing = folder.getByRole('list', { name: 'Folder contents' });
  await expect(listing.getByRole('button')).toHaveText(['..', 'dot.png', 'readme.txt']);
  await listing.getByRole('button', { name: 'dot.png' }).click();
  const image = page.getByRole('complementary', { name: 'Preview of assets/dot.png' }).getByRole('img');
  await expect(image).toHaveAttribute('src', /^data:image\/png;base64,/);
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
  await page.getByRole('button', { name: 'Close the preview' }).click();
  await expect(page.getByRole('complementary')).toHaveCount(0);
});

test('archive takes a session out of the tab strip with its conversation, and the palette brings it back running, in one step', async ({ page, corral, daemon }) => {
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'keeper' });
  await corral.expectTerminal('keeper', 'FRESH START');
  await corral.type('remember me\n');
  await corral.expectTerminal('keeper', 'echo: remember me');
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'other' });
  await corral.expectTerminal('other', 'FRESH START');
  await corral.tab('keeper').click();

  await corral.menu('keeper', 'Archive');
  await page.getByRole('alertdialog').getByRole('button', { name: 'Stop and archive' }).click();
  await expect(corral.tab('keeper')).toHaveCount(0);
  await expect(corral.tab('other')).toHaveAttribute('aria-selected', 'true');
  const id = (await daemon.api('GET', '/api/sessions')).sessions.find((s: any) => s.name === 'keeper').id;
  expect((await daemon.api('GET', `/api/sessions/${id}`)).archivedAt).toEqual(expect.any(Number));

  await corral.palette('keeper');
  await expect(page.getByRole('option', { name: /^Restore keeper/ })).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(corral.tab('keeper')).toHaveAttribute('aria-selected', 'true');
  // No "stopped to be archived" page and no second click: it resumes its conversation.
  await corral.expectTerminal('keeper', `RESUMED ${id}`);
  await expect(page.getByRole('button', { name: 'Resume conversation' })).toHaveCount(0);
  expect(daemon.launches().at(-1)).toBe(`faker resume ${id}`);
});

test('the palette finds a session by its folder and runs an action on it', async ({ page, corral, daemon }) => {
  const elsewhere = path.join(daemon.work, 'billing-service');
  fs.mkdirSync(elsewhere);
  await corral.newSession({ cli: 'Faker', cwd: elsewhere, name: 'alpha' });
  await corral.expectTerminal('alpha', 'FRESH START');
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'beta' });
  await corral.expectTerminal('beta', 'FRESH START');

  await corral.palette('billing');
  await expect(page.getByRole('option')).toHaveCount(1);
  await corral.screenshot('palette');
  await page.keyboard.press('Enter');
  await expect(corral.tab('alpha')).toHaveAttribute('aria-selected', 'true');

  await corral.palette('stop alp');
  await expect(page.getByRole('option', { name: /^Stop alpha/ })).toHaveAttribute('aria-selected', 'true');
  // What matched is marked in the title.
  await expect(page.getByRole('option', { name: /^Stop alpha/ }).locator('mark')).toHaveText(['Stop', 'alp']);
  await page.keyboard.press('Enter');
  await expect(corral.tab('alpha')).toContainText('stopped');
  await expect(corral.tab('beta')).toContainText(/working|idle/);

  await page.keyboard.press('Control+k');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: 'Command palette' })).toHaveCount(0);
});

test('the palette opened and Enter at once goes to another session: never an action, wherever the pointer rests; a pointer moved over a match highlights it', async ({ page, corral, daemon }) => {
  for (const name of ['one', 'two', 'three']) await daemon.api('POST', '/api/sessions', { cli: 'faker', cwd: daemon.work, name });
  await page.reload();
  await corral.expectTerminal('one', 'FRESH START');
  // Where "Stop one" is when the palette is open: the pointer rests there as it opens again.
  await page.keyboard.press('Control+k');
  const options = page.getByRole('option');
  await expect(options.first()).toHaveAccessibleName(/^Go to one/);
  const stop = (await page.getByRole('option', { name: /^Stop one/ }).boundingBox())!;
  await page.keyboard.press('Escape');
  await page.mouse.move(stop.x + stop.width / 2, stop.y + stop.height / 2);
  await page.keyboard.press('Control+k');
  await expect(page.getByRole('option', { name: /^Go to two/ })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(corral.tab('two')).toHaveAttribute('aria-selected', 'true');
  await expect(corral.tab('one')).not.toContainText('stopped');
  // The pointer moved onto a match: that one is highlighted.
  await page.keyboard.press('Control+k');
  await page.getByRole('option', { name: /^Settings/ }).hover();
  await expect(page.getByRole('option', { name: /^Settings/ })).toHaveAttribute('aria-selected', 'true');
  // A match's keys stand on its title's line, whether or not it has a detail under it.
  for (const title of [/^Stop two/, /^Rename two/]) {
    const option = page.getByRole('option', { name: title });
    const [titleBox, keysBox] = [await option.locator('.palette-title').boundingBox(), await option.locator('.palette-keys').boundingBox()];
    expect(Math.abs(titleBox!.y + titleBox!.height / 2 - (keysBox!.y + keysBox!.height / 2))).toBeLessThan(4);
  }
  await corral.screenshot('palette-open');
  await page.keyboard.press('Escape');
});

test.describe('on the pty backend (tmux 3.3 drops OSC 8 hyperlinks; 3.4 passes them)', () => {
  test.use({ backend: 'pty' });

  test("an agent's OSC 8 hyperlink opens like a printed URL: http(s) only, in a window of its own", async ({ page, corral, daemon, context }) => {
    await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'links' });
    await corral.expectTerminal('links', 'FRESH START');
    await corral.type('links\n');
    await corral.expectTerminal('links', 'a web link and a script link');
    // No network here: the link's page is answered by the test.
    await context.route('https://example.com/**', (route) => route.fulfill({ contentType: 'text/html', body: '<p>the linked page</p>' }));
    const opened: string[] = [];
    context.on('page', (opening) => void opening.waitForLoadState().then(() => opened.push(opening.url())));
    const popup = page.waitForEvent('popup');
    await corral.clickTerminalText('links', 'a web link');
    const linked = await popup;
    await linked.waitForLoadState();
    expect(linked.url()).toBe('https://example.com/osc8');
    // Opened without a way back to the page that holds the credential.
    expect(await linked.evaluate(() => window.opener)).toBeNull();
    await corral.clickTerminalText('links', 'a script link', { link: false });
    await page.mouse.move(0, 0);
    // The script link opened nothing: the only window is the web link's.
    await expect.poll(() => opened).toEqual(['https://example.com/osc8']);
    expect(context.pages()).toHaveLength(2);
  });

  test("an agent's bidi controls never reorder what its terminal shows", async ({ page, corral, daemon }) => {
    await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'spoof' });
    await corral.expectTerminal('spoof', 'FRESH START');
    await corral.type('bidi\n');
    // The agent printed `run "<RLO>hs.fdp<PDF>" now`: drawn in the order written, not as "pdf.sh".
    await corral.expectTerminal('spoof', 'run "hs.fdp" now');
    const rows = page.locator('.terminal-host:not([inert]) .xterm-rows');
    await expect(rows).toContainText('run "hs.fdp" now');
    expect(await rows.evaluate((el) => /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(el.textContent ?? ''))).toBe(false);
  });
});
