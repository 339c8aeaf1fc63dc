// Sessions of remote hosts beside this machine's: the renderer knows a session by its key, its
// id for this machine's and `HOST/ID` for a host's (as `corral attach` names it; a host's name
// has no slash, an id neither), so two hosts' sessions with the same id are never confused. One
// client for everything: a call that names a session goes to its host's client with the bare id.

import type { ClientApi } from '../../daemon/contract/contract';
import { ROUTE_NAMES } from '../../daemon/contract/routes';
import { sessionKey, splitKey, type HostView } from '../../daemon/contract/hosts';
import type { SessionChange, SessionView } from '../../daemon/contract/session';

export { sessionKey, splitKey };

export const hostOf = (key: string): string | null => splitKey(key).host;

/** A host's session as the renderer lists it: its id is its key. */
export function keyed(host: string | null, session: SessionView): SessionView {
  return host === null ? session : { ...session, id: sessionKey(host, session.id) };
}

export function keyedChange(host: string | null, change: SessionChange): SessionChange {
  if (host === null) return change;
  return { ...change, session: keyed(host, change.session), ...(change.order ? { order: change.order.map((id) => sessionKey(host, id)) } : {}) };
}

/**
 * The client the components use: a method given a session's key (`id`, or `ids` to reorder)
 * goes to that session's host, and sessions in its answer come back keyed; the rest go to this
 * machine. `clientOf` gives a host's client (through this daemon's proxy).
 */
export function routedClient(local: ClientApi, clientOf: (host: string) => ClientApi): ClientApi {
  return makeClient(local, (req) => {
    const target = routeOf(req);
    return target.host === null ? { client: local, host: null, req } : { client: clientOf(target.host), host: target.host, req: target.req };
  });
}

/** Every method on one host's client (this machine's for null), its sessions keyed: what the new-session dialog uses. */
export function onHost(local: ClientApi, clientOf: (host: string) => ClientApi, host: string | null): ClientApi {
  const client = host === null ? local : clientOf(host);
  return makeClient(client, (req) => ({ client, host, req }));
}

type Route = (req: Record<string, unknown> | undefined) => { client: ClientApi; host: string | null; req: Record<string, unknown> | undefined };

function makeClient(base: ClientApi, route: Route): ClientApi {
  const made: Record<string, unknown> = { ...base };
  for (const method of ROUTE_NAMES) {
    made[method] = async (req?: Record<string, unknown>) => {
      const target = route(req);
      const call = target.client[method] as (r?: unknown) => Promise<unknown>;
      return keyedResult(target.host, await call(target.req));
    };
  }
  made.openStream = ((key, view, handlers) => {
    const target = route({ id: key });
    return target.client.openStream(target.req!.id as string, view, handlers);
  }) satisfies ClientApi['openStream'];
  return made as unknown as ClientApi;
}

function routeOf(req: Record<string, unknown> | undefined): { host: string | null; req: Record<string, unknown> | undefined } {
  if (typeof req?.id === 'string') {
    const { host, id } = splitKey(req.id);
    return { host, req: { ...req, id } };
  }
  // A new order names sessions of one host (the sidebar and the tabs move a session among its host's).
  if (Array.isArray(req?.ids) && typeof req.ids[0] === 'string') {
    const host = hostOf(req.ids[0]);
    const ids = (req.ids as string[]).filter((key) => hostOf(key) === host).map((key) => splitKey(key).id);
    return { host, req: { ...req, ids } };
  }
  return { host: null, req };
}

/** An answer with the host's sessions in it (one, or a list) with each keyed. */
function keyedResult(host: string | null, result: unknown): unknown {
  if (host === null || typeof result !== 'object' || result === null) return result;
  const value = result as { session?: SessionView; sessions?: SessionView[] };
  if (isSession(result)) return keyed(host, result);
  if (isSession(value.session)) return { ...value, session: keyed(host, value.session) };
  if (Array.isArray(value.sessions)) return { ...value, sessions: value.sessions.map((s) => keyed(host, s)) };
  return result;
}

function isSession(value: unknown): value is SessionView {
  const v = value as Partial<SessionView> | undefined;
  return typeof v?.id === 'string' && typeof v.cli === 'string' && typeof v.cwd === 'string';
}

/** The link of a session's host when it is not connected (its sessions are then as last known); null for this machine's and a connected host's. */
export function downLink(key: string, hosts: HostView[]): HostView | null {
  const host = hostOf(key);
  if (host === null) return null;
  const view = hosts.find((h) => h.name === host);
  return view && view.state !== 'connected' ? view : null;
}

/** What a session of a host that is not connected says in place of its state: "reconnecting devbox". */
export function downWords(host: HostView): string {
  if (host.state === 'missing') return `${host.name} is missing ${(host.missing ?? []).map((piece) => piece.what).join(', ')}`;
  if (host.state === 'failed') return `${host.name} failed`;
  return `${host.state} ${host.name}`;
}
