// Remote hosts in the sidebar at 1440x900: a real sshd on loopback with a second home behind it
// (daemon/test/support/remoteHost.ts), added from the "Add host…" dialog after its errors by
// field, shown connected beside this machine; and a host whose PATH has no tmux, shown missing
// it with the command that installs it. Then a remote session beside a local one, each in its
// host's group: typed into through the proxy, and its tab saying "reconnecting devbox" (typing
// refused with the daemon's words, its last screen kept under it) while the link is down, live
// again once it is back.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { startRemote, type RemoteHost } from '../daemon/test/support/remoteHost';
import { expect, test } from './corral';

test.use({ viewport: { width: 1440, height: 900 } });

// The daemon's ssh_config: this file, written once the test's sshd runs (ssh reads it at each run).
const SSH_CONFIG = path.join(os.tmpdir(), `corral-e2e-hosts-${process.pid}.ssh_config`);
test.use({ daemonEnv: { CORRAL_SSH_CONFIG: SSH_CONFIG } });

let devbox: RemoteHost;
let bare: RemoteHost;
let bareBin: string;

test.beforeAll(async () => {
  devbox = await startRemote({ alias: 'devbox' });
  bareBin = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-bare-bin-'));
  fs.symlinkSync(process.execPath, path.join(bareBin, 'node'));
  fs.symlinkSync('/bin/sh', path.join(bareBin, 'sh'));
  bare = await startRemote({ alias: 'bare', path: bareBin });
  fs.writeFileSync(SSH_CONFIG, `${fs.readFileSync(devbox.sshd.config, 'utf8')}\n${fs.readFileSync(bare.sshd.config, 'utf8')}`);
});
test.afterAll(async () => {
  await devbox?.cleanup();
  await bare?.cleanup();
  fs.rmSync(bareBin, { recursive: true, force: true });
  fs.rmSync(SSH_CONFIG, { force: true });
});

const hosts = (page: Page) => page.getByRole('region', { name: 'Hosts' });

test('a remote host added from the sidebar, connected beside this machine; one without tmux says what to install', async ({ page, corral, daemon }) => {
  test.setTimeout(120_000);
  await daemon.api('POST', '/api/sessions', { cli: 'faker', cwd: daemon.work, name: 'here' });
  await hosts(page).getByRole('button', { name: 'Add host…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add host' });
  await dialog.getByLabel('Name').fill('Dev Box');
  await dialog.getByLabel('ssh target').fill('devbox');
  await dialog.getByLabel('corral command there').fill(devbox.corral);
  await dialog.getByRole('button', { name: 'Add' }).click();
  await expect(dialog.locator('#host-name-error')).toContainText('a host name is 1 to 32 lowercase letters');
  await dialog.getByLabel('Name').fill('devbox');
  await dialog.getByRole('button', { name: 'Add' }).click();
  await expect(dialog).toBeHidden();
  const row = hosts(page).locator('[data-host="devbox"]');
  await expect(row).toHaveAttribute('data-state', 'connected', { timeout: 60_000 });
  await expect(hosts(page).locator('[data-host="local"]')).toContainText('this machine');

  // Its sessions are the remote daemon's, through this one's proxy.
  await daemon.api('POST', '/api/hosts/devbox/api/sessions', { cli: 'faker', cwd: devbox.world.root, name: 'far away' });
  expect((await daemon.api('GET', '/api/hosts/devbox/api/sessions')).sessions.map((s: { name: string }) => s.name)).toEqual(['far away']);
  await corral.screenshot('hosts-sidebar');

  await daemon.api('POST', '/api/hosts', { name: 'bare', target: 'bare', corral: bare.corral });
  const missing = hosts(page).locator('[data-host="bare"]');
  await expect(missing).toHaveAttribute('data-state', 'missing', { timeout: 60_000 });
  await expect(missing).toContainText('missing tmux');
  await expect(missing).toContainText('tmux is not installed on bare: sudo apt-get install tmux');
  await corral.screenshot('hosts-missing');
});

/** The pid of the ssh that holds a host's connection and tunnel (the master: its control socket's path is on its command line). */
function tunnelPid(home: string, name: string): number | null {
  const control = path.join(home, 'hosts', `${name}.ctl`);
  const lines = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
  const line = lines.find((l) => l.includes(`-M -S ${control} `));
  return line ? Number(line.trim().split(/\s+/)[0]) : null;
}

