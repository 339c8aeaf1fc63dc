// A session's first prompt: given at create, typed into the agent once it is ready for it, and
// never into anything else. Ready means: running, its screen shows something (the CLI's `ready`
// pattern when it has one: Codex holds a still splash for seconds) and has held still for
// QUIET_MS, and nothing on it waits for the person (a trust or sign-in prompt, an approval: the
// CLI's attention patterns, or a needs-you its hook told). A prompt waits through those for
// as long as they take, and through a stop: it is saved with the session and typed after the next
// start. If the person types into a ready agent first, the agent is theirs: the prompt is not
// typed, and the event that says so keeps its text.

import { isRunning } from '../contract/session';
import { askedOn } from './attention';
import type { Runtime } from './runtime';
import type { Terminals } from './terminals';
import type { Views } from './views';
import { settingUp } from './worktreeSessions';

/** How long a screen must hold still before the agent is taken to be ready for its prompt. */
export const QUIET_MS = 1_500;

interface Look {
  screen: string;
  /** Since when the screen has shown just this. */
  since: number;
  /** Since when the agent has been seen ready (something shown, nothing asked), else null. */
  readyAt: number | null;
}

export class FirstPrompts {
  /** Sessions with a prompt to type, and what the last look saw. */
  private readonly waiting = new Map<string, Look>();
  private looking = false;

  constructor(
    private readonly rt: Runtime,
    private readonly views: Views,
    private readonly terminals: Terminals,
  ) {}

  /** The sessions whose prompt is saved: from the database at open, then as they are created. */
  watch(id: string): void {
    if (!this.waiting.has(id)) this.waiting.set(id, { screen: '', since: this.rt.clock.now(), readyAt: null });
  }

  forget(id: string): void {
    this.waiting.delete(id);
  }

  /** The prompt is no longer waiting, here or in the database. */
  private done(id: string): void {
    this.forget(id);
    this.rt.store.updateSession(id, { firstPrompt: null });
  }

  /** One look at each session whose prompt waits (nothing at all when none does). */
  async look(): Promise<void> {
    if (this.waiting.size === 0 || this.looking || this.rt.closing) return;
    this.looking = true;
    try {
      for (const [id, last] of this.waiting) await this.lookAt(id, last);
    } finally {
      this.looking = false;
    }
  }

  private async lookAt(id: string, last: Look): Promise<void> {
    const row = this.rt.store.getSession(id);
    if (!row?.firstPrompt) return this.forget(id);
    const launch = this.rt.launches.get(id);
    // While the worktree's setup command runs, its output is not the agent.
    if (!isRunning(row.state) || !launch || settingUp(row)) return;
    // Typing after the agent was seen ready is the person's own first message; typing before
    // that answered what the screen asked.
    if (last.readyAt !== null && launch.lastInputAt !== null && launch.lastInputAt >= last.readyAt) return this.skip(id, row.firstPrompt);
    const now = this.rt.clock.now();
    const screen = await this.rt.backend.visible(id).catch(() => null);
    if (screen === null) return;
    const cli = this.rt.catalogue.clis.get(row.cli);
    const asking = this.rt.needs.has(id) || (cli !== undefined && askedOn(screen, cli) !== null);
    const ready = screen.trim() !== '' && !asking && (!cli?.ready || cli.ready.test(screen));
    if (screen !== last.screen || !ready) {
      this.waiting.set(id, { screen, since: now, readyAt: ready ? (last.readyAt ?? now) : null });
      return;
    }
    if (now - last.since < (this.rt.options.promptQuietMs ?? QUIET_MS)) return;
    // Said first, so that however the typing ends it is typed at most once.
    this.done(id);
    try {
      await this.terminals.write({ id, text: row.firstPrompt, submit: true });
    } catch (err) {
      this.views.record(id, 'prompt-skipped', `the first prompt could not be typed (${(err as Error).message}): its text is in this event`, { prompt: row.firstPrompt });
      return;
    }
    this.views.record(id, 'prompt-typed', 'typed the first prompt', { characters: row.firstPrompt.length });
  }

  private skip(id: string, prompt: string): void {
    this.done(id);
    this.views.record(id, 'prompt-skipped', 'the first prompt was not typed: you typed before the agent was ready for it (its text is in this event)', { prompt });
  }
}
