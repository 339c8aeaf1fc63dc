import { useEffect, useRef, type CSSProperties } from 'react';
import { isRunning, type SessionView } from '../../daemon/contract/session';
import { isMac, keyContext, keyLabel, shortcut, type Action } from '../lib/keys';
import { hasRepository } from '../lib/changes';
import { sessionLink } from '../lib/sessionLink';
import { visible } from '../lib/words';

/** The keys shown beside its items: where the page runs does not change while it runs. */
const shownKeys = keyContext();

/** Where a menu opened by a right click stands: at the pointer, kept inside the window. */
export function atPointer(x: number, y: number): CSSProperties {
  return { position: 'fixed', left: Math.min(x, window.innerWidth - 250), top: Math.min(y, window.innerHeight - 240), right: 'auto' };
}

/**
 * A session's actions, for the session it was opened from (the tab strip's ⋯, and a right click
 * on a tab or a sidebar row). Escape, a click elsewhere or an item closes it; arrow keys move between items.
 */
export function SessionMenu({
  session,
  onAction,
  onClose,
  style,
  opener,
}: {
  session: SessionView;
  onAction(action: Action, id: string): void;
  onClose(): void;
  style?: CSSProperties;
  /** The button that opens it: a click there is that button's (it toggles the menu), not a click elsewhere. */
  opener?: HTMLElement | null;
}) {
  const ref = useRef<HTMLDivElement>(null);
  // Where the keyboard was when the menu opened: it goes back there when the menu closes, not to the page's body.
  useEffect(() => {
    const before = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : opener ?? null;
    return () => {
      const menu = ref.current;
      if (document.activeElement === document.body || !document.activeElement || (menu && menu.contains(document.activeElement))) before?.focus();
    };
  }, [opener]);
  useEffect(() => {
    ref.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        return onClose();
      }
      // An item's shortcut, pressed while the menu is open, is that item: for this menu's
      // session, not the one shown (the page's own shortcuts wait while a menu holds the keys).
      if (!ref.current?.contains(document.activeElement)) return;
      const action = shortcut(e, isMac());
      const item = action && ref.current.querySelector<HTMLElement>(`[role="menuitem"][data-action="${action.kind}"]`);
      if (!item) return;
      e.preventDefault();
      e.stopPropagation();
      item.click();
    };
    const onPointer = (e: PointerEvent) => {
      const target = e.target as Node;
      if (!ref.current?.contains(target) && !opener?.contains(target)) onClose();
    };
    window.addEventListener('keydown', onKey, true);
    window.addEventListener('pointerdown', onPointer, true);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      window.removeEventListener('pointerdown', onPointer, true);
    };
  }, [onClose, opener]);
  const act = (action: Action) => () => {
    onClose();
    onAction(action, session.id);
  };
  return (
    <div
      ref={ref}
      role="menu"
      aria-label={`Actions for ${session.name}`}
      className="menu-list"
      style={style}
      onKeyDown={(e) => {
        if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
        e.preventDefault();
        const items = [...e.currentTarget.querySelectorAll<HTMLElement>('[role="menuitem"]')];
        const at = items.indexOf(document.activeElement as HTMLElement);
        items[(at + (e.key === 'ArrowDown' ? 1 : -1) + items.length) % items.length]?.focus();
      }}
    >
      <div className="menu-title" role="presentation">
        <bdi>{visible(session.name)}</bdi>
      </div>
      {isRunning(session.state) ? (
        <MenuItem label="Stop" keys={keyLabel('stop', shownKeys) ?? ''} action="stop" onClick={act({ kind: 'stop' })} />
      ) : (
        <MenuItem label={session.resumable ? 'Resume' : 'Start'} keys={keyLabel('start', shownKeys) ?? ''} action="start" onClick={act({ kind: 'start' })} />
      )}
      <MenuItem label="Restart clean…" keys={keyLabel('restart', shownKeys) ?? ''} action="restart-clean" onClick={act({ kind: 'restart-clean' })} />
      {hasRepository(session) && <MenuItem label="Review changes" keys={keyLabel('changes', shownKeys) ?? ''} action="changes" onClick={act({ kind: 'changes' })} />}
      <MenuItem label="Rename…" keys={keyLabel('rename', shownKeys) ?? ''} action="rename" onClick={act({ kind: 'rename' })} />
      <MenuItem label="Archive" keys="" action="archive" onClick={act({ kind: 'archive' })} />
      <MenuItem label="Remove…" keys={keyLabel('remove', shownKeys) ?? ''} action="remove" onClick={act({ kind: 'remove' })} />
      <MenuItem
        label="Copy link"
        keys=""
        onClick={() => {
          onClose();
          void navigator.clipboard?.writeText(sessionLink(session.id)).catch(() => {});
        }}
      />
    </div>
  );
}

/** `action`: the shortcut's action this item is, when the menu is open. */
function MenuItem({ label, keys, action, onClick }: { label: string; keys: string; action?: Action['kind']; onClick(): void }) {
  return (
    <button type="button" role="menuitem" tabIndex={-1} data-action={action} onClick={onClick}>
      <span>{label}</span>
      <kbd>{keys}</kbd>
    </button>
  );
}