test('a remote session beside a local one, each in its host group; typed into, reconnecting while its link is down, live again after', async ({ page, corral, daemon }) => {
  test.setTimeout(180_000);
  await daemon.api('POST', '/api/sessions', { cli: 'faker', cwd: daemon.work, name: 'here' });
  await daemon.api('POST', '/api/hosts', { name: 'devbox', target: 'devbox', corral: devbox.corral });
  await daemon.api('POST', '/api/hosts', { name: 'bare', target: 'bare', corral: bare.corral });
  await expect(hosts(page).locator('[data-host="devbox"]')).toHaveAttribute('data-state', 'connected', { timeout: 60_000 });
  const made = await daemon.api('POST', '/api/hosts/devbox/api/sessions', { cli: 'faker', cwd: devbox.world.root, name: 'over there' });

  // Each machine its own group: this machine first, then the hosts by name, each with its link's state.
  const sidebar = page.getByRole('navigation', { name: 'Sessions by folder' });
  const machines = sidebar.locator('.side-host');
  await expect(machines.nth(0)).toHaveAttribute('data-host', 'local');
  await expect(machines.nth(1)).toHaveAttribute('data-host', 'bare');
  await expect(machines.nth(2)).toHaveAttribute('data-host', 'devbox');
  await expect(machines.nth(0).locator('.side-row[data-session]')).toHaveText(/here/);
  const remoteRow = machines.nth(2).locator(`.side-row[data-session="devbox/${made.id}"]`);
  await expect(remoteRow).toContainText('over there');
  await expect(machines.nth(0).locator(`[data-session="devbox/${made.id}"]`)).toHaveCount(0);
  await expect(machines.nth(1)).toHaveAttribute('data-state', 'missing', { timeout: 60_000 });
  await expect(machines.nth(1)).toContainText('bare is missing tmux');

  // Its tab is a live terminal through the host's client.
  await corral.tab('over there').click();
  await corral.type('from the page');
  await page.keyboard.press('Enter');
  await corral.expectTerminal('over there', 'echo: from the page');
  await corral.screenshot('hosts-two');
  await page.emulateMedia({ colorScheme: 'dark' });
  await corral.expectTerminal('over there', 'echo: from the page');
  await corral.screenshot('hosts-two-dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // A new session on the host, picked in the dialog: its agents and folders are the host's, and the host is remembered.
  await page.getByRole('button', { name: 'New session (Alt+N)' }).click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByLabel('Host', { exact: true }).selectOption('devbox');
  await dialog.getByRole('radio', { name: 'Faker' }).check();
  await dialog.getByLabel('Folder').fill(devbox.world.root);
  await dialog.getByLabel('Name').fill('made there');
  await dialog.getByRole('button', { name: 'Start' }).click();
  await expect(machines.nth(2).locator('.side-row', { hasText: 'made there' })).toHaveAttribute('data-session', /^devbox\//);
  expect((await daemon.api('GET', '/api/hosts/devbox/api/sessions')).sessions.map((x: { name: string }) => x.name)).toContain('made there');
  expect((await daemon.api('GET', '/api/sessions')).sessions.map((x: { name: string }) => x.name)).not.toContain('made there');
  await page.getByRole('button', { name: 'New session (Alt+N)' }).click();
  await expect(dialog.getByLabel('Host', { exact: true })).toHaveValue('devbox');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await corral.tab('over there').click();

  // The tab's stream tries again while the link is down (each try refused through the proxy).
  let tries = 0;
  page.on('websocket', (socket) => {
    if (socket.url().includes(`/api/hosts/devbox/api/sessions/${made.id}/stream`)) tries += 1;
  });

  // The link drops and ssh cannot reach the host meanwhile (its alias points at a closed port).
  const config = fs.readFileSync(SSH_CONFIG, 'utf8');
  fs.writeFileSync(SSH_CONFIG, config.replace(`Port ${devbox.sshd.port}`, 'Port 1'));
  const pid = tunnelPid(daemon.home, 'devbox');
  expect(pid).not.toBeNull();
  process.kill(pid!, 'SIGKILL');
  const down = page.locator('.host-down');
  await expect(down).toContainText('reconnecting devbox', { timeout: 30_000 });
  await expect(corral.tab('over there')).toContainText('reconnecting devbox');
  await expect(remoteRow).toContainText('reconnecting devbox');
  // Typing is refused with the daemon's words, not queued.
  await down.focus();
  await page.keyboard.type('x');
  await expect(page.locator('.error-bar')).toContainText('host devbox is reconnecting');
  await expect(page.locator('.error-bar')).toContainText('nothing was sent');
  // Under the overlay the terminal keeps its last screen through the tries, dimmed, not a blank one.
  await expect.poll(() => tries).toBeGreaterThanOrEqual(2);
  expect(await corral.terminalText('over there')).toContain('echo: from the page');
  await corral.screenshot('hosts-reconnecting');

  // Back: the tab is live again, from the current screen, and typing works.
  fs.writeFileSync(SSH_CONFIG, config);
  await expect(down).toBeHidden({ timeout: 90_000 });
  // What said the link was down goes with it.
  await expect(page.locator('.error-bar')).toHaveCount(0);
  await corral.expectTerminal('over there', 'echo: from the page');
  await corral.type('after the drop');
  await page.keyboard.press('Enter');
  await corral.expectTerminal('over there', 'echo: after the drop');
  expect(await corral.terminalText('over there')).not.toContain('echo: x');
});
