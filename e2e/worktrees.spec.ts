/// <reference lib="dom" />
// A session in a worktree of its own, at 1440×900: made from the dialog, its changes listed and
// diffed, a comment on its lines typed into the agent, and its branch merged into the folder's.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { GIT_ENV, expect, test } from './corral';

test.use({ viewport: { width: 1440, height: 900 } });

const shot = (name: string) => path.join(import.meta.dirname, 'screenshots', `${name}.png`);
const changes = (page: Page) => page.getByRole('complementary', { name: /^Changes of / });

/** A repository of these files in `folder`, on main with one commit; its git, to run more. */
function repository(folder: string, files: Record<string, string>): (...args: string[]) => string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: folder, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    fs.writeFileSync(path.join(folder, file), text);
  }
  git('init', '--quiet', '--initial-branch=main');
  git('add', '.');
  git('commit', '--quiet', '-m', 'first');
  return git;
}

test('an agent in its own worktree: its changes reviewed, commented on and merged', async ({ page, corral, daemon }) => {
  const git = repository(daemon.work, { 'README.md': 'hello\n', 'src/app.js': 'one\ntwo\nthree\n' });

  // The dialog: a folder that is no repository is refused under the folder field.
  await page.getByRole('button', { name: 'New session (Alt+N)' }).click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByRole('radio', { name: 'Editor' }).check();
  await dialog.getByLabel('Folder').fill(path.dirname(daemon.work));
  await dialog.getByLabel('Name').fill('reviewer');
  await dialog.getByRole('checkbox', { name: 'Own worktree' }).check();
  await expect(dialog.getByLabel('Branch')).toHaveAttribute('placeholder', 'corral/reviewer');
  await dialog.getByRole('button', { name: 'Start' }).click();
  await expect(dialog.locator('#cwd-error')).toContainText('is not in a git repository');
  await dialog.getByLabel('Folder').fill(daemon.work);
  await dialog.getByLabel('Base').fill('no-such-branch');
  await dialog.getByRole('button', { name: 'Start' }).click();
  await expect(dialog.locator('#base-error')).toContainText('there is no branch or commit "no-such-branch"');
  await page.screenshot({ path: shot('worktrees-new-session') });
  await dialog.getByLabel('Base').fill('');
  await dialog.getByRole('button', { name: 'Start' }).click();
  await expect(dialog).toHaveCount(0);
  await corral.expectTerminal('reviewer', 'EDITED');
  // Its tab and row name its branch; the row counts its changed files once the worktree is looked at.
  await expect(corral.tab('reviewer')).toContainText('corral/reviewer');
  const row = page.getByRole('navigation', { name: 'Sessions by folder' }).getByRole('treeitem', { name: /^reviewer,/ });
  await expect(row.locator('.side-worktree')).toContainText('corral/reviewer');
  await expect(row.locator('.side-worktree')).toContainText('4 files', { timeout: 15_000 });

  // The changes, from the session's menu: the files with their counts, and a file's diff.
  await corral.menu('reviewer', 'Review changes');
  const view = changes(page);
  const files = view.getByRole('list', { name: 'Changed files' });
  await expect(files.getByRole('button')).toHaveText([/D\s*README\.md\s*\+0 −1/, /U\s*added\.txt\s*\+1 −0/, /U\s*logo\.bin\s*binary/, /M\s*src\/app\.js\s*\+1 −1/]);
  await files.getByRole('button', { name: /logo\.bin/ }).click();
  await expect(view.getByRole('region', { name: 'Diff of logo.bin' })).toContainText('A binary file: its changes are not shown as lines.');
  await files.getByRole('button', { name: /src\/app\.js/ }).click();
  const diff = view.getByRole('region', { name: 'Diff of src/app.js' });
  await expect(diff.locator('.diff-code-delete')).toHaveText('two');
  await expect(diff.locator('.diff-code-insert')).toHaveText('TWO');
  await page.getByRole('button', { name: 'Unified' }).click();
  await page.screenshot({ path: shot('worktrees-changes-unified') });
  await page.getByRole('button', { name: 'Side by side' }).click();
  await expect(diff.locator('.diff-split')).toHaveCount(1);
  await page.screenshot({ path: shot('worktrees-changes-split') });
  // The layout is remembered.
  await page.reload();
  await corral.menu('reviewer', 'Review changes');
  await expect(changes(page).locator('.diff-split')).toHaveCount(1);
  await page.getByRole('button', { name: 'Unified' }).click();

  // Lines 2-3 of the file as it is now: a click on a line number, a shift-click on another.
  await changes(page).getByRole('list', { name: 'Changed files' }).getByRole('button', { name: /src\/app\.js/ }).click();
  await changes(page).locator('td.diff-gutter-insert').last().click();
  await changes(page).locator('td.diff-gutter-normal').last().click({ modifiers: ['Shift'] });
  await page.getByLabel('Comment on src/app.js lines 2-3').fill('keep this lower case');
  await page.getByRole('button', { name: 'Add comment' }).click();
  await expect(changes(page).getByRole('region', { name: 'Comments to send' })).toContainText('src/app.js lines 2-3: keep this lower case');
  await page.getByRole('button', { name: 'Send 1 to the agent' }).click();
  await expect(changes(page).getByRole('status')).toContainText('1 comment typed into reviewer');
  const message = 'Review comment on src/app.js lines 2-3: keep this lower case';
  await expect.poll(async () => (await corral.terminalText('reviewer')).replace(/\n/g, ''), { message: 'the agent echoes the comments' }).toContain(`echo: ${message}`);
  await page.screenshot({ path: shot('worktrees-comment-sent') });

  // The dark theme, from the page's start.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.reload();
  await corral.menu('reviewer', 'Review changes');
  await changes(page).getByRole('list', { name: 'Changed files' }).getByRole('button', { name: /src\/app\.js/ }).click();
  await expect(changes(page).locator('.diff-code-insert')).toHaveText('TWO');
  await page.screenshot({ path: shot('worktrees-changes-dark') });

  // Merge: its uncommitted work needs a message; then the folder's own branch has the change.
  const commitMessage = page.getByLabel('Commit message');
  await expect(commitMessage).toBeEnabled({ timeout: 15_000 });
  await commitMessage.fill('the agent’s work');
  // A pull request needs gh, installed and logged in: without it, said so, and nothing committed.
  await page.getByRole('button', { name: 'Pull request' }).click();
  await expect(page.locator('.landing-result')).toHaveText(/^gh (\(GitHub's command-line tool\) )?is not (installed|logged in).*push it yourself: git -C .* push -u origin corral\/reviewer$/);
  expect(git('log', '-1', '--format=%s')).not.toBe('the agent’s work');
  await page.getByRole('button', { name: 'Merge into main' }).click();
  await expect(page.locator('.landing-result')).toHaveText(/^Merged: main moved forward to corral\/reviewer \(fast-forward, [0-9a-f]{8}\)\.$/);
  expect(fs.readFileSync(path.join(daemon.work, 'src', 'app.js'), 'utf8')).toBe('one\nTWO\nthree\n');
  expect(fs.existsSync(path.join(daemon.work, 'README.md'))).toBe(false);
  expect(fs.readFileSync(path.join(daemon.work, 'logo.bin'))).toEqual(Buffer.from('PNG\0\x01', 'latin1'));
  expect(git('log', '-1', '--format=%s')).toBe('the agent’s work');
  await expect(changes(page).getByRole('list', { name: 'Changed files' })).toContainText('Nothing changed since main.');
  await page.screenshot({ path: shot('worktrees-merged') });
});

test('removing a session with a worktree asks what becomes of it, and discarding loses its branch', async ({ page, corral, daemon }) => {
  const git = repository(daemon.work, { 'README.md': 'hello\n', 'src/app.js': 'one\ntwo\nthree\n' });
  for (const name of ['kept', 'dropped']) await daemon.api('POST', '/api/sessions', { cli: 'editor', cwd: daemon.work, name, worktree: {} });
  await corral.tab('kept').click();
  await corral.expectTerminal('kept', 'EDITED');
  // Comments to a session that is not running are refused, and kept to send again.
  const kept = await corral.sessionId('kept');
  await daemon.api('POST', `/api/sessions/${kept}/stop`);
  await expect(corral.tab('kept')).toHaveAttribute('aria-label', /stopped/);
  await corral.menu('kept', 'Review changes');
  await changes(page).getByRole('list', { name: 'Changed files' }).getByRole('button', { name: /added\.txt/ }).click();
  await changes(page).locator('td.diff-gutter-insert').last().click();
  await page.getByLabel('Comment on added.txt line 1').fill('why this file?');
  await page.getByRole('button', { name: 'Add comment' }).click();
  await page.getByRole('button', { name: 'Send 1 to the agent' }).click();
  await expect(changes(page).getByRole('alert')).toContainText('session "kept" is not running');
  await expect(changes(page).getByRole('region', { name: 'Comments to send' })).toContainText('added.txt line 1: why this file?');
  await corral.menu('kept', 'Remove');
  const remove = page.getByRole('alertdialog', { name: 'Remove "kept"?' });
  await expect(remove.getByRole('radio', { name: /^Keep worktree/ })).toBeChecked();
  await expect(remove.getByRole('checkbox', { name: 'Delete the branch too' })).toBeDisabled();
  await remove.getByRole('radio', { name: 'Remove worktree and its changes' }).check();
  await remove.getByRole('checkbox', { name: 'Delete the branch too' }).check();
  await expect(remove).toContainText('Lost: its folder');
  await page.screenshot({ path: shot('worktrees-remove') });
  await remove.getByRole('radio', { name: /^Keep worktree/ }).check();
  await remove.getByRole('button', { name: 'Remove' }).click();
  await expect(corral.tab('kept')).toHaveCount(0);
  expect(git('branch', '--list', 'corral/kept')).toContain('corral/kept');

  await corral.tab('dropped').click();
  await corral.expectTerminal('dropped', 'EDITED');
  await corral.menu('dropped', 'Review changes');
  // Its changes are listed before the discard is clicked: the panel is this session's.
  await expect(changes(page).getByRole('list', { name: 'Changed files' })).toContainText('added.txt');
  await changes(page).getByRole('button', { name: 'Discard…' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Discard "dropped"?' });
  await expect(confirm).toContainText('the branch corral/dropped');
  await confirm.getByRole('button', { name: 'Discard' }).click();
  await expect(corral.tab('dropped')).toHaveCount(0);
  expect(git('branch', '--list', 'corral/dropped')).toBe('');
});

test("a branch's setup command is shown and runs only once the person says so", async ({ page, corral, daemon }) => {
  repository(daemon.work, { '.corral/setup.toml': '[worktree]\nsetup = "echo set up by the branch > ran.txt"\n' });

  await page.getByRole('button', { name: 'New session (Alt+N)' }).click();
  const dialog = page.getByRole('dialog', { name: 'New session' });
  await dialog.getByRole('radio', { name: 'Faker' }).check();
  await dialog.getByLabel('Folder').fill(daemon.work);
  await dialog.getByLabel('Name').fill('set up');
  await dialog.getByRole('checkbox', { name: 'Own worktree' }).check();
  await dialog.getByRole('button', { name: 'Start' }).click();
  // Asked, with the command shown, and nothing made meanwhile.
  const asked = dialog.getByRole('group', { name: /runs a command before the agent starts/ });
  await expect(asked.locator('.setup-command')).toHaveText('echo set up by the branch > ran.txt');
  expect((await daemon.api('GET', '/api/sessions')).sessions).toEqual([]);
  await page.screenshot({ path: shot('worktrees-setup-asked') });
  await asked.getByRole('button', { name: 'Run it and start' }).click();
  await expect(dialog).toHaveCount(0);
  await corral.expectTerminal('set up', 'corral: setup done');
  const made = (await daemon.api('GET', '/api/sessions')).sessions[0];
  expect(fs.readFileSync(path.join(made.worktree.path, 'ran.txt'), 'utf8')).toBe('set up by the branch\n');
});
