import { useState } from 'react';
import { useSessions } from '../state/sessions';
import { useUi } from '../state/ui';
import type { ClientApi } from '../../daemon/contract/contract';
import { errorOf } from '../lib/errors';
import { SettingsDialog } from './SettingsDialog';

/** The rename, settings and confirmation dialogs. */
export function Dialogs({ api }: { api: ClientApi }) {
  const dialog = useUi((s) => s.dialog);
  if (dialog?.kind === 'rename') return <RenameDialog api={api} id={dialog.id} />;
  if (dialog?.kind === 'settings') return <SettingsDialog />;
  if (dialog?.kind === 'confirm') {
    const close = () => useUi.getState().open(null);
    return (
      <div className="dialog-backdrop" onKeyDown={(e) => e.key === 'Escape' && close()}>
        <div role="alertdialog" aria-modal="true" aria-labelledby="confirm-title" aria-describedby="confirm-body" className="dialog">
          <h2 id="confirm-title">{dialog.title}</h2>
          <p id="confirm-body">{dialog.body}</p>
          <div className="dialog-buttons">
            <button type="button" onClick={close} autoFocus>
              Cancel
            </button>
            <button
              type="button"
              className={dialog.danger ? 'danger' : 'primary'}
              onClick={() => {
                close();
                dialog.then();
              }}
            >
              {dialog.confirm}
            </button>
          </div>
        </div>
      </div>
    );
  }
  return null;
}

function RenameDialog({ api, id }: { api: ClientApi; id: string }) {
  const session = useSessions((s) => s.sessions.find((x) => x.id === id));
  const [name, setName] = useState(session?.name ?? '');
  const [error, setError] = useState<string | null>(null);
  const close = () => useUi.getState().open(null);
  return (
    <div className="dialog-backdrop" onKeyDown={(e) => e.key === 'Escape' && close()}>
      <form
        role="dialog"
        aria-modal="true"
        aria-labelledby="rename-title"
        className="dialog"
        onSubmit={async (e) => {
          e.preventDefault();
          try {
            await api.renameSession({ id, name });
            close();
          } catch (err) {
            setError(errorOf(err).message);
          }
        }}
      >
        <h2 id="rename-title">Rename session</h2>
        <label htmlFor="rename">Name</label>
        <input id="rename" value={name} onChange={(e) => setName(e.target.value)} autoFocus maxLength={100} />
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-buttons">
          <button type="button" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="primary">
            Rename
          </button>
        </div>
      </form>
    </div>
  );
}
