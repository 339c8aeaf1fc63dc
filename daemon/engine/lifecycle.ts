// The session lifecycle: the rules of docs/lifecycle.md, in its order. A start launches the
// resume form or the clean one (rule 1); a dead key is known by evidence, dropped, and the
// session starts clean by itself, once (rules 2, 3); a stop always wins (rule 4) and never
// drops a key (rule 5); a start is idempotent (rule 6); after a restart what is alive is
// reattached and nothing is launched (rule 7); archiving stops a session (rule 9). What each
// exit means is decided in resumePolicy.ts: here the facts are gathered and the decision acted on.
// Rule 8 (the idle reaper) is reaper.ts; rule 10 (keys a CLI picks itself) is learnedKeys.ts.
//
// Every change to a session here runs in that session's queue (rt.queue), one at a time: that
// is what makes a stop win (rule 4). Recovery alone runs outside it, before anything else can.

import fs from 'node:fs';
import { childEnv } from '../backends/childEnv';
import type { ProcessExit } from '../backends/backend';
import type { CliSpec } from '../catalogue/catalogue';
import { conversationExists } from '../catalogue/conversations';
import { sessionInDb } from '../catalogue/sessionsDb';
import { CorralError } from '../contract/errors';
import { isRunning, type ExitInfo, type LostConversation, type SessionView, type StartResult } from '../contract/session';
import type { SessionRow } from '../store/store';
import { Stages, timed } from '../util/stages';
import { checkFolder, notInstalled } from './checks';
import type { GitWatcher } from './gitWatcher';
import type { HookTokens } from './hookTokens';
import type { LearnedKeys } from './learnedKeys';
import { keyHint } from './publicEvent';
import { withoutEscapes } from '../backends/sgr';
import { redact, tailBytes } from './redact';
import { exitOutcome, planLaunch, probationLeft, probationMs } from './resumePolicy';
import { DEFAULT_SIZE, newLaunch, UNKNOWN_COLORS, type Launch, type Runtime } from './runtime';
import { setupArgv } from './worktreeSessions';
import type { Views } from './views';

export const RECEIPT_MAX_BYTES = 64 * 1024;
/** A start (or a create) slower than this says in the log which stage held it. */
export const SLOW_START_MS = 3_000;

export class Lifecycle {
  constructor(
    private readonly rt: Runtime,
    private readonly views: Views,
    private readonly keys: LearnedKeys,
    private readonly hooks: HookTokens,
    private readonly git: GitWatcher,
  ) {}

  // ---- Rule 1 (and 6): a start -------------------------------------------------------------

  /** `stages`: a create's, which times the start as part of it; otherwise the start is timed on its own. */
  async start(id: string, stages?: Stages): Promise<StartResult> {
    if (!stages) return timed(`the start of session ${id}`, SLOW_START_MS, (own) => this.start(id, own));
    this.rt.row(id);
    stages.enter('queue');
    return this.rt.queue.run(id, async () => {
      stages.enter('checks');
      const row = this.rt.row(id);
      // Rule 6: a start of a session that is up returns it as it is.
      if (isRunning(row.state) && (await this.rt.backend.isAlive(id))) {
        return { resumed: row.launchMode === 'resume', session: this.views.view(row) };
      }
      const cli = this.rt.cli(row.cli, 'cli');
      if (row.worktree && !fs.existsSync(row.worktree.path)) {
        throw new CorralError('cwd_missing', `the worktree of session "${row.name}" (${row.worktree.path}) was deleted: remove the session (its branch ${row.worktree.branch} stays)`, 'cwd');
      }
      checkFolder(row.cwd, this.rt.userHome);
      // Rule 9: starting an archived session (e.g. from a corral:// link) brings it back first.
      if (row.archivedAt !== null) this.restore(row);
      const lost = await this.launch(this.rt.row(id), cli, false, stages);
      const after = this.rt.row(id);
      return { resumed: after.launchMode === 'resume', session: this.views.view(after), ...(lost ? { lost } : {}) };
    });
  }

