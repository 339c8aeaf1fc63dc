// What of a session's event leaves the engine. The database keeps every detail; whoever reads
// events (the UI, a read-only token, MCP, the CLI) never sees a resume key: whoever holds one
// can resume, or read, that conversation.

import type { SessionEvent } from '../contract/session';

/** What stands in a launch's argv (or any text) where the resume key was. */
export const KEY_SHOWN_AS = '<resume key>';

/** Enough of a key for a person to tell which conversation it was, and no more. */
export function keyHint(key: string): string {
  return `${[...key].slice(0, 8).join('')}…`;
}

/**
 * The event as it may be shown. `keys` are the resume keys the session has had that the event
 * may carry in its text (its argv): the engine knows them; the event's own key fields are added.
 * `key` goes (a hint stays, `keyHint`), `droppedKey` becomes `droppedKeyHint`, and any other
 * string that holds a key has it replaced by KEY_SHOWN_AS, keeping its shape.
 */
export function publicEvent(event: SessionEvent, keys: Iterable<string | null | undefined> = []): SessionEvent {
  const secrets = new Set<string>();
  for (const key of [...keys, event.detail.key, event.detail.droppedKey]) if (typeof key === 'string' && key !== '') secrets.add(key);
  const detail: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(event.detail)) {
    if (field === 'key') {
      if (typeof value === 'string') detail.keyHint = keyHint(value);
    } else if (field === 'droppedKey') {
      detail.droppedKeyHint = typeof value === 'string' ? keyHint(value) : null;
    } else detail[field] = hide(value, secrets);
  }
  return { ...event, message: hide(event.message, secrets) as string, detail };
}

/** Every event of a session, shown: the keys of its whole log, and its current one, are hidden in each. */
export function publicEvents(events: SessionEvent[], currentKey: string | null): SessionEvent[] {
  const keys = new Set<string | null>([currentKey]);
  for (const event of events) for (const key of [event.detail.key, event.detail.droppedKey]) if (typeof key === 'string') keys.add(key);
  return events.map((event) => publicEvent(event, keys));
}

function hide(value: unknown, secrets: ReadonlySet<string>): unknown {
  if (typeof value === 'string') {
    let text = value;
    for (const secret of secrets) {
      // A short key is only hidden where it is a whole value: as a substring it would eat words.
      if (text === secret) return KEY_SHOWN_AS;
      if (secret.length >= 8) text = text.split(secret).join(KEY_SHOWN_AS);
    }
    return text;
  }
  if (Array.isArray(value)) return value.map((item) => hide(item, secrets));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hide(v, secrets)]));
  return value;
}
