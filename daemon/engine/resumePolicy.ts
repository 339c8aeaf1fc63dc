// The resume policy (docs/lifecycle.md, rules 1-5): what to run for a start (the resume form
// when there is a key, else the clean form), how long a launch is on probation, and what an
// exit of that launch means. Pure policy, no I/O: the lifecycle gathers the facts, asks here,
// and acts; a backend runs what it decides.

import crypto from 'node:crypto';
import { expandTemplate, usesPlaceholder, type CliSpec } from '../catalogue/catalogue';
import type { LaunchMode, SessionRow } from '../store/store';

export interface LaunchPlan {
  mode: LaunchMode;
  file: string;
  args: string[];
  /** The resume key to store as the process starts (null: none yet, or learned later). */
  key: string | null;
  /** The id handed to the CLI for a new conversation, when its args take one. */
  handedId: string | null;
}

export interface PlanOptions {
  /** A clean start after a dead resume. */
  fallback?: boolean;
  newId?: () => string;
}

export function planLaunch(row: SessionRow, cli: CliSpec, options: PlanOptions = {}): LaunchPlan {
  if (!cli.path) throw new Error(`planLaunch: ${cli.name} is not installed`);
  const base = { id: row.id, name: row.name, cwd: row.cwd };
  if (!options.fallback && cli.resume && row.resumeKey) {
    return {
      mode: 'resume',
      file: cli.path,
      args: expandTemplate(cli.resume, { ...base, cli_session_id: row.resumeKey }),
      key: row.resumeKey,
      handedId: null,
    };
  }
  // The session's own id goes to the CLI once. Any later clean start hands it a new one: a
  // CLI may refuse an id whose old transcript still exists ("Session ID … is already in use").
  const takesId = usesPlaceholder(cli.args, 'id');
  const handedId = takesId ? (row.launchCount === 0 ? row.id : (options.newId ?? crypto.randomUUID)()) : null;
  const args = expandTemplate(cli.args, { ...base, id: handedId ?? row.id });
  let key: string | null = null;
  if (cli.resume) {
    if (usesPlaceholder(cli.resume, 'cli_session_id')) key = takesId ? handedId : null;
    // A resume form without a key (Aider replays its history file): any earlier run counts.
    else key = handedId ?? row.id;
  }
  return { mode: options.fallback ? 'fallback' : 'fresh', file: cli.path, args, key, handedId };
}

/** The grace window of a CLI's launches: the engine's override, else the CLI's, else the catalogue's default. */
export function graceMs(cli: Pick<CliSpec, 'resumeGraceMs'>, defaultMs: number, overrideMs?: number): number {
  return overrideMs ?? cli.resumeGraceMs ?? defaultMs;
}

/**
 * How long a resume (or the clean start after one) is on probation before it has held: the
 * grace window. A resume whose conversation was not seen in the CLI's files (`kept`: true seen,
 * false missing, null could not tell) waits twice as long when its CLI has dead-key words: they
 * may come late on a busy machine. A fresh start has no probation.
 */
export function probationMs(mode: 'resume' | 'fallback', graceMs: number, cli: Pick<CliSpec, 'deadKey'>, kept: boolean | null): number {
  return graceMs * (mode === 'resume' && cli.deadKey && kept !== true ? 2 : 1);
}

/**
 * Whether a probation ends now (null: it has held), else how much longer it runs: a CLI says a
 * key is dead only after its prompts are answered, so while a prompt waits for the person it
 * runs a whole window more, and after they typed until they have been quiet for one.
 */
export function probationLeft(facts: { needsYou: boolean; quietForMs: number; probationMs: number }): number | null {
  if (facts.needsYou) return facts.probationMs;
  if (facts.quietForMs < facts.probationMs) return facts.probationMs - facts.quietForMs;
  return null;
}

/** What an exit of a launch means for its session. */
export type ExitVerdict =
  /** The resume key is dead: drop it, say which conversation was lost, start clean once. */
  | { kind: 'dead-key'; evidence: 'words' | 'timing' }
  /** The clean start after a dead key died too: stop there, no loop. */
  | { kind: 'fallback-failed' }
  /** An exit like any other: the key (if any) stays. */
  | { kind: 'exited' };

