// Remote hosts: more daemons, each on a machine reached over the person's own `ssh`. What a
// client sees of one, and the rules for a host's name and target, shared by the daemon's
// checks and the CLI's.

/** How the link to a host is doing. */
export type HostState = 'connecting' | 'connected' | 'reconnecting' | 'missing' | 'failed';

/** A program the remote needs and lacks, with the one command that installs it. */
export interface MissingPiece {
  what: 'node' | 'tmux' | 'corral';
  install: string;
}

export interface HostView {
  name: string;
  /** `[user@]host[:port]`, as ssh is given it (an alias of ~/.ssh/config works). */
  target: string;
  /** The remote `corral` command, when not `corral` on the remote PATH. */
  corral: string | null;
  state: HostState;
  /** What a person should read: ssh's own last error, what is missing and how to install it. */
  message: string | null;
  /** missing: each piece and its install command. */
  missing?: MissingPiece[];
  /** reconnecting, missing, failed: the attempt that failed and when the next one starts (epoch ms). */
  attempt?: number;
  nextTryAt?: number;
}

/** What the events stream says of a host: every change of its state; the hello frame brings all. */
export interface HostChange {
  kind: 'updated' | 'removed';
  host: HostView;
}

export const HOST_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;
export const HOST_NAME_RULE = 'a host name is 1 to 32 lowercase letters, digits and dashes, starting with a letter or digit';
/** The name this machine goes by beside its hosts. */
export const LOCAL_HOST = 'local';

/** A session's id as a link names it (Corral's ids are UUIDs, in lowercase). */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The session a link's path names, read strictly: an id, or a host's name and an id ("local" is
 * this machine: no host). What is wrong otherwise: the session, or the host. The desktop app's
 * corral://session/… links and the page's #session=… read the same way.
 */
export function linkedSession(parts: readonly string[]): { ok: true; id: string; host?: string } | { ok: false; wrong: 'session' | 'host' } {
  const id = parts.at(-1) ?? '';
  if (parts.length < 1 || parts.length > 2 || !SESSION_ID.test(id)) return { ok: false, wrong: 'session' };
  if (parts.length === 1 || parts[0] === LOCAL_HOST) return { ok: true, id };
  if (!HOST_NAME.test(parts[0]!)) return { ok: false, wrong: 'host' };
  return { ok: true, id, host: parts[0]! };
}

/** `[user@]host[:port]`; a host in brackets for IPv6. Never starting with "-" (it would be an ssh option). */
export const HOST_TARGET = /^(?:[A-Za-z0-9._][A-Za-z0-9._-]*@)?(?:[A-Za-z0-9_][A-Za-z0-9._-]*|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;
export const HOST_TARGET_RULE = 'a target is [user@]host[:port], e.g. devbox, me@devbox.example.com or me@10.0.0.5:2222';

/** A command name or path: no spaces, quotes or leading "-". */
export const CORRAL_COMMAND = /^[A-Za-z0-9_./~+][A-Za-z0-9_./~+-]*$/;
export const CORRAL_COMMAND_RULE = 'the remote corral command is a name or path without spaces or quotes';

/** The parts of a target that ssh takes apart: the destination and the port. */
export function splitTarget(target: string): { destination: string; port: number | null } {
  const port = HOST_TARGET.exec(target)?.[1];
  if (!port) return { destination: target, port: null };
  return { destination: target.slice(0, target.length - port.length - 1), port: Number(port) };
}

/** The base path of a host's daemon through this one (the proxy): every client prefixes its routes with it. */
export function hostPrefix(host: string): string {
  return `/api/hosts/${encodeURIComponent(host)}`;
}

/**
 * A session as a client that shows several machines knows it: its id for this machine's, and
 * `HOST/ID` for a host's (as `corral attach` names it; a host's name has no slash, an id neither).
 */
export function sessionKey(host: string | null, id: string): string {
  return host === null ? id : `${host}/${id}`;
}

/** The host of a key (null for this machine) and the session's id there. */
export function splitKey(key: string): { host: string | null; id: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { host: null, id: key } : { host: key.slice(0, slash), id: key.slice(slash + 1) };
}

/** "connected", "reconnecting (attempt 3, next try in 4 s)", "missing tmux", "failed: …". */
export function hostStateWords(host: HostView, now = Date.now()): string {
  const next = host.nextTryAt === undefined ? '' : `, next try in ${Math.max(0, Math.ceil((host.nextTryAt - now) / 1000))} s`;
  if (host.state === 'missing') return `missing ${(host.missing ?? []).map((piece) => piece.what).join(', ')}`;
  if (host.state === 'reconnecting') return `reconnecting (attempt ${host.attempt ?? 1}${next})`;
  if (host.state === 'failed') return `failed${next ? ` (${next.slice(2)})` : ''}: ${host.message ?? ''}`;
  return host.state;
}
