// Previews of paths printed in a session's terminal, and saves of what was edited in them:
// fenced (files/fence.ts) to the session's folder and the shared ones, never Corral's home.

import os from 'node:os';
import { CorralError } from '../contract/errors';
import type { PathPreview } from '../contract/files';
import { defaultSharedRoots, type Fence } from '../files/fence';
import { previewPath, savePath } from '../files/files';
import type { SessionRow } from '../store/store';
import { checkPrinted } from './checks';
import type { Runtime } from './runtime';

export class Previews {
  constructor(private readonly rt: Runtime) {}

  async preview({ id, path: printed }: { id: string; path: string }): Promise<PathPreview> {
    return previewPath(this.fence(this.rt.row(id)), checkPrinted(printed));
  }

  async save({ id, path: printed, text, version }: { id: string; path: string; text: string; version: string }) {
    const row = this.rt.row(id);
    if (typeof text !== 'string') throw new CorralError('bad_request', 'text must be text', 'text');
    if (typeof version !== 'string' || !version) throw new CorralError('bad_request', 'version must be the version the preview gave', 'version');
    return savePath(this.fence(row), checkPrinted(printed), text, version);
  }

  private fence(row: SessionRow): Fence {
    const userHome = this.rt.env.HOME || os.homedir();
    return { cwd: row.cwd, shared: this.rt.options.previewSharedRoots ?? defaultSharedRoots(), corralHome: this.rt.home, userHome };
  }
}
