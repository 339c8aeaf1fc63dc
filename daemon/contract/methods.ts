// The contract, as one table: every method a client may call on the engine, with what it
// takes (a schema, checked at every boundary: HTTP, IPC), what it gives back, its HTTP route
// and who may call it. The router, the HTTP client (browser, desktop app through a serve, CLI,
// MCP), the IPC handlers and the preload are all made from this table, and a test holds
// docs/api.md to it. Adding a method is: a row here, the engine method, and its UI.
//
// The HTTP route: path parameters (":id") are the input's fields of that name; the other fields
// are the query (GET, DELETE) or the JSON body (POST, PATCH). The answer's body is the result;
// a method with no result answers `{ ok: true }`.

import { z } from 'zod';
import { CorralError, type ErrorShape } from './errors';
import type { Changes, FileDiff, Landed, PullRequestMade } from './changes';
import type { FolderList, PathPreview } from './files';
import type { UsageReport } from './usage';
import type { CatalogueProblem, CliView, Receipt, SessionEvent, SessionView } from './session';

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

/** A result type carried by the table, for the type checker only. */
export interface Returns<T> {
  readonly result?: T;
}
const returns = <T>(): Returns<T> => ({});

export interface MethodRow {
  /** "VERB /path": also the key of its rule in the access table. */
  http: `${Verb} /${string}`;
  scope: Scope;
  input: z.ZodObject;
  result: Returns<unknown>;
  /** The HTTP status of a success, when not 200. */
  status?: number;
  /** Query fields that are not text (text fields read an absent parameter as ""). */
  query?: Record<string, QueryCodec>;
}

const wholeNumber = (field: string, min: number, max: number) => {
  const message = `${field} must be a whole number from ${min} to ${max}`;
  return z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message });
};

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

/** A path as a terminal printed it: what a preview or a save is asked about. */
const printedPath = (() => {
  const message = `path must be a path of 1 to ${PATH_MAX} characters`;
  return z.string({ error: message }).max(PATH_MAX, { error: message }).refine((p) => p.trim() !== '', { error: message });
})();

const id = z.string();
const session = z.strictObject({ id });

