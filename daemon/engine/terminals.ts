// A running session's terminal, as callers use it: read its screen, attach a viewer, type,
// resize. What a person types counts as activity, clears needs-you, and tells an early exit
// apart from a dead key (Launch.typed); the viewer in use gives the agent its size and colours.

import type { Request, Response } from '../contract/contract';
import type { Attachment, AttachOptions } from '../backends/backend';
import { CorralError } from '../contract/errors';
import { checkColors, isRunning } from '../contract/session';
import { streamFilter } from '../streams/boxedFilter';
import { withoutReplies } from '../streams/terminalReplies';
import { KeyedQueue } from '../util/keyedQueue';
import { askedOn } from './attention';
import { noteEnter, type Runtime } from './runtime';
import { isTyping, shows } from './typing';
import type { Views } from './views';
import type { SessionRow } from '../store/store';

/** Typing then Enter (see write): how often the screen is looked at, the least and most wait. */
const SUBMIT_LOOK_MS = 40;
const SUBMIT_GAP_MS = 150;
const SUBMIT_WAIT_MS = 2_000;
/**
 * How long Enter waits for an agent whose screen has not changed at all since text was typed:
 * it has not taken the text in yet (Codex reads nothing for seconds after its first screen), and
 * an Enter typed meanwhile reaches it in the same read as the text, a paste.
 */
const SUBMIT_UNSEEN_MS = 15_000;
/**
 * How long text to submit waits for a CLI with a `ready` pattern to show it, when it has not yet
 * since its launch (opencode takes 16 s offline to take text; what it is sent before is lost),
 * and how often it looks.
 */
const READY_WAIT_MS = 45_000;
const READY_LOOK_MS = 250;

export class Terminals {
  /** Each session's writes, in order: a write waits for the Enter of a submit before it. */
  private readonly typing = new KeyedQueue();
  /**
   * Each session's last submit whose Enter the agent may not have taken in yet: when the Enter
   * was typed, and the screen it was typed on. Looked at only by what comes next (a write, a stop).
   */
  private readonly entered = new Map<string, { at: number; shown: string }>();

  constructor(
    private readonly rt: Runtime,
    private readonly views: Views,
  ) {}

  async screen({ id, lines = 50 }: Request<'screen'>): Promise<Response<'screen'>> {
    const row = this.rt.row(id);
    if (isRunning(row.state) && (await this.rt.backend.isAlive(id))) {
      try {
        return { text: await this.rt.backend.capture(id, lines) };
      } catch (err) {
        // It ended between the two questions: what it left is below.
        if (await this.rt.backend.isAlive(id)) throw err;
      }
    }
    // A stopped session shows what it left.
    const last = this.rt.store.listReceipts(id, this.rt.clock.now())[0];
    return { text: last ? last.output.replace(/\s+$/, '').split('\n').slice(-lines).join('\n') : '' };
  }

