import { useState } from 'react';
import { useSessions } from '../state/sessions';
import { useUi } from '../state/ui';
import type { ClientApi } from '../../daemon/contract/contract';
import { errorOf } from '../lib/errors';
import { SettingsDialog } from './SettingsDialog';
import { UsagePanel } from './UsagePanel';
import { lossWords } from '../lib/changes';
import { visible } from '../lib/words';
import { FieldError, FormDialog } from './FormDialog';
import { isRunning } from '../../daemon/contract/session';

/** The rename, settings and confirmation dialogs. */
export function Dialogs({ api }: { api: ClientApi }) {
  const dialog = useUi((s) => s.dialog);
  if (dialog?.kind === 'rename') return <RenameDialog api={api} id={dialog.id} />;
  if (dialog?.kind === 'settings') return <SettingsDialog />;
  if (dialog?.kind === 'usage') return <UsagePanel api={api} />;
  if (dialog?.kind === 'remove') return <RemoveDialog api={api} id={dialog.id} refused={dialog.refused} />;
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
    <FormDialog
      id="rename"
      title="Rename session"
      submit="Rename"
      onClose={close}
      onSubmit={() => void api.renameSession({ id, name }).then(close, (err: unknown) => setError(errorOf(err).message))}
    >
      <label htmlFor="rename">Name</label>
      <input id="rename" value={name} onChange={(e) => setName(e.target.value)} autoFocus maxLength={100} />
      <FieldError message={error} />
    </FormDialog>
  );
}

/** Removing a session with a worktree: what becomes of the worktree is chosen here, never assumed. */
function RemoveDialog({ api, id, refused }: { api: ClientApi; id: string; refused?: string }) {
  const session = useSessions((s) => s.sessions.find((x) => x.id === id));
  const [choice, setChoice] = useState<'keep' | 'remove'>('keep');
  const [deleteBranch, setDeleteBranch] = useState(false);
  const [error, setError] = useState<string | null>(refused ?? null);
  const [busy, setBusy] = useState(false);
  const close = () => useUi.getState().open(null);
  if (!session) return null;
  const worktree = session.worktree;
  const running = isRunning(session.state);
  const remove = async () => {
    setBusy(true);
    try {
      await api.removeSession({ id, force: running, worktree: choice, ...(choice === 'remove' && deleteBranch ? { deleteBranch: true } : {}) });
      if (useUi.getState().changesFor === id) useUi.getState().showChanges(null);
      close();
    } catch (err) {
      setError(errorOf(err).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <FormDialog id="remove" title={`Remove "${visible(session.name)}"?`} submit="Remove" danger alert describedBy="remove-body" disabled={busy} onSubmit={() => void remove()} onClose={close}>
      <p id="remove-body">
        The session, its event log and its receipts go{running ? '; its process is ended now' : ''}. This cannot be undone.
      </p>
      <FieldError message={error && visible(error)} />
      <fieldset>
        <legend>
          Its worktree{worktree ? (
            <>
              {' '}
              on <bdi>{visible(worktree.branch)}</bdi>
            </>
          ) : null}
        </legend>
        <label className="check">
          <input type="radio" name="worktree" checked={choice === 'keep'} onChange={() => setChoice('keep')} autoFocus />
          Keep worktree (its folder and branch stay, with any changes)
        </label>
        <label className="check">
          <input type="radio" name="worktree" checked={choice === 'remove'} onChange={() => setChoice('remove')} />
          Remove worktree and its changes
        </label>
        <label className={choice === 'remove' ? 'check indent' : 'check indent disabled'}>
          <input type="checkbox" checked={deleteBranch} disabled={choice !== 'remove'} onChange={(e) => setDeleteBranch(e.target.checked)} />
          Delete the branch too
        </label>
        {worktree && choice === 'remove' && <p className="hint">Lost: {lossWords(worktree, deleteBranch)}.</p>}
      </fieldset>
    </FormDialog>
  );
}
