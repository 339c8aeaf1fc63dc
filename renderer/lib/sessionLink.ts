// A link to a session. In the desktop app it is corral://session/<key>, which the system hands to
// the app; in a browser, where nothing answers corral://, it is this page's address with the
// session in its fragment (`#session=<key>`), which a tab of the page opens (after its
// credential, if it has none yet). Read strictly, as the desktop app's links are: a session id,
// or a host's name and a session id, and nothing else.

import { linkedSession, sessionKey } from '../../daemon/contract/hosts';

/** Whether the page runs in the desktop app (its preload gives the contract); outside a page, as if it did. */
const inDesktop = () => typeof window === 'undefined' || !!(window as unknown as { corral?: unknown }).corral;

/** The link to a session, by its key (its id, or HOST/ID for a host's session). */
export function sessionLink(key: string, desktop = inDesktop()): string {
  if (desktop) return `corral://session/${key}`;
  return `${location.origin}${location.pathname}#session=${key}`;
}

/** The session key a fragment names, if it names one as a link does; undefined when it names none. */
export function sessionInFragment(hash: string): { key: string } | { error: string } | undefined {
  const value = new URLSearchParams(hash.replace(/^#/, '')).get('session');
  if (value === null) return undefined;
  const named = linkedSession(value.split('/'));
  if (named.ok) return { key: sessionKey(named.host ?? null, named.id) };
  if (named.wrong === 'host') return { error: `the link does not name a host: "${value.split('/')[0]!.slice(0, 40)}"` };
  return { error: `the link does not name a session: "${value.slice(0, 80)}"` };
}