  /**
   * Starts a process for the session: the resume form when there is a key, else the clean one.
   * Runs inside the session's queue. Returns the conversation it found gone before launching, if it did.
   */
  private async launch(row: SessionRow, cli: CliSpec, fallback: boolean, stages = new Stages()): Promise<LostConversation | undefined> {
    if (!cli.path) throw notInstalled(cli);
    let plan = planLaunch(row, cli, { fallback });
    const env = childEnv(this.rt.env, cli.env);
    if (plan.mode === 'resume') stages.enter('conversation check');
    const kept = plan.mode === 'resume' ? await this.conversationKept(cli, plan.key!, env) : null;
    let lost: LostConversation | undefined;
    if (kept === false) {
      // Rule 2, first evidence: the conversation is not where the CLI keeps it. No doomed launch.
      lost = { keyHint: keyHint(plan.key!), why: this.loseKey(row, cli, 'missing', 'starting clean') };
      row = this.rt.row(row.id);
      plan = planLaunch(row, cli, { fallback: true });
    }
    const now = this.rt.clock.now();
    const size = this.rt.launches.get(row.id)?.size ?? DEFAULT_SIZE;
    this.rt.clearLaunch(row.id);
    const state = plan.mode === 'resume' ? 'resuming' : 'starting';
    this.rt.needs.delete(row.id);
    // Counted before the spawn, with its key: a daemon killed while the process starts leaves a
    // session that was launched, which a restart reattaches or finds gone, never one to delete.
    this.rt.store.updateSession(row.id, { state, launchMode: plan.mode, launchedAt: now, launchCount: row.launchCount + 1, resumeKey: plan.key, startedAt: now });
    this.views.emitView('updated', this.rt.row(row.id));
    let pid: number | null;
    // The colours the agent is made with are its launch's, though a viewer changes the ones for
    // new agents while it starts: its viewer in use then knows to give it its own.
    const colors = this.rt.colors;
    stages.enter('spawn');
    try {
      // A worktree not set up yet runs its repository's setup command first, in this terminal.
      const run = setupArgv(row, plan.file, plan.args);
      const spawned = this.rt.backend.spawn({ id: row.id, ...run, cwd: row.cwd, env: { ...env, ...this.hooks.envFor(row.id) }, ...size, colors, stages });
      this.rt.spawning.set(row.id, spawned.catch(() => {}));
      ({ pid } = await spawned.finally(() => this.rt.spawning.delete(row.id)));
    } catch (err) {
      // The key stays as it was, and the count: nothing ran, so nothing was learned about it.
      this.rt.store.updateSession(row.id, { state: 'stopped', resumeKey: row.resumeKey, launchCount: row.launchCount });
      const message = `could not start ${cli.label}: ${(err as Error).message}`;
      this.views.record(row.id, 'start-failed', message, { argv: [plan.file, ...plan.args] });
      throw new CorralError('spawn_failed', message);
    }
    stages.enter('save launch');
    // The process runs from here: the grace window counts from now, not from before the spawn.
    const launch = newLaunch(now, this.rt.clock.now(), pid, size, colors, now);
    // A resume goes on in the conversation of its key: no file can teach it another.
    if (plan.mode === 'resume') launch.keyFileFound = true;
    this.rt.launches.set(row.id, launch);
    // A process just started is busy starting: working, until the watcher sees it quiet.
    this.rt.working.add(row.id);
    this.rt.workingSeenAt.set(row.id, this.rt.clock.now());
    this.rt.store.updateSession(row.id, { lastActivityAt: now });
    const argv = [plan.file, ...plan.args];
    if (plan.mode === 'resume') this.views.record(row.id, 'resuming', 'resuming its conversation', { argv });
    else if (plan.mode === 'fresh') this.views.record(row.id, 'started', 'started clean', { argv });
    else this.views.record(row.id, 'started', 'started clean after the old conversation could not be resumed', { argv, fallback: true });

    if (plan.mode === 'fresh') {
      this.rt.store.updateSession(row.id, { state: 'running' });
      this.views.emitView('updated', this.rt.row(row.id));
      return lost;
    }
    this.probation(row.id, launch, probationMs(plan.mode, this.rt.graceMs(cli), cli, kept));
    return lost;
  }

  /**
   * A resume (or the clean start after one) is on probation for the grace window, and longer
   * while a prompt waits for the person or they just answered one: a CLI says a key is dead only
   * after its prompts are answered. Then it has held: `running` (a resume says `resumed`).
   */
  private probation(id: string, launch: Launch, ms: number): void {
    const end = () => {
      void this.rt.queue.run(id, async () => {
        const current = this.rt.store.getSession(id);
        if (!current || this.rt.launches.get(id) !== launch || (current.state !== 'resuming' && current.state !== 'starting')) return;
        const left = probationLeft({ needsYou: this.rt.needs.has(id), quietForMs: this.rt.clock.now() - launch.lastInputAt, probationMs: ms });
        if (left !== null) {
          launch.graceTimer = setTimeout(end, left);
          launch.graceTimer.unref?.();
          return;
        }
        this.rt.store.updateSession(id, { state: 'running' });
        if (current.state === 'resuming') this.views.record(id, 'resumed', 'resumed its conversation');
        else this.views.emitView('updated', this.rt.row(id));
      });
    };
    launch.graceTimer = setTimeout(end, ms);
    launch.graceTimer.unref?.();
  }

