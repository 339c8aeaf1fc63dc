// What clients see of a session, and every change told to everyone who listens. A view is the
// saved row without its resume key (only whether a start will resume), with what the engine
// knows beyond the database: needs-you, activity, the folder's git context. Needs-you and
// working are never saved: they change here, and each change is told at once.

import { isRunning, type NeedsYou, type SessionChange, type SessionEvent, type SessionEventKind, type SessionView } from '../contract/session';
import type { SessionRow } from '../store/store';
import { publicEvent } from './publicEvent';
import type { Runtime } from './runtime';
import { worktreeView } from './worktreeSessions';

export class Views {
  private readonly listeners = new Set<(change: SessionChange) => void>();

  constructor(private readonly rt: Runtime) {}

  /** Subscribes to every session's changes. Returns the unsubscribe function. */
  onSessionChange(listener: (change: SessionChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  view(row: SessionRow): SessionView {
    const cli = this.rt.catalogue.clis.get(row.cli);
    return {
      id: row.id,
      name: row.name,
      cli: row.cli,
      cwd: row.cwd,
      backend: row.backend,
      state: row.state,
      resumable: !!row.resumeKey && !!cli?.resume,
      createdAt: row.createdAt,
      startedAt: row.startedAt,
      lastActivityAt: row.lastActivityAt,
      lastExit: row.lastExit,
      needsYou: this.rt.needs.get(row.id) ?? null,
      activity: !isRunning(row.state) ? null : this.rt.needs.has(row.id) ? 'needs-you' : this.rt.working.has(row.id) ? 'working' : 'idle',
      git: this.rt.gitByCwd.get(row.cwd) ?? null,
      archivedAt: row.archivedAt,
      promptWaiting: row.firstPrompt !== null,
      worktree: worktreeView(row, this.rt.worktreeLooks.get(row.id)),
      usage: this.rt.usage.get(row.id) ?? null,
    };
  }

  /** Appends an event to the session's log, and tells it with the session as it is now. */
  record(id: string, kind: SessionEventKind, message: string, detail: Record<string, unknown> = {}): SessionEvent {
    const event = this.rt.store.appendEvent(id, this.rt.clock.now(), kind, message, detail);
    this.emit('updated', id, event);
    return event;
  }

  emit(kind: SessionChange['kind'], id: string, event?: SessionEvent): void {
    const row = this.rt.store.getSession(id);
    if (row) this.emitView(kind, row, event);
  }

  emitView(kind: SessionChange['kind'], row: SessionRow, event?: SessionEvent, order?: string[]): void {
    const change: SessionChange = event ? { kind, session: this.view(row), event: publicEvent(event, [row.resumeKey]) } : { kind, session: this.view(row) };
    if (order) change.order = order;
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (err) {
        console.error('corral: a session-change listener failed:', err);
      }
    }
  }

  setNeeds(id: string, needs: NeedsYou | null): void {
    const had = this.rt.needs.get(id);
    if (!needs && !had) return;
    if (needs) this.rt.needs.set(id, needs);
    else this.rt.needs.delete(id);
    this.emit('updated', id);
  }

  setWorking(id: string, working: boolean): void {
    if (working) this.rt.workingSeenAt.set(id, this.rt.clock.now());
    if (working === this.rt.working.has(id)) return;
    if (working) this.rt.working.add(id);
    else this.rt.working.delete(id);
    this.emit('updated', id);
  }
}
