// What a sidebar row and a tab both offer: the name edited in place (a double click opens it),
// and × to archive.

import { useRef, useState } from 'react';
import type { ClientApi } from '../../daemon/contract/contract';
import { NAME_MAX, type SessionView } from '../../daemon/contract/session';
import { errorOf } from '../lib/errors';
import { visible } from '../lib/words';
import { useUi } from '../state/ui';

/** The name in place, editable: Enter or leaving it renames, Escape keeps the old name. */
export function RenameField({ api, session, onDone, className }: { api: ClientApi; session: SessionView; onDone(): void; className: string }) {
  const [name, setName] = useState(session.name);
  const [refused, setRefused] = useState<string | null>(null);
  const finished = useRef(false);
  const field = useRef<HTMLInputElement>(null);
  const finish = (save: boolean) => {
    if (finished.current) return;
    finished.current = true;
    if (!save || name.trim() === '' || name === session.name) return onDone();
    // The field stays, with what was typed, until the name is taken; a refusal says why there.
    api.renameSession({ id: session.id, name }).then(onDone, (err) => {
      const why = `“${visible(session.name)}” was not renamed: ${errorOf(err).message}`;
      finished.current = false;
      setRefused(why);
      useUi.getState().fail(session.id, why);
      field.current?.focus();
    });
  };
  return (
    <input
      ref={field}
      className={className}
      aria-label={`New name for ${session.name}`}
      aria-invalid={refused !== null}
      title={refused ?? undefined}
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
