import type { WorktreeView } from '../../daemon/contract/session';
import { worktreeMark } from '../lib/changes';

/** A session's worktree in a few characters: its branch, ↑ahead ↓behind and changed files, or what is wrong with it. */
export function WorktreeMark({ worktree, className }: { worktree: WorktreeView; className: string }) {
  const mark = worktreeMark(worktree);
  return (
    <span className={`${className} worktree-${mark.tone}`} title={mark.title} data-worktree={mark.tone}>
      <span aria-hidden="true">⎇ </span>
      <bdi className="worktree-branch">{mark.branch}</bdi>
      {mark.status && <span className="worktree-status"> {mark.status}</span>}
    </span>
  );
}
