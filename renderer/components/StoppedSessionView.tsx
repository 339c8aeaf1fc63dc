import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { ClientApi } from '../../daemon/contract/contract';
import type { Receipt, SessionEvent, SessionView } from '../../daemon/contract/session';
import { badge, eventLine, startWords, visible, whyStopped } from '../lib/words';

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
            {receipt.output.replace(/\s+$/, '')}
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