export interface ExitFacts {
  mode: LaunchMode | null;
  /** The key this launch resumed (the stored key at launch). */
  key: string | null;
  code: number | null;
  /** The output it left, as plain text. */
  output: string;
  /** The person typed since the launch: an early exit is then theirs. */
  typed: boolean;
  /** From when the process really started to its end. */
  livedMs: number;
  graceMs: number;
  /** It ended while no engine watched. */
  whileAway: boolean;
}

/** How far from the end of a resumed run's output the CLI's dead-key words count. */
export const DEAD_KEY_TAIL_LINES = 40;

/**
 * Rule 2's evidence, after the launch: the CLI's own dead-key words at the end of a resumed run
 * that failed, however late they came and whatever was typed before; else, only for a CLI that
 * has no words and no conversation check, an exit inside the grace window with nothing typed.
 */
export function judgeExit(facts: ExitFacts, cli: Pick<CliSpec, 'deadKey' | 'conversation' | 'sessionsDb'>): ExitVerdict {
  const quick = !facts.whileAway && !facts.typed && facts.livedMs < facts.graceMs;
  if (facts.mode === 'resume') {
    if (cli.deadKey && facts.key && facts.code !== 0 && saysKeyIsDead(cli.deadKey, facts.key, facts.output)) {
      return { kind: 'dead-key', evidence: 'words' };
    }
    if (!cli.deadKey && !cli.conversation && !cli.sessionsDb && quick) return { kind: 'dead-key', evidence: 'timing' };
    return { kind: 'exited' };
  }
  if (facts.mode === 'fallback' && quick) return { kind: 'fallback-failed' };
  return { kind: 'exited' };
}

/** Whether the CLI's dead-key words for this key are among the last lines of its output. */
export function saysKeyIsDead(deadKey: string, key: string, output: string): boolean {
  const pattern = new RegExp(deadKey.replaceAll('{cli_session_id}', escapeRegExp(key)), 'm');
  const tail = output.replace(/\s+$/, '').split('\n').slice(-DEAD_KEY_TAIL_LINES).join('\n');
  return pattern.test(tail);
}

/** What the lifecycle knows when a process ends: the session, its launch, and the exit. */
export interface ExitReport extends ExitFacts {
  /** The session is in one of the running states. */
  running: boolean;
  /** The process of the launch the engine watches, and the one that ended (null: not told). */
  launchPid: number | null;
  exitPid: number | null;
  /** A crashed engine's pty agent, found running and ended on the way back. */
  orphaned: boolean;
  /** Ended from outside (its tmux server or session killed), as the backend says. */
  endedFromOutside: boolean;
}

/** What the lifecycle does about an exit. */
export type ExitOutcome =
  /** A stop, or a newer launch, got here first: keep what the old process left, change nothing. */
  | { kind: 'old-news' }
  /** A crashed engine's pty agent, ended on the way back: stopped with its key, like one found gone. */
  | { kind: 'found-gone' }
  /** The key is dead: drop it and start clean, once; after a restart nothing is launched (startClean false). */
  | { kind: 'dead-key'; evidence: 'words' | 'timing'; startClean: boolean }
  /** The clean start after a dead key died too: stop there, no loop. */
  | { kind: 'fallback-failed' }
  /** An exit like any other: the key (if any) stays. */
  | { kind: 'exited' };

/**
 * Rules 2-5 and 7 for one exit. A stop always wins (rule 4): an exit of a session that is no
 * longer running, or of an older launch, changes nothing. Only a dead key is dropped (rule 5):
 * an exit from outside, or of a CLI the catalogue no longer has, is an exit like any other.
 */
export function exitOutcome(report: ExitReport, cli: Pick<CliSpec, 'deadKey' | 'conversation' | 'sessionsDb'> | undefined): ExitOutcome {
  if (!report.running || (!!report.launchPid && !!report.exitPid && report.launchPid !== report.exitPid)) return { kind: 'old-news' };
  if (report.orphaned) return { kind: 'found-gone' };
  if (!cli || report.endedFromOutside) return { kind: 'exited' };
  const verdict = judgeExit(report, cli);
  // Rule 7: a resume that died while no engine watched loses its key, but nothing is launched on its own.
  if (verdict.kind === 'dead-key') return { ...verdict, startClean: !report.whileAway };
  return verdict;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
