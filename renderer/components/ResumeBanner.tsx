import type { SessionEvent, SessionView } from '../../daemon/contract/session';
import { clock, lostConversation, lostWords } from '../lib/words';
import { useUi } from '../state/ui';

/** Says so when a conversation could not be resumed and the session started clean. Never silent. */
export function ResumeBanner({ session, events }: { session: SessionView; events: SessionEvent[] }) {
  const dismissed = useUi((s) => s.dismissed);
  const lost = lostConversation(events, dismissed);
  if (!lost) return null;
  // The key itself never leaves the daemon: its first characters tell which conversation it was.
  const hint = typeof lost.detail.droppedKeyHint === 'string' ? lost.detail.droppedKeyHint : null;
  const { why, startedClean } = lostWords(lost);
  return (
    <div className="banner" role="status" data-testid="resume-banner">
      <span>
        At {clock(lost.at)} the conversation{hint && <> <code>{hint}</code></>} of “{session.name}” could not be resumed ({why}),{' '}
        {startedClean ? 'so the session started clean.' : 'so its next start is clean.'}
      </span>
      <button type="button" onClick={() => useUi.getState().dismiss(lost.id)} aria-label="Dismiss this notice">
        Dismiss
      </button>
    </div>
  );
}
