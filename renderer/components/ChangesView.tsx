import { Fragment, useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Decoration, Diff, Hunk, getChangeKey, markEdits, parseDiff, tokenize, type ChangeData, type FileData, type HunkTokens } from 'react-diff-view';
import 'react-diff-view/style/index.css';
import type { Changes, FileDiff, ReviewComment } from '../../daemon/contract/changes';
import type { ErrorShape } from '../../daemon/contract/errors';
import { isRunning, type SessionView } from '../../daemon/contract/session';
import type { ClientApi } from '../../daemon/contract/contract';
import { kindMark, landedWords, languageOf, lossWords, selectedLines, whereWords, type DiffLine } from '../lib/changes';
import { errorOf } from '../lib/errors';
import { highlighterFor } from '../lib/highlight';
import { visible } from '../lib/words';
import { useUi } from '../state/ui';

/**
 * A session's changes beside its terminal: every file changed since its base (or, without a
 * worktree, what its folder has not committed), the chosen file's diff, comments on its lines
 * sent to the agent, and for a worktree its merge into the base or its discard.
 */
export function ChangesView({ api, session }: { api: ClientApi; session: SessionView }) {
  const worktree = session.worktree;
  const [changes, setChanges] = useState<Changes | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const [drafts, setDrafts] = useState<ReviewComment[]>([]);
  const [sent, setSent] = useState<string | null>(null);
  const [sendError, setSendError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const viewType = useUi((s) => s.diffView);
  const close = () => useUi.getState().showChanges(null);

  // The list again when asked, and whenever the last look at the worktree (or folder) saw something else.
  const seen = JSON.stringify([worktree?.state, worktree?.missing, worktree?.settingUp, session.git]);
  useEffect(() => {
    let current = true;
    api.sessionChanges({ id: session.id }).then(
      (fresh) => {
        if (!current) return;
        setChanges(fresh);
        setListError(null);
        setChosen((was) => (was && fresh.files.some((f) => f.path === was) ? was : (fresh.files[0]?.path ?? null)));
      },
      (err) => current && setListError(errorOf(err).message),
    );
    return () => {
      current = false;
    };
  }, [api, session.id, seen, reload]);

  const send = async () => {
    setSendError(null);
    setSent(null);
    try {
      await api.commentOnChanges({ id: session.id, comments: drafts });
      setSent(`${drafts.length} comment${drafts.length === 1 ? '' : 's'} typed into ${visible(session.name)}.`);
      setDrafts([]);
    } catch (err) {
      // The drafts stay, to send again (a session that is not running: once it is started).
      setSendError(errorOf(err).message);
    }
  };

  const file = changes?.files.find((f) => f.path === chosen) ?? null;
  return (
    <aside className="changes" aria-label={`Changes of ${visible(session.name)}`}>
      <div className="changes-head">
        <h2>Changes</h2>
        <span className="changes-against" title={changes ? visible(changes.folder) : undefined}>
          {worktree ? (
            <>
              <bdi>{visible(worktree.branch)}</bdi> against <bdi>{visible(worktree.base)}</bdi>
            </>
          ) : (
            'not committed yet'
          )}
        </span>
        <div className="segmented" role="group" aria-label="Diff layout">
          <button type="button" aria-pressed={viewType === 'unified'} onClick={() => useUi.getState().setDiffView('unified')}>
            Unified
          </button>
          <button type="button" aria-pressed={viewType === 'split'} onClick={() => useUi.getState().setDiffView('split')}>
            Side by side
          </button>
        </div>
        <button type="button" onClick={() => setReload((n) => n + 1)} title="Look at the changes again">
          Refresh
        </button>
        <button type="button" onClick={close} aria-label="Close the changes" title="Close the changes (Ctrl+Shift+D)">
          ×
        </button>
      </div>
      {worktree && <Landing api={api} session={session} onLanded={() => setReload((n) => n + 1)} />}
      {listError && (
        <p className="field-error changes-note" role="alert">
          {listError}
        </p>
      )}
      <div className="changes-body">
        <ul className="changes-files" aria-label="Changed files">
          {changes?.files.length === 0 && <li className="hint changes-none">{worktree ? `Nothing changed since ${visible(worktree.base)}.` : 'Nothing uncommitted.'}</li>}
          {changes?.files.map((f) => {
            const mark = kindMark(f.kind);
            return (
              <li key={f.path}>
                <button type="button" className="changes-file" aria-current={f.path === chosen} onClick={() => setChosen(f.path)} title={`${visible(f.from ? `${f.from} → ${f.path}` : f.path)} — ${mark.word}`}>
                  <span className={`kind kind-${f.kind}`} aria-label={mark.word}>
                    {mark.letter}
                  </span>
                  <span className="changes-path">{visible(f.path)}</span>
                  {f.binary ? (
                    <span className="counts hint">binary</span>
                  ) : (
                    <span className="counts" aria-label={`${f.added ?? '?'} added, ${f.removed ?? '?'} removed`}>
                      <span className="added">+{f.added ?? '?'}</span> <span className="removed">−{f.removed ?? '?'}</span>
                    </span>
                  )}
                </button>
              </li>
            );
          })}
        </ul>
        <div className="changes-diff">
          {file && (
            <FileDiffView
              key={file.path}
              version={`${reload}:${seen}`}
              api={api}
              sessionId={session.id}
              path={file.path}
              counts={file.binary ? null : { added: file.added, removed: file.removed }}
              drafts={drafts.filter((d) => d.path === file.path)}
              onDraft={(draft) => setDrafts((all) => [...all, draft])}
            />
          )}
        </div>
      </div>
      <div className="changes-drafts" role="region" aria-label="Comments to send">
        {drafts.length > 0 && (
          <ol>
            {drafts.map((d, i) => (
              <li key={i}>
                <span className="draft-where">{visible(whereWords(d))}</span>: {visible(d.text)}
                <button type="button" className="link-button" onClick={() => setDrafts((all) => all.filter((_, j) => j !== i))} aria-label={`Drop the comment on ${visible(whereWords(d))}`}>
                  ×
                </button>
              </li>
            ))}
          </ol>
        )}
        <div className="drafts-row">
          <span className="hint">{drafts.length === 0 ? 'Click a line number to comment (Shift+click for a range).' : `${drafts.length} comment${drafts.length === 1 ? '' : 's'} to send, as one message to the agent.`}</span>
          {sent && (
            <span className="ok" role="status">
              {sent}
            </span>
          )}
          <button type="button" className="primary" disabled={drafts.length === 0} onClick={() => void send()}>
            Send {drafts.length > 0 ? drafts.length : ''} to the agent
          </button>
        </div>
        {sendError && (
          <p className="field-error" role="alert">
            {sendError}
          </p>
        )}
      </div>
    </aside>
  );
}

/** Merge into the base (with a commit message when there is uncommitted work), open a pull request, or discard it all. */
function Landing({ api, session, onLanded }: { api: ClientApi; session: SessionView; onLanded(): void }) {
  const worktree = session.worktree!;
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<ErrorShape | null>(null);
  // The last look saw uncommitted work, or the daemon has just said it needs a message for some.
  const uncommitted = (worktree.state?.uncommitted ?? 0) > 0 || error?.field === 'message';
  const merge = async () => {
    setBusy(true);
    setResult(null);
    setError(null);
    try {
      const landed = await api.mergeSession({ id: session.id, ...(uncommitted && message.trim() ? { message: message.trim() } : {}) });
      setResult(landedWords(landed, worktree.branch, worktree.base));
      setMessage('');
      onLanded();
    } catch (err) {
      setError(errorOf(err));
    } finally {
      setBusy(false);
    }
  };
  // A pull request instead: the daemon pushes the branch and asks gh; without gh it says what to do.
  const pullRequest = async () => {
    setBusy(true);
    setResult(null);
    setError(null);
    try {
      const made = await api.openPullRequest({ id: session.id, ...(uncommitted && message.trim() ? { message: message.trim() } : {}) });
      setResult(`Pull request opened: ${made.url}`);
      setMessage('');
      onLanded();
    } catch (err) {
      setError(errorOf(err));
    } finally {
      setBusy(false);
    }
  };
  const discard = () =>
    useUi.getState().open({
      kind: 'confirm',
      title: `Discard "${visible(session.name)}"?`,
      body: `The session is removed with ${lossWords(worktree, true)}. Nothing of it reaches ${visible(worktree.base)}. This cannot be undone.`,
      confirm: 'Discard',
      danger: true,
      then: () =>
        void api.removeSession({ id: session.id, force: isRunning(session.state), worktree: 'remove', deleteBranch: true }).then(
          () => useUi.getState().showChanges(null),
          (err) => useUi.getState().fail(session.id, errorOf(err)),
        ),
    });
  return (
    <form
      className="landing"
      onSubmit={(e) => {
        e.preventDefault();
        void merge();
      }}
    >
      {/* Always there, so that the buttons do not move under a click as a look finds uncommitted work. */}
      <input
        aria-label="Commit message"
        value={uncommitted ? message : ''}
        onChange={(e) => setMessage(e.target.value)}
        placeholder={uncommitted ? 'Commit message for the uncommitted work' : 'Nothing uncommitted'}
        disabled={!uncommitted}
        maxLength={10_000}
        aria-invalid={error?.field === 'message'}
        aria-describedby={error ? 'landing-error' : undefined}
      />
      <button type="submit" className="primary" disabled={busy || worktree.missing}>
        Merge into <bdi>{visible(worktree.base)}</bdi>
      </button>
      <button type="button" onClick={() => void pullRequest()} disabled={busy || worktree.missing} title="Push the branch and open a pull request with gh">
        Pull request
      </button>
      <button type="button" className="danger-outline" onClick={discard} disabled={busy}>
        Discard…
      </button>
      {result && (
        <p className="landing-result ok" role="status">
          {result}
        </p>
      )}
      {error && (
        <p className="landing-result field-error" role="alert" id="landing-error">
          {visible(error.message)}
        </p>
      )}
    </form>
  );
}

/** Where a selection of lines starts and ends: indexes into the diff's lines. */
interface Selection {
  anchor: number;
  end: number;
}

function FileDiffView({
  api,
  version,
  sessionId,
  path,
  counts,
  drafts,
  onDraft,
}: {
  api: ClientApi;
  /** Changes when the diff may have: it is fetched again, and kept if it is the same. */
  version: string;
  sessionId: string;
  path: string;
  counts: { added: number | null; removed: number | null } | null;
  drafts: ReviewComment[];
  onDraft(draft: ReviewComment): void;
}) {
  const viewType = useUi((s) => s.diffView);
  const [diff, setDiff] = useState<FileDiff | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tokens, setTokens] = useState<HunkTokens | null>(null);
  const [selection, setSelection] = useState<Selection | null>(null);
  const [text, setText] = useState('');
  useEffect(() => {
    let current = true;
    api.sessionDiff({ id: sessionId, path }).then(
      (fresh) => {
        if (!current) return;
        setError(null);
        // The same diff again keeps its highlighting and the lines chosen; another one starts afresh.
        setDiff((was) => (was && was.diff === fresh.diff && was.binary === fresh.binary && was.tooLarge === fresh.tooLarge ? was : fresh));
      },
      (err) => current && setError(errorOf(err).message),
    );
    return () => {
      current = false;
    };
  }, [api, sessionId, path, version]);
  useEffect(() => setSelection(null), [diff]);
  const parsed: FileData | null = useMemo(() => {
    if (!diff || diff.binary || diff.tooLarge || !diff.diff) return null;
    try {
      return parseDiff(diff.diff, { nearbySequences: 'zip' })[0] ?? null;
    } catch {
      return null;
    }
  }, [diff]);
  // Highlighted once the file's language is loaded; plain until then (or for a language not known).
  useEffect(() => {
    if (!parsed) return;
    const language = languageOf(path);
    let current = true;
    const plain = () => tokenize(parsed.hunks, { enhancers: [markEdits(parsed.hunks, { type: 'block' })] });
    setTokens(plain());
    if (language)
      void highlighterFor(language).then((refractor) => {
        if (!current || !refractor) return;
        try {
          setTokens(tokenize(parsed.hunks, { highlight: true, refractor: refractor as never, language, enhancers: [markEdits(parsed.hunks, { type: 'block' })] }));
        } catch {
          // A grammar that trips on this text: the plain tokens stay.
        }
      });
    return () => {
      current = false;
    };
  }, [parsed, path]);

  const changes = useMemo(() => parsed?.hunks.flatMap((h) => h.changes) ?? [], [parsed]);
  const lines: DiffLine[] = useMemo(
    () =>
      changes.map((c) => ({
        type: c.type,
        newLine: c.type === 'insert' ? c.lineNumber : c.type === 'normal' ? c.newLineNumber : null,
        oldLine: c.type === 'delete' ? c.lineNumber : c.type === 'normal' ? c.oldLineNumber : null,
      })),
    [changes],
  );
  const indexOf = useCallback((change: ChangeData) => changes.indexOf(change), [changes]);
  const selected = selection ? changes.slice(Math.min(selection.anchor, selection.end), Math.max(selection.anchor, selection.end) + 1).map(getChangeKey) : [];
  const range = selection ? selectedLines(lines, selection.anchor, selection.end) : null;
  const lastSelected = selection ? changes[Math.max(selection.anchor, selection.end)] : undefined;

  const addDraft = () => {
    if (!range || !text.trim()) return;
    onDraft({ path, ...range, text: text.trim() });
    setSelection(null);
    setText('');
  };
  const widgets: Record<string, ReactNode> = {};
  // Drafts under the last line they cover (a line of the file as it is now, else as it was).
  for (const draft of drafts) {
    const at = changes.find((c) => (c.type === 'insert' ? c.lineNumber : c.type === 'normal' ? c.newLineNumber : null) === draft.endLine) ?? changes.find((c) => c.type === 'delete' && c.lineNumber === draft.endLine);
    if (!at) continue;
    const key = getChangeKey(at);
    widgets[key] = (
      <>
        {widgets[key]}
        <div className="draft-note">
          <span className="draft-where">{visible(whereWords(draft))}</span> {visible(draft.text)} <span className="hint">(draft)</span>
        </div>
      </>
    );
  }
  if (lastSelected && range) {
    const key = getChangeKey(lastSelected);
    widgets[key] = (
      <>
        {widgets[key]}
        <form
          className="comment-form"
          onSubmit={(e) => {
            e.preventDefault();
            addDraft();
          }}
        >
          <label htmlFor="comment-text">Comment on {visible(whereWords({ path, ...range }))}</label>
          <textarea
            id="comment-text"
            autoFocus
            rows={3}
            maxLength={10_000}
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                addDraft();
              }
              if (e.key === 'Escape') {
                e.stopPropagation();
                setSelection(null);
              }
            }}
          />
          <div className="dialog-buttons">
            <button type="button" onClick={() => setSelection(null)}>
              Cancel
            </button>
            <button type="submit" className="primary" disabled={!text.trim()}>
              Add comment
            </button>
          </div>
        </form>
      </>
    );
  }

  let body: ReactNode;
  const countWords = counts ? ` (+${counts.added ?? '?'} −${counts.removed ?? '?'} lines)` : '';
  if (error) body = <p className="field-error changes-note">{visible(error)}</p>;
  else if (!diff) body = <p className="hint changes-note">Loading…</p>;
  else if (diff.binary) body = <p className="changes-note">A binary file: its changes are not shown as lines.</p>;
  else if (diff.tooLarge) body = <p className="changes-note">This diff is over 1 MB, too large to show here{countWords}. Open the file in your editor.</p>;
  else if (!parsed || parsed.hunks.length === 0) body = <p className="hint changes-note">No lines changed (an empty file, or only its mode).</p>;
  else
    body = (
      <Diff
        viewType={viewType}
        diffType={parsed.type}
        hunks={parsed.hunks}
        tokens={tokens}
        selectedChanges={selected}
        widgets={widgets}
        gutterEvents={{
          onClick: ({ change }, event) => {
            if (!change) return;
            const at = indexOf(change);
            setSelection((was) => (event.shiftKey && was ? { anchor: was.anchor, end: at } : { anchor: at, end: at }));
          },
        }}
      >
        {(hunks) =>
          hunks.map((hunk) => (
            <Fragment key={hunk.content}>
              <Decoration>
                <span className="hunk-head">{hunk.content}</span>
              </Decoration>
              <Hunk hunk={hunk} />
            </Fragment>
          ))
        }
      </Diff>
    );
  return (
    <section className="file-diff" aria-label={`Diff of ${visible(path)}`}>
      <h3 className="file-diff-path">{visible(path)}</h3>
      {body}
    </section>
  );
}
