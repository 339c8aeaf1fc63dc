// Whether a home's tmux server can be running, told without running tmux (a tmux process is a
// fork of the daemon: 3–13 ms of its CPU, and more of its time on a loaded machine). A home's
// first spawn makes its run folder, so without one no server holds a pane of this home. And tmux
// keeps a named socket's file in /tmp/tmux-UID/ when TMUX_TMPDIR is not set, as the backend runs
// it; a tmux built to keep it elsewhere is found out at a spawn, after which only a look tells.

import fs from 'node:fs';
import path from 'node:path';

export class TmuxSocket {
  /** Where tmux keeps the socket, as far as a spawn has shown. */
  private readonly file: string;
  /** Holds `file` once a spawn saw the socket there. */
  private readonly record: string;
  private noted = false;

  constructor(
    socket: string,
    private readonly runDir: string,
  ) {
    this.file = path.join('/tmp', `tmux-${process.getuid?.() ?? 0}`, socket);
    this.record = path.join(runDir, 'tmux-socket');
  }

  /** False when no server can hold a pane of this home: it never spawned one, or the socket a spawn saw is gone. */
  mayHoldPanes(): boolean {
    if (!fs.existsSync(this.runDir)) return false;
    let seen: string | null = null;
    try {
      seen = fs.readFileSync(this.record, 'utf8');
    } catch {
      // No spawn has seen it: only a look tells.
    }
    return seen !== this.file || fs.existsSync(this.file);
  }

  /** After a spawn (once a process): whether the socket is where it is looked for. */
  spawned(): void {
    if (this.noted) return;
    this.noted = true;
    try {
      if (fs.existsSync(this.file)) fs.writeFileSync(this.record, this.file, { mode: 0o600 });
      else fs.rmSync(this.record, { force: true });
    } catch {
      // Not noted: the next start asks tmux, as without a record.
    }
  }
}
