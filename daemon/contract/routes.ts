// The contract's routes: for each method of the table (methods.ts), its HTTP route, who may call
// it, the status of a success when not 200, and how its query fields are written. They are half
// of each row of the table, kept here because a client needs only them: whoever imports this
// file (the command line, a page) loads no schemas and no zod. methods.ts adds each method's
// schema and result, and is the table everyone else reads.
//
// The HTTP route: path parameters (":id") are the input's fields of that name; the other fields
// are the query (GET, DELETE) or the JSON body (POST, PATCH). The answer's body is the result;
// a method with no result answers `{ ok: true }`.

import { CorralError } from './errors';

/**
 * read: any token but an agent's hook; write: a read-write token; own-session: a read-write
 * token, or the hook token of the session named in the path.
 */
export type Scope = 'read' | 'write' | 'own-session';

type Verb = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** How a query field that is not plain text is written in a URL, and read back. */
export interface QueryCodec {
  encode(value: unknown): string;
  /** The value of the query parameter (null when absent); throws a CorralError naming the field. */
  decode(raw: string | null, field: string): unknown;
}

export interface RouteRow {
  /** "VERB /path": also the key of its rule in the access table. */
  http: `${Verb} /${string}`;
  scope: Scope;
  /** The HTTP status of a success, when not 200. */
  status?: number;
  /** Query fields that are not text (text fields read an absent parameter as ""). */
  query?: Record<string, QueryCodec>;
}

/** `?lines=N` and the like. */
const count = (min: number, max: number): QueryCodec => ({
  encode: (value) => String(value),
  decode: (raw, field) => {
    if (raw === null) return undefined;
    if (!/^\d+$/.test(raw)) throw new CorralError('bad_request', `${field} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`, field);
    return Number(raw);
  },
});

/** `?force=1` or `0`. */
const flag: QueryCodec = {
  encode: (value) => (value ? '1' : '0'),
  decode: (raw, field) => {
    if (raw === null) return undefined;
    if (raw !== '1' && raw !== '0') throw new CorralError('bad_request', `${field} must be 1 or 0`, field);
    return raw === '1';
  },
};

export const SCREEN_LINES_MAX = 10_000;
export const PATH_MAX = 4_096;
/** The longest first prompt a create takes, in characters. */
export const PROMPT_MAX = 100_000;

