import { useEffect, useMemo, useState } from 'react';
import type { FolderList } from '../../daemon/contract/files';
import type { CatalogueProblem, CliView } from '../../daemon/contract/session';
import { hostOf } from '../lib/remote';
import { useHosts } from '../state/hosts';
import { HIDDEN_RUNS } from '../../daemon/contract/hiddenCharacters';
import { visible } from '../lib/words';
import type { ErrorShape } from '../../daemon/contract/errors';
import { recentFolders, useSessions } from '../state/sessions';
import { useUi } from '../state/ui';
import type { ClientApi } from '../../daemon/contract/contract';
import { errorOf } from '../lib/errors';
import { FieldError, FormDialog } from './FormDialog';
import { folderSuggestions, folderToList } from '../lib/folderPicker';

/** How many recent folders the dialog offers under the folder's field. */
const RECENT_SHOWN = 5;

/**
 * Pick a host, a CLI, a folder and a name; the new tab opens focused and live. `clientOn` gives
 * the client of a host (this machine's for null): the agents, the folders and the session are
 * that host's.
 */
export function NewSessionDialog({ clientOn }: { clientOn(host: string | null): ClientApi }) {
  const connected = useHosts((s) => s.hosts).filter((h) => h.state === 'connected');
  const lastHost = useUi((s) => s.lastHost);
  const [host, setHost] = useState(connected.some((h) => h.name === lastHost) ? lastHost : null);
  const api = useMemo(() => clientOn(host), [clientOn, host]);
  const localClis = useSessions((s) => s.clis);
  const [hostClis, setHostClis] = useState<CliView[] | null>(null);
  const clis = host === null ? localClis : (hostClis ?? []);
  const sessions = useSessions((s) => s.sessions);
  const folders = useMemo(() => recentFolders(sessions.filter((s) => hostOf(s.id) === host)), [sessions, host]);
  // The agent picked last time, while it is installed; else the first that is.
  const lastCli = useUi((s) => s.lastCli);
  const firstInstalled = clis.find((c) => c.installed && c.name === lastCli)?.name ?? clis.find((c) => c.installed)?.name ?? '';
  const [cli, setCli] = useState(firstInstalled);
  useEffect(() => {
    if (!clis.some((c) => c.name === cli && c.installed)) setCli(firstInstalled);
  }, [clis, cli, firstInstalled]);
  // The folder of the session shown (its repository's, for one in a worktree of its own), else the one used last.
  const shown = useSessions((s) => s.sessions.find((x) => x.id === s.activeId && hostOf(x.id) === host));
  const [cwd, setCwd] = useState(shown ? (shown.worktree?.repo ?? shown.cwd) : (folders[0] ?? ''));
  const [name, setName] = useState('');
  const [prompt, setPrompt] = useState('');
  // Its own git worktree: a branch (default corral/<name>) from a base (default the folder's branch).
  const [ownWorktree, setOwnWorktree] = useState(false);
  const [branch, setBranch] = useState('');
  const [base, setBase] = useState('');
  const [error, setError] = useState<ErrorShape | null>(null);
  const [busy, setBusy] = useState(false);
  // The catalogue as it is now (the daemon reads clis.toml again when it changes), and what is wrong in it.
  const [problems, setProblems] = useState<CatalogueProblem[]>([]);
  useEffect(() => {
    let current = true;
    api.listClis().then(
      ({ clis: fresh, problems: found }) => {
        if (!current) return;
        if (host === null) useSessions.getState().setClis(fresh);
        else setHostClis(fresh);
        setProblems(found);
      },
      () => {},
    );
    return () => {
      current = false;
    };
  }, [api, host]);
  // The folders in the folder typed so far: the daemon lists its own disk (a browser has no picker for it).
  const [answered, setAnswered] = useState<{ asked: string; list: FolderList } | null>(null);
  const toList = folderToList(cwd);
  useEffect(() => {
    if (toList === null) return setAnswered(null);
    let current = true;
    api.listFolders({ path: toList }).then(
      (list) => current && setAnswered({ asked: toList, list }),
      () => current && setAnswered(null),
    );
    return () => {
      current = false;
    };
  }, [api, toList]);
  // Only the listing of the folder typed now: one asked for before is another folder's.
  const listed = answered?.asked === toList ? answered.list : null;
  const suggestions = useMemo(() => folderSuggestions(cwd, listed, folders), [cwd, listed, folders]);
  const close = () => useUi.getState().open(null);
  // As the daemon names it: after the folder, what is not seen for what it is made `_`; `~` is the home folder, whose name the daemon knows.
  const lastPart = cwd.replace(/\/+$/, '').split('/').pop() ?? '';
  const defaultName = lastPart === '~' ? '' : lastPart.replace(HIDDEN_RUNS, '_');

  /** `setup`: the person's word on the branch's setup command, once asked (below). */
  const submit = async (setup?: 'run' | 'skip') => {
    setError(null);
    setBusy(true);
    try {
      const checked = await api.checkFolder({ path: cwd.trim() });
      if (!checked.ok) return setError(checked.error);
      const worktree = ownWorktree ? { ...(branch.trim() ? { branch: branch.trim() } : {}), ...(base.trim() ? { base: base.trim() } : {}), ...(setup ? { setup } : {}) } : undefined;
      const session = await api.createSession({ cli, cwd: checked.path, ...(name.trim() ? { name: name.trim() } : {}), ...(prompt.trim() ? { prompt } : {}), ...(worktree ? { worktree } : {}) });
      useUi.getState().pickedCli(cli);
      useUi.getState().pickedHost(host);
      useSessions.getState().apply({ kind: 'added', session });
      useSessions.getState().activate(session.id);
      close();
    } catch (err) {
      setError(errorOf(err));
    } finally {
      setBusy(false);
    }
  };
  // An error on a field the dialog has is shown under it; any other (the repository's setup recipe, say) at the foot.
  const errorField = error?.field && ['cli', 'cwd', 'name', 'prompt', 'branch', 'base'].includes(error.field) ? error.field : undefined;
  // The branch's setup command, not yet allowed for its repository: shown, run or left out by the person's choice.
  const setupAsked = ownWorktree && error?.code === 'conflict' && error.field === 'setup' ? (/ runs `([\s\S]*)` before the agent starts/.exec(error.message)?.[1] ?? null) : null;
  const fieldError = (field: string) => <FieldError id={`${field}-error`} message={errorField === field || (!errorField && field === 'form' && setupAsked === null) ? error?.message : null} />;

  return (
    <FormDialog id="new-session" title="New session" submit="Start" disabled={busy || !cli} onSubmit={() => void submit()} onClose={close}>
      {connected.length > 0 && (
        <>
          <label htmlFor="host">Host</label>
          <select
            id="host"
            value={host ?? ''}
            onChange={(e) => {
              const picked = e.target.value || null;
              setHost(picked);
              setHostClis(null);
              setCwd(recentFolders(sessions.filter((s) => hostOf(s.id) === picked))[0] ?? '');
            }}
          >
            <option value="">this machine</option>
            {connected.map((h) => (
              <option key={h.name} value={h.name}>
                {h.name}
              </option>
            ))}
          </select>
        </>
      )}
      <fieldset>
        <legend>Agent</legend>
        {clis.map((c) => (
          <label key={c.name} className={c.installed ? 'cli-choice' : 'cli-choice disabled'}>
            <input type="radio" name="cli" value={c.name} checked={cli === c.name} disabled={!c.installed} onChange={() => setCli(c.name)} />
            <span className="cli-dot" style={{ background: c.color }} aria-hidden="true" />
            {c.label}
            {!c.installed && <span className="hint"> — not found on PATH</span>}
          </label>
        ))}
        {fieldError('cli')}
        {problems.length > 0 && (
          <div className="catalogue-problems" role="note">
            <p>Some of the catalogue could not be read:</p>
            <ul>
              {problems.map((p, i) => (
                <li key={i}>{visible(p.message)}</li>
              ))}
            </ul>
          </div>
        )}
      </fieldset>
      <label htmlFor="cwd">Folder</label>
      <input id="cwd" list="folder-suggestions" autoFocus value={cwd} onChange={(e) => setCwd(e.target.value)} placeholder="/path/to/project" required aria-describedby={error?.field === 'cwd' ? 'cwd-error' : undefined} />
      <datalist id="folder-suggestions">
        {suggestions.map((f) => (
          <option key={f} value={f} label={visible(f) === f ? undefined : visible(f)} />
        ))}
      </datalist>
      {visible(cwd) !== cwd && (
        <p className="hint" role="note">
          This folder&apos;s path holds characters that are not shown for what they are: <bdi>{visible(cwd)}</bdi>
        </p>
      )}
      {/* The folders of recent sessions, one click away: a field filled in already hides them in its suggestions. */}
      {folders.some((folder) => folder !== cwd.trim()) && (
        <div className="recent-folders" role="group" aria-label="Recently used">
          <span className="hint">Recent:</span>
          {folders
            .filter((folder) => folder !== cwd.trim())
            .slice(0, RECENT_SHOWN)
            .map((folder) => (
              <button key={folder} type="button" className="chip" title={visible(folder)} onClick={() => setCwd(folder)}>
                <bdi>{visible(folder.replace(/\/+$/, '').split('/').pop() || folder)}</bdi>
              </button>
            ))}
        </div>
      )}
      {fieldError('cwd')}
      <label htmlFor="name">Name</label>
      <input id="name" value={name} onChange={(e) => setName(e.target.value)} placeholder={defaultName || (lastPart === '~' ? 'named after your home folder' : 'named after the folder')} maxLength={100} />
      {fieldError('name')}
      <label className="check">
        <input type="checkbox" checked={ownWorktree} onChange={(e) => setOwnWorktree(e.target.checked)} aria-describedby="worktree-hint" />
        Own worktree
      </label>
      <p className="hint" id="worktree-hint">
        The agent works on a branch of its own in a separate folder; review its changes, then merge or discard them.
      </p>
      {ownWorktree && (
        <div className="worktree-fields">
          <div>
            <label htmlFor="worktree-branch">Branch</label>
            <input id="worktree-branch" value={branch} onChange={(e) => setBranch(e.target.value)} placeholder={`corral/${slug(name.trim() || defaultName) || '<name>'}`} maxLength={200} aria-describedby={errorField === 'branch' ? 'branch-error' : undefined} />
            {fieldError('branch')}
          </div>
          <div>
            <label htmlFor="worktree-base">Base</label>
            <input id="worktree-base" value={base} onChange={(e) => setBase(e.target.value)} placeholder="the folder's current branch" maxLength={200} aria-describedby={errorField === 'base' ? 'base-error' : undefined} />
            {fieldError('base')}
          </div>
          {setupAsked !== null && (
            <div className="setup-asked" role="group" aria-labelledby="setup-asked">
              <p id="setup-asked">This branch's .corral/setup.toml runs a command before the agent starts, which you have not allowed for this repository:</p>
              <pre className="setup-command">{visible(setupAsked)}</pre>
              <button type="button" className="primary" disabled={busy} onClick={() => void submit('run')}>
                Run it and start
              </button>
              <button type="button" disabled={busy} onClick={() => void submit('skip')}>
                Start without it
              </button>
            </div>
          )}
        </div>
      )}
      <label htmlFor="first-prompt">First prompt</label>
      <textarea
        id="first-prompt"
        value={prompt}
        onChange={(e) => setPrompt(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            void submit();
          }
        }}
        rows={3}
        maxLength={100_000}
        placeholder="Optional: typed into the agent once it is ready (Ctrl+Enter starts)"
        aria-describedby="first-prompt-hint"
      />
      <p className="hint" id="first-prompt-hint">
        Never typed into a question the agent asks first (a trust or sign-in prompt): it waits until you have answered.
      </p>
      {fieldError('prompt')}
      {fieldError('form')}
    </FormDialog>
  );
}

/** The default branch's name as the daemon makes it from the session's name (it adds -2, -3 if taken). */
function slug(name: string): string {
  return name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 60);
}
