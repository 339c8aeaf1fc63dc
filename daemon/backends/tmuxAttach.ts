// A viewer's stream of a tmux session: its scrollback first, then a tmux client of its own in
// a pty (attach-session), whose output is the viewer's and to which the viewer types. The
// client's output is passed on as the bytes it read (UTF-8, a character possibly split across
// two reads): never decoded here, since the viewer's frames are bytes too (streams/outputPump.ts).

import os from 'node:os';
import * as pty from 'node-pty';
import type { Attachment, AttachOptions } from './backend';
import { minimalEnv, sessionName, target } from './tmuxCommands';
import { TmuxError, type TmuxRunner } from './tmuxRunner';

/** How long a viewer's tmux client stays after the viewer, from the last keys written to it. */
export const KEYS_GRACE_MS = 3_000;

export async function attachClient(runner: TmuxRunner, id: string, options: AttachOptions): Promise<Attachment> {
  // One tmux command says whether the pane's process still runs and how long its history is,
  // and captures the viewer's part of that history (all of it, or the last lines asked for: tmux
  // stops at its top, and with no history at all gives the screen's first line, which is not
  // history). The client is started meanwhile rather than after it (a viewer waits for both);
  // what the client draws is held until the history has gone first. The same command captures
  // the screen, which goes right after the history: the client's first drawing of it comes later
  // (its start, on a busy machine most of a viewer's wait), and draws it again in place. A viewer
  // in use resizes the window first, in the same command: its screen then comes at its size
  // (tmux has reflowed it) even on a session's first showing. The command goes to a tmux client
  // started ahead (TmuxRunner.runReady): no process start in a switch's wait.
  const from = options.history === undefined ? '-' : `-${options.history}`;
  const resize = options.inUse ? ['resize-window', '-t', target(id), '-x', String(options.cols), '-y', String(options.rows), ';'] : [];
  const looked = runner
    .runReady([...resize, 'display-message', '-p', '-t', target(id), '#{pane_dead} #{history_size} #{pane_width} #{pane_height}', ';', 'capture-pane', '-p', '-e', '-J', '-t', target(id), '-S', from, '-E', '-1', ';', 'capture-pane', '-p', '-e', '-t', target(id)])
    .catch(() => null);
  // tmux sizes a window after its newest client: pin it before a view-only client attaches.
  if (options.viewOnly) await runner.run(['set-option', '-w', '-t', target(id), 'window-size', 'manual']);
  const flags = options.viewOnly ? ['-f', 'read-only,ignore-size'] : [];
  const client = pty.spawn(runner.binary, ['-u', '-L', runner.socket, '-f', '/dev/null', 'attach-session', ...flags, '-t', `=${sessionName(id)}`], {
    name: 'xterm-256color',
    cols: options.cols,
    rows: options.rows,
    cwd: os.homedir(),
    env: { ...minimalEnv(process.env.PATH ?? '/usr/bin:/bin'), TERM: 'xterm-256color' },
    encoding: null,
  });
  let held: Uint8Array[] | null = [];
  let open = true;
  let ended = false;
  /** When keys were last written to the client (performance.now()). */
  let typedAt = -Infinity;
  // With no encoding node-pty gives each read's Buffer (its types say string).
  const data = (client.onData as unknown as pty.IEvent<Buffer>)((bytes) => (held ? held.push(bytes) : options.onData(bytes)));
  const exit = client.onExit(() => {
    ended = true;
    if (held) held = null;
    else options.onClose?.();
  });
  const close = () => {
    if (!open) return;
    open = false;
    data.dispose();
    exit.dispose();
    // Keys written just before wait in the client's terminal until the client reads them, which
    // on a busy machine can be most of a second: a hangup now would lose them, or their end (a
    // prompt's Enter), left in the agent's line for the next message. The client goes once they
    // have had that time; what it draws meanwhile is nobody's.
    const wait = typedAt + KEYS_GRACE_MS - performance.now();
    if (wait <= 0 || ended) return client.kill('SIGHUP');
    client.resume();
    setTimeout(() => client.kill('SIGHUP'), wait).unref();
  };

  // A command tmux did not answer in time (a busy server) leaves the viewer without history, as
  // a failed capture always did; a dead pane, or a client that could not attach, is refused.
  const [state = '0 0 0 0', ...lines] = ((await looked) ?? '0 0 0 0').split('\n');
  const [dead, count, width, height] = state.split(' ').map(Number);
  if (dead !== 0 || held === null) {
    close();
    throw new TmuxError(`session ${id} has no running process to attach to`, '');
  }
  // The screen is the last lines: as many as the pane is high (each ends with a newline).
  const screen = lines.splice(Math.max(0, lines.length - 1 - height!), height!);
  if (count! > 0 && options.history !== 0) {
    const history = lines.join('\n');
    // A screenful of new lines after it pushes all of it into the viewer's history, so the
    // client's first drawing of the screen overwrites none of it.
    if (history && open) options.onData(history.replace(/\n$/, '').replace(/\n/g, '\r\n') + '\r\n'.repeat(options.rows));
  }
  // Each row in its place (nothing scrolls into the history), when the pane is the viewer's size.
  if (open && screen.length === options.rows && width === options.cols && height === options.rows) {
    options.onData(screen.map((row, i) => `\u001b[${i + 1}H${row}\u001b[0m`).join(''));
  }
  const drawn = held;
  held = null;
  for (const bytes of drawn) if (open) options.onData(bytes);
  return {
    write: (text) => {
      if (!open) return;
      typedAt = performance.now();
      client.write(text);
    },
    resize: (cols, rows) => {
      if (!open || ended) return;
      // node-pty throws when the client's terminal has closed, which it may before the client's
      // exit is told: a viewer whose client went has no size to give (and a throw here would
      // end the daemon).
      try {
        client.resize(cols, rows);
      } catch {
        // the client is gone: its exit follows
      }
    },
    pause: () => open && client.pause(),
    resume: () => open && client.resume(),
    close,
  };
}
