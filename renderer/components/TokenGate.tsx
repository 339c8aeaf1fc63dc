import { useState } from 'react';

/** How a browser tab gets in: a token typed here, traded for this tab's own credential. */
export function TokenForm({ notice, onToken }: { notice: string | null; onToken(token: string): void }) {
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
        {notice && (
          <p className="field-error" role="alert">
            {notice}
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

/** A link came while this tab already has a credential: it may come from anywhere, an agent's output included. */
export function LinkQuestion({ onUse, onKeep }: { onUse(): void; onKeep(): void }) {
  return (
    <main className="token-gate" role="dialog" aria-labelledby="link-question">
      <h1>Corral</h1>
      <p id="link-question">
        This link carries another credential for this tab. Links can come from anywhere, an agent&apos;s output included: switch only if you opened it
        yourself.
      </p>
      <button type="button" onClick={onKeep} autoFocus>
        Keep this tab&apos;s
      </button>
      <button type="button" onClick={onUse}>
        Use the link&apos;s
      </button>
    </main>
  );
}
