import type { ErrorShape } from '../../daemon/contract/errors';

/** The engine's error, whichever transport brought it (an ApiError, or the plain shape IPC gives). */
export function errorOf(err: unknown): ErrorShape {
  const e = err as { error?: ErrorShape; code?: unknown; message?: unknown; field?: unknown };
  if (e?.error && typeof e.error.code === 'string') return e.error;
  if (typeof e?.code === 'string' && typeof e.message === 'string') return e as ErrorShape;
  return { code: 'internal', message: err instanceof Error ? err.message : String(err) };
}
