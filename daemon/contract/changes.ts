// What a session changed, as clients see it: its files since the base, each file's diff, and
// what landing its branch did.

export type ChangeKind = 'added' | 'modified' | 'deleted' | 'renamed' | 'untracked' | 'typechange';

export interface ChangedFile {
  path: string;
  /** Where a renamed file was. */
  from?: string;
  kind: ChangeKind;
  /** Lines; null for a binary file, or one too large to count. */
  added: number | null;
  removed: number | null;
  binary: boolean;
}

export interface Changes {
  /** The folder compared: the session's worktree, or its folder's repository. */
  folder: string;
  /** What it is compared with: the worktree's base branch, or HEAD for a session without one. */
  against: string;
  /** The commit the changes start from (the merge base with the base branch, or HEAD). */
  from: string;
  files: ChangedFile[];
}

export interface FileDiff {
  path: string;
  /** A unified diff (git's own), or '' when there is none to show. */
  diff: string;
  binary: boolean;
  /** Longer than DIFF_MAX bytes: not sent; the counts say how much changed. */
  tooLarge: boolean;
}

/** A comment on lines of a file's diff, sent to the agent as a message. */
export interface ReviewComment {
  path: string;
  /** Lines of the file as it is now (new side), or as it was for removed lines. */
  startLine: number;
  endLine: number;
  text: string;
}

export interface Landed {
  how: 'fast-forward' | 'merge-commit' | 'up-to-date';
  /** The base's commit after. */
  commit: string;
}

export interface PullRequestMade {
  url: string;
  /** The remote the branch was pushed to. */
  remote: string;
}
