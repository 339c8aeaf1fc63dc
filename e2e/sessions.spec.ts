/// <reference lib="dom" />
// The renderer in a real browser against a real `corral serve`: what a person does all day.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tmuxPanes } from '../daemon/test/support/tmux';
import type { Locator, Page, WebSocketRoute } from '@playwright/test';
import { CorralPage, expect, test } from './corral';

test('create a session and see its output, then type and see the echo', async ({ corral, daemon }) => {
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'first' });
  await expect(corral.tab('first')).toHaveAttribute('aria-selected', 'true');
  await expect(corral.tab('first')).toContainText(/working|idle/);
  await corral.expectTerminal('first', /FRESH START [0-9a-f-]{36}/);
  // Nothing above it: the terminal had its size before the session drew into it.
  expect(await corral.terminalText('first')).toMatch(/^FRESH START/);
  await corral.type('hello from the browser\n');
  await corral.expectTerminal('first', 'echo: hello from the browser');
  await corral.screenshot('live-terminal');
});

test('underscores are drawn at the default font size', async ({ page, corral, daemon }) => {
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'underlined' });
  await corral.expectTerminal('underlined', 'FRESH START');
  await corral.type('my__long__name\n');
  await corral.expectTerminal('underlined', 'echo: my__long__name');
  const id = await corral.sessionId('underlined');
  // The cells of the echo's first "__", as the screen lays them out.
  const clip = await page.evaluate((sid) => {
    const screen = document.querySelector(`.terminal-host[data-session="${sid}"] .xterm-screen`)!.getBoundingClientRect();
    const { cols, rows } = (window as any).corralTerminals.size(sid);
    const width = screen.width / cols;
    const height = screen.height / rows;
    const { x, y } = (window as any).corralTerminals.cellOf(sid, 'echo: my__long__name');
    const col = Math.round((x - screen.left) / width - 0.5) + 'echo: my'.length;
    const row = Math.round((y - screen.top) / height - 0.5);
    return { x: screen.left + col * width, y: screen.top + row * height, width: 2 * width, height };
  }, id);
  const png = (await page.screenshot({ clip })).toString('base64');
  // Pixels unlike the cells' top-left corner (the background): an underscore's stroke, if drawn.
  const inked = await page.evaluate(async (data) => {
    const image = new Image();
    image.src = `data:image/png;base64,${data}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext('2d')!;
    context.drawImage(image, 0, 0);
    const pixels = context.getImageData(0, 0, image.width, image.height).data;
    let count = 0;
    for (let i = 0; i < pixels.length; i += 4) if (Math.max(...[0, 1, 2].map((c) => Math.abs(pixels[i + c]! - pixels[c]!))) > 60) count++;
    return count;
  }, png);
  expect(inked, 'pixels of the underscores drawn').toBeGreaterThanOrEqual(clip.width * 0.8);
});

test("a resize reaches the agent's stty size", async ({ page, corral, daemon }) => {
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'sized' });
  await corral.expectTerminal('sized', 'FRESH START');
  const id = await corral.sessionId('sized');
  const sizeNow = () => page.evaluate((sid) => (window as any).corralTerminals.size(sid) as { cols: number; rows: number }, id);
  const before = await sizeNow();
  await page.setViewportSize({ width: 900, height: 600 });
  // The terminal fitted to the smaller window (its size as it was before is no answer).
  await expect.poll(async () => (await sizeNow()).cols).toBeLessThan(before.cols);
  await expect.poll(async () => (await sizeNow()).rows).toBeLessThan(before.rows);
  const size = await sizeNow();
  await expect.poll(() => tmuxPanes(daemon.socket, '#{pane_height} #{pane_width}')).toEqual([`${size.rows} ${size.cols}`]);
  // tmux applies a pane's new size to its terminal in its next loop, a moment after it reports
  // it: the agent is asked until it says so.
  await expect
    .poll(async () => {
      await corral.type('size\n');
      return corral.terminalText('sized');
    })
    .toContain(`size: ${size.rows} ${size.cols}`);
});

test('stop, then resume: the resume form is used and the conversation comes back', async ({ page, corral, daemon }) => {
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'keeper' });
  await corral.expectTerminal('keeper', 'FRESH START');
  await corral.type('colors\nmany\nremember this\n');
  await corral.expectTerminal('keeper', 'echo: remember this');
  const id = await corral.sessionId('keeper');

  await corral.menu('keeper', 'Stop');
  await expect(corral.tab('keeper')).toContainText('stopped');
  await expect(page.getByTestId('why-stopped')).toContainText(/^stopped by you at \d\d:\d\d$/);
  await expect(page.getByTestId('receipt-output')).toContainText('echo: remember this');
  // It opens at its end, where the last line is, not at its top.
  const output = page.getByTestId('receipt-output');
  expect(await output.evaluate((e) => e.scrollHeight > e.clientHeight)).toBe(true);
  await expect.poll(() => output.evaluate((e) => e.scrollHeight - e.scrollTop - e.clientHeight)).toBeLessThan(2);
  // With its colours: the terminal's red for the theme, as the live terminal showed it.
  const red = (await page.evaluate(() => document.documentElement.dataset.theme)) === 'dark' ? 'rgb(248, 113, 113)' : 'rgb(185, 28, 28)';
  await expect(output.locator('span', { hasText: /^ colour 31 $/ })).toHaveCSS('color', red);
  await corral.screenshot('stopped-session');

  await page.getByRole('button', { name: 'Resume conversation' }).click();
  await corral.expectTerminal('keeper', `RESUMED ${id}`);
  expect(daemon.launches()).toEqual([`faker fresh ${id}`, `faker resume ${id}`]);
});

test('a dead key shows the banner and a live clean session, with no second click', async ({ page, corral, daemon }) => {
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'untouched' });
  await corral.expectTerminal('untouched', 'FRESH START');
  const id = await corral.sessionId('untouched');
  // Never typed in: there is no conversation behind its key.
  await page.keyboard.press('Control+Shift+S');
  await expect(corral.tab('untouched')).toContainText('stopped');
  await page.getByRole('button', { name: 'Resume conversation' }).click();

  const banner = page.getByTestId('resume-banner');
  // Only the key's first characters: the key itself never leaves the daemon.
  await expect(banner).toContainText(`the conversation ${id.slice(0, 8)}… of “untouched” could not be resumed (exited with code 1 at once, with nothing typed), so the session started clean`);
  await expect(banner).not.toContainText(id);
  await expect(corral.tab('untouched')).toContainText(/starting|working|idle/);
  await expect.poll(() => corral.terminalText('untouched')).toMatch(/FRESH START (?![\s\S]*No conversation)[0-9a-f-]{36}/);
  const clean = daemon.launches()[2]!;
  expect(clean).toMatch(/^faker fresh /);
  expect(clean).not.toContain(id);
  await corral.screenshot('dead-key-banner');
  await banner.getByRole('button', { name: 'Dismiss this notice' }).click();
  await expect(banner).toHaveCount(0);
});

test.describe(() => {
  test.use({ refuseAfter: '1.5' });

  test('a session stopped during the resume grace window stays stopped', async ({ page, corral, daemon }) => {
    await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'halted' });
    await corral.expectTerminal('halted', 'FRESH START');
    await page.keyboard.press('Control+Shift+S');
    await expect(corral.tab('halted')).toContainText('stopped');
    await page.getByRole('button', { name: 'Resume conversation' }).click();
    await expect(corral.tab('halted')).toContainText('resuming');
    await expect.poll(() => daemon.launches().length).toBe(2);
    await page.keyboard.press('Control+Shift+S');
    await expect(corral.tab('halted')).toContainText('stopped');
    await page.waitForTimeout(7_000);
    await expect(corral.tab('halted')).toContainText('stopped');
    expect(daemon.launches()).toHaveLength(2);
  });
});

test('a reload brings every tab back with its screen, when it is shown', async ({ page, corral, daemon }) => {
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'one' });
  await corral.expectTerminal('one', 'FRESH START');
  await corral.type('first tab\n');
  await corral.expectTerminal('one', 'echo: first tab');
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'two' });
  await corral.expectTerminal('two', 'FRESH START');
  await corral.type('second tab\n');
  await corral.expectTerminal('two', 'echo: second tab');

  await page.reload();
  await expect(corral.tab('one')).toBeVisible();
  await expect(corral.tab('two')).toBeVisible();
  // The tab shown before the reload is shown again.
  await expect(corral.tab('two')).toHaveAttribute('aria-selected', 'true');
  await corral.expectTerminal('two', 'echo: second tab');
  // Switching is by keyboard too, and each tab keeps its own terminal.
  await page.keyboard.press('Control+1');
  await expect(corral.tab('one')).toHaveAttribute('aria-selected', 'true');
  await corral.expectTerminal('one', 'echo: first tab');
  await page.keyboard.press('Control+2');
  await expect(corral.tab('two')).toHaveAttribute('aria-selected', 'true');
  await corral.expectTerminal('two', 'echo: second tab');
  await page.reload();
  await expect(corral.tab('two')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Control+1');
  await expect(corral.tab('one')).toHaveAttribute('aria-selected', 'true');
  await corral.expectTerminal('one', 'echo: first tab');
  await corral.screenshot('two-tabs');
});

test('what a tab printed while another was shown is on its screen when it is shown again', async ({ page, corral, daemon }) => {
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'behind' });
  await corral.expectTerminal('behind', 'FRESH START');
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'front' });
  await corral.expectTerminal('front', 'FRESH START');
  // The hidden tab keeps its terminal and stream (the last shown are live) but holds its output.
  const id = await corral.sessionId('behind');
  await daemon.api('POST', `/api/sessions/${id}/input`, { text: 'while hidden\r' });
  await expect.poll(async () => (await daemon.api('GET', `/api/sessions/${id}/screen?lines=10`)).text).toContain('echo: while hidden');
  await page.keyboard.press('Control+1');
  await expect(corral.tab('behind')).toHaveAttribute('aria-selected', 'true');
  await corral.expectTerminal('behind', 'echo: while hidden');
  await corral.type('shown again\n');
  await corral.expectTerminal('behind', 'echo: shown again');
});

test('a CLI that is not installed is disabled in the dialog, and a bad folder is named before submit', async ({ page, corral, daemon }) => {
  await page.getByRole('button', { name: 'New session (Alt+N)' }).click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await expect(dialog.getByRole('radio', { name: 'Ghost Agent' })).toBeDisabled();
  await expect(dialog).toContainText('Ghost Agent — not found on PATH');
  await expect(dialog.getByRole('radio', { name: 'Faker' })).toBeEnabled();
  await dialog.getByLabel('Folder').fill('/no/such/folder');
  await dialog.getByRole('button', { name: 'Start' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('the folder /no/such/folder does not exist');
  await corral.screenshot('new-session-dialog');
  expect(await daemon.api('GET', '/api/sessions')).toEqual({ sessions: [] });
  // The Start pressed was disabled while it worked: the focus stayed in the dialog, and Escape closes it.
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});

test('the folder field offers the folders inside the folder typed so far, listed by the daemon', async ({ page, corral, daemon }) => {
  fs.mkdirSync(path.join(daemon.work, 'picked-project'), { recursive: true });
  fs.mkdirSync(path.join(daemon.work, 'other'), { recursive: true });
  await page.getByRole('button', { name: 'New session (Alt+N)' }).click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByLabel('Folder').fill(`${daemon.work}/pi`);
  const offered = dialog.locator('#folder-suggestions option');
  await expect(offered).toHaveCount(1);
  await expect(offered).toHaveAttribute('value', path.join(daemon.work, 'picked-project'));
  await dialog.getByLabel('Folder').fill(`${daemon.work}/`);
  await expect(offered.first()).toHaveAttribute('value', path.join(daemon.work, 'other'));
  await corral.screenshot('new-session-folder-picker');
});

test('a first prompt from the dialog is typed into the agent once it is ready', async ({ page, corral, daemon }) => {
  await page.getByRole('button', { name: 'New session (Alt+N)' }).click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByRole('radio', { name: 'Faker' }).check();
  await dialog.getByLabel('Folder').fill(daemon.work);
  await dialog.getByLabel('Name').fill('prompted');
  await dialog.getByLabel('First prompt').fill('summarise the README');
  await corral.screenshot('new-session-first-prompt');
  await dialog.getByLabel('First prompt').press('Control+Enter');
  await expect(dialog).toBeHidden();
  await corral.expectTerminal('prompted', 'echo: summarise the README');
  const [session] = (await daemon.api('GET', '/api/sessions')).sessions;
  expect(session.promptWaiting).toBe(false);
});

test('settings: a theme chosen over the system, and the terminal font size, applied at once and kept', async ({ page, corral, daemon }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'styled' });
  await corral.expectTerminal('styled', 'FRESH START');
  const viewport = page.locator('.terminal-pane .terminal-host:not([inert]) .xterm-scrollable-element');
  await expect(viewport).toHaveCSS('background-color', 'rgb(22, 24, 29)');
  await corral.palette('settings');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('radio', { name: 'Light' }).check();
  await dialog.getByLabel('Terminal font size').fill('19');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect(viewport).toHaveCSS('background-color', 'rgb(251, 251, 252)');
  await expect(page.locator('body')).toHaveCSS('background-color', 'rgb(251, 251, 252)');
  await expect(page.locator('.terminal-pane .terminal-host:not([inert]) .xterm-rows')).toHaveCSS('font-size', '19px');
  await corral.screenshot('settings');
  await dialog.getByRole('button', { name: 'Done' }).click();
  await page.reload();
  await corral.tab('styled').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect(page.locator('.terminal-pane .terminal-host:not([inert]) .xterm-scrollable-element')).toHaveCSS('background-color', 'rgb(251, 251, 252)');
  await expect(page.locator('.terminal-pane .terminal-host:not([inert]) .xterm-rows')).toHaveCSS('font-size', '19px');
});

test('Ctrl+T puts the cursor in the folder field, and the agent picked last is picked again', async ({ page, corral, daemon }) => {
  await page.locator('body').click();
  await page.keyboard.press('Control+t');
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await expect(dialog.getByLabel('Folder')).toBeFocused();
  await expect(dialog.getByRole('radio', { name: 'Asker' })).not.toBeChecked();
  await page.keyboard.press('Escape');
  await corral.newSession({ cli: 'Asker', cwd: daemon.work, name: 'asked' });
  await expect(corral.tab('asked')).toHaveAttribute('aria-selected', 'true');
  await page.getByRole('button', { name: 'New session (Alt+N)' }).click();
  await expect(dialog.getByRole('radio', { name: 'Asker' })).toBeChecked();
  // Its folder is the shown session's, not the one a session was made or started in last.
  await page.keyboard.press('Escape');
  const elsewhere = path.join(daemon.work, 'elsewhere');
  fs.mkdirSync(elsewhere);
  await daemon.api('POST', '/api/sessions', { cli: 'faker', cwd: elsewhere, name: 'elsewhere' });
  await corral.tab('asked').click();
  await expect(corral.tab('elsewhere')).toBeVisible();
  await page.getByRole('button', { name: 'New session (Alt+N)' }).click();
  await expect(dialog.getByLabel('Folder')).toHaveValue(daemon.work);
});

test("in a browser's tab the keys offered are ones a browser leaves to the page, and a menu closed by Escape gives the keyboard back", async ({ page, corral, daemon }) => {
  for (const name of ['first', 'second']) await daemon.api('POST', '/api/sessions', { cli: 'faker', cwd: daemon.work, name });
  await page.reload();
  await expect(corral.tab('first')).toHaveAttribute('aria-selected', 'true');
  await page.locator('body').click();
  await page.keyboard.press('Alt+n');
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await expect(dialog.getByLabel('Folder')).toBeFocused();
  await page.keyboard.press('Escape');
  await page.keyboard.press('Alt+PageDown');
  await expect(corral.tab('second')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Alt+PageUp');
  await expect(corral.tab('first')).toHaveAttribute('aria-selected', 'true');
  // Tabs name no Ctrl+digit, the menu no Ctrl+Shift+W (a browser closes its window on it).
  expect(await corral.tab('first').getAttribute('title')).not.toContain('Ctrl+');
  await corral.tab('second').focus();
  await page.keyboard.press('Shift+F10');
  const menu = page.getByRole('menu', { name: 'Actions for second' });
  await expect(menu).toBeVisible();
  await expect(menu.locator('.menu-title')).toHaveText('second');
  await expect(menu.getByRole('menuitem', { name: /^Remove…/ })).not.toContainText('Ctrl+Shift+W');
  await expect(menu.getByRole('menuitem', { name: /^Stop/ })).toContainText('Ctrl+Shift+S');
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  await expect(corral.tab('second')).toBeFocused();
  // The strip is one stop for Tab (the shown tab); arrows, Home and End move in it, Enter shows.
  await expect(corral.tab('first')).toHaveAttribute('tabindex', '0');
  await expect(corral.tab('second')).toHaveAttribute('tabindex', '-1');
  await corral.tab('first').focus();
  await page.keyboard.press('ArrowRight');
  await expect(corral.tab('second')).toBeFocused();
  await expect(corral.tab('first')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Home');
  await expect(corral.tab('first')).toBeFocused();
  await page.keyboard.press('End');
  await expect(corral.tab('second')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(corral.tab('second')).toHaveAttribute('aria-selected', 'true');
  await expect(corral.tab('second')).toHaveAttribute('tabindex', '0');
});

test('a wrong token is refused with a clear message, not a blank page', async ({ page, daemon }) => {
  const corral = new CorralPage(page, daemon);
  await page.goto(daemon.url);
  await page.getByLabel('Token').fill('crl_wrongwrongwrongwrongwrongwrongwr');
  await page.getByRole('button', { name: 'Connect' }).click();
  await expect(page.getByRole('alert')).toHaveText('That token was refused: it is wrong or was revoked.');
  await corral.screenshot('token-refused');
  await page.getByLabel('Token').fill(daemon.token);
  await page.getByRole('button', { name: 'Connect' }).click();
  await expect(page.getByText('No sessions yet.')).toBeVisible();
});

/**
 * With the mouse held down, moves it over `fraction` of the target's width until the target shows
 * `mark`: Chromium passes on a drag's moves at its own pace (a drop before it has seen the move
 * over the target lands nowhere), so the pointer is nudged until the mark is drawn.
 */
async function dragOver(page: Page, target: Locator, fraction: number, mark: RegExp): Promise<void> {
  const box = (await target.boundingBox())!;
  let nudge = 0;
  await expect
    .poll(async () => {
      await page.mouse.move(box.x + box.width * fraction + (nudge++ % 2), box.y + box.height / 2);
      return target.getAttribute('class');
    })
    .toMatch(mark);
}

test('tabs reorder by drag, in every open page, and the order is kept', async ({ page, corral, daemon }) => {
  for (const name of ['alpha', 'beta']) {
    await corral.newSession({ cli: 'Faker', cwd: daemon.work, name });
    await corral.expectTerminal(name, 'FRESH START');
  }
  // Another page open on the same daemon sees the new order as it is made.
  const other = await page.context().newPage();
  await other.goto(await daemon.link());
  await expect(other.getByRole('tab')).toHaveText([/alpha/, /beta/]);
  // The drag is made in the first page: in front again (the second opened over it), or Chromium
  // may never start a drag there.
  await page.bringToFront();
  await corral.tab('beta').hover();
  await page.mouse.down();
  await dragOver(page, corral.tab('alpha'), 0.3, /drop-before/);
  await page.mouse.up();
  await expect(page.getByRole('tab')).toHaveText([/beta/, /alpha/]);
  await expect(other.getByRole('tab')).toHaveText([/beta/, /alpha/]);
  await other.close();
  await page.reload();
  await expect(page.getByRole('tab')).toHaveText([/beta/, /alpha/]);
});

test("a tab's handles: a right click opens its own session's menu, a double click renames it, a drag shows where it lands, × archives it", async ({ page, corral, daemon }) => {
  for (const name of ['alpha', 'beta', 'gamma']) await daemon.api('POST', '/api/sessions', { cli: 'faker', cwd: daemon.work, name });
  await page.reload();
  await corral.tab('alpha').click();
  await corral.expectTerminal('alpha', 'FRESH START');

  // The menu of the tab right-clicked, not of the one shown.
  await corral.tab('beta').click({ button: 'right' });
  const menu = page.getByRole('menu', { name: 'Actions for beta' });
  await expect(menu).toBeVisible();
  await corral.screenshot('tab-menu');
  await menu.getByRole('menuitem', { name: /^Stop/ }).click();
  await expect(corral.tab('beta')).toContainText('stopped');
  await expect(corral.tab('alpha')).toHaveAttribute('aria-selected', 'true');
  await expect(corral.tab('alpha')).toContainText(/working|idle/);

  // Renamed in place: Enter keeps the new name, Escape the old one.
  await corral.tab('gamma').dblclick();
  const field = page.getByRole('tablist').getByRole('textbox', { name: 'New name for gamma' });
  await field.fill('gamma-two');
  await field.press('Enter');
  await expect(corral.tab('gamma-two')).toBeVisible();
  await corral.tab('alpha').dblclick();
  await page.getByRole('tablist').getByRole('textbox', { name: 'New name for alpha' }).fill('not this');
  await page.keyboard.press('Escape');
  await expect(corral.tab('alpha')).toBeVisible();
  expect((await daemon.api('GET', '/api/sessions')).sessions.map((s: { name: string }) => s.name)).toEqual(['alpha', 'beta', 'gamma-two']);

  // Dragged over the right half of a tab, a mark shows it lands after that tab; dropped, it does.
  const target = corral.tab('beta');
  await corral.tab('alpha').hover();
  await page.mouse.down();
  await dragOver(page, target, 0.3, /drop-before/);
  await dragOver(page, target, 0.7, /drop-after/);
  await expect(page.locator('.tab.drop-before, .tab.drop-after')).toHaveCount(1);
  await corral.screenshot('tab-drop-mark');
  // The drop lands where the last drag move was seen: one more, after the screenshot's pause.
  await dragOver(page, target, 0.7, /drop-after/);
  await page.mouse.up();
  await expect(page.getByRole('tab')).toHaveText([/beta/, /alpha/, /gamma-two/]);
  await expect(page.locator('.tab.drop-before, .tab.drop-after')).toHaveCount(0);
  await expect.poll(async () => (await daemon.api('GET', '/api/sessions')).sessions.map((s: { name: string }) => s.name)).toEqual(['beta', 'alpha', 'gamma-two']);

  // × archives that tab's session, not the one shown.
  // (A tab's children are presentational to assistive technology: its menu has Archive too.)
  await corral.tab('beta').hover();
  await corral.tab('beta').locator('.tab-close').click();
  await expect(page.getByRole('tab')).toHaveText([/alpha/, /gamma-two/]);
  await expect(corral.tab('alpha')).toHaveAttribute('aria-selected', 'true');
  expect((await daemon.api('GET', '/api/sessions')).sessions.find((s: { name: string }) => s.name === 'beta').archivedAt).not.toBeNull();
});

test('the sixteen ANSI colours and dim text can be read in the dark theme and the light one', async ({ page, corral, daemon }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'colours' });
  await corral.expectTerminal('colours', 'FRESH START');
  await corral.type('colors\n');
  await corral.expectTerminal('colours', 'colour 97');
  await corral.screenshot('ansi-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  // The page takes the scheme and its terminals with it, in the same change.
  await expect.poll(() => page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(251, 251, 252)');
  // Its terminal connected again with the light colours: tmux paints the pane's background with them.
  await expect.poll(() => tmuxPanes(daemon.socket, '#{session_name} #{window-style}').join('\n')).toContain('bg=#fbfbfc');
  await corral.expectTerminal('colours', 'colour 97');
  await corral.screenshot('ansi-light');
});

test("opening search, which loads the whole history, leaves the terminal's lines as they were (no copies of the screen)", async ({ page, corral, daemon }) => {
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'short' });
  await corral.expectTerminal('short', 'FRESH START');
  await corral.type('you said one\n');
  await corral.expectTerminal('short', 'echo: you said one');
  await page.keyboard.press('Control+f');
  const search = page.getByRole('search');
  await search.getByLabel('Search the terminal').pressSequentially('you said');
  // The line typed and its echo.
  await expect(search.getByRole('status')).toHaveText(/^\d+ of 2$/);
  await search.getByLabel('Search the terminal').press('Escape');
  // Behind whatever the search's new connection drew, on the same stream.
  await corral.type('after search\n');
  await corral.expectTerminal('short', 'echo: after search');
  const lines = (await corral.terminalText('short')).split('\n');
  expect(lines.filter((line) => line.startsWith('FRESH START'))).toHaveLength(1);
  expect(lines.filter((line) => line === 'echo: you said one')).toHaveLength(1);
});

// On the pty backend the viewer's history holds every line of a burst (through tmux, a burst can
// skip it: docs/known-issues.md), so every match is there to count.
test.describe('on the pty backend', () => {
  test.use({ backend: 'pty' });
  test('search finds as it is typed, counts the matches and highlights them all', async ({ page, corral, daemon }) => {
    await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'searched' });
    await corral.expectTerminal('searched', 'FRESH START');
    await corral.type('many\n');
    await corral.expectTerminal('searched', 'line 60');
    await page.keyboard.press('Control+f');
    const search = page.getByRole('search');
    await search.getByLabel('Search the terminal').pressSequentially('line 5');
    // "line 5" and "line 50" to "line 59", found with no Enter: the newest first ("line 59").
    await expect(search.getByRole('status')).toHaveText('11 of 11');
    await expect(page.locator('.xterm-find-result-decoration')).not.toHaveCount(0);
    // Enter goes to an older one, Shift+Enter back.
    await search.getByLabel('Search the terminal').press('Enter');
    await expect(search.getByRole('status')).toHaveText('10 of 11');
    await search.getByLabel('Search the terminal').press('Shift+Enter');
    await expect(search.getByRole('status')).toHaveText('11 of 11');
    // Closed and opened again: the same search, counted and highlighted, from the newest match.
    await search.getByLabel('Search the terminal').press('Escape');
    await expect(search).toBeHidden();
    await expect(page.locator('.xterm-find-result-decoration')).toHaveCount(0);
    await page.keyboard.press('Control+f');
    await expect(search.getByLabel('Search the terminal')).toHaveValue('line 5');
    await expect(search.getByRole('status')).toHaveText('11 of 11');
    await expect(page.locator('.xterm-find-result-decoration')).not.toHaveCount(0);
    await search.getByLabel('Search the terminal').fill('no such words');
    await expect(search.getByRole('status')).toHaveText('no match');
    await search.getByLabel('Search the terminal').press('Escape');
    await expect(search).toBeHidden();
  });

  test('a search typed while the history is still coming keeps to the newest match as the rest comes, until the person moves from it', async ({ page, corral, daemon }) => {
    await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'searched' });
    await corral.expectTerminal('searched', 'FRESH START');
    await corral.type('many\n');
    await corral.expectTerminal('searched', 'line 60');
    // The search bar asks for the whole history (a stream with no `history=`): what the daemon
    // sends on it is held here, and let through in two parts, the second from "line 41" on, as a
    // slow link or a busy page may take it.
    const held: { to: WebSocketRoute; message: string | Buffer }[] = [];
    let holding = true;
    await page.routeWebSocket(/\/api\/sessions\/[^/]+\/stream\?(?!.*history=)/, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((message) => server.send(message));
      server.onMessage((message) => (holding ? held.push({ to: ws, message }) : ws.send(message)));
    });
    // (The page takes its WebSocket as it loads: routed from the next load on.)
    await page.reload();
    await corral.expectTerminal('searched', 'line 60');
    const id = await corral.sessionId('searched');
    const written = () => page.evaluate((sid) => (window as any).corralTerminals.written(sid) as number, id);
    await page.keyboard.press('Control+f');
    const search = page.getByRole('search');
    const field = search.getByLabel('Search the terminal');
    const cut = () => held.findIndex(({ message }) => typeof message !== 'string' && message.includes('line 41'));
    await expect.poll(cut).toBeGreaterThanOrEqual(0);
    const [{ to, message }] = held.splice(cut(), 1) as [{ to: WebSocketRoute; message: Buffer }];
    const at = message.indexOf('line 41');
    for (const before of held.splice(0)) before.to.send(before.message);
    const start = await written();
    to.send(message.subarray(0, at));
    await expect.poll(written).toBeGreaterThan(start);
    // So far "line 4" and "line 40".
    await field.pressSequentially('line 4');
    await expect(search.getByRole('status')).toHaveText('2 of 2');
    holding = false;
    to.send(message.subarray(at));
    for (const rest of held.splice(0)) rest.to.send(rest.message);
    await expect(search.getByRole('status')).toHaveText('11 of 11');
    // Moved from it, the match stays where the person put it as more comes.
    await field.press('Enter');
    await expect(search.getByRole('status')).toHaveText('10 of 11');
    await daemon.api('POST', `/api/sessions/${id}/input`, { text: 'line 4 again\r' });
    await expect(search.getByRole('status')).toHaveText(/^10 of 1[23]$/);
  });

  test("the search bar lies over the terminal, which keeps its size; its match is drawn in the active match's colour and never copied; another tab closes it, and it opens again with the last query", async ({ page, corral, daemon, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'other' });
    await corral.expectTerminal('other', 'FRESH START');
    await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'searched' });
    await corral.expectTerminal('searched', 'FRESH START');
    await corral.type('many\n');
    await corral.expectTerminal('searched', 'line 60');
    const id = await corral.sessionId('searched');
    const size = () => page.evaluate((sid) => (window as any).corralTerminals.size(sid) as { cols: number; rows: number }, id);
    const before = await size();
    await page.evaluate(() => navigator.clipboard.writeText('the person copied this'));

    await page.keyboard.press('Control+f');
    const search = page.getByRole('search');
    const field = search.getByLabel('Search the terminal');
    await field.pressSequentially('line 4');
    await expect(search.getByRole('status')).toHaveText('11 of 11');
    expect(await size()).toEqual(before);
    // The match, the terminal's selection, in the active match's colour (the bar has the focus).
    await expect(page.locator('.terminal-host:not([inert]) .xterm-selection div').first()).toHaveCSS('background-color', 'rgb(245, 158, 11)');
    await field.press('Enter');
    await expect(search.getByRole('status')).toHaveText('10 of 11');
    await corral.screenshot('search');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('the person copied this');

    // Another tab: the search closes, its decorations with it.
    await corral.tab('other').click();
    await expect(search).toBeHidden();
    await corral.tab('searched').click();
    await expect(page.locator('.xterm-find-result-decoration')).toHaveCount(0);
    // Opened again: the last query, selected, found at once (the newest match, counted and
    // highlighted); Enter goes on to an older one.
    await page.keyboard.press('Control+f');
    await expect(field).toHaveValue('line 4');
    expect(await field.evaluate((input: HTMLInputElement) => [input.selectionStart, input.selectionEnd])).toEqual([0, 6]);
    await expect(search.getByRole('status')).toHaveText('11 of 11');
    await expect(page.locator('.xterm-find-result-decoration')).not.toHaveCount(0);
    await field.press('Enter');
    await expect(search.getByRole('status')).toHaveText('10 of 11');
    await field.press('Escape');
    await expect(search).toBeHidden();
    expect(await size()).toEqual(before);
  });

  test('a flood of many flow-control windows reaches the screen whole, and typing echoes after it', async ({ page, corral, daemon }) => {
    // A page slower than the agent for longer than the daemon holds the agent for it (a loaded
    // machine) is caught up from the agent's screen: its stream then carries a terminal reset.
    let caughtUp = false;
    page.on('websocket', (ws) => {
      if (ws.url().includes('/stream')) ws.on('framereceived', ({ payload }) => (caughtUp ||= typeof payload !== 'string' && payload.includes('\x1bc')));
    });
    await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'flooded' });
    await corral.expectTerminal('flooded', 'FRESH START');
    // 2.5 MB, seven flow-control windows (HIGH_WATER): the page acknowledges what it parsed, or the
    // daemon stops sending.
    await corral.type('flood\n');
    await expect.poll(() => corral.terminalText('flooded'), { timeout: 50_000 }).toMatch(/flood line 040000 the quick brown fox jumps over the lazy dog$/);
    const floodLines = async () => (await corral.terminalText('flooded')).split('\n').filter((line) => line.startsWith('flood line '));
    const id = await corral.sessionId('flooded');
    if (caughtUp) {
      // What the page holds after a catch-up is the agent's last lines, in order, none doubled…
      const numbers = (await floodLines()).map((line) => Number(line.slice(11, 17)));
      expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => 40_001 - numbers.length + i));
      // …and scrolled to the top, the whole history comes.
      await expect
        .poll(async () => {
          for (let i = 0; i < 10; i++) await page.keyboard.press('Shift+PageUp');
          return (await floodLines()).length;
        }, { timeout: 30_000 })
        .toBeGreaterThanOrEqual(5_000);
    } else {
      expect(await page.evaluate((sid) => (window as any).corralTerminals.written(sid), id)).toBeGreaterThan(2_000_000);
    }
    // The history holds its last lines in order, none lost or doubled.
    const numbers = (await floodLines()).slice(-5_000).map((line) => Number(line.slice(11, 17)));
    expect(numbers).toEqual(Array.from({ length: 5_000 }, (_, i) => 35_001 + i));
    await corral.type('after the flood\n');
    await corral.expectTerminal('flooded', 'echo: after the flood');
  });
});

test('the session shown removed elsewhere: its neighbour is shown, but takes no typing until it is picked', async ({ page, corral, daemon }) => {
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'neighbour' });
  await corral.expectTerminal('neighbour', 'FRESH START');
  await corral.newSession({ cli: 'Faker', cwd: daemon.work, name: 'doomed' });
  await corral.expectTerminal('doomed', 'FRESH START');
  await corral.type('typed before\n');
  await corral.expectTerminal('doomed', 'echo: typed before');
  // Removed by someone else (another window, `corral rm`) while the person types into it.
  await daemon.api('DELETE', `/api/sessions/${await corral.sessionId('doomed')}?force=1`);
  await expect(corral.tab('neighbour')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('status').filter({ hasText: 'was removed' })).toContainText('doomed was removed — neighbour is shown, and takes no typing until you click in it or pick it');
  // The keyboard, lost with its terminal, is on the bar that says so: typing there reaches no one.
  await expect(page.getByRole('status').filter({ hasText: 'was removed' })).toBeFocused();
  // It looks unfocused too: its cursor an outline.
  const cursor = page.locator(`.terminal-host[data-session="${await corral.sessionId('neighbour')}"] .xterm-cursor`);
  await expect(cursor).toHaveClass(/xterm-cursor-outline/);
  await page.keyboard.type('meant for doomed\n');
  await corral.type('picked\n');
  await corral.expectTerminal('neighbour', 'echo: picked');
  expect(await corral.terminalText('neighbour')).not.toContain('meant for doomed');
  await expect(page.getByRole('status').filter({ hasText: 'was removed' })).toHaveCount(0);
});

test.describe('an agent that draws nothing for a while', () => {
  const silentUntil = path.join(os.tmpdir(), `corral-e2e-silent-${process.pid}`);
  test.use({ daemonEnv: { FAKE_SILENT_UNTIL: silentUntil } });
  test.afterEach(() => fs.rmSync(silentUntil, { force: true }));

  test('its tab says it is starting and has drawn nothing yet, until it draws', async ({ page, corral, daemon }) => {
    await daemon.api('POST', '/api/sessions', { cli: 'agent', cwd: daemon.work, name: 'slow to draw' });
    await corral.tab('slow to draw').click();
    const note = page.locator('.nothing-drawn');
    await expect(note).toHaveText('Starting: Agent has drawn nothing yet.');
    fs.writeFileSync(silentUntil, '');
    await corral.expectTerminal('slow to draw', 'FRESH START');
    await expect(note).toHaveCount(0);
  });
});

test("a tab's name keeps its width (up to 24 characters): the agent's label, the branch and the time give theirs up first", async ({ page, corral, daemon }) => {
  await daemon.api('POST', '/api/sessions', { cli: 'faker', cwd: daemon.work, name: 'reconciliation-job-42' });
  await page.reload();
  await corral.expectTerminal('reconciliation-job-42', 'FRESH START');
  const name = corral.tab('reconciliation-job-42').locator('.tab-name');
  await expect(name).toHaveText('reconciliation-job-42');
  // Drawn whole: not cut with an ellipsis.
  expect(await name.evaluate((element) => element.scrollWidth - element.clientWidth)).toBe(0);
});

test("the new-session dialog offers the recent sessions' folders under its filled-in field, one click each", async ({ page, corral, daemon }) => {
  const other = path.join(daemon.work, 'other-project');
  fs.mkdirSync(other);
  await daemon.api('POST', '/api/sessions', { cli: 'faker', cwd: other, name: 'elsewhere' });
  await daemon.api('POST', '/api/sessions', { cli: 'faker', cwd: daemon.work, name: 'here' });
  await page.reload();
  await corral.tab('here').click();
  await corral.expectTerminal('here', 'FRESH START');
  await page.getByRole('button', { name: /^New session/ }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  // The field holds the shown session's folder; the other one is offered, by its name.
  await expect(dialog.getByLabel('Folder')).toHaveValue(daemon.work);
  const recent = dialog.getByRole('group', { name: 'Recently used' });
  await expect(recent.getByRole('button')).toHaveText(['other-project']);
  await expect(recent.getByRole('button', { name: 'other-project' })).toHaveAttribute('title', other);
  await recent.getByRole('button', { name: 'other-project' }).click();
  await expect(dialog.getByLabel('Folder')).toHaveValue(other);
  await expect(recent.getByRole('button')).toHaveText(['my-project']);
});

test('a press on a tab is its click even when the strip would move under it: the shown tab is kept in view only while nothing is pressed', async ({ page, corral, daemon }) => {
  const names = Array.from({ length: 9 }, (_, i) => `overflowing-strip-${i + 1}`);
  const ids: string[] = [];
  for (const name of names) ids.push((await daemon.api('POST', '/api/sessions', { cli: 'faker', cwd: daemon.work, name })).id);
  await page.reload();
  const strip = page.getByRole('tablist', { name: 'Sessions' });
  // More tabs than the strip holds; the last shown, so the first are out of view.
  await corral.tab(names[8]!).click();
  await corral.expectTerminal(names[8]!, 'FRESH START');
  expect(await strip.evaluate((element) => element.scrollWidth > element.clientWidth + 100)).toBe(true);
  // Scrolled to the start (not by hand: the strip still keeps the shown tab), the first pressed...
  await strip.evaluate((element) => (element.scrollLeft = 0));
  const first = corral.tab(names[0]!);
  const box = (await first.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  // ...while a tab changes width (renamed), which has the strip look at the shown tab again...
  await daemon.api('PATCH', `/api/sessions/${ids[1]}`, { name: 'a-much-longer-name-now' });
  await expect(corral.tab('a-much-longer-name-now')).toBeVisible();
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  // ...and released where it was pressed: the first tab is shown.
  await page.mouse.up();
  await expect(first).toHaveAttribute('aria-selected', 'true');
  await expect(first).toBeInViewport();
});
