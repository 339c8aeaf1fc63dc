// A viewer's stream of a tmux session: its scrollback first, then a tmux client of its own in
// a pty (attach-session), whose output is the viewer's and to which the viewer types.

import os from 'node:os';
import * as pty from 'node-pty';
import type { Attachment, AttachOptions } from './backend';
import { minimalEnv, sessionName, target } from './tmuxCommands';
import type { TmuxRunner } from './tmuxRunner';

export async function attachClient(runner: TmuxRunner, id: string, options: AttachOptions): Promise<Attachment> {
  // The scrollback first, as lines that scroll into the viewer's own history; the client
  // then draws the screen over them. One tmux command says how long the history is and
  // captures the viewer's part of it (all of it, or the last lines asked for: tmux stops at its
  // top, and with no history at all gives the screen's first line, which is not history).
  const from = options.history === undefined ? '-' : `-${options.history}`;
  const [count, ...lines] = (
    await runner.run(['display-message', '-p', '-t', target(id), '#{history_size}', ';', 'capture-pane', '-p', '-e', '-J', '-t', target(id), '-S', from, '-E', '-1']).catch(() => '0')
  ).split('\n');
  if (Number(count) > 0 && options.history !== 0) {
    const history = lines.join('\n');
    // A screenful of new lines after it pushes all of it into the viewer's history, so the
    // client's first drawing of the screen overwrites none of it.
    if (history) options.onData(history.replace(/\n$/, '').replace(/\n/g, '\r\n') + '\r\n'.repeat(options.rows));
  }
  // tmux sizes a window after its newest client: pin it before a view-only client attaches.
  if (options.viewOnly) await runner.run(['set-option', '-w', '-t', target(id), 'window-size', 'manual']);
  const flags = options.viewOnly ? ['-f', 'read-only,ignore-size'] : [];
  const client = pty.spawn(runner.binary, ['-u', '-L', runner.socket, '-f', '/dev/null', 'attach-session', ...flags, '-t', `=${sessionName(id)}`], {
    name: 'xterm-256color',
    cols: options.cols,
    rows: options.rows,
    cwd: os.homedir(),
    env: { ...minimalEnv(process.env.PATH ?? '/usr/bin:/bin'), TERM: 'xterm-256color' },
  });
  const data = client.onData(options.onData);
  const exit = client.onExit(() => options.onClose?.());
  let open = true;
  return {
    write: (text) => open && client.write(text),
    resize: (cols, rows) => open && client.resize(cols, rows),
    pause: () => open && client.pause(),
    resume: () => open && client.resume(),
    close: () => {
      if (!open) return;
      open = false;
      data.dispose();
      exit.dispose();
      client.kill('SIGHUP');
    },
  };
}
