// The web UI's credential in a browser. A link carries a one-time code (`#code=…`, from
// `corral url`); the page trades it once for a credential of this tab alone, kept in
// sessionStorage: never in localStorage, never left in the address. A raw token (typed in the
// form, or an old `#token=…` link) is traded the same way, so no long-lived token is kept at all.

import { ApiError } from '../../daemon/contract/webTransport';
import type { ErrorShape } from '../../daemon/contract/errors';
import { sessionInFragment } from './sessionLink';

export const CREDENTIAL_KEY = 'corral.credential';
const READ_ONLY_KEY = 'corral.readOnly';
/** Where older versions kept a long-lived token: removed on sight. */
const LEGACY_TOKEN_KEY = 'corral.token';

export type LinkOffer = { kind: 'code'; value: string } | { kind: 'token'; value: string };

/** What an address's fragment offers, if anything. */
export function parseFragment(hash: string): LinkOffer | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const code = params.get('code');
  if (code) return { kind: 'code', value: code };
  const token = params.get('token');
  if (token) return { kind: 'token', value: token };
  return null;
}

/**
 * Takes a code or token, and a session to show (`#session=`, lib/sessionLink.ts), out of the
 * address at once (history keeps a code: which is why it must die on use).
 */
export function takeFragment(): { offer: LinkOffer | null; session: ReturnType<typeof sessionInFragment> } {
  const offer = parseFragment(location.hash);
  const session = sessionInFragment(location.hash);
  if (offer || session) history.replaceState(null, '', location.pathname + location.search);
  return { offer, session };
}

export function storedCredential(): string | null {
  localStorage.removeItem(LEGACY_TOKEN_KEY);
  return sessionStorage.getItem(CREDENTIAL_KEY);
}

/** Whether this tab's credential only reads (a read-only token's link): kept beside it. */
export function storedReadOnly(): boolean {
  return sessionStorage.getItem(READ_ONLY_KEY) === '1';
}

export function storeCredential(value: string | null, readOnly = false): void {
  if (value) sessionStorage.setItem(CREDENTIAL_KEY, value);
  else sessionStorage.removeItem(CREDENTIAL_KEY);
  if (value && readOnly) sessionStorage.setItem(READ_ONLY_KEY, '1');
  else sessionStorage.removeItem(READ_ONLY_KEY);
}

/** Trades a link's code, or a token, for this tab's credential, and says whether it only reads. Throws ApiError when refused. */
export async function exchange(base: string, offer: LinkOffer): Promise<{ token: string; readOnly: boolean }> {
  let code = offer.value;
  if (offer.kind === 'token') code = (await post<{ code: string }>(base, '/api/auth/code', undefined, offer.value)).code;
  const { token, readOnly } = await post<{ token: string; readOnly?: boolean }>(base, '/api/auth/exchange', { code });
  return { token, readOnly: readOnly === true };
}

/** Words for the token form when a link, a token or this tab's credential was refused (401/403). */
export function refusalWords(err: unknown, what: LinkOffer['kind'] | 'credential'): string | null {
  if (!(err instanceof ApiError) || (err.status !== 401 && err.status !== 403)) return null;
  if (err.status === 403) return `That token cannot open Corral: ${err.error.message}.`;
  if (what === 'code') return 'That link was used already or has expired: a link from `corral url` opens once, within 60 s.';
  if (what === 'token') return 'That token was refused: it is wrong or was revoked.';
  return CREDENTIAL_REFUSED;
}

/** This tab's credential refused: revoked (`corral token revoke`), or unused for a day. */
export const CREDENTIAL_REFUSED = "This tab's credential is no longer valid (revoked, or unused for a day): open a new link from `corral url`, or enter a token.";

async function post<T>(base: string, path: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(base + path, {
    method: 'POST',
    redirect: 'error',
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const value = (await res.json().catch(() => ({}))) as T & { error?: ErrorShape };
  if (!res.ok) throw new ApiError(res.status, value.error ?? { code: 'internal', message: `POST ${path}: ${res.status}` });
  return value;
}
