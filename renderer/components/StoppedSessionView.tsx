import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { ClientApi } from '../../daemon/contract/contract';
import type { Receipt, SessionEvent, SessionView } from '../../daemon/contract/session';
import { badge, eventLine, startWords, visible, whyStopped } from '../lib/words';
import { styledRuns } from '../lib/sgr';
import { isDark } from '../lib/pageTheme';
import { useUi } from '../state/ui';
import { ANSI_NAMES, THEMES } from '../terminal/themes';

/** A stopped or exited session is never a blank tab: why it stopped, what it left, one button. */
export function StoppedSessionView({ session, events, api, onStart }: { session: SessionView; events: SessionEvent[]; api: ClientApi; onStart(): void }) {
  const [receipt, setReceipt] = useState<Receipt | null>(null);
  useEffect(() => {
    let live = true;
    void api.receipt({ id: session.id }).then(({ receipt }) => live && setReceipt(receipt), () => {});
    return () => {
      live = false;
    };
  }, [api, session.id, session.state, session.lastExit?.at]);
  const why = whyStopped(events);
  // The last output opens at its end, where the line that says why it ended is.
  const output = useRef<HTMLPreElement>(null);
  useLayoutEffect(() => {
    if (output.current) output.current.scrollTop = output.current.scrollHeight;
  }, [receipt]);
  return (
    <section className="stopped" aria-label={`${session.name} is ${badge(session).text}`}>
      <h2>{visible(session.name)}</h2>
      <p className="why" data-testid="why-stopped">
        {why ? eventLine(why) : badge(session).text}
      </p>
      <button type="button" className="primary big" onClick={onStart} autoFocus>
        {startWords(session)}
      </button>
      {receipt && receipt.output.trim() && (
        <>
          <h3>Its last output</h3>
          <pre className="receipt" data-testid="receipt-output" ref={output}>
            <LastOutput receipt={receipt} />
          </pre>
        </>
      )}
      {events.length > 0 && (
        <details>
          <summary>Event log</summary>
          <ol className="events">
            {events.map((e) => (
              <li key={e.id}>{eventLine(e)}</li>
            ))}
          </ol>
        </details>
      )}
    </section>
  );
}

/** What it left, in its colours (the terminal's, for the theme) where they were kept, else as text. */
function LastOutput({ receipt }: { receipt: Receipt }) {
  const dark = isDark(useUi((s) => s.theme));
  const runs = useMemo(() => {
    if (!receipt.styled) return null;
    const theme = THEMES[dark ? 'dark' : 'light'];
    return styledRuns(receipt.styled.replace(/\s+$/, ''), ANSI_NAMES.map((name) => theme[name]!), { fg: theme.foreground!, bg: theme.background! });
  }, [receipt.styled, dark]);
  if (!runs) return <>{receipt.output.replace(/\s+$/, '')}</>;
  return (
    <>
      {runs.map((run, i) =>
        run.fg || run.bg || run.bold || run.dim || run.italic || run.underline ? (
          <span
            key={i}
            style={{
              color: run.fg,
              background: run.bg,
              fontWeight: run.bold ? 'bold' : undefined,
              opacity: run.dim ? 0.7 : undefined,
              fontStyle: run.italic ? 'italic' : undefined,
              textDecoration: run.underline ? 'underline' : undefined,
            }}
          >
            {run.text}
          </span>
        ) : (
          run.text
        ),
      )}
    </>
  );
}
