// Learned keys (docs/lifecycle.md, rule 10): the resume keys a CLI picks itself (Codex), found
// in what it prints or in a file it writes, and kept the moment they show, while it runs; and
// once more from what it left when it ends. To learn a key is to find it and keep it; to keep
// one is to store it and say so (`key-learned`), unless it is the key already stored. While it
// runs, each look searches only the lines it had not seen (unseenLines.ts), and none once this
// launch's key has shown.

import { childEnv } from '../backends/childEnv';
import type { CliSpec } from '../catalogue/catalogue';
import { findKeyInFiles } from '../catalogue/keyFiles';
import { findKeyInDb } from '../catalogue/sessionsDb';
import type { SessionRow } from '../store/store';
import type { Runtime } from './runtime';
import { unseenLines } from './unseenLines';
import type { Views } from './views';

/** How often a session that learns its key from files looks for them. */
const KEY_FILE_LOOK_MS = 2_000;
/**
 * How much before the Enter that made it a conversation may say it was made: a file's time comes
 * from the kernel's coarse clock (a few ms behind), or is whole seconds on some filesystems.
 */
function bornSlack(born: number): number {
  return Number.isInteger(born / 1000) ? 1_000 : 20;
}
/** How much recent output is searched for a key the CLI prints. */
const KEY_OUTPUT_LINES = 500;
/** Lines searched again before the new ones: a key split across a line end is still whole. */
const KEY_OUTPUT_OVERLAP = 2;

type Source = 'output' | 'file';

export class LearnedKeys {
  constructor(
    private readonly rt: Runtime,
    private readonly views: Views,
  ) {}

  /**
   * While the session runs (the screen watcher asks each time it looks): its recent output, if
   * it printed since the last look, and the files its CLI writes.
   */
  async learnWhileRunning(row: SessionRow, cli: CliSpec, printed: boolean): Promise<void> {
    if (cli.resume && cli.keyFromOutput && printed) await this.lookInOutput(row, cli.keyFromOutput);
    if (cli.resume && (cli.keyFromFile || cli.sessionsDb)) await this.lookInFiles(row, cli);
  }

  /** What a process left, looked at once more for the key its CLI prints. Runs in the session's queue. */
  learnFromExit(row: SessionRow, cli: CliSpec | undefined, output: string): void {
    if (!cli?.keyFromOutput || !cli.resume) return;
    const found = lastMatch(cli.keyFromOutput, output);
    if (found) this.keep(row.id, found, 'output');
  }

  /** Looks (while it prints, until found) for the key in the lines printed since the last look. */
  private async lookInOutput(row: SessionRow, pattern: RegExp): Promise<void> {
    const launch = this.rt.launches.get(row.id);
    if (launch?.keyOutputFound) return;
    const output = await this.rt.backend.capture(row.id, KEY_OUTPUT_LINES).catch(() => null);
    if (output === null) return;
    const lines = output.split('\n');
    const unseen = launch ? unseenLines(launch.keyOutputSeen, lines, launch.size.rows, KEY_OUTPUT_OVERLAP) : lines;
    if (launch) launch.keyOutputSeen = lines;
    const key = lastMatch(pattern, unseen.join('\n'));
    if (!key) return;
    if (launch) launch.keyOutputFound = true;
    await this.keepForThisLaunch(row.id, key, 'output');
  }

  /**
   * Looks (every few seconds, once a message was submitted, until found) for the file a CLI
   * wrote its session id in. Sessions of the same CLI in the same folder write theirs in the same
   * place: a conversation is this session's only if it submitted a message before it was made,
   * and none of the others still looking submitted one later (and before it was made) than this
   * one did. A resume never looks: it goes on in its key's conversation.
   */
  private async lookInFiles(row: SessionRow, cli: CliSpec): Promise<void> {
    const launch = this.rt.launches.get(row.id);
    const now = this.rt.clock.now();
    if (!launch || launch.keyFileFound || launch.enters.length === 0 || now - launch.keyFileLookAt < KEY_FILE_LOOK_MS) return;
    launch.keyFileLookAt = now;
    const rows = this.rt.store.listSessions();
    const taken = new Set(rows.flatMap((r) => (r.id !== row.id && r.resumeKey ? [r.resumeKey] : [])));
    const beside = rows.flatMap((r) => {
      const other = r.id !== row.id && r.cli === row.cli && r.cwd === row.cwd ? this.rt.launches.get(r.id) : undefined;
      return other && !other.keyFileFound && other.enters.length > 0 ? [other.enters] : [];
    });
    const owns = (born: number) => {
      const made = born + bornSlack(born);
      const mine = lastBefore(launch.enters, made);
      return mine !== null && !beside.some((enters) => (lastBefore(enters, made) ?? -Infinity) > mine);
    };
    const env = childEnv(this.rt.env, cli.env);
    const search = { cwd: row.cwd, env, since: launch.launchedAt, taken, owns };
    const key = await (cli.keyFromFile ? findKeyInFiles(cli.keyFromFile, search) : Promise.resolve().then(() => findKeyInDb(cli.sessionsDb!, search))).catch(() => null);
    if (!key || this.rt.launches.get(row.id) !== launch) return;
    launch.keyFileFound = true;
    await this.keepForThisLaunch(row.id, key, 'file');
  }

  /** Keeps a key a running CLI showed, unless a newer launch or a stop got there first. */
  private keepForThisLaunch(id: string, key: string, from: Source): Promise<void> {
    const launch = this.rt.launches.get(id);
    return this.rt.queue.run(id, async () => {
      if (launch && this.rt.launches.get(id) === launch) this.keep(id, key, from);
    });
  }

  /** Stores a learned key, and says so, unless it is the one already stored. */
  private keep(id: string, key: string, from: Source): void {
    const current = this.rt.store.getSession(id);
    if (!current || current.resumeKey === key) return;
    this.rt.store.updateSession(id, { resumeKey: key });
    this.views.record(id, 'key-learned', 'learned the conversation to resume', { key, from });
  }
}

/** The latest of `times` (oldest first) at or before `at`, or null. */
function lastBefore(times: readonly number[], at: number): number | null {
  for (let i = times.length - 1; i >= 0; i--) if (times[i]! <= at) return times[i]!;
  return null;
}

/** The first group of the pattern's last match in the text, or null. */
function lastMatch(pattern: RegExp, text: string): string | null {
  const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  let found: string | null = null;
  for (const match of text.matchAll(global)) if (match[1]) found = match[1];
  return found;
}
