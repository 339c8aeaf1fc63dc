// Whether a CLI still keeps the conversation a resume key points to, looked up in its own files
// before a resume is launched: a key with no conversation is dead, and a doomed resume (which
// real CLIs take 5-12 s to give up on) is never started.

import fs from 'node:fs/promises';
import path from 'node:path';
import { glob } from '../util/glob';
import { expandPath, splitGlob } from './keyFiles';

/**
 * true: a file of the conversation exists; false: none does, in a folder that is there; null: it
 * cannot be told (the folder the template starts from is not there at all, which says more
 * about the template or the disk than about the conversation: a CLI that moved its files, a home
 * not mounted yet; a key a glob would read as a pattern; a template that is not absolute; an
 * error). Only false is evidence: whatever is uncertain lets the resume run and be judged by
 * what it prints, because dropping a live key loses a conversation.
 */
export async function conversationExists(template: string, key: string, env: Record<string, string | undefined>): Promise<boolean | null> {
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(key)) return null;
  const { base, rest } = splitGlob(expandPath(template.replaceAll('{cli_session_id}', key), env));
  if (!path.isAbsolute(base)) return null;
  try {
    if (!rest) {
      if ((await fs.stat(base).catch(() => null))?.isFile()) return true;
      return (await fs.stat(path.dirname(base)).catch(() => null))?.isDirectory() ? false : null;
    }
    if (!(await fs.stat(base).catch(() => null))?.isDirectory()) return null;
    const found = await glob(rest, { cwd: base, onlyFiles: true, followSymbolicLinks: false, expandDirectories: false });
    return found.length > 0;
  } catch {
    return null;
  }
}
