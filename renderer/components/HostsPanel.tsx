import { useState } from 'react';
import type { ClientApi } from '../../daemon/contract/contract';
import type { ErrorShape } from '../../daemon/contract/errors';
import { errorOf } from '../lib/errors';
import { hostStateWords } from '../../daemon/contract/hosts';
import { useHosts } from '../state/hosts';
import { FieldError, FormDialog } from './FormDialog';

/**
 * The sidebar's foot: this machine and each remote host, with how its link is doing (connected,
 * reconnecting, what is missing there and the command that installs it), and "Add host…".
 */
export function HostsPanel({ api }: { api: ClientApi }) {
  const hosts = useHosts((s) => s.hosts);
  const [adding, setAdding] = useState(false);

  return (
    <section className="hosts-panel" aria-label="Hosts">
      <div className="hosts-head">
        <span className="sidebar-title">Hosts</span>
        <button type="button" className="hosts-add" onClick={() => setAdding(true)}>
          Add host…
        </button>
      </div>
      <ul className="hosts-list">
        <li className="host-row" data-host="local">
          <span className="host-dot connected" aria-hidden="true" />
          <span className="host-name">local</span>
          <span className="host-state">this machine</span>
        </li>
        {hosts.map((host) => (
          <li key={host.name} className="host-row" data-host={host.name} data-state={host.state} title={host.target}>
            <span className={`host-dot ${host.state}`} aria-hidden="true" />
            <span className="host-name">{host.name}</span>
            <span className="host-state">{hostStateWords(host)}</span>
            {(host.state === 'missing' || host.state === 'reconnecting') && host.message && <p className="host-message">{host.message}</p>}
          </li>
        ))}
      </ul>
      {adding && <AddHostDialog api={api} close={() => setAdding(false)} />}
    </section>
  );
}

function AddHostDialog({ api, close }: { api: ClientApi; close(): void }) {
  const [name, setName] = useState('');
  const [target, setTarget] = useState('');
  const [corral, setCorral] = useState('');
  const [error, setError] = useState<ErrorShape | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    try {
      const host = await api.addHost({ name: name.trim(), target: target.trim(), ...(corral.trim() ? { corral: corral.trim() } : {}) });
      useHosts.getState().apply({ kind: 'updated', host });
      close();
    } catch (err) {
      setError(errorOf(err));
    } finally {
      setBusy(false);
    }
  };
  const field = error?.field && ['name', 'target', 'corral'].includes(error.field) ? error.field : 'form';
  const fieldError = (which: string) => <FieldError id={`host-${which}-error`} message={field === which ? error?.message : null} />;

  return (
    <FormDialog id="add-host" title="Add host" submit="Add" disabled={busy} onSubmit={() => void submit()} onClose={close}>
      <p className="hint">Reached with this machine&apos;s own ssh: its config, keys and agent. Corral stores no password or key.</p>
      <label htmlFor="host-name">Name</label>
      <input id="host-name" autoFocus value={name} onChange={(e) => setName(e.target.value)} placeholder="devbox" required />
      {fieldError('name')}
      <label htmlFor="host-target">ssh target</label>
      <input id="host-target" value={target} onChange={(e) => setTarget(e.target.value)} placeholder="me@devbox.example.com:22, or an alias of ~/.ssh/config" required />
      {fieldError('target')}
      <label htmlFor="host-corral">corral command there</label>
      <input id="host-corral" value={corral} onChange={(e) => setCorral(e.target.value)} placeholder="corral (on its PATH)" />
      {fieldError('corral')}
      {fieldError('form')}
    </FormDialog>
  );
}
