/// <reference lib="dom" />
// A real `corral serve` for a test: temp home, its own tmux socket, fake agents. And the page
// object the tests drive the UI through.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test as base, expect, type Page } from '@playwright/test';
import { CORRAL, daemonEnv, request, startServe } from '../daemon/test/support/serve';
import { makeWorld } from '../daemon/test/support/world';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Git as the daemon and the tests run it: a fixed author, and none of this machine's own configuration. */
export const GIT_ENV = { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

export interface Daemon {
  url: string;
  token: string;
  home: string;
  work: string;
  /** Its tmux socket. */
  socket: string;
  /** What it printed so far (its log), stdout and stderr. */
  output(): string;
  /** Every read the `agent` fakes got, one JSON string a line (absent until one reads). */
  inputLog: string;
  launches(): string[];
  api(method: string, route: string, body?: unknown): Promise<any>;
  /** A link to the UI, as `corral url` makes one: a one-time code that the given token asks for. */
  link(token?: string): Promise<string>;
  /** Makes a token with `corral token create`. */
  makeToken(name: string, options?: { readOnly?: boolean }): string;
  /** Runs `corral ARGS` against its home; what it printed. */
  cli(args: string[]): string;
  /** Stops its `corral serve` (its sessions run on, as they do when it goes). */
  halt(): Promise<void>;
  /** Starts its `corral serve` again, at the same address. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/** A `corral serve` in a world (daemon/test/support/world.ts) with the `faker`, `asker`, `approver`, `ghost`, `agent` and `editor` fake CLIs. */
export async function startDaemon(options: { refuseAfter?: string; backend?: 'tmux' | 'pty'; env?: NodeJS.ProcessEnv } = {}): Promise<Daemon> {
  if (!fs.existsSync(CORRAL) || !fs.existsSync(path.join(ROOT, 'out', 'renderer', 'index.html'))) {
    throw new Error('the build is missing: run `npm run build` first');
  }
  const world = makeWorld('e2e', { programs: ['faker', 'agent', 'editor'], clis: ['faker', 'asker', 'approver', 'ghost', 'agent', 'editor'] });
  try {
    const work = path.join(world.root, 'my-project');
    fs.mkdirSync(work);
    const env: NodeJS.ProcessEnv = { ...daemonEnv(world), ...GIT_ENV, FAKER_REFUSE_AFTER: options.refuseAfter ?? '0.2', ...options.env };
    const token = execFileSync(process.execPath, [CORRAL, 'token', 'create', 'e2e'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const args = options.backend ? ['--backend', options.backend] : [];
    let serving = await startServe(env, args);
    const { url } = serving;
    return {
      url,
      token,
      home: world.home,
      work,
      socket: world.socket,
      output: () => serving.output(),
      inputLog: world.inputLog,
      launches: world.launches,
      async api(method, route, body) {
        return (await request(url, method, route, { token, body })).body;
      },
      async link(asker = token) {
        const res = await request(url, 'POST', '/api/auth/code', { token: asker });
        if (res.status < 200 || res.status >= 300) throw new Error(`no link code for that token: ${res.status} ${JSON.stringify(res.body)}`);
        return `${url}/#code=${(res.body as { code: string }).code}`;
      },
      makeToken(name, { readOnly = false } = {}) {
        const args = [CORRAL, 'token', 'create', name, ...(readOnly ? ['--read-only'] : [])];
        return execFileSync(process.execPath, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      },
      cli(args) {
        return execFileSync(process.execPath, [CORRAL, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      },
      async halt() {
        await serving.stop();
      },
      async resume() {
        serving = await startServe(env, [...args, '--port', new URL(url).port]);
      },
      async stop() {
        await serving.stop();
        world.cleanup();
      },
    };
  } catch (err) {
    world.cleanup();
    throw err;
  }
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
    await this.page.getByRole('button', { name: 'New session (Alt+N)' }).click();
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
    await this.page.locator('.terminal-pane .terminal-host:not([inert]) .xterm-helper-textarea').focus();
    await this.page.keyboard.type(text);
  }

  /**
   * Clicks a piece of text on the terminal's screen: once xterm.js shows it as a link, or, with
   * `link: false` (a click that must open nothing), after a pause in which a link would have shown.
   */
  async clickTerminalText(name: string, text: string, { link = true } = {}): Promise<void> {
    const id = await this.sessionId(name);
    const cell = await expect
      .poll(() => this.page.evaluate(([sid, t]) => (window as any).corralTerminals.cellOf(sid, t), [id, text] as const), { message: `${text} on screen` })
      .not.toBeNull()
      .then(() => this.page.evaluate(([sid, t]) => (window as any).corralTerminals.cellOf(sid, t) as { x: number; y: number }, [id, text] as const));
    // xterm.js finds links as the pointer moves over them; then a click opens one.
    await this.page.mouse.move(cell.x - 20, cell.y);
    await this.page.mouse.move(cell.x, cell.y, { steps: 4 });
    // xterm.js gives its element this class when the link under the pointer is found: a click then opens it.
    if (link) await this.page.locator('.xterm-cursor-pointer').first().waitFor();
    else await this.page.waitForTimeout(150);
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
 * and cleaned up after it; `refuseAfter` sets its fake agent's dead-key delay, `backend` the daemon's backend, `daemonEnv` adds to its environment), and `corral`,
 * the UI opened on it with its token.
 */
export const test = base.extend<{ refuseAfter: string; backend: 'tmux' | 'pty'; daemonEnv: NodeJS.ProcessEnv; daemon: Daemon; corral: CorralPage }>({
  refuseAfter: ['0.2', { option: true }],
  backend: ['tmux', { option: true }],
  daemonEnv: [{}, { option: true }],
  daemon: async ({ refuseAfter, backend, daemonEnv }, use, testInfo) => {
    const daemon = await startDaemon({ refuseAfter, backend, env: daemonEnv });
    try {
      await use(daemon);
    } finally {
      await daemon.stop();
      // A failed test comes with what its daemon said (a slow start names the stage that held it).
      if (testInfo.status !== testInfo.expectedStatus) await testInfo.attach('daemon log', { body: daemon.output(), contentType: 'text/plain' });
    }
  },
  corral: async ({ page, daemon }, use) => {
    const corral = new CorralPage(page, daemon);
    await corral.open();
    await use(corral);
  },
});
export { expect };