  // ---- Rule 2: a dead key, known by evidence -------------------------------------------------

  /** Whether the CLI still keeps the conversation of `key`, where the catalogue says it looks (null: cannot tell). */
  private async conversationKept(cli: CliSpec, key: string, env: Record<string, string>): Promise<boolean | null> {
    if (cli.conversation) return conversationExists(cli.conversation, key, env);
    if (!cli.sessionsDb) return null;
    try {
      return sessionInDb(cli.sessionsDb, key, env);
    } catch (err) {
      console.error(`corral: could not read ${cli.label}'s sessions (${(err as Error).message}); resuming anyway`);
      return null;
    }
  }

  /** Drops a dead key, keeping it in the log (the event says which conversation was lost). Returns why. */
  private loseKey(row: SessionRow, cli: CliSpec, evidence: 'missing' | 'words' | 'timing', next: string, exit?: { info: ExitInfo; output: string }): string {
    const why =
      evidence === 'missing'
        ? `it is not in ${cli.label}'s files`
        : evidence === 'words'
          ? `${cli.label} could not find it, and ${describeExit(exit!.info)}`
          : `${describeExit(exit!.info)} at once, with nothing typed`;
    this.rt.store.updateSession(row.id, exit ? { resumeKey: null, lastExit: exit.info } : { resumeKey: null });
    this.views.record(row.id, 'resume-failed', `could not resume the conversation (${why}): ${next}`, {
      droppedKey: row.resumeKey,
      evidence,
      ...(exit ? { ...exit.info, output: tailBytes(exit.output, 2048) } : {}),
    });
    return why;
  }

  // ---- Rules 2 to 5: an exit ---------------------------------------------------------------

  /** A process ended by itself (the backend saw it go): gathers the facts, asks the policy, acts. */
  onExit(id: string, exit: ProcessExit): Promise<void> {
    return this.rt.queue.run(id, async () => {
      const row = this.rt.store.getSession(id);
      // A removal got here first: this exit is no longer news.
      if (!row) return;
      const exitInfo: ExitInfo = { code: exit.code, signal: exit.signal, at: exit.at };
      const { output, styled } = receiptOutput(exit);
      const launch = this.rt.launches.get(id);
      const cli = this.rt.catalogue.clis.get(row.cli);
      const outcome = exitOutcome(
        {
          running: isRunning(row.state),
          launchPid: launch?.pid ?? null,
          exitPid: exit.pid,
          orphaned: exit.orphaned !== undefined,
          endedFromOutside: !!exit.ended,
          mode: row.launchMode,
          key: row.resumeKey,
          code: exit.code,
          output: exit.output,
          // A launch reattached may have been typed into before: unknown counts as typed, so
          // a quick exit after a restart never drops a key by its timing alone.
          typed: !!launch?.typed || !!launch?.reattached,
          livedMs: Math.max(0, exit.at - (launch?.startedAt ?? row.launchedAt ?? 0)),
          graceMs: cli ? this.rt.graceMs(cli) : 0,
          whileAway: exit.whileAway,
        },
        cli,
      );
      if (outcome.kind === 'old-news') {
        // Rule 4: a stop or a newer launch got here first: keep what the old process left, change nothing.
        this.rt.store.addReceipt({ sessionId: id, usage: this.rt.usage.get(id) ?? null, exit: exitInfo, reason: 'exited', output, styled });
        return;
      }
      this.rt.clearLaunch(id);
      if (outcome.kind === 'found-gone') {
        // Rule 7: a crashed daemon's pty agent, ended on the way back: stopped with its key, like one found gone.
        this.rt.store.addReceipt({ sessionId: id, usage: this.rt.usage.get(id) ?? null, exit: exitInfo, reason: 'found-gone', output, styled });
        this.rt.store.updateSession(id, { state: 'stopped' });
        this.views.record(id, 'found-gone', 'it was still running after Corral crashed, with no terminal to show it: it was ended, and start resumes it', {
          resumable: !!row.resumeKey,
          endedPids: exit.orphaned,
        });
        return;
      }
      this.keys.learnFromExit(row, cli, exit.output);

      if (outcome.kind === 'dead-key') {
        // Rule 2: the key is dead. Drop it (keeping it in the log) and start clean, once; after a
        // restart nothing is launched on its own (rule 7): the next start is clean.
        this.rt.store.addReceipt({ sessionId: id, usage: this.rt.usage.get(id) ?? null, exit: exitInfo, reason: 'resume-failed', output, styled });
        if (!outcome.startClean) {
          this.rt.store.updateSession(id, { state: 'exited' });
          this.loseKey(this.rt.row(id), cli!, outcome.evidence, 'the next start is clean', { info: exitInfo, output });
          return;
        }
        this.loseKey(this.rt.row(id), cli!, outcome.evidence, 'starting clean', { info: exitInfo, output });
        try {
          await this.launch(this.rt.row(id), cli!, true);
        } catch {
          // launch() recorded why; the session is stopped.
        }
        return;
      }
      if (outcome.kind === 'fallback-failed') {
        // Rule 3: the clean start died too: stop here, no loop. Its id never held a conversation.
        this.rt.store.addReceipt({ sessionId: id, usage: this.rt.usage.get(id) ?? null, exit: exitInfo, reason: 'fallback-failed', output, styled });
        const current = this.rt.row(id);
        this.rt.store.updateSession(id, { state: 'exited', lastExit: exitInfo, resumeKey: null });
        this.views.record(id, 'fallback-failed', `the clean start failed too (${describeExit(exitInfo)}): not trying again`, {
          ...exitInfo,
          droppedKey: current.resumeKey,
          output: tailBytes(output, 2048),
        });
        return;
      }
      // Rule 5: an exit like any other; the key stays.
      this.rt.store.addReceipt({ sessionId: id, usage: this.rt.usage.get(id) ?? null, exit: exitInfo, reason: 'exited', output, styled });
      this.rt.store.updateSession(id, { state: 'exited', lastExit: exitInfo });
      // An exit nobody asked for is worth a look.
      const how = exit.ended ?? describeExit(exitInfo);
      const words = exit.whileAway ? `${how} while Corral was not running` : how;
      this.rt.needs.set(id, { source: 'exit', since: this.rt.clock.now(), detail: how });
      this.views.record(id, 'exited', words, { ...exitInfo, whileAway: exit.whileAway, ...(exit.ended ? { ended: exit.ended } : {}) });
    });
  }

