import { visible } from '../lib/words';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { ClientApi } from '../../daemon/contract/contract';
import type { PathPreview } from '../../daemon/contract/files';
import { errorOf } from '../lib/errors';
import { useSessions } from '../state/sessions';
import { useUi, type PreviewTarget } from '../state/ui';

/** A path printed in a terminal, shown beside it: text (editable), an image, or a folder. */
export function PreviewPane({ api, target }: { api: ClientApi; target: PreviewTarget }) {
  const session = useSessions((s) => s.sessions.find((x) => x.id === target.sessionId));
  const [preview, setPreview] = useState<PathPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [draft, setDraft] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const close = () => useUi.getState().openPreview(null);

  const load = useCallback(
    (path: string) => {
      setError(null);
      setDraft(null);
      setSaved(null);
      api.previewPath({ id: target.sessionId, path }).then(setPreview, (err) => {
        setPreview(null);
        setError(errorOf(err).message);
      });
    },
    [api, target.sessionId],
  );
  useEffect(() => load(target.path), [load, target.path]);

  const open = (path: string) => useUi.getState().openPreview({ sessionId: target.sessionId, path });
  const shownPath = preview?.path ?? target.path;
  const relative = session && shownPath.startsWith(`${session.cwd}/`) ? shownPath.slice(session.cwd.length + 1) : shownPath;

  const save = async () => {
    if (preview?.kind !== 'text' || draft === null) return;
    setSaving(true);
    setError(null);
    try {
      const result = await api.savePath({ id: target.sessionId, path: preview.path, text: draft, version: preview.version });
      setPreview({ ...preview, text: draft, size: result.bytes, version: result.version });
      setDraft(null);
      setSaved(`Saved ${result.bytes} bytes.`);
    } catch (err) {
      setError(errorOf(err).message);
    } finally {
      setSaving(false);
    }
  };

  return (
    <aside className="preview" aria-label={`Preview of ${relative}`} onKeyDown={(e) => e.key === 'Escape' && draft === null && close()}>
      <header className="preview-head">
        {/* Cut from the left when long (the name matters most); <bdi> keeps ".env" from reading "env.". */}
        <span className="preview-path" title={visible(shownPath)}>
          <bdi>{visible(relative)}</bdi>
        </span>
        {preview?.kind === 'text' && !preview.truncated && draft === null && (
          <button type="button" onClick={() => setDraft(preview.text)}>
            Edit
          </button>
        )}
        {draft !== null && (
          <>
            <button type="button" className="primary" disabled={saving} onClick={() => void save()}>
              Save
            </button>
            <button type="button" onClick={() => setDraft(null)}>
              Cancel
            </button>
          </>
        )}
        <button type="button" onClick={close} aria-label="Close the preview">
          ×
        </button>
      </header>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {saved && <p className="hint" role="status">{saved}</p>}
      <div className="preview-body">
        {preview && draft === null && <Shown preview={preview} onOpen={open} />}
        {draft !== null && <textarea className="preview-editor" aria-label={`Text of ${relative}`} value={draft} onChange={(e) => setDraft(e.target.value)} spellCheck={false} autoFocus />}
      </div>
    </aside>
  );
}

function Shown({ preview, onOpen }: { preview: PathPreview; onOpen(path: string): void }) {
  switch (preview.kind) {
    case 'text':
      return <TextView text={preview.text} line={preview.line} truncated={preview.truncated} size={preview.size} />;
    case 'image':
      return <img className="preview-image" alt={preview.path} src={`data:${preview.mime};base64,${preview.base64}`} />;
    case 'folder':
      return (
        <ul className="preview-folder" aria-label="Folder contents">
          {preview.entries.map((entry) => (
            <li key={entry.path + entry.name}>
              <button type="button" className={entry.folder ? 'is-folder' : undefined} onClick={() => onOpen(entry.path)}>
                <bdi>{visible(entry.name)}</bdi>
                {entry.folder && entry.name !== '..' ? '/' : ''}
              </button>
            </li>
          ))}
          {preview.truncated && <li className="hint">… and more, not listed</li>}
        </ul>
      );
    case 'binary':
      return <p className="hint">A binary file ({preview.size.toLocaleString()} bytes): not shown.</p>;
    case 'missing':
      return <p className="hint">There is no file or folder at {preview.path}.</p>;
    case 'refused':
      return (
        <p className="refused" role="alert">
          Not shown: {preview.reason}.
        </p>
      );
  }
}

function TextView({ text, line, truncated, size }: { text: string; line: number | null; truncated: boolean; size: number }) {
  const ref = useRef<HTMLDivElement>(null);
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  useLayoutEffect(() => {
    if (line) ref.current?.querySelector(`[data-line="${line}"]`)?.scrollIntoView({ block: 'center' });
  }, [line, text]);
  return (
    <div ref={ref} className="preview-text" role="document">
      {lines.map((content, index) => (
        <div key={index} className={index + 1 === line ? 'preview-line current' : 'preview-line'} data-line={index + 1} aria-current={index + 1 === line ? 'location' : undefined}>
          <span className="line-number" aria-hidden="true">
            {index + 1}
          </span>
          <code>{content || ' '}</code>
        </div>
      ))}
      {truncated && <p className="hint">Only the first 256 KiB of {size.toLocaleString()} bytes are shown; it cannot be edited here.</p>}
    </div>
  );
}
