/// <reference lib="dom" />
// A real `corral serve` for a test: temp home, its own tmux socket, fake agents. And the page
// object the tests drive the UI through.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test as base, expect, type Page } from '@playwright/test';
import { killTmux } from '../daemon/test/support/tmux';

const ROOT = path.resolve(import.meta.dirname, '..');
const CORRAL = path.join(ROOT, 'out', 'cli', 'corral.mjs');

/** `fresh <id>` starts a conversation, saved at the first line typed; `resume <key>` needs one. */
const FAKER = (dir: string) => `#!/bin/bash
echo "faker $*" >> '${dir}/argv.log'
if [ "$1" = "resume" ]; then
  if [ -e '${dir}/conversations'/"$2" ]; then echo "RESUMED $2"; else
    sleep "\${FAKER_REFUSE_AFTER:-0.2}"; echo "No conversation found with session ID: $2"; exit 1; fi
else
  echo "FRESH START $2"
fi
key="$2"
while IFS= read -r line; do
  [ "$1" = "fresh" ] && touch '${dir}/conversations'/"$key"
  case "$line" in
    size) echo "size: $(stty size)";;
    ask) echo "Do you want to proceed?";;
    answer) printf '\\033[2J\\033[H'; echo "answered";;
    *) echo "echo: $line";;
  esac
done
`;

const CATALOGUE = `
[cli.faker]
label   = "Faker"
command = "faker"
args    = ["fresh", "{id}"]
resume  = ["resume", "{cli_session_id}"]
color   = "#d97757"

[cli.asker]
label   = "Asker"
command = "faker"
args    = ["fresh", "{id}"]
resume  = ["resume", "{cli_session_id}"]
color   = "#4285f4"
attention = ['Do you want to proceed\\?']

[cli.ghost]
label   = "Ghost Agent"
command = "no-such-agent-on-this-machine"
`;

export interface Daemon {
  url: string;
  token: string;
  home: string;
  work: string;
  launches(): string[];
  api(method: string, route: string, body?: unknown): Promise<any>;
  /** A link to the UI, as `corral url` makes one: a one-time code that the given token asks for. */
  link(token?: string): Promise<string>;
  /** Makes a token with `corral token create`. */
  makeToken(name: string, options?: { readOnly?: boolean }): string;
  stop(): Promise<void>;
}