  /** A viewer's live connection to a running session's terminal. */
  async attach(id: string, options: AttachOptions): Promise<Attachment> {
    // A spawn under way ends first: a session says "starting" while its process is still being
    // made (the page shows a first session's terminal at once), and a viewer attaches to the
    // process, never to where it will be.
    await this.rt.spawning.get(id);
    const row = this.rt.row(id);
    if (!isRunning(row.state)) throw new CorralError('conflict', `session "${row.name}" is not running`);
    // Boxed CLIs do not get to take the viewer's mouse, screen or history away (shells do).
    const filter = streamFilter(!!this.rt.catalogue.clis.get(row.cli)?.boxed);
    const inUse = !!options.inUse && !options.viewOnly;
    const attachment = await this.rt.backend.attach(id, {
      ...options,
      inUse,
      onData: (data) => {
        const shown = filter.feed(typeof data === 'string' ? Buffer.from(data) : data);
        if (shown.length) options.onData(shown);
      },
      // A viewer's tmux client can go while its session runs on (detached, or lost on a busy
      // server): that viewer is told to connect again, never that the session ended, which
      // would leave its tab blank for as long as the session runs.
      onClose: () => {
        const lost = () => {
          console.error(`corral: a viewer of session ${id} lost its link to it while it runs; it is told to connect again`);
          options.onClose?.(lostViewer(row.name));
        };
        void this.rt.backend.isAlive(id).then((alive) => (alive ? lost() : options.onClose?.()), lost);
      },
    });
    // A viewer's size is its own until the person uses it (types, or its view is resized):
    // a viewer that only watches never resizes the agent.
    let size = { cols: options.cols, rows: options.rows };
    const colors = checkColors(options.colors);
    /** Makes the agent's size and colours this viewer's; null when they already are. */
    const follow = (): Promise<unknown> | null => {
      const launch = this.rt.launches.get(id);
      if (!launch) return null;
      const changes: Promise<unknown>[] = [];
      if (colors && (launch.colors.fg !== colors.fg || launch.colors.bg !== colors.bg)) {
        // New agents are told the colours of the viewer the person uses last.
        launch.colors = this.rt.colors = colors;
        changes.push(this.rt.backend.setColors(id, colors));
      }
      if (launch.size.cols !== size.cols || launch.size.rows !== size.rows) changes.push(this.resize({ id, ...size }));
      return changes.length ? Promise.all(changes).catch(() => {}) : null;
    };
    // Keys wait for a resize this viewer caused, in order: the agent reads them at its new size.
    let pending: Promise<unknown> | null = null;
    const after = (changing: Promise<unknown> | null, then?: () => void) => {
      if (!changing && !pending) return then?.();
      const next: Promise<unknown> = Promise.all([pending, changing]).then(() => {
        if (pending === next) pending = null;
        then?.();
      });
      pending = next;
    };
    // A viewer in use from its start: the backend gave the agent its size as it attached; its
    // colours follow.
    if (inUse) {
      const launch = this.rt.launches.get(id);
      if (launch) launch.size = { ...size };
      after(follow());
    }
    return {
      ...attachment,
      write: (data) => {
        // What its terminal answers on its own is not for the agent (terminalReplies.ts).
        const typed = withoutReplies(data);
        if (!typed) return;
        after(follow(), () => attachment.write(typed));
        // Noted once the key is on its way: a note may write to the database (once a second).
        this.noteInput(id, typed);
      },
      resize: (cols, rows) => {
        size = { cols, rows };
        attachment.resize(cols, rows);
        after(follow());
      },
      // Keys still waiting for a resize when the viewer goes are typed first, then it closes.
      close: () => after(null, () => attachment.close()),
    };
  }

  /**
   * Types into a session. With `submit`, Enter follows as a keystroke of its own once the agent
   * has taken the text in: CLIs take text and Enter arriving close together as a paste, and
   * leave it in their input box (Gemini CLI does within 30 ms). The reply comes once the text is
   * typed; the Enter follows here, and the session's next write waits until the agent has taken
   * that Enter in, so two submits never join in one line (nor in one read). An Enter that cannot
   * be typed (the session ended) is logged.
   */
  write({ id, text: data, submit = false, ifAsking }: Request<'write'>): Promise<void> {
    return new Promise<void>((typed, failed) => {
      void this.typing.run(id, async () => {
        try {
          await this.enterTaken(id);
          const row = this.rt.row(id);
          if (!isRunning(row.state)) throw new CorralError('conflict', `session "${row.name}" is not running: start it first`);
          if (ifAsking !== undefined) await this.stillAsking(row, ifAsking);
          if (submit && data !== '') await this.ready(id);
          // (A submit of nothing is an Enter alone.)
          this.noteInput(id, submit && data === '' ? '\r' : data);
          if (!submit || data === '') {
            await this.rt.backend.write(id, submit ? '\r' : data);
            return typed();
          }
          const before = await this.rt.backend.lookThenWrite(id, data);
          typed();
          await this.enter(id, before, shows(data));
        } catch (err) {
          failed(await this.whyUntyped(id, err));
        }
      });
    });
  }

