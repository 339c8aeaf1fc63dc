import { useCallback, useEffect, useMemo, useState } from 'react';
import { createWebTransport, type WebTransport } from '../../daemon/contract/webTransport';
import type { ClientApi } from '../../daemon/contract/contract';
import { hostPrefix } from '../../daemon/contract/hosts';
import { CREDENTIAL_REFUSED, exchange, refusalWords, storeCredential, storedCredential, storedReadOnly, takeFragment, type LinkOffer } from '../lib/credential';
import { activateWhenListed, useSessions } from '../state/sessions';
import { useUi } from '../state/ui';
import { hostOf } from '../lib/remote';
import { LinkQuestion, TokenForm } from './TokenGate';
import { Workspace } from './Workspace';

/** In the desktop app, the preload script provides the contract; in a browser, the web transport. */
const desktop = (window as unknown as { corral?: ClientApi }).corral;
/** A remote host's client in the desktop app: the preload's, each call naming the host (main sends it through the daemon's proxy). */
const desktopHost = (host: string): ClientApi => desktop!.hostClient!(host);
/** The link this page was opened with, out of the address before anything else runs. */
const opening = desktop ? null : takeFragment();

/**
 * A session a link names (`#session=`, lib/sessionLink.ts): shown once it is listed (a host's,
 * once its host is connected). One of this machine's that the first list lacks is said to be gone.
 */
let linked: { key: string; stop: () => void } | null = null;
function showLinked(found: ReturnType<typeof takeFragment>['session']): void {
  if (!found) return;
  linked?.stop();
  linked = null;
  if ('error' in found) return useUi.getState().fail(null, `That link cannot open a session: ${found.error}.`);
  linked = { key: found.key, stop: activateWhenListed(found.key) };
}
function linkedListed(): void {
  if (!linked || hostOf(linked.key) !== null || useSessions.getState().sessions.some((s) => s.id === linked!.key)) return;
  useUi.getState().fail(null, `That link's session (${linked.key}) is not here: it was removed, or is another Corral's.`);
  linked.stop();
  linked = null;
}

export function App() {
  if (desktop) return <Workspace api={desktop} hostClient={desktopHost} />;
  return <BrowserApp />;
}

function BrowserApp() {
  const [credential, setCredential] = useState<string | null>(storedCredential);
  const [status, setStatus] = useState<'checking' | 'ok' | 'unreachable'>('checking');
  // A link that came while this tab has a credential: never used without asking (an agent can print one).
  const [question, setQuestion] = useState<LinkOffer | null>(() => (opening?.offer && credential ? opening.offer : null));
  const [exchanging, setExchanging] = useState(!!opening?.offer && !credential);
  const [notice, setNotice] = useState<string | null>(null);
  const api = useMemo<WebTransport | null>(() => (credential ? createWebTransport(location.origin, credential) : null), [credential]);
  // A remote host's daemon, through this one's proxy: the same contract under the host's base, the same credential.
  const hostClient = useCallback((host: string) => createWebTransport(location.origin + hostPrefix(host), credential ?? ''), [credential]);

  const adopt = useCallback(async (offer: LinkOffer) => {
    setQuestion(null);
    setExchanging(true);
    try {
      const fresh = await exchange(location.origin, offer);
      storeCredential(fresh.token, fresh.readOnly);
      setNotice(null);
      setCredential(fresh.token);
    } catch (err) {
      setNotice(refusalWords(err, offer.kind) ?? `Corral is not answering at ${location.origin}. Is corral serve still running?`);
    } finally {
      setExchanging(false);
    }
  }, []);

  useEffect(() => {
    if (opening?.offer && !storedCredential()) void adopt(opening.offer);
    showLinked(opening?.session);
    const later = () => {
      const { offer, session } = takeFragment();
      showLinked(session);
      if (session && 'key' in session && useSessions.getState().sessions.length > 0) linkedListed();
      if (offer && storedCredential()) setQuestion(offer);
      else if (offer) void adopt(offer);
    };
    window.addEventListener('hashchange', later);
    return () => window.removeEventListener('hashchange', later);
  }, [adopt]);

  useEffect(() => {
    if (!api) return;
    let current = true;
    setStatus('checking');
    // The first look at the daemon is the list the page shows, so the tabs need no second trip.
    Promise.all([api.listSessions(), api.listClis()]).then(
      ([{ sessions }, { clis }]) => {
        if (!current) return;
        useSessions.getState().replace(sessions);
        useSessions.getState().setClis(clis);
        linkedListed();
        setStatus('ok');
      },
      (err) => {
        if (!current) return;
        const refused = refusalWords(err, 'credential');
        if (!refused) return setStatus('unreachable');
        storeCredential(null);
        setCredential(null);
        setNotice(refused);
      },
    );
    return () => {
      current = false;
    };
  }, [api]);

  // The daemon answers but no longer takes this tab's credential (it restarted): the token form.
  useEffect(
    () =>
      api?.onLink((state) => {
        if (state !== 'refused') return;
        storeCredential(null);
        setCredential(null);
        setNotice(CREDENTIAL_REFUSED);
      }),
    [api],
  );

  if (question) return <LinkQuestion onUse={() => void adopt(question)} onKeep={() => setQuestion(null)} />;
  if (exchanging) return <p className="center-note">Opening Corral…</p>;
  if (!api) return <TokenForm notice={notice} onToken={(value) => void adopt({ kind: 'token', value })} />;
  if (status === 'checking') return <p className="center-note">Connecting to Corral…</p>;
  if (status === 'unreachable') return <p className="center-note" role="alert">Corral is not answering at {location.origin}. Is corral serve still running?</p>;
  return <Workspace api={api} hostClient={hostClient} readOnly={storedReadOnly()} />;
}