export const ROUTES = {
  listClis: {
    http: 'GET /api/clis',
    scope: 'read',
  },
  listSessions: {
    http: 'GET /api/sessions',
    scope: 'read',
  },
  /** Creates the session (in a worktree of its own, if asked) and starts it; a first prompt waits for the agent to be ready. */
  createSession: {
    http: 'POST /api/sessions',
    scope: 'write',
    status: 201,
  },
  /** Puts the sessions in this order (the tab order); ids not named keep their place after. */
  reorderSessions: {
    http: 'POST /api/sessions/order',
    scope: 'write',
  },
  /**
   * Whether a path can be a session's folder, before anything is created. Whether paths across
   * the disk are there (and what they are) is not for a viewer: write.
   */
  checkFolder: {
    http: 'GET /api/folder',
    scope: 'write',
  },
  /**
   * The folders inside a folder (`~` is the home folder), for picking a session's folder.
   * Folder names across the disk are not for a viewer: write.
   */
  listFolders: {
    http: 'GET /api/folders',
    scope: 'write',
  },
  getSession: {
    http: 'GET /api/sessions/:id',
    scope: 'read',
  },
  renameSession: {
    http: 'PATCH /api/sessions/:id',
    scope: 'write',
  },
  /**
   * Refused (409) for a running session unless `force`, which ends it, and for one whose worktree
   * holds work unless `worktree` says to keep or remove it.
   */
  removeSession: {
    http: 'DELETE /api/sessions/:id',
    scope: 'write',
    query: { force: flag, deleteBranch: flag },
  },
  /** Starts or resumes; a no-op on a session that is already up. */
  startSession: {
    http: 'POST /api/sessions/:id/start',
    scope: 'write',
  },
  stopSession: {
    http: 'POST /api/sessions/:id/stop',
    scope: 'write',
  },
  /** Drops the resume key so the next start is clean. */
  forgetKey: {
    http: 'POST /api/sessions/:id/forget-key',
    scope: 'write',
  },
  /**
   * Types `text`; with `submit`, Enter follows as its own keystroke once the agent took the text.
   * With `ifAsking` (a needs-you `since`), an answer: typed only while that question still waits.
   */
  write: {
    http: 'POST /api/sessions/:id/input',
    scope: 'write',
  },
  /** An agent's own hook, with the token it was started with (CORRAL_SESSION_TOKEN). */
  flagAttention: {
    http: 'POST /api/sessions/:id/attention',
    scope: 'own-session',
  },
  /** Stops it if running (its key stays) and takes it out of the tab strip; nothing is deleted. */
  archiveSession: {
    http: 'POST /api/sessions/:id/archive',
    scope: 'write',
  },
  /** Brings an archived session back to the tab strip, stopped. */
  restoreSession: {
    http: 'POST /api/sessions/:id/restore',
    scope: 'write',
  },
  /**
   * What a path printed in the session's terminal is, fenced to its folder and the temp folder.
   * A file's text is as sensitive as the terminal that printed its name: write.
   */
  previewPath: {
    http: 'GET /api/sessions/:id/preview',
    scope: 'write',
  },
  /** Saves edited text over an existing file, under the same fence; `version` comes from the preview. */
  savePath: {
    http: 'POST /api/sessions/:id/save',
    scope: 'write',
  },
  /** The last `lines` lines of its terminal (default 50); a stopped session's last output. */
  /** What the session changed: since its worktree's base, or, without one, its folder's uncommitted changes. */
  sessionChanges: {
    http: 'GET /api/sessions/:id/changes',
    scope: 'read',
  },
  /** One changed file's diff: its text, as sensitive as a preview's: write. */
  sessionDiff: {
    http: 'GET /api/sessions/:id/changes/diff',
    scope: 'write',
  },
  /** Comments on lines of the diff, typed into the agent as one message. */
  commentOnChanges: {
    http: 'POST /api/sessions/:id/comments',
    scope: 'write',
  },
  /** Merges the session's worktree branch into its base; `message` commits its uncommitted work first. */
  mergeSession: {
    http: 'POST /api/sessions/:id/merge',
    scope: 'write',
  },
  /** Pushes the session's worktree branch and opens a pull request into its base with `gh`. */
  openPullRequest: {
    http: 'POST /api/sessions/:id/pull-request',
    scope: 'write',
  },
  /** What every session has cost: per session, project and day (since `since`, epoch ms), totals, quota. */
  usage: {
    http: 'GET /api/usage',
    scope: 'read',
    query: { since: count(0, 8_640_000_000_000_000) },
  },
  /** The remote hosts and how each link is doing. */
  listHosts: {
    http: 'GET /api/hosts',
    scope: 'read',
  },
  /** Adds a host reached with the system's ssh, and starts linking to it. */
  addHost: {
    http: 'POST /api/hosts',
    scope: 'write',
    status: 201,
  },
  /** Forgets a host and ends its link; its sessions keep running there. */
  removeHost: {
    http: 'DELETE /api/hosts/:name',
    scope: 'write',
  },
  screen: {
    http: 'GET /api/sessions/:id/screen',
    scope: 'read',
    query: { lines: count(1, SCREEN_LINES_MAX) },
  },
  events: {
    http: 'GET /api/sessions/:id/events',
    scope: 'read',
  },
  /** The newest receipt, or null when the session never ended a process. */
  receipt: {
    http: 'GET /api/sessions/:id/receipt',
    scope: 'read',
  },
} as const satisfies Record<string, RouteRow>;

export type RouteName = keyof typeof ROUTES;

export const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];

/** The path parameters of a route ("/api/sessions/:id/start" → ["id"]). */
export function pathParams(path: string): string[] {
  return path
    .split('/')
    .filter((part) => part.startsWith(':'))
    .map((part) => part.slice(1));
}

/** Whether the method's fields other than the path's travel in the query (else in a JSON body). */
export const inQuery = (verb: string): boolean => verb === 'GET' || verb === 'DELETE';

/** The WebSocket subprotocol; a browser adds its token as a second one, "bearer.<token>". */
export const WS_PROTOCOL = 'corral.v1';

/** 2: acknowledgements count bytes (`bytes`), no longer characters. */
export const PROTOCOL_VERSION = 2;

/**
 * The live streams (WebSockets beside the HTTP API; a MessagePort in the desktop app): who may
 * open each, and what a message needs beyond that (acknowledgements need nothing more). A viewer
 * who may not resize keeps its size to its own view.
 */
export const STREAMS = {
  /** Every session change, for every session; the first frame brings them all. */
  events: { path: '/api/events', scope: 'read', sends: {} },
  /** A session's terminal: its screen first, then live output; input, sizes and acknowledgements in. */
  terminal: { path: '/api/sessions/:id/stream', scope: 'read', sends: { input: 'write', resize: 'write' } },
} as const satisfies Record<string, { path: `/${string}`; scope: Scope; sends: Record<string, Scope> }>;

/** A stream's path for a session. */
export function streamPath(name: keyof typeof STREAMS, id?: string): string {
  return STREAMS[name].path.replace(':id', encodeURIComponent(id ?? ''));
}