  /**
   * Refuses, with nothing typed, an answer (a one-key approve or deny from a list) to a question
   * that no longer waits: answered meanwhile from a terminal or another client (typing clears it),
   * or, for a question seen on the screen, no longer there or another in its place. A key typed
   * after its question went is typed into whatever the agent shows next: a second approval.
   */
  private async stillAsking(row: SessionRow, since: number): Promise<void> {
    const needs = this.rt.needs.get(row.id);
    const gone = `session "${row.name}" no longer asks the question this answers`;
    if (needs?.since !== since) throw new CorralError('conflict', `${gone} (it was answered, or it asks another): nothing was typed`);
    const cli = this.rt.catalogue.clis.get(row.cli);
    if (needs.source !== 'screen' || !cli) return;
    const seen = askedOn(await this.rt.backend.visible(row.id), cli);
    if (!seen || seen.question !== needs.detail || (seen.about ?? undefined) !== needs.about) {
      throw new CorralError('conflict', `${gone} (its screen shows ${seen ? 'another' : 'none'} now): nothing was typed`);
    }
  }

  /**
   * Waits until a CLI with a `ready` pattern shows it, the first time since its launch (then, or
   * once it is typed into, it is taken to be ready for good). Refused, with nothing typed, while
   * its screen asks something (a trust or sign-in screen, an approval: text would answer it), or
   * when it is not ready after READY_WAIT_MS.
   */
  private async ready(id: string): Promise<void> {
    const row = this.rt.row(id);
    const cli = this.rt.catalogue.clis.get(row.cli);
    const launch = this.rt.launches.get(id);
    if (!cli?.ready || !launch || launch.seenReady || launch.typed) return;
    const until = Date.now() + READY_WAIT_MS;
    for (;;) {
      if (this.rt.launches.get(id) !== launch) throw new CorralError('conflict', `session "${row.name}" ended before it was ready for text: nothing was typed`);
      const screen = await this.rt.backend.visible(id).catch(() => '');
      const asked = askedOn(screen, cli);
      if (asked) throw new CorralError('conflict', `session "${row.name}" asks "${asked.question}": answer it first (nothing was typed)`);
      if (cli.ready.test(screen)) return void (launch.seenReady = true);
      if (Date.now() > until) throw new CorralError('conflict', `session "${row.name}" is not ready for text after ${READY_WAIT_MS / 1000} s (its screen does not show ${cli.label}'s prompt yet): nothing was typed`);
      await new Promise((resolve) => setTimeout(resolve, READY_LOOK_MS));
    }
  }

  /** A write's failure as the person can use it: a session that ended meanwhile says so. */
  private async whyUntyped(id: string, err: unknown): Promise<unknown> {
    if (err instanceof CorralError) return err;
    const alive = await this.rt.backend.isAlive(id).catch(() => false);
    if (alive) return err;
    const name = this.rt.store.getSession(id)?.name ?? id;
    return new CorralError('conflict', `session "${name}" ended while the text was typed: what it had not read is lost`);
  }

  /**
   * Types Enter once the agent has shown the text typed after `before` was its screen (`visible`:
   * text that shows when typed). What comes next for the session waits until the agent has taken
   * the Enter in too (`enterTaken`): text right behind it would reach the agent in the same read, a
   * paste to it. Its caller has had its reply, so a failure is logged.
   */
  private async enter(id: string, before: string, visible: boolean): Promise<void> {
    const shown = await this.settled(id, before, visible ? SUBMIT_UNSEEN_MS : SUBMIT_WAIT_MS);
    // Noted before it is typed: what the agent makes of it comes after.
    const launch = this.rt.launches.get(id);
    if (launch) noteEnter(launch);
    try {
      await this.rt.backend.write(id, '\r');
    } catch (err) {
      console.error(`corral: the Enter after text typed into ${id} was not typed: ${(err as Error).message}`);
      return;
    }
    const now = Date.now();
    // (What nothing came after is past its wait: a session removed since leaves none behind.)
    for (const [other, last] of this.entered) if (now - last.at >= SUBMIT_WAIT_MS) this.entered.delete(other);
    this.entered.set(id, { at: now, shown });
  }

