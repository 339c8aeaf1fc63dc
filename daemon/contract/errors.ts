// Expected failures, each a code the UI can show. Anything else is a bug.

export type ErrorCode =
  | 'unknown_cli'
  | 'cli_not_installed'
  | 'cwd_missing'
  | 'cwd_not_folder'
  | 'bad_name'
  | 'bad_request'
  | 'unknown_session'
  | 'conflict'
  | 'spawn_failed'
  | 'backend_failed'
  | 'home_locked'
  | 'not_a_repository'
  | 'git_failed'
  | 'gh_unavailable'
  // A remote host's link is down (reconnecting, missing a program, unreachable): nothing was sent.
  | 'host_unreachable'
  // Transport-level: the request itself was refused.
  | 'bad_json'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'too_large'
  | 'bad_host'
  | 'internal';

export interface ErrorShape {
  code: ErrorCode;
  message: string;
  /** The request field that was wrong, when one was. */
  field?: string;
}

export type Reply<T> = { ok: true; value: T } | { ok: false; error: ErrorShape };

/** An expected failure with a code the UI can show. Anything else thrown is a bug. */
export class CorralError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'CorralError';
  }

  toShape(): ErrorShape {
    return this.field === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, field: this.field };
  }
}
