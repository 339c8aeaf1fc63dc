// Previews of paths printed in a session's terminal, and saves of what was edited in them:
// fenced (files/fence.ts) to the session's folder and the shared ones, never Corral's home.

import type { Request, Response } from '../contract/contract';
import { defaultSharedRoots, type Fence } from '../files/fence';
import { previewPath, savePath } from '../files/files';
import type { SessionRow } from '../store/store';
import type { Runtime } from './runtime';
import { worktreesHome } from './worktreeSessions';

export class Previews {
  constructor(private readonly rt: Runtime) {}

  async preview({ id, path: printed }: Request<'previewPath'>): Promise<Response<'previewPath'>> {
    return previewPath(this.fence(this.rt.row(id)), printed);
  }

  async save({ id, path: printed, text, version }: Request<'savePath'>): Promise<Response<'savePath'>> {
    return savePath(this.fence(this.rt.row(id)), printed, text, version);
  }

  private fence(row: SessionRow): Fence {
    const userHome = this.rt.userHome;
    return { cwd: row.cwd, shared: this.rt.options.previewSharedRoots ?? defaultSharedRoots(), corralHome: this.rt.home, worktrees: worktreesHome(this.rt), userHome };
  }
}
