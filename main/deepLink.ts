// corral://session/<id> links, and corral://session/<host>/<id> for a session on a remote host.
// Parsed strictly: a link names a known session (and its host) and nothing else. It can never
// carry a command, a folder, an ssh target or arguments.

import { linkedSession } from '../daemon/contract/hosts';

/** `host` is absent for this machine's sessions. */
export type DeepLink = { kind: 'session'; id: string; host?: string };
export type Parsed = { ok: true; link: DeepLink } | { ok: false; reason: string };

export const SCHEME = 'corral';

export function parseDeepLink(raw: unknown): Parsed {
  if (typeof raw !== 'string' || raw.length > 200) return { ok: false, reason: 'not a Corral link' };
  const text = raw.trim();
  if (!text.toLowerCase().startsWith(`${SCHEME}://`)) return { ok: false, reason: 'not a Corral link' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'the link is malformed' };
  }
  if (url.username || url.password || url.port) return { ok: false, reason: 'a Corral link has no user, password or port' };
  if (url.search || url.hash || text.includes('?') || text.includes('#')) return { ok: false, reason: 'a Corral link takes no query or fragment' };
  if (url.hostname !== 'session') return { ok: false, reason: `unknown link kind "${url.hostname}" (expected corral://session/<id>)` };
  // Some systems add a trailing slash to a link they pass on.
  const named = linkedSession(url.pathname.replace(/\/$/, '').split('/').slice(1));
  if (!named.ok) return { ok: false, reason: named.wrong === 'host' ? 'the link does not name a host' : 'the link does not name a session id' };
  return { ok: true, link: named.host === undefined ? { kind: 'session', id: named.id } : { kind: 'session', id: named.id, host: named.host } };
}

export function sessionLink(id: string, host?: string): string {
  return host === undefined ? `${SCHEME}://session/${id}` : `${SCHEME}://session/${host}/${id}`;
}

/** The link among a second instance's (or first launch's) command line, if any. */
export function linkFromArgv(argv: readonly string[]): string | null {
  return argv.find((arg) => arg.toLowerCase().startsWith(`${SCHEME}:`)) ?? null;
}