  /**
   * Waits, before what comes next for a session, until the agent has taken in the Enter of its
   * last submit: its screen changed from the one the Enter was typed on and held still, or
   * SUBMIT_WAIT_MS after the Enter. Looked at then, not after each Enter: a submit with nothing
   * behind it costs no looks (a tmux process each, 25 a second for up to 2 s).
   */
  private async enterTaken(id: string): Promise<void> {
    const last = this.entered.get(id);
    if (!last) return;
    this.entered.delete(id);
    if (Date.now() - last.at < SUBMIT_WAIT_MS) await this.settled(id, last.shown, SUBMIT_WAIT_MS, last.at);
  }

  /** Resolves once every Enter still to come has been typed. */
  idle(): Promise<void> {
    return this.typing.idle();
  }

  /**
   * Resolves once what was sent to a session to submit has had its Enter typed (a send answers
   * once its text is typed, before its Enter), or after `ms` at most.
   */
  async submitted(id: string, ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.typing.run(id, () => this.enterTaken(id)), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  async resize({ id, cols, rows }: { id: string; cols: number; rows: number }): Promise<void> {
    for (const [field, value, max] of [['cols', cols, 1000], ['rows', rows, 500]] as const) {
      if (!Number.isInteger(value) || value < 2 || value > max) {
        throw new CorralError('bad_request', `${field} must be a whole number from 2 to ${max}`, field);
      }
    }
    const row = this.rt.row(id);
    const launch = this.rt.launches.get(id);
    if (launch) launch.size = { cols, rows };
    if (isRunning(row.state)) await this.rt.backend.resize(id, cols, rows);
  }

  private noteInput(id: string, data: string): void {
    // A terminal's own replies (to queries, on focus) are neither typing nor activity.
    if (!isTyping(data)) return;
    // The person answered: whatever waited for them is theirs now.
    this.views.setNeeds(id, null);
    const launch = this.rt.launches.get(id);
    const now = this.rt.clock.now();
    if (launch) {
      launch.typed = true;
      launch.lastInputAt = now;
      if (data.includes('\r')) noteEnter(launch);
    }
    // Every keystroke counts as activity; the database hears of it at most once a second.
    if (launch && now - launch.savedActivityAt < 1_000) return;
    if (launch) launch.savedActivityAt = now;
    this.rt.store.updateSession(id, { lastActivityAt: now });
  }

  /**
   * Waits until the agent has shown what was typed (its screen changed, then held still for two
   * looks), at least SUBMIT_GAP_MS after the typing and at most SUBMIT_WAIT_MS after its first
   * change; while its screen has not changed at all, for `unchanged` ms (SUBMIT_WAIT_MS unless
   * told): Enter sooner would join the text in the agent's read, or in its paste window. Returns
   * the screen it last saw.
   */
  private async settled(id: string, before: string, unchanged = SUBMIT_WAIT_MS, typedAt = Date.now()): Promise<string> {
    let changedAt: number | null = null;
    let last = before;
    let still = 0;
    while (changedAt === null ? Date.now() - typedAt < unchanged : Date.now() - changedAt < SUBMIT_WAIT_MS) {
      await new Promise((resolve) => setTimeout(resolve, SUBMIT_LOOK_MS));
      const now = await this.rt.backend.visible(id).catch(() => null);
      if (now === null) return last;
      if (changedAt === null && now !== before) changedAt = Date.now();
      still = now !== before && now === last ? still + 1 : 0;
      last = now;
      if (still >= 2 && Date.now() - typedAt >= SUBMIT_GAP_MS) return last;
    }
    return last;
  }
}

function lostViewer(name: string): CorralError {
  return new CorralError('backend_failed', `the view of session "${name}" was cut while it runs on: connect again`);
}
