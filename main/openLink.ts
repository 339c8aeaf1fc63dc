// What a corral://session link does in the desktop app: it opens the session's tab (HOST/ID
// for a remote host's) and resumes the session if it is stopped, on its own machine. A host
// whose link is not up yet (the app was started by the link) still gets its tab asked for: the
// window opens it once that host's list is in.

import type { ClientApi } from '../daemon/contract/contract';
import { sessionKey } from '../daemon/contract/hosts';
import type { SessionView } from '../daemon/contract/session';
import type { DeepLink } from './deepLink';

export interface LinkDeps {
  /** This machine's client (null), or a host's; it may throw (no way to the host). */
  client(host: string | null): ClientApi;
  /** Shows the window with the session's tab (its key). */
  focus(key: string): void;
  /** Says why the link opens nothing. */
  warn(detail: string): void;
}

export async function openSessionLink(link: DeepLink, deps: LinkDeps): Promise<void> {
  const host = link.host ?? null;
  let client: ClientApi;
  let session: SessionView;
  try {
    client = deps.client(host);
    session = await client.getSession({ id: link.id });
  } catch (err) {
    const error = err as { code?: unknown; message?: unknown; error?: { code?: unknown; message?: unknown } };
    const code = error.error?.code ?? error.code;
    if (host !== null && code === 'host_unreachable') return deps.focus(sessionKey(host, link.id));
    if (host !== null && code !== 'unknown_session') return deps.warn(String(error.error?.message ?? error.message ?? `${host} did not answer`));
    return deps.warn(`There is no session ${link.id}${host === null ? '' : ` on ${host}`} any more.`);
  }
  deps.focus(sessionKey(host, session.id));
  if (session.state === 'stopped' || session.state === 'exited') await client.startSession({ id: session.id }).catch(() => {});
}