  // ---- Rules 4 and 5: a stop always wins, and keeps the key ---------------------------------

  async stop(id: string): Promise<SessionView> {
    this.rt.row(id);
    return this.rt.queue.run(id, async () => {
      const row = this.rt.row(id);
      if (isRunning(row.state)) await this.end(row, 'stopped', 'stopped by you');
      return this.views.view(this.rt.row(id));
    });
  }

  /** Ends a running process on the daemon's or the person's behalf. The key always stays. Runs inside the session's queue. */
  async end(row: SessionRow, reason: 'stopped' | 'reaped' | 'daemon-stopped', words: string): Promise<void> {
    this.rt.clearLaunch(row.id);
    this.rt.needs.delete(row.id);
    const exit = await this.rt.backend.kill(row.id);
    const at = exit?.at ?? this.rt.clock.now();
    const exitInfo: ExitInfo = { code: exit?.code ?? null, signal: exit?.signal ?? null, at };
    if (exit) this.keys.learnFromExit(row, this.rt.catalogue.clis.get(row.cli), exit.output);
    // That it stopped is saved first: a receipt that cannot be (a full disk) leaves no session
    // shown running without a process.
    this.rt.store.updateSession(row.id, { state: 'stopped', lastExit: exitInfo });
    if (exit) {
      try {
        this.rt.store.addReceipt({ sessionId: row.id, usage: this.rt.usage.get(row.id) ?? null, exit: exitInfo, reason, ...receiptOutput(exit) });
      } catch (err) {
        console.error(`corral: the last output of session ${row.id} could not be saved: ${(err as Error).message}`);
      }
    }
    this.views.record(row.id, reason === 'reaped' ? 'reaped' : 'stopped', words, { reason });
  }

  // ---- Rule 7: after a restart or a crash ----------------------------------------------------

