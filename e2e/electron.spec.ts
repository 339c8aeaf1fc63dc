/// <reference lib="dom" />
// The desktop app end to end: runs where Electron's binary is present (after `npm start` has
// fetched it), and says plainly that it skipped where it is not.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { _electron as electron, expect, test, type Page } from '@playwright/test';
import { daemonEnv } from '../daemon/test/support/serve';
import { makeWorld } from '../daemon/test/support/world';
import { startDaemon } from './corral';

const require = createRequire(import.meta.url);
/** Electron's binary if it was installed; asking `require('electron')` would try to download it. */
function electronBinary(): string | null {
  const dir = path.dirname(require.resolve('electron/package.json'));
  try {
    const binary = path.join(dir, 'dist', fs.readFileSync(path.join(dir, 'path.txt'), 'utf8').trim());
    return fs.existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}
const binary = electronBinary();
if (!binary) console.log("electron e2e: skipped — Electron's binary is not on this machine (npm start downloads it on a connected one)");

test.skip(!binary, "Electron's binary is not on this machine");

test('the desktop app creates a session, shows its output, and opens a corral:// link to it', async () => {
  const world = makeWorld('electron', { programs: ['hello-agent'], clis: ['hello'] });
  const app = await electron.launch({ executablePath: binary!, args: ['.', '--no-sandbox'], env: daemonEnv(world) as Record<string, string> });
  try {
    const page = await app.firstWindow();
    await newSession(page, 'Hello', world.root, 'desk');
    const tab = page.getByRole('tab', { name: /^desk,/ });
    const id = (await tab.getAttribute('data-session'))!;
    await expect.poll(() => page.evaluate((sid) => (window as any).corralTerminals.text(sid), id)).toContain('HELLO FROM THE AGENT');
    await page.getByRole('button', { name: 'Actions for desk' }).click();
    await page.getByRole('menuitem', { name: /^Stop/ }).click();
    await expect(tab).toContainText('stopped');
    // The link focuses the tab and starts the session again.
    await app.evaluate(({ app: electronApp }, link) => electronApp.emit('open-url', { preventDefault() {} }, link), `corral://session/${id}`);
    await expect(tab).toContainText(/working|idle|starting/);
    // While the app holds the home it offers the same local API as `corral serve`.
    expect(JSON.parse(fs.readFileSync(path.join(world.home, 'endpoint.json'), 'utf8')).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  } finally {
    await app.close();
    world.cleanup();
  }
});

test('with a corral serve holding the home, the app works through its API', async () => {
  const daemon = await startDaemon();
  const app = await electron.launch({ executablePath: binary!, args: ['.', '--no-sandbox'], env: { ...process.env, CORRAL_HOME: daemon.home } });
  try {
    const page = await app.firstWindow();
    await newSession(page, 'Faker', daemon.work, 'through-serve');
    const tab = page.getByRole('tab', { name: /^through-serve,/ });
    const id = (await tab.getAttribute('data-session'))!;
    await expect.poll(() => page.evaluate((sid) => (window as any).corralTerminals.text(sid), id)).toContain('FRESH START');
    expect((await daemon.api('GET', `/api/sessions/${id}`)).name).toBe('through-serve');
  } finally {
    await app.close();
    await daemon.stop();
  }
});

async function newSession(page: Page, cli: string, folder: string, name: string): Promise<void> {
  await page.getByRole('button', { name: 'New session (Ctrl+T)' }).click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByRole('radio', { name: cli }).check();
  await dialog.getByLabel('Folder').fill(folder);
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByRole('button', { name: 'Start' }).click();
}
