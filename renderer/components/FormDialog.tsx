import { useLayoutEffect, useRef, type ReactNode } from 'react';

/**
 * A dialog that is a form: its title, its fields, and Cancel beside the button that submits it;
 * Escape cancels. The new-session, add-host, rename and remove dialogs are each one.
 */
export function FormDialog({
  id,
  title,
  submit,
  onSubmit,
  onClose,
  children,
  disabled = false,
  danger = false,
  alert = false,
  describedBy,
}: {
  /** Names the dialog's title (`${id}-title`). */
  id: string;
  title: ReactNode;
  /** The submit button's words. */
  submit: string;
  onSubmit(): void;
  onClose(): void;
  children: ReactNode;
  disabled?: boolean;
  /** What it does cannot be undone: the button says so. */
  danger?: boolean;
  /** It asks before something is lost (an alertdialog). */
  alert?: boolean;
  describedBy?: string;
}) {
  const form = useRef<HTMLFormElement>(null);
  // The submit button disabled while it works (a press on it had the focus) leaves the focus on
  // the page, outside the dialog, where Escape no longer reaches it: it is kept in the dialog.
  useLayoutEffect(() => {
    const focused = document.activeElement;
    if (disabled && form.current && (!form.current.contains(focused) || focused?.matches(':disabled'))) form.current.focus();
  }, [disabled]);
  return (
    <div className="dialog-backdrop" onKeyDown={(e) => e.key === 'Escape' && onClose()}>
      <form
        ref={form}
        tabIndex={-1}
        role={alert ? 'alertdialog' : 'dialog'}
        aria-modal="true"
        aria-labelledby={`${id}-title`}
        aria-describedby={describedBy}
        className="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit();
        }}
      >
        <h2 id={`${id}-title`}>{title}</h2>
        {children}
        <div className="dialog-buttons">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className={danger ? 'danger' : 'primary'} disabled={disabled}>
            {submit}
          </button>
        </div>
      </form>
    </div>
  );
}

/** What was wrong, under the field it is about (`id` for the field's aria-describedby); nothing when all is well. */
export function FieldError({ id, message }: { id?: string; message: ReactNode }) {
  if (!message) return null;
  return (
    <p className="field-error" role="alert" id={id}>
      {message}
    </p>
  );
}
