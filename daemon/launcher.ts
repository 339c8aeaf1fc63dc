// What to run for a start: the resume form when there is a key, else the clean form.
// Pure policy, no I/O: the engine applies it, a backend runs it.

import crypto from 'node:crypto';
import { expandTemplate, usesPlaceholder, type CliSpec } from './catalogue';
import type { LaunchMode, SessionRow } from './store';

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