export async function startDaemon(options: { refuseAfter?: string } = {}): Promise<Daemon> {
  if (!fs.existsSync(CORRAL) || !fs.existsSync(path.join(ROOT, 'out', 'renderer', 'index.html'))) {
    throw new Error('the build is missing: run `npm run build` first');
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-e2e-'));
  const home = path.join(dir, 'home');
  const bin = path.join(dir, 'bin');
  const work = path.join(dir, 'my-project');
  for (const d of [home, bin, work, path.join(dir, 'conversations')]) fs.mkdirSync(d);
  fs.writeFileSync(path.join(dir, 'argv.log'), '');
  fs.writeFileSync(path.join(bin, 'faker'), FAKER(dir), { mode: 0o755 });
  fs.writeFileSync(path.join(home, 'clis.toml'), CATALOGUE);
  const socket = `corral-e2e-${process.pid}-${crypto.randomBytes(3).toString('hex')}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH}`,
    CORRAL_HOME: home,
    CORRAL_TMUX_SOCKET: socket,
    FAKER_REFUSE_AFTER: options.refuseAfter ?? '0.2',
  };
  delete env.CORRAL_TOKEN;
  delete env.CORRAL_URL;
  const token = execFileSync(process.execPath, [CORRAL, 'token', 'create', 'e2e'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  const child: ChildProcess = spawn(process.execPath, [CORRAL, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 20_000;
  let url = '';
  while (!url) {
    url = /serving .* at (http:\/\/\S+)/.exec(out)?.[1] ?? '';
    if (Date.now() > deadline) throw new Error(`corral serve did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    token,
    home,
    work,
    launches: () => fs.readFileSync(path.join(dir, 'argv.log'), 'utf8').split('\n').filter(Boolean),
    async api(method, route, body) {
      const res = await fetch(url + route, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return res.json();
    },
    async link(asker = token) {
      const res = await fetch(`${url}/api/auth/code`, { method: 'POST', headers: { Authorization: `Bearer ${asker}` } });
      if (!res.ok) throw new Error(`no link code for that token: ${res.status} ${await res.text()}`);
      return `${url}/#code=${((await res.json()) as { code: string }).code}`;
    },
    makeToken(name, { readOnly = false } = {}) {
      const args = [CORRAL, 'token', 'create', name, ...(readOnly ? ['--read-only'] : [])];
      return execFileSync(process.execPath, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      killTmux(socket);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The UI as a person uses it; terminal text comes from the xterm buffer. */
export class CorralPage {
  constructor(
    readonly page: Page,
    readonly daemon: Daemon,
  ) {}

  /** Opens the UI the way a person does: a link from `corral url` (its one-time code); returns the link. */
  async open(token = this.daemon.token): Promise<string> {
    const link = await this.daemon.link(token);
    await this.page.goto(link);
    return link;
  }

  tab(name: string) {
    return this.page.getByRole('tab', { name: new RegExp(`^${name},`) });
  }

  async newSession(options: { cli?: string; cwd?: string; name?: string }): Promise<void> {
    await this.page.getByRole('button', { name: 'New session (Ctrl+T)' }).click();
    const dialog = this.page.getByRole('dialog', { name: 'New session' });
    if (options.cli) await dialog.getByRole('radio', { name: options.cli }).check();
    if (options.cwd !== undefined) await dialog.getByLabel('Folder').fill(options.cwd);
    if (options.name !== undefined) await dialog.getByLabel('Name').fill(options.name);
    await dialog.getByRole('button', { name: 'Start' }).click();
  }

  async sessionId(name: string): Promise<string> {
    return (await this.tab(name).getAttribute('data-session'))!;
  }

  async terminalText(name: string): Promise<string> {
    const id = await this.sessionId(name);
    return this.page.evaluate((sid) => (window as any).corralTerminals?.text(sid) ?? '', id);
  }

  async expectTerminal(name: string, text: string | RegExp): Promise<void> {
    await expect.poll(() => this.terminalText(name), { message: `terminal of ${name} shows ${text}` }).toMatch(text);
  }

  async type(text: string): Promise<void> {
    await this.page.locator('.terminal-pane .xterm-helper-textarea').focus();
    await this.page.keyboard.type(text);
  }

  /** Clicks a piece of text on the terminal's screen (where a link would be). */
  async clickTerminalText(name: string, text: string): Promise<void> {
    const id = await this.sessionId(name);
    const cell = await expect
      .poll(() => this.page.evaluate(([sid, t]) => (window as any).corralTerminals.cellOf(sid, t), [id, text] as const), { message: `${text} on screen` })
      .not.toBeNull()
      .then(() => this.page.evaluate(([sid, t]) => (window as any).corralTerminals.cellOf(sid, t) as { x: number; y: number }, [id, text] as const));
    // xterm.js finds links as the pointer moves over them; then a click opens one.
    await this.page.mouse.move(cell.x - 20, cell.y);
    await this.page.mouse.move(cell.x, cell.y, { steps: 4 });
    await this.page.waitForTimeout(150);
    await this.page.mouse.click(cell.x, cell.y);
  }

  async palette(query: string): Promise<void> {
    await this.page.keyboard.press('Control+k');
    const input = this.page.getByRole('combobox', { name: 'Find a session or an action' });
    await input.fill(query);
  }

  async menu(name: string, item: string): Promise<void> {
    await this.page.getByRole('button', { name: `Actions for ${name}` }).click();
    await this.page.getByRole('menuitem', { name: new RegExp(`^${item}`) }).click();
  }

  async screenshot(name: string): Promise<void> {
    fs.mkdirSync(path.join(ROOT, 'e2e', 'screenshots'), { recursive: true });
    await this.page.screenshot({ path: path.join(ROOT, 'e2e', 'screenshots', `${name}.png`) });
  }
}

/**
 * The browser tests' fixtures: `daemon`, a real `corral serve` of its own for each test (stopped
 * and cleaned up after it; `refuseAfter` sets its fake agent's dead-key delay), and `corral`,
 * the UI opened on it with its token.
 */
export const test = base.extend<{ refuseAfter: string; daemon: Daemon; corral: CorralPage }>({
  refuseAfter: ['0.2', { option: true }],
  daemon: async ({ refuseAfter }, use) => {
    const daemon = await startDaemon({ refuseAfter });
    try {
      await use(daemon);
    } finally {
      await daemon.stop();
    }
  },
  corral: async ({ page, daemon }, use) => {
    const corral = new CorralPage(page, daemon);
    await corral.open();
    await use(corral);
  },
});
export { expect };
