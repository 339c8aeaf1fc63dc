// What a sidebar row and a tab both offer: the name edited in place (a double click opens it),
// and × to archive.

import { useRef, useState } from 'react';
import type { ClientApi } from '../../daemon/contract/contract';
import { NAME_MAX, type SessionView } from '../../daemon/contract/session';
import { errorOf } from '../lib/errors';
import { useUi } from '../state/ui';

/** The name in place, editable: Enter or leaving it renames, Escape keeps the old name. */
export function RenameField({ api, session, onDone, className }: { api: ClientApi; session: SessionView; onDone(): void; className: string }) {
  const [name, setName] = useState(session.name);
  const finished = useRef(false);
  const finish = (save: boolean) => {
    if (finished.current) return;
    finished.current = true;
    onDone();
    if (save && name.trim() !== '' && name !== session.name) {
      api.renameSession({ id: session.id, name }).catch((err) => useUi.getState().fail(session.id, errorOf(err)));
    }
  };
  return (
    <input
      className={className}
      aria-label={`New name for ${session.name}`}
      value={name}
      maxLength={NAME_MAX}
      autoFocus
      onFocus={(e) => e.currentTarget.select()}
      onChange={(e) => setName(e.target.value)}
      onClick={(e) => e.stopPropagation()}
      onDoubleClick={(e) => e.stopPropagation()}
      // The browser's own menu (paste, spelling), not the session's.
      onContextMenu={(e) => e.stopPropagation()}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === 'Enter') finish(true);
        else if (e.key === 'Escape') finish(false);
      }}
      onBlur={() => finish(true)}
    />
  );
}

/** × on a row or a tab: archives its session (shown on hover, and on the one selected). */
export function ArchiveButton({ name, className, where, onArchive }: { name: string; className: string; where: string; onArchive(): void }) {
  return (
    <button
      type="button"
      className={className}
      tabIndex={-1}
      aria-label={`Archive ${name}`}
      title={`Archive: out of the ${where}, everything kept (the palette restores it)`}
      onClick={(e) => {
        e.stopPropagation();
        onArchive();
      }}
    >
      ×
    </button>
  );
}
