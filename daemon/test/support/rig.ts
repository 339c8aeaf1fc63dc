// A throwaway world for engine tests (world.ts) with the engines opened on it: a temp home, a
// private tmux socket, fake CLIs that log how they were started.

import path from 'node:path';
import Database from 'better-sqlite3';
import { Engine, type EngineOptions } from '../../engine/engine';
import { makeWorld, type World } from './world';

export interface Rig extends Omit<World, 'cleanup'> {
  engines: Engine[];
  open(options?: Partial<EngineOptions>): Promise<Engine>;
  /** Closes the engines, then ends the world. */
  cleanup(): Promise<void>;
}

/** A rig with the `faker`, `agent` and `keeper` fake CLIs (fakeClis.ts). */
export async function makeRig(): Promise<Rig> {
  const world = makeWorld('test', { programs: ['faker', 'agent', 'keeper'], clis: ['faker', 'agent', 'keeper'] });
  const rig: Rig = {
    ...world,
    engines: [],
    async open(options = {}) {
      const engine = await Engine.open({ home: world.home, tmuxSocket: world.socket, env: world.env, resumeGraceMs: 1_500, holder: 'a test engine', ...options });
      rig.engines.push(engine);
      return engine;
    },
    async cleanup() {
      for (const engine of rig.engines) await engine.close().catch(() => {});
      world.cleanup();
    },
  };
  return rig;
}

/** Reads the resume key straight from corral.db: the API never shows it. */
export function storedKey(rig: Rig, id: string): string | null {
  const db = new Database(path.join(rig.home, 'corral.db'), { readonly: true });
  try {
    const row = db.prepare('SELECT resume_key AS key FROM sessions WHERE id = ?').get(id) as { key: string | null } | undefined;
    if (!row) throw new Error(`no row for session ${id}`);
    return row.key;
  } finally {
    db.close();
  }
}

/** A session's events as corral.db keeps them, every detail included: the API shows less. */
export function storedEvents(rig: Rig, id: string): { kind: string; detail: Record<string, unknown> }[] {
  const db = new Database(path.join(rig.home, 'corral.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT kind, detail FROM events WHERE session_id = ? ORDER BY id').all(id) as { kind: string; detail: string }[];
    return rows.map((row) => ({ kind: row.kind, detail: JSON.parse(row.detail) as Record<string, unknown> }));
  } finally {
    db.close();
  }
}
