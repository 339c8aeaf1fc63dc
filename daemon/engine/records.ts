// Session records: what a person does to a session as an entry of their list, apart from
// starting and stopping it. Create (then start), rename, archive and restore, reorder, remove,
// and let its conversation go. Each checks what it is given, changes the row in the session's
// queue, and records the event.

import type { Request } from '../contract/contract';
import crypto from 'node:crypto';
import { CorralError } from '../contract/errors';
import { isRunning, type SessionView } from '../contract/session';
import type { SessionRow } from '../store/store';
import { checkFolder, checkName, defaultName } from './checks';
import { SLOW_START_MS, type Lifecycle } from './lifecycle';
import { timed, type Stages } from '../util/stages';
import type { Runtime } from './runtime';
import type { Views } from './views';
import type { WorktreeSessions } from './worktreeSessions';

export class Records {
  constructor(
    private readonly rt: Runtime,
    private readonly views: Views,
    private readonly lifecycle: Lifecycle,
    private readonly worktrees: WorktreeSessions,
    /** Told of a session created with a first prompt. */
    private readonly onPrompt: (id: string) => void,
  ) {}

  create(req: Request<'createSession'>): Promise<SessionView> {
    return timed(`a create of a session of ${JSON.stringify(req.cli)}`, SLOW_START_MS, (stages) => this.createTimed(req, stages));
  }

  private async createTimed(req: Request<'createSession'>, stages: Stages): Promise<SessionView> {
    stages.enter('checks');
    const cli = this.rt.cli(req.cli, 'cli');
    const asked = checkFolder(req.cwd, this.rt.userHome);
    // Unnamed, it takes its folder's name, numbered past the names of the sessions in the tabs.
    const inTabs = () => new Set(this.rt.store.listSessions().flatMap((r) => (r.archivedAt === null ? [r.name] : [])));
    const name = req.name === undefined ? defaultName(asked, inTabs()) : checkName(req.name);
    // Its own worktree, made before anything is saved: a refusal leaves nothing behind.
    if (req.worktree) stages.enter('worktree');
    const made = req.worktree ? await this.worktrees.make(asked, name, req.worktree) : null;
    const cwd = made?.cwd ?? asked;
    const now = this.rt.clock.now();
    const row: SessionRow = {
      id: crypto.randomUUID(),
      name,
      cli: cli.name,
      cwd,
      backend: this.rt.backend.kind,
      state: 'stopped',
      resumeKey: null,
      launchMode: null,
      launchCount: 0,
      launchedAt: null,
      createdAt: now,
      startedAt: null,
      lastActivityAt: null,
      lastExit: null,
      position: this.rt.store.nextPosition(),
      archivedAt: null,
      // Words only: Enter follows it as a key of its own, so its own last newlines go (and a
      // prompt of blanks is none).
      firstPrompt: req.prompt?.trim() ? req.prompt.replace(/\s+$/, '') : null,
      worktree: made?.worktree ?? null,
    };
    stages.enter('save');
    this.rt.store.insertSession(row);
    const where = made ? `created in ${cwd}, a worktree of ${asked} on the new branch ${made.worktree.branch}` : `created in ${cwd}`;
    this.views.emit('added', row.id, this.rt.store.appendEvent(row.id, now, 'created', where, { cli: cli.name, cwd, ...(made ? { branch: made.worktree.branch, base: made.worktree.base } : {}) }));
    if (row.firstPrompt !== null) this.onPrompt(row.id);
    try {
      await this.lifecycle.start(row.id, stages);
    } catch (err) {
      // A create that could not start leaves nothing behind (a crash here is cleaned on recovery).
      this.rt.store.deleteSession(row.id);
      this.views.emitView('removed', row);
      if (made) await this.worktrees.unmake(made.worktree);
      throw err;
    }
    return this.views.view(this.rt.row(row.id));
  }

  async rename({ id, name }: { id: string; name: string }): Promise<SessionView> {
    const checked = checkName(name);
    this.rt.row(id);
    return this.rt.queue.run(id, async () => {
      const row = this.rt.row(id);
      if (row.name === checked) return this.views.view(row);
      this.rt.store.updateSession(id, { name: checked });
      this.views.record(id, 'renamed', `renamed from "${row.name}" to "${checked}"`, { from: row.name, to: checked });
      return this.views.view(this.rt.row(id));
    });
  }

  async archive({ id }: { id: string }): Promise<SessionView> {
    this.rt.row(id);
    return this.rt.queue.run(id, async () => {
      const row = this.rt.row(id);
      if (row.archivedAt !== null) return this.views.view(row);
      await this.lifecycle.archive(row);
      return this.views.view(this.rt.row(id));
    });
  }

  async restore({ id }: { id: string }): Promise<SessionView> {
    this.rt.row(id);
    return this.rt.queue.run(id, async () => {
      const row = this.rt.row(id);
      if (row.archivedAt !== null) this.lifecycle.restore(row);
      return this.views.view(this.rt.row(id));
    });
  }

  /** Puts the sessions in this order; ids not named keep their place after. Every session is told. */
  reorder({ ids }: Request<'reorderSessions'>): void {
    const rows = this.rt.store.listSessions();
    const known = new Set(rows.map((r) => r.id));
    const unknown = ids.find((id) => !known.has(id));
    if (unknown !== undefined) throw new CorralError('unknown_session', `no session with id ${JSON.stringify(unknown)}`, 'ids');
    const order = [...new Set(ids), ...rows.map((r) => r.id).filter((id) => !ids.includes(id))];
    this.rt.store.reorder(order);
    // Each session told of as before; the last change carries the order, for lists kept beside the stream.
    const reordered = this.rt.store.listSessions();
    reordered.forEach((row, i) => this.views.emitView('updated', row, undefined, i === reordered.length - 1 ? reordered.map((r) => r.id) : undefined));
  }

  async remove({ id, force = false, worktree, deleteBranch = false }: Request<'removeSession'>): Promise<void> {
    this.rt.row(id);
    return this.rt.queue.run(id, async () => {
      const row = this.rt.row(id);
      const running = isRunning(row.state) && (await this.rt.backend.isAlive(id));
      if (running && !force) throw new CorralError('conflict', `session "${row.name}" is running: stop it first, or remove it with force`);
      // Its worktree first: a refusal (work nobody chose to drop) leaves the session as it was.
      if (row.worktree) await this.worktrees.check(row, worktree, deleteBranch);
      if (running) await this.rt.backend.kill(id);
      await this.worktrees.release(row, worktree, deleteBranch);
      this.rt.clearLaunch(id);
      this.rt.needs.delete(id);
      this.rt.workingSeenAt.delete(id);
      this.rt.store.deleteSession(id);
      this.views.emitView('removed', { ...row, state: 'stopped' });
    });
  }

  /** Drops the resume key ("restart clean"): the next start is clean. */
  async forgetKey({ id }: { id: string }): Promise<SessionView> {
    this.rt.row(id);
    return this.rt.queue.run(id, async () => {
      const row = this.rt.row(id);
      if (row.resumeKey) {
        this.rt.store.updateSession(id, { resumeKey: null });
        this.views.record(id, 'key-dropped', 'the conversation was let go: the next start is clean', { droppedKey: row.resumeKey });
      }
      return this.views.view(this.rt.row(id));
    });
  }
}
