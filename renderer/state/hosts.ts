// The remote hosts as the daemon tells them (docs/hosts.md): their list, then each change of a
// link's state from the events stream, so the sidebar can say "reconnecting devbox".

import { create } from 'zustand';
import type { ClientApi } from '../../daemon/contract/contract';
import type { HostChange, HostView } from '../../daemon/contract/hosts';

export interface HostsState {
  hosts: HostView[];
  replace(hosts: HostView[]): void;
  apply(change: HostChange): void;
}

export const useHosts = create<HostsState>((set) => ({
  hosts: [],
  replace: (hosts) => set({ hosts }),
  apply: (change) => set((state) => ({ hosts: applyHostChange(state.hosts, change) })),
}));

/** The list after one change. Pure, so it can be tested alone. */
export function applyHostChange(hosts: HostView[], change: HostChange): HostView[] {
  if (change.kind === 'removed') return hosts.filter((h) => h.name !== change.host.name);
  const index = hosts.findIndex((h) => h.name === change.host.name);
  if (index < 0) return [...hosts, change.host];
  return hosts.map((h, i) => (i === index ? change.host : h));
}

/** Keeps the store in step with the daemon. Returns the function that stops it. */
export function syncHosts(api: ClientApi): () => void {
  void api.listHosts().then(({ hosts }) => useHosts.getState().replace(hosts), () => {});
  return api.onHostChange?.((change) => useHosts.getState().apply(change)) ?? (() => {});
}
