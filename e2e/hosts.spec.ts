// Remote hosts in the sidebar at 1440x900: a real sshd on loopback with a second home behind it
// (daemon/test/support/remoteHost.ts), added from the "Add host…" dialog after its errors by
// field, shown connected beside this machine; and a host whose PATH has no tmux, shown missing
// it with the command that installs it.

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
