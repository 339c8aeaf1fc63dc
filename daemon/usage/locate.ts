// Where each CLI keeps a conversation's transcript, found by its resume key. Every file named
// here is that key's own, so two sessions in one folder never read each other's usage:
// Claude Code and Codex put the whole key in the file name; Gemini CLI puts its first 8
// characters there, and the reader checks the sessionId inside (transcripts.ts).

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { glob } from '../util/glob';
import type { UsageCli } from './transcripts';

export interface Roots {
  claude: string;
  codex: string;
  gemini: string;
}

/** The CLIs' folders as they resolve them: $CLAUDE_CONFIG_DIR, $CODEX_HOME, $GEMINI_CLI_HOME. */
export function rootsFrom(env: Record<string, string | undefined>, home = os.homedir()): Roots {
  return {
    claude: path.resolve(env.CLAUDE_CONFIG_DIR || path.join(home, '.claude')),
    codex: path.resolve(env.CODEX_HOME || path.join(home, '.codex')),
    gemini: path.join(path.resolve(env.GEMINI_CLI_HOME || home), '.gemini'),
  };
}

/** Claude Code's folder name for a project: every character outside [a-zA-Z0-9] becomes "-". */
export function claudeProjectDir(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

const SAFE_KEY = /^[A-Za-z0-9_-]{6,128}$/;

/**
 * The transcript files of one conversation, those that exist now. Claude Code keeps a
 * subagent's calls in files of their own under the conversation's folder; they are its usage too.
 * `wide`: when the file is not where the session's folder and start say, look in every
 * project or day folder (a directory listing each: the caller says how often).
 */
export async function findTranscripts(cli: UsageCli, key: string, cwd: string, roots: Roots, startedAt: number | null, wide: boolean): Promise<string[]> {
  if (!SAFE_KEY.test(key)) return [];
  if (cli === 'claude') {
    const direct = path.join(roots.claude, 'projects', claudeProjectDir(cwd), `${key}.jsonl`);
    // A long folder name is cut and hashed by Claude Code: then the key alone finds it.
    const main = (await exists(direct)) ? [direct] : wide ? await glob(`projects/*/${key}.jsonl`, { cwd: roots.claude, absolute: true }) : [];
    const subagents = main.length ? await glob('*.jsonl', { cwd: path.join(path.dirname(main[0]!), key, 'subagents'), absolute: true }) : [];
    return [...main, ...subagents.sort()];
  }
  if (cli === 'codex') {
    // Its folder is the day the conversation began: look there first, then everywhere.
    for (const day of startedAt === null ? [] : nearDays(startedAt)) {
      const found = await glob(`rollout-*-${key}.jsonl`, { cwd: path.join(roots.codex, 'sessions', day), absolute: true });
      if (found.length) return found;
    }
    return wide ? glob(`sessions/*/*/*/rollout-*-${key}.jsonl`, { cwd: roots.codex, absolute: true }) : [];
  }
  const found = await glob(`tmp/*/chats/session-*-${key.slice(0, 8)}.{jsonl,json}`, { cwd: roots.gemini, absolute: true });
  return found.sort();
}

/** The day before, of and after a time, as YYYY/MM/DD in local time (Codex's folders). */
function nearDays(at: number): string[] {
  return [-1, 0, 1].map((d) => {
    const t = new Date(at + d * 86_400_000);
    return `${t.getFullYear()}/${String(t.getMonth() + 1).padStart(2, '0')}/${String(t.getDate()).padStart(2, '0')}`;
  });
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}