  /** Reattaches what is alive and marks the rest stopped, keys kept. Nothing is launched. */
  async recover(): Promise<void> {
    const away: [string, ProcessExit][] = [];
    await this.rt.backend.open((id, exit) => {
      if (exit.whileAway) away.push([id, exit]);
      else void this.onExit(id, exit);
    });
    for (const [id, exit] of away) await this.onExit(id, exit);
    const alive = new Map((await this.rt.backend.list()).map((p) => [p.id, p]));
    const now = this.rt.clock.now();
    this.rt.store.expireReceipts(now);
    for (const row of this.rt.store.listSessions()) {
      const proc = alive.get(row.id);
      if (!proc && row.launchCount === 0 && row.launchedAt === null) {
        // Created, never launched: a create cut short by a crash. It leaves nothing behind.
        this.rt.store.deleteSession(row.id);
        continue;
      }
      // Launched by a daemon that died before it counted the launch (an older Corral counted it
      // after the spawn): a launch all the same.
      if (row.launchCount === 0 && (proc || row.launchedAt !== null)) this.rt.store.updateSession(row.id, { launchCount: 1 });
      if (proc) {
        // Its colours are what a viewer of the last daemon set, unknown here: the next viewer in use sets its own.
        const launch = newLaunch(row.launchedAt ?? now, row.launchedAt ?? now, proc.pid, DEFAULT_SIZE, UNKNOWN_COLORS, 0);
        // What was typed before this daemon is not known: a file made since the launch may be its.
        if (row.launchMode === 'resume') launch.keyFileFound = true;
        else launch.enters.push(launch.launchedAt);
        // Nor whether it was seen ready: it has run for a while, most likely.
        launch.seenReady = true;
        launch.reattached = true;
        this.rt.launches.set(row.id, launch);
        this.rt.store.updateSession(row.id, { state: 'running', lastActivityAt: proc.lastActivityAt ?? row.lastActivityAt });
        this.views.record(row.id, 'reattached', 'reattached after Corral restarted', { pid: proc.pid });
      } else if (isRunning(row.state)) {
        // This run's receipt, with no output (none was kept): what an earlier run left is never shown as its.
        this.rt.store.addReceipt({ sessionId: row.id, usage: null, exit: { code: null, signal: null, at: now }, reason: 'found-gone', output: '' });
        this.rt.store.updateSession(row.id, { state: 'stopped' });
        this.views.record(row.id, 'found-gone', 'its process was gone when Corral came back', { resumable: !!row.resumeKey });
      } else if (row.state === 'exited' && row.lastExit && !this.rt.needs.has(row.id)) {
        // An exit nobody asked for is worth a look after a restart too, until it is started or stopped.
        this.rt.needs.set(row.id, { source: 'exit', since: row.lastExit.at, detail: describeExit(row.lastExit) });
      }
    }
  }

  // ---- Rule 9: archive is not a state --------------------------------------------------------

  /** Stops it if it runs (its key stays) and takes it out of the tab strip. Runs inside the session's queue. */
  async archive(row: SessionRow): Promise<void> {
    if (isRunning(row.state)) await this.end(row, 'stopped', 'stopped to be archived');
    this.rt.store.updateSession(row.id, { archivedAt: this.rt.clock.now() });
    this.views.record(row.id, 'archived', 'archived: out of the tab strip, with its conversation, events and receipts kept');
  }

  /** Brings it back to the tab strip, as it was. Runs inside the session's queue. */
  restore(row: SessionRow): void {
    this.rt.store.updateSession(row.id, { archivedAt: null });
    this.views.record(row.id, 'restored', 'restored to the tab strip');
    this.git.askAgain(row.cwd);
  }
}

/**
 * A receipt's output: the tail of what the process left, secrets redacted; and the same with its
 * colours, redacted as the text is, kept only when, its colours taken away, it reads as the
 * redacted text does (a secret its colours split would otherwise escape the redaction), and cut
 * to its last whole lines.
 */
function receiptOutput(exit: Pick<ProcessExit, 'output' | 'styled'>): { output: string; styled: string | null } {
  const text = redact(exit.output);
  const output = tailBytes(text, RECEIPT_MAX_BYTES);
  if (!exit.styled) return { output, styled: null };
  const styled = redact(exit.styled);
  const lines = (all: string) => all.split('\n').map((line) => line.trimEnd()).join('\n').trimEnd();
  if (lines(withoutEscapes(styled)) !== lines(text)) return { output, styled: null };
  const tail = tailBytes(styled, RECEIPT_MAX_BYTES);
  return { output, styled: tail.length === styled.length ? tail : tail.slice(tail.indexOf('\n') + 1) };
}

export function describeExit(exit: ExitInfo): string {
  if (exit.signal) return `ended by ${exit.signal}`;
  return exit.code === null ? 'ended' : `exited with code ${exit.code}`;
}