export const METHODS = {
  listClis: {
    http: 'GET /api/clis',
    scope: 'read',
    input: z.strictObject({}),
    result: returns<{ clis: CliView[]; problems: CatalogueProblem[] }>(),
  },
  listSessions: {
    http: 'GET /api/sessions',
    scope: 'read',
    input: z.strictObject({}),
    result: returns<{ sessions: SessionView[] }>(),
  },
  /** Creates the session and starts it. */
  createSession: {
    http: 'POST /api/sessions',
    scope: 'write',
    status: 201,
    input: z.strictObject({
      cli: z.string(),
      cwd: z.string(),
      name: z.string().optional(),
      prompt: z.string().max(PROMPT_MAX).optional(),
      /** A worktree of its own, on a new branch (default `corral/<name>`) from `base` (default: the folder's HEAD). */
      worktree: z.strictObject({ branch: z.string().min(1).max(200).optional(), base: z.string().min(1).max(200).optional() }).optional(),
    }),
    result: returns<SessionView>(),
  },
  /** Puts the sessions in this order (the tab order); ids not named keep their place after. */
  reorderSessions: {
    http: 'POST /api/sessions/order',
    scope: 'write',
    input: z.strictObject({ ids: z.array(z.string()).max(10_000) }),
    result: returns<{ sessions: SessionView[] }>(),
  },
  /** Whether a path can be a session's folder, before anything is created. */
  checkFolder: {
    http: 'GET /api/folder',
    scope: 'read',
    input: z.strictObject({ path: z.string() }),
    result: returns<{ ok: true; path: string } | { ok: false; error: ErrorShape }>(),
  },
  /**
   * The folders inside a folder (`~` is the home folder), for picking a session's folder.
   * Folder names across the disk are not for a viewer: write.
   */
  listFolders: {
    http: 'GET /api/folders',
    scope: 'write',
    input: z.strictObject({ path: z.string().max(PATH_MAX) }),
    result: returns<FolderList>(),
  },
  getSession: {
    http: 'GET /api/sessions/:id',
    scope: 'read',
    input: session,
    result: returns<SessionView>(),
  },
  renameSession: {
    http: 'PATCH /api/sessions/:id',
    scope: 'write',
    input: z.strictObject({ id, name: z.string() }),
    result: returns<SessionView>(),
  },
  /** Refused (409) for a running session unless `force`, which ends it. */
  removeSession: {
    http: 'DELETE /api/sessions/:id',
    scope: 'write',
    input: z.strictObject({ id, force: z.boolean().optional(), worktree: z.enum(['keep', 'remove']).optional(), deleteBranch: z.boolean().optional() }),
    query: { force: flag, deleteBranch: flag },
    result: returns<void>(),
  },
  /** Starts or resumes; a no-op on a session that is already up. */
  startSession: {
    http: 'POST /api/sessions/:id/start',
    scope: 'write',
    input: session,
    result: returns<{ resumed: boolean; session: SessionView }>(),
  },
  stopSession: {
    http: 'POST /api/sessions/:id/stop',
    scope: 'write',
    input: session,
    result: returns<SessionView>(),
  },
  /** Drops the resume key so the next start is clean. */
  forgetKey: {
    http: 'POST /api/sessions/:id/forget-key',
    scope: 'write',
    input: session,
    result: returns<SessionView>(),
  },
  /** Types `text`; with `submit`, Enter follows as its own keystroke once the agent took the text. */
  write: {
    http: 'POST /api/sessions/:id/input',
    scope: 'write',
    input: z.strictObject({ id, text: z.string().max(1_000_000), submit: z.boolean().optional() }),
    result: returns<void>(),
  },
  /** An agent's own hook, with the token it was started with (CORRAL_SESSION_TOKEN). */
  flagAttention: {
    http: 'POST /api/sessions/:id/attention',
    scope: 'own-session',
    input: z.strictObject({ id, message: z.string().max(500).optional() }),
    result: returns<SessionView>(),
  },
  /** Stops it if running (its key stays) and takes it out of the tab strip; nothing is deleted. */
  archiveSession: {
    http: 'POST /api/sessions/:id/archive',
    scope: 'write',
    input: session,
    result: returns<SessionView>(),
  },
  /** Brings an archived session back to the tab strip, stopped. */
  restoreSession: {
    http: 'POST /api/sessions/:id/restore',
    scope: 'write',
    input: session,
    result: returns<SessionView>(),
  },
  /**
   * What a path printed in the session's terminal is, fenced to its folder and the temp folder.
   * A file's text is as sensitive as the terminal that printed its name: write.
   */
  previewPath: {
    http: 'GET /api/sessions/:id/preview',
    scope: 'write',
    input: z.strictObject({ id, path: printedPath }),
    result: returns<PathPreview>(),
  },
  /** Saves edited text over an existing file, under the same fence; `version` comes from the preview. */
  savePath: {
    http: 'POST /api/sessions/:id/save',
    scope: 'write',
    input: z.strictObject({ id, path: printedPath, text: z.string().max(1_000_000), version: z.string().min(1).max(100) }),
    result: returns<{ path: string; bytes: number; version: string }>(),
  },
  /** The last `lines` lines of its terminal (default 50); a stopped session's last output. */
  /** What the session changed: since its worktree's base, or, without one, its folder's uncommitted changes. */
  sessionChanges: {
    http: 'GET /api/sessions/:id/changes',
    scope: 'read',
    input: session,
    result: returns<Changes>(),
  },
  /** One changed file's diff. */
  sessionDiff: {
    http: 'GET /api/sessions/:id/changes/diff',
    scope: 'read',
    input: z.strictObject({ id, path: z.string().min(1).max(PATH_MAX) }),
    result: returns<FileDiff>(),
  },
  /** Comments on lines of the diff, typed into the agent as one message. */
  commentOnChanges: {
    http: 'POST /api/sessions/:id/comments',
    scope: 'write',
    input: z.strictObject({
      id,
      comments: z
        .array(
          z
            .strictObject({ path: z.string().min(1).max(PATH_MAX), startLine: wholeNumber('startLine', 1, 10_000_000), endLine: wholeNumber('endLine', 1, 10_000_000), text: z.string().min(1).max(10_000) })
            .refine((c) => c.endLine >= c.startLine, { message: 'endLine must not be before startLine', path: ['endLine'] }),
        )
        .min(1)
        .max(100),
    }),
    result: returns<void>(),
  },
  /** Merges the session's worktree branch into its base; `message` commits its uncommitted work first. */
  mergeSession: {
    http: 'POST /api/sessions/:id/merge',
    scope: 'write',
    input: z.strictObject({ id, message: z.string().min(1).max(10_000).optional() }),
    result: returns<Landed>(),
  },
  /** Pushes the session's worktree branch and opens a pull request into its base with `gh`. */
  openPullRequest: {
    http: 'POST /api/sessions/:id/pull-request',
    scope: 'write',
    input: z.strictObject({ id, title: z.string().min(1).max(300).optional(), body: z.string().max(60_000).optional(), message: z.string().min(1).max(10_000).optional() }),
    result: returns<PullRequestMade>(),
  },
  /** What every session has cost: per session, project and day (since `since`, epoch ms), totals, quota. */
  usage: {
    http: 'GET /api/usage',
    scope: 'read',
    input: z.strictObject({ since: wholeNumber('since', 0, 8_640_000_000_000_000).optional() }),
    query: { since: count(0, 8_640_000_000_000_000) },
    result: returns<UsageReport>(),
  },
  screen: {
    http: 'GET /api/sessions/:id/screen',
    scope: 'read',
    input: z.strictObject({ id, lines: wholeNumber('lines', 1, SCREEN_LINES_MAX).optional() }),
    query: { lines: count(1, SCREEN_LINES_MAX) },
    result: returns<{ text: string }>(),
  },
  events: {
    http: 'GET /api/sessions/:id/events',
    scope: 'read',
    input: session,
    result: returns<{ events: SessionEvent[] }>(),
  },
  /** The newest receipt, or null when the session never ended a process. */
  receipt: {
    http: 'GET /api/sessions/:id/receipt',
    scope: 'read',
    input: session,
    result: returns<{ receipt: Receipt | null }>(),
  },
} as const satisfies Record<string, MethodRow>;

