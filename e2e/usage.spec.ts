/// <reference lib="dom" />
// What a session costs, in the browser: its badge on its tab and row (cost, context fill), and
// the usage panel, from a transcript written where Claude Code keeps its own.

import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from './corral';

const call = (id: string, at: string, usage: { input: number; output: number; write: number; read: number }) =>
  JSON.stringify({
    type: 'assistant',
    requestId: `req_${id}`,
    timestamp: at,
    message: { id: `msg_${id}`, model: 'claude-sonnet-4-5-20250929', usage: { input_tokens: usage.input, output_tokens: usage.output, cache_creation_input_tokens: usage.write, cache_read_input_tokens: usage.read } },
  }) + '\n';

test('a session shows what it costs and how full its context is, and the usage panel adds it up', async ({ page, corral, daemon }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  // A fake under Claude Code's name (the catalogue is read again when it changes): its transcript
  // is where Claude Code keeps one, in this world's CLAUDE_CONFIG_DIR.
  fs.appendFileSync(path.join(daemon.home, 'clis.toml'), '\n[cli.claude]\nlabel = "Claude Code"\ncommand = "faker"\nargs = ["fresh", "{id}"]\ncolor = "#d97757"\n');
  await expect.poll(async () => (await daemon.api('GET', '/api/clis')).clis.some((c: { name: string; installed: boolean }) => c.name === 'claude' && c.installed), { timeout: 15_000 }).toBe(true);
  const made = await daemon.api('POST', '/api/sessions', { cli: 'claude', cwd: daemon.work, name: 'spender' });
  await expect.poll(() => daemon.launches().length).toBeGreaterThan(0);
  const key = daemon.launches().at(-1)!.split(' ').at(-1)!;
  // Its project folder is named as Claude Code names it, from the session's folder: found at the
  // next scan (a file anywhere else waits for the search of every folder, once a minute).
  const file = path.join(daemon.home, '..', 'claude', 'projects', daemon.work.replace(/[^a-zA-Z0-9]/g, '-'), `${key}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const today = new Date().toISOString();
  const first = call('1', today, { input: 2_000, output: 40_000, write: 60_000, read: 100_000 });
  // The same call on two lines (one per content block) counts once.
  fs.writeFileSync(file, first + first);

  const badge = page.locator('.sidebar .usage-badge');
  // (2,000 × 3 + 40,000 × 15 + 60,000 × 3.75 + 100,000 × 0.30) / 1,000,000 = $0.86; context 162,000 of 200,000.
  await expect(badge).toHaveAccessibleName('$0.86, 202k tokens, context 81% full', { timeout: 15_000 });
  await expect(corral.tab('spender').locator('.usage-badge')).toContainText('$0.86');
  await expect(badge.locator('.context-fill')).toHaveClass(/tone-busy/);
  expect((await daemon.api('GET', `/api/sessions/${made.id}`)).usage).toMatchObject({ tokens: 202_000, partial: false });

  await corral.palette('usage');
  await page.keyboard.press('Enter');
  const panel = page.getByRole('dialog', { name: 'Usage' });
  await expect(panel.locator('.usage-total')).toContainText('Last 7 days: $0.86, 202k tokens in 1 call');
  await expect(panel.getByRole('table', { name: 'By session' })).toContainText('spender');
  await expect(panel.getByRole('table', { name: 'By project' })).toContainText('my-project');
  await expect(panel.locator('.usage-day')).toHaveCount(7);
  await expect(panel).toContainText("Claude's 5-hour block");
  await page.screenshot({ path: path.join('e2e', 'screenshots', 'usage-panel.png') });
});

test('with nothing to count, the usage panel says so and why, rather than empty tables', async ({ page, corral }) => {
  await expect(page.getByText('No sessions yet.')).toBeVisible();
  await page.locator('body').click();
  await corral.palette('usage');
  await page.keyboard.press('Enter');
  const panel = page.getByRole('dialog', { name: 'Usage' });
  await expect(panel.locator('.usage-empty')).toContainText('No usage in the last 7 days');
  await expect(panel.getByRole('table')).toHaveCount(0);
  await expect(panel.locator('.usage-chart')).toHaveCount(0);
});
