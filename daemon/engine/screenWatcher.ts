// Once a second, the running sessions as their processes show them: which are working (they
// printed in the last WORKING_MS), which screens show a prompt that waits for the person
// (needs-you, from the CLI's `attention` patterns), and the resume keys CLIs choose themselves
// (LearnedKeys, stored the moment they show). One look at the backend's processes serves all
// three, and one more reads every screen that may show a prompt (with tmux, one tmux process
// however many sessions print); each logs its own failures and a failure of one stops neither the others nor the
// other sessions. A session that printed nothing since the last look costs that one list: its
// screen is the one already looked at, so neither its prompt nor its output is read again.

import type { CliSpec } from '../catalogue/catalogue';
import type { SessionRow } from '../store/store';
import { isRunning } from '../contract/session';
import { askedOn } from './attention';
import type { LearnedKeys } from './learnedKeys';
import { FailureLog } from './periodic';
import type { Runtime } from './runtime';
import type { Views } from './views';

/** A session that printed this recently is working. */
export const WORKING_MS = 3_000;
/**
 * A screen read this soon after the person typed may still show the question they just
 * answered (the agent has not drawn its answer yet): it raises no needs-you.
 */
export const ANSWER_SETTLE_MS = 1_000;

export class ScreenWatcher {
  /** When each session's screen was last looked at, and its size then (a resize may move what it shows). */
  private readonly looked = new Map<string, { at: number; size: string }>();
  private watching = false;
  private readonly activityFailures = new FailureLog('the activity watcher');
  private readonly needsYouFailures = new FailureLog('the needs-you watcher');
  private readonly keyFailures = new FailureLog('the key watcher');

  constructor(
    private readonly rt: Runtime,
    private readonly views: Views,
    private readonly keys: LearnedKeys,
  ) {}

  async look(): Promise<void> {
    if (this.rt.closing || this.watching) return;
    this.watching = true;
    try {
      const alive = new Map((await this.rt.backend.list()).map((p) => [p.id, p]));
      const prompts: { id: string; cli: CliSpec; typedAt: number | undefined; lookedAt: number }[] = [];
      const printing: { row: SessionRow; cli: CliSpec; printed: boolean }[] = [];
      for (const row of this.rt.store.listSessions()) {
        const proc = alive.get(row.id);
        if (!proc || !isRunning(row.state)) {
          this.rt.working.delete(row.id);
          continue;
        }
        const cli = this.rt.catalogue.clis.get(row.cli);
        const now = this.rt.clock.now();
        // Nothing printed since the last look: nothing new to see (tmux tells activity to the second).
        const printedAt = proc.lastActivityAt;
        const last = this.looked.get(row.id);
        const launch = this.rt.launches.get(row.id);
        const size = launch ? `${launch.size.cols}x${launch.size.rows}` : '';
        const printed = printedAt === null || printedAt + 1_000 >= (last?.at ?? 0);
        this.looked.set(row.id, { at: now, size });
        await this.activityFailures.guard(async () => this.views.setWorking(row.id, printedAt !== null && now - printedAt < WORKING_MS));
        if (!cli) continue;
        // An unchanged screen shows what it showed at the last look, prompt or not.
        if (cli.attention.length + cli.setup.length > 0 && (printed || size !== last?.size)) prompts.push({ id: row.id, cli, typedAt: launch?.lastInputAt, lookedAt: now });
        printing.push({ row, cli, printed });
      }
      // Every screen to read in one look at the backend (one tmux process, however many print).
      await this.needsYouFailures.guard(async () => {
        const screens = prompts.length > 0 ? await this.rt.backend.visibleAll(prompts.map((p) => p.id)) : new Map<string, string>();
        for (const prompt of prompts) await this.needsYouFailures.guard(async () => this.lookForPrompt(prompt, screens.get(prompt.id)));
      });
      for (const { row, cli, printed } of printing) await this.keyFailures.guard(() => this.keys.learnWhileRunning(row, cli, printed));
      for (const failures of [this.activityFailures, this.needsYouFailures, this.keyFailures]) failures.roundDone();
    } finally {
      this.watching = false;
    }
  }

  /**
   * Needs-you from the screen: set when a prompt shows, cleared when it goes (never one the hook
   * or an exit set).
   */
  private lookForPrompt({ id, cli, typedAt, lookedAt }: { id: string; cli: CliSpec; typedAt: number | undefined; lookedAt: number }, screen: string | undefined): void {
    // Typed into meanwhile: what was asked is answered (it cleared), whatever this screen shows.
    if (screen === undefined || this.rt.launches.get(id)?.lastInputAt !== typedAt) return;
    const current = this.rt.needs.get(id);
    const seen = askedOn(screen, cli);
    // Typed into just before: the question on it may be the one just answered, not drawn away yet.
    const answering = typedAt !== undefined && lookedAt - typedAt < ANSWER_SETTLE_MS;
    // Read again at the next look, printed meanwhile or not: then it is a question.
    if (seen && answering) this.looked.delete(id);
    // Another question in the place of the one shown (the agent moved on with nobody typing): a
    // new question, which an answer to the one before must not answer.
    const another = current?.source === 'screen' && seen !== null && (seen.question !== current.detail || (seen.about ?? undefined) !== current.about || !!seen.setup !== !!current.setup);
    if (seen && (!current || another) && !answering) {
      this.views.setNeeds(id, { source: 'screen', since: this.rt.clock.now(), detail: seen.question, ...(seen.about ? { about: seen.about } : {}), ...(seen.setup ? { setup: true as const } : {}) });
    }
    else if (!seen && current?.source === 'screen') this.views.setNeeds(id, null);
  }
}