export type Method = keyof typeof METHODS;
/** What a caller passes (optional fields may be left out). */
export type Request<M extends Method> = z.input<(typeof METHODS)[M]['input']>;
export type Response<M extends Method> = (typeof METHODS)[M]['result'] extends Returns<infer T> ? T : never;
export type HttpEndpoint = (typeof METHODS)[Method]['http'];

/** The engine's methods, as every transport offers them. A method that takes nothing may be called without an argument. */
export type Contract = {
  [M in Method]: Record<never, never> extends Request<M> ? (req?: Request<M>) => Promise<Response<M>> : (req: Request<M>) => Promise<Response<M>>;
};

export const METHOD_NAMES = Object.keys(METHODS) as Method[];

/**
 * Checks a request against its method's schema: the value the engine gets, or a CorralError
 * that names the first field that is wrong.
 */
export function parseRequest<M extends Method>(method: M, value: unknown): Request<M> {
  return parseWith(METHODS[method].input as z.ZodType, value ?? {}) as Request<M>;
}

/** A value checked against a schema, or a CorralError naming the first field that is wrong. */
export function parseWith<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    throw new CorralError('bad_request', `unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`, issue.keys[0]);
  }
  const field = issue.path.join('.') || undefined;
  // Our own messages already name their field.
  const own = field !== undefined && issue.message.startsWith(`${field} `);
  throw new CorralError('bad_request', own ? issue.message : field ? `${field}: ${issue.message}` : `the request: ${issue.message}`, field);
}

/** The path parameters of a route ("/api/sessions/:id/start" → ["id"]). */
export function pathParams(path: string): string[] {
  return path
    .split('/')
    .filter((part) => part.startsWith(':'))
    .map((part) => part.slice(1));
}

/** Whether the method's fields other than the path's travel in the query (else in a JSON body). */
export const inQuery = (verb: string): boolean => verb === 'GET' || verb === 'DELETE';

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
