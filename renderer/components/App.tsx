import { useEffect, useMemo, useState } from 'react';
import { ApiError, createWebTransport, type WebTransport } from '../../daemon/contract/webTransport';
import type { ClientApi } from '../../daemon/contract/contract';
import { Workspace } from './Workspace';

const TOKEN_KEY = 'corral.token';

/** A token from the link `corral serve` prints (#token=…), else the one kept for this origin. */
function initialToken(): string | null {
  const match = /[#&]token=([^&]+)/.exec(location.hash);
  if (match) {
    const token = decodeURIComponent(match[1]!);
    localStorage.setItem(TOKEN_KEY, token);
    history.replaceState(null, '', location.pathname + location.search);
    return token;
  }
  return localStorage.getItem(TOKEN_KEY);
}

/** In the desktop app, the preload script provides the contract; in a browser, the web transport. */
const desktop = (window as unknown as { corral?: ClientApi }).corral;

export function App() {
  if (desktop) return <Workspace api={desktop} />;
  return <BrowserApp />;
}

function BrowserApp() {
  const [token, setToken] = useState<string | null>(initialToken);
  const [state, setState] = useState<'checking' | 'ok' | 'refused' | 'unreachable'>('checking');
  const api = useMemo<WebTransport | null>(() => (token ? createWebTransport(location.origin, token) : null), [token]);

  useEffect(() => {
    if (!api) return;
    setState('checking');
    api.listClis().then(
      () => setState('ok'),
      (err) => setState(err instanceof ApiError && err.status === 401 ? 'refused' : 'unreachable'),
    );
  }, [api]);

  if (!api || state === 'refused') {
    return (
      <TokenForm
        refused={state === 'refused'}
        onToken={(value) => {
          localStorage.setItem(TOKEN_KEY, value);
          setToken(value);
        }}
      />
    );
  }
  if (state === 'checking') return <p className="center-note">Connecting to Corral…</p>;
  if (state === 'unreachable') return <p className="center-note" role="alert">Corral is not answering at {location.origin}. Is corral serve still running?</p>;
  return <Workspace api={api} />;
}

function TokenForm({ refused, onToken }: { refused: boolean; onToken(token: string): void }) {
  const [value, setValue] = useState('');
  return (
    <main className="token-gate">
      <h1>Corral</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (value.trim()) onToken(value.trim());
        }}
      >
        <label htmlFor="token">Token</label>
        <input id="token" type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} placeholder="crl_…" autoFocus />
        {refused && (
          <p className="field-error" role="alert">
            That token was refused: it is wrong or was revoked.
          </p>
        )}
        <p className="hint">
          Open the link <code>corral url</code> prints, or make a token with <code>corral token create NAME</code>.
        </p>
        <button type="submit">Connect</button>
      </form>
    </main>
  );
}
